// pretty_print.cpp — (pretty-print obj [port]) and the parameters that shape it: print-length and
// print-level (Chez Scheme's names: elements per list or vector, and nesting levels, shown before
// "..."; #f for no limit) and pretty-print-width (columns). `write` and `display` ignore them, so
// what they print always reads back.
//
// The parameter objects are made per engine (install_builtins runs once per engine) because
// parameterize changes the value stored in the parameter object.
#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "eval/environment.hpp"
#include "read/pretty.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

// The converter of the three parameters: #f or a non-negative exact integer (width: positive).
QUASI_PRIM(p_check_print_limit) {
  Value v = argv[0];
  bool width = std::string_view(self->name) == "pretty-print-width";
  if (v == kFalse && !width) return v;
  if (!v.is_fixnum() || v.fixnum() < (width ? 1 : 0))
    type_error(self->name, width ? "a positive exact integer" : "#f or a non-negative exact integer", v);
  return v;
}

// The current value of one of the parameters, as an option (-1: no limit).
int64_t setting(Vm& vm, const char* name, int64_t fallback) {
  if (!vm.core_env) return fallback;
  Value b = vm.core_env->lookup(intern(name));
  if (!has_type(b, Type::GlobalCell)) return fallback;
  Value param = b.as<GlobalCell>()->value;
  if (!has_type(param, Type::Parameter)) return fallback;
  Value v = parameter_value(vm, param);
  return v.is_fixnum() ? v.fixnum() : fallback;
}

QUASI_PRIM(p_pretty_print) {
  Value port = argc > 1 ? argv[1] : current_output_port(vm);
  if (!is_output_port(port) || !(as_port(port)->flags & kPortTextual))
    type_error("pretty-print", "a textual output port", port);
  PrettyOptions o;
  o.width = setting(vm, "pretty-print-width", 79);
  o.max_length = setting(vm, "print-length", -1);
  o.max_depth = setting(vm, "print-level", -1);
  std::string text;
  pretty_print(text, argv[0], o);
  text += '\n';
  port_write_utf8(port, text);
  return kUnspecified;
}

const PrimDef kPrettyPrims[] = {
    {"pretty-print", p_pretty_print, 1, 2, kEffect},
};

}  // namespace

void register_pretty_primitives(Environment* env) {
  install_primitives(env, kPrettyPrims);
  for (auto [name, init] : {std::pair{"print-length", kFalse}, std::pair{"print-level", kFalse},
                            std::pair{"pretty-print-width", make_fixnum(79)}}) {
    Value check = make_primitive(name, p_check_print_limit, 1, 1, kMayRaise);
    env->define(intern(name), make_parameter(init, check));
  }
}

}  // namespace quasi
