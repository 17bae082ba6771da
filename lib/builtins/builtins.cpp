#include "builtins/registry.hpp"
#include "eval/environment.hpp"

namespace quasi {

void install_primitives(Environment* env, std::span<const PrimDef> defs) {
  for (const PrimDef& d : defs)
    env->define(intern(d.name), make_primitive(d.name, d.fn, d.min_args, d.max_args, d.flags));
}

void install_builtins(Environment* env) {
  register_numeric_primitives(env);
  register_list_primitives(env);
  register_char_string_primitives(env);
  register_vector_primitives(env);
  register_port_primitives(env);
  register_control_primitives(env);
  register_system_primitives(env);
  register_pe_primitives(env);
  register_disasm_primitives(env);
  register_jit_primitives(env);
}

}  // namespace quasi
