// engine.cpp — one engine: its environments, its VM, the prelude, and the translation of
// internal failures into quasi::Error / quasi::Exit (engine_bridge.hpp).
#include <memory>

#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "builtins/system.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "engine_bridge.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "eval/prelude.hpp"
#include "eval/toplevel.hpp"
#include "quasi/error.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::bridge {

struct Engine {
  Vm vm;
  std::unique_ptr<VmImpl> impl;
};

namespace {

Error to_error(Value payload) {
  std::string message = is_condition(payload) ? condition_text(payload)
                                              : "uncaught exception: " + write_to_string(payload, 400);
  std::string location;
  std::vector<std::string> backtrace;
  if (is_condition(payload)) {
    Condition* c = payload.as<Condition>();
    location = SrcLoc::unpack(c->loc).to_string();
    for (Value l = c->backtrace; is_pair(l); l = cdr(l))
      if (is_string(car(l))) backtrace.push_back(string_to_utf8(car(l)));
  }
  return Error(describe_raised(payload), message, location, backtrace);
}

void set_core_global(Engine* e, const char* name, Value v) {
  Value b = e->vm.core_env->lookup(intern(name));
  if (has_type(b, Type::GlobalCell)) b.as<GlobalCell>()->value = v;
}

// After an error reached the top: no frames, no dynamic-wind or handler state left behind.
void recover(Engine* e) {
  e->impl->reset();
  set_core_global(e, "%winders", kNil);
  set_core_global(e, "%handlers", kNil);
}

// Runs `body`, translating every internal way of failing.
template <class F>
uint64_t guarded(Engine* e, F body) {
  try {
    Value v = body();
    flush_standard_ports();
    return v.bits;
  } catch (UncaughtRaise& u) {
    flush_standard_ports();
    recover(e);
    throw to_error(u.payload);
  } catch (SchemeError& s) {
    flush_standard_ports();
    recover(e);
    throw to_error(s.payload);
  } catch (ContinuationJump&) {
    recover(e);
    throw Error("error: a continuation escaped from its C++ call", "a continuation escaped from its C++ call", "", {});
  } catch (ExitRequest& x) {
    if (!x.emergency) {
      // Leave every dynamic-wind extent before exiting, as R7RS `exit` requires.
      Value rewind = e->vm.core_env->lookup(intern("%rewind-to"));
      e->impl->reset();
      if (has_type(rewind, Type::GlobalCell) && is_procedure(rewind.as<GlobalCell>()->value)) {
        try {
          Value target = kNil;
          e->vm.apply(rewind.as<GlobalCell>()->value, 1, &target);
        } catch (...) {
        }
      }
      flush_standard_ports();
    }
    recover(e);
    throw Exit(x.status);
  } catch (std::bad_alloc&) {
    recover(e);
    throw Error("error: out of memory", "out of memory", "", {});
  }
}

}  // namespace

Engine* create_engine() {
  gc_init();
  auto* e = new Engine;
  e->impl = std::make_unique<VmImpl>(&e->vm);
  e->vm.impl = e->impl.get();
  Environment* core = make_environment(list({intern("quasi"), intern("core")}));
  e->vm.core_env = core;
  e->vm.env_roots.set(list({make_ptr(core)}));
  install_builtins(core);
  register_toplevel_primitives(core);
  install_special_forms(core);
  e->impl->register_inline_ops(core);
  e->impl->raise_cell = core->cell_for(intern("raise"));
  e->impl->roots.push_back(e->impl->raise_cell);
  e->vm.interaction_env = core;  // while the prelude loads
  try {
    for (int i = 0; kPreludeFiles[i].name; i++)
      eval_source(e->vm, kPreludeFiles[i].text, std::string("prelude/") + kPreludeFiles[i].name, core);
  } catch (UncaughtRaise& u) {
    throw to_error(u.payload);
  } catch (SchemeError& s) {
    throw to_error(s.payload);
  }
  Environment* user = make_environment(kFalse);
  for (auto& [sym, binding] : *core->table) user->bind(sym, binding);
  e->vm.interaction_env = user;
  e->vm.env_roots.set(list({make_ptr(core), make_ptr(user)}));
  return e;
}

void destroy_engine(Engine* e) { delete e; }

uint64_t eval(Engine* e, std::string_view code, std::string_view source_name) {
  return guarded(e, [&] { return eval_source(e->vm, code, std::string(source_name), e->vm.interaction_env); });
}

uint64_t load(Engine* e, const std::string& path) {
  return guarded(e, [&] { return load_file(e->vm, path, e->vm.interaction_env); });
}

bool input_incomplete(std::string_view code) { return datum_incomplete(code); }

void set_command_line(Engine* e, const std::vector<std::string>& args) {
  Value l = kNil;
  for (auto it = args.rbegin(); it != args.rend(); ++it) l = cons(make_string_utf8(*it), l);
  e->vm.command_line.set(l);
}

void interrupt(Engine* e) { e->vm.interrupt_requested.store(true); }

uint64_t* new_root(uint64_t raw) {
  gc_init();
  auto* s = static_cast<uint64_t*>(GC_MALLOC_UNCOLLECTABLE(sizeof(uint64_t)));
  *s = raw;
  return s;
}
void free_root(uint64_t* slot) { GC_FREE(slot); }

std::string write(uint64_t raw, bool display) {
  Value v{raw};
  if (has_type(v, Type::Values)) {
    std::string out;
    MultipleValues* mv = v.as<MultipleValues>();
    for (int64_t i = 0; i < mv->count(); i++) {
      if (i) out += "\n";
      out += display ? display_to_string(mv->items()[i]) : write_to_string(mv->items()[i]);
    }
    return out;
  }
  return display ? display_to_string(v) : write_to_string(v);
}

bool is_unspecified(uint64_t raw) {
  Value v{raw};
  return v == kUnspecified || (has_type(v, Type::Values) && v.as<MultipleValues>()->count() == 0);
}
bool is_number(uint64_t raw) { return quasi::is_number(Value{raw}); }
bool is_string(uint64_t raw) { return quasi::is_string(Value{raw}); }
bool is_procedure(uint64_t raw) { return quasi::is_procedure(Value{raw}); }

int64_t as_int(uint64_t raw) {
  int64_t n;
  if (!integer_to_int64(Value{raw}, &n))
    throw Error("error: as_int: not an exact integer in range", "as_int: not an exact integer in range", "", {});
  return n;
}
double as_double(uint64_t raw) {
  if (!quasi::is_number(Value{raw})) throw Error("error: as_double: not a number", "as_double: not a number", "", {});
  return number_to_double(Value{raw});
}
std::string as_string(uint64_t raw) {
  if (!quasi::is_string(Value{raw})) throw Error("error: as_string: not a string", "as_string: not a string", "", {});
  return string_to_utf8(Value{raw});
}

}  // namespace quasi::bridge
