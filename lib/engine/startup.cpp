// startup.cpp — the one list of what an engine registers at start-up: every table of primitives,
// from every layer, in order. Owner: ir. Lower layers never register upper layers' primitives.
#include "engine/startup.hpp"

#include "ad/ad.hpp"
#include "builtins/registry.hpp"
#include "eval/environment.hpp"
#include "jit/jit.hpp"
#include "pe/pe.hpp"
#include "vm/vm.hpp"

namespace quasi {

void install_builtins(Environment* env) {
  register_numeric_primitives(env);
  register_list_primitives(env);
  register_char_string_primitives(env);
  register_vector_primitives(env);
  register_port_primitives(env);
  register_control_primitives(env);
  register_system_primitives(env);
  register_pe_primitives(env);
  register_ad_primitives(env);
  register_disasm_primitives(env);
  register_jit_primitives(env);
  register_pretty_primitives(env);
  register_syntax_primitives(env);
  register_hashtable_primitives(env);
  register_egraph_primitives(env);
  register_introspection_primitives(env);
}

}  // namespace quasi
