#include "eval/environment.hpp"


namespace quasi {

Environment* make_environment(Value name) {
  Environment* e = gc_alloc_object<Environment>(Type::Environment, sizeof(Environment));
  e->name = name;
  e->table = gc_new<Environment::Table>();
  e->mutable_ = true;
  e->redefined = kNil;
  e->compiled = nullptr;
  return e;
}

bool is_internal_name(Value sym) { return is_symbol(sym) && symbol_name(sym)[0] == '%'; }

void install_primitives(Environment* env, std::span<const PrimDef> defs) {
  for (const PrimDef& d : defs)
  {
    Value prim = make_primitive(d.name, d.fn, d.min_args, d.max_args, d.flags);
    prim.as<Primitive>()->facts = d.facts;
    prim.as<Primitive>()->vm_op = d.facts.vm_op;
    Value cell = env->define_cell(intern(d.name));
    env->define(intern(d.name), prim);
    // Compiled code inlines this builtin: writing its cell must turn the inline paths off.
    if (d.facts.inline_op != InlineOp::kNone) cell.obj()->header |= kInlinedCell;
  }
}

Value Environment::lookup(Value sym) const {
  auto it = table->find(sym);
  return it == table->end() ? kUnbound : it->second;
}

Value Environment::cell_for(Value sym) {
  auto it = table->find(sym);
  if (it != table->end() && has_type(it->second, Type::GlobalCell)) return it->second;
  Value cell = make_global_cell(sym);
  cell.as<GlobalCell>()->owner = make_ptr(this);
  (*table)[sym] = cell;
  return cell;
}

Value Environment::define_cell(Value sym) {
  auto it = table->find(sym);
  bool imported = it != table->end() && has_type(it->second, Type::GlobalCell);
  if (imported && it->second.as<GlobalCell>()->owner == make_ptr(this)) return it->second;
  Value cell = make_global_cell(sym);
  cell.as<GlobalCell>()->owner = make_ptr(this);
  if (imported) redefined = cons(cons(it->second, cell), redefined);
  (*table)[sym] = cell;
  return cell;
}

void Environment::bind(Value sym, Value binding) { (*table)[sym] = binding; }

void Environment::define(Value sym, Value v) {
  Value cell = define_cell(sym);
  cell.as<GlobalCell>()->value = v;
  if ((cell.obj()->header & kWatchedCell) && watched_cell_written) watched_cell_written(cell);
}

}  // namespace quasi
