#include "core/procedure.hpp"
#include "core/redirections.hpp"

namespace quasi {

std::string procedure_name(Value proc) {
  if (is_closure(proc)) {
    Value n = proc.as<Closure>()->proto->name;
    return is_symbol(n) ? symbol_name(n) : "";
  }
  if (is_primitive(proc)) return proc.as<Primitive>()->name;
  return "";
}

bool is_procedure(Value v) {
  if (!v.is_ptr()) return false;
  Type t = v.obj()->type();
  return t == Type::Closure || t == Type::Primitive || t == Type::Continuation || t == Type::Parameter;
}

uint64_t code_redirections = 0;

}  // namespace quasi
