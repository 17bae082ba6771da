#include "eval/environment.hpp"

namespace quasi {

Environment* make_environment(Value name) {
  Environment* e = gc_alloc_object<Environment>(Type::Environment, sizeof(Environment));
  e->name = name;
  e->table = gc_new<Environment::Table>();
  e->mutable_ = true;
  return e;
}

Value Environment::lookup(Value sym) const {
  auto it = table->find(sym);
  return it == table->end() ? kUnbound : it->second;
}

Value Environment::cell_for(Value sym) {
  auto it = table->find(sym);
  if (it != table->end() && has_type(it->second, Type::GlobalCell)) return it->second;
  Value cell = make_global_cell(sym);
  (*table)[sym] = cell;
  return cell;
}

void Environment::bind(Value sym, Value binding) { (*table)[sym] = binding; }

void Environment::define(Value sym, Value v) { cell_for(sym).as<GlobalCell>()->value = v; }

}  // namespace quasi
