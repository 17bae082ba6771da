// primitives.cpp — the JIT seen from Scheme: (jit-mode [mode]), (jit-compiled? proc),
// (jit-compile! proc), (jit-disassemble proc), (jit-log [bool]).
#include "core/error.hpp"
#include "eval/environment.hpp"
#include "jit/jit.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

namespace {

Proto* proto_of(const char* who, Value proc) {
  if (!is_closure(proc)) type_error(who, "a compiled procedure (not a primitive)", proc);
  return proc.as<Closure>()->proto;
}

// (jit-mode) returns the mode; (jit-mode 'off|'on|'force) sets it and returns the old one.
QUASI_PRIM(p_jit_mode) {
  VmImpl& impl = *vm.impl;
  Value old = intern(jit_mode_name(impl.jit.mode));
  if (argc == 1) {
    JitMode m;
    if (!is_symbol(argv[0]) || !parse_jit_mode(symbol_name(argv[0]), &m))
      type_error("jit-mode", "one of the symbols off, on, force", argv[0]);
    impl.set_jit_mode(m);
  }
  return old;
}

QUASI_PRIM(p_jit_compiled_p) {
  if (!is_closure(argv[0])) return kFalse;
  return make_bool(argv[0].as<Closure>()->proto->jit != nullptr);
}

// Compiles now, whatever the mode; #t when every clause got machine code.
QUASI_PRIM(p_jit_compile) {
  Proto* p = proto_of("jit-compile!", argv[0]);
  bool all = true;
  for (Proto* c = p; c; c = c->next_clause) all = jit_compile(*vm.impl, c, "requested") && all;
  return make_bool(all);
}

QUASI_PRIM(p_jit_disassemble) {
  return make_string_utf8(jit_disassemble(*vm.impl, proto_of("jit-disassemble", argv[0])));
}

// (jit-log) returns whether compilations are reported on stderr; (jit-log #t) turns it on.
QUASI_PRIM(p_jit_log) {
  Value old = make_bool(jit_log_enabled());
  if (argc == 1) set_jit_log(argv[0].is_true());
  return old;
}

const PrimDef kJitPrims[] = {
    {"jit-mode", p_jit_mode, 0, 1, kEffect},
    {"jit-compiled?", p_jit_compiled_p, 1, 1, kHasEffects},
    {"jit-compile!", p_jit_compile, 1, 1, kEffect},
    {"jit-disassemble", p_jit_disassemble, 1, 1, kEffect | kAllocates},
    {"jit-log", p_jit_log, 0, 1, kEffect},
};

}  // namespace

void register_jit_primitives(Environment* env) { install_primitives(env, kJitPrims); }

}  // namespace quasi
