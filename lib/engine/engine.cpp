// engine.cpp — one engine: its environments, its VM, the prelude, the sandbox, host procedures and
// foreign objects, and the translation of internal failures into quasi::Error / quasi::Exit
// (engine_bridge.hpp).
//
// Invariants:
//  - An engine is used by one thread at a time. Entry (below) claims it for the calling thread for
//    the length of the call, so a second thread gets an error instead of a data race; the same
//    thread may re-enter (a host procedure calling back into the engine).
//  - Only the outermost entry starts the resource budgets, flushes output and, after an error,
//    resets the VM. A nested entry leaves the VM to the run loop below it.
//  - No C++ exception other than the engine's own (SchemeError, UncaughtRaise, ContinuationJump,
//    ExitRequest) leaves a host procedure: host_trampoline turns the others into Scheme errors.
#include <cxxabi.h>

#include <algorithm>
#include <cstring>
#include <atomic>
#include <memory>
#include <optional>
#include <stdexcept>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "builtins/hashtables.hpp"
#include "builtins/port.hpp"
#include "builtins/registry.hpp"
#include "builtins/system.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"
#include "core/foreign.hpp"
#include "core/gc_threads.hpp"
#include "core/numbers.hpp"
#include "engine/autoload.hpp"
#include "engine/engine_bridge.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "eval/embedded.hpp"
#include "engine/redefinition.hpp"
#include "engine/toplevel.hpp"
#include "engine/dump.hpp"
#include "engine/library.hpp"
#include "engine/startup.hpp"
#include "passes/pass_manager.hpp"
#include "quasi/error.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::bridge {

struct Engine {
  Vm vm;
  std::unique_ptr<VmImpl> impl;
  EngineConfig config;
  std::atomic<std::thread::id> owner{};  // thread inside the engine, or none
  int depth = 0;                         // nested entries of the owner thread
  std::unordered_map<const void*, std::string> type_names;  // foreign types
  PassOptions pass_options = PassOptions::from_environment();  // QUASI_PASSES, read once
  LazyPrelude lazy_prelude;  // the prelude files loaded on first use (engine/autoload.hpp)
};

// ---- threads -------------------------------------------------------------------------------------

namespace {
// Registered with the collector by attach_thread; unregistered when the thread exits. A thread the
// collector already knew (one the host registered itself) is left alone. The thread that
// initializes the collector is registered by GC_INIT; it is ours too (Boehm allows unregistering
// that one once), so a worker thread that happens to start the first engine does not leave a
// dead thread behind for the collector to signal.
struct ThreadAttachment {
  bool checked = false;
  bool registered_here = false;
  ~ThreadAttachment() {
    if (registered_here) GC_unregister_my_thread();
  }
};
thread_local ThreadAttachment tls_attachment;
}  // namespace

void attach_thread() {
  ThreadAttachment& a = tls_attachment;
  if (a.checked) return;
  bool initialized_before = GC_is_init_called();
  gc_init();
  a.checked = true;
  if (GC_thread_is_registered()) {
    a.registered_here = !initialized_before;  // GC_INIT ran on this thread
    return;
  }
  if (gc_one_thread()) {
    a.checked = false;
    throw std::logic_error("quasi: this process uses engines from one thread only (single_thread_process)");
  }
  GC_stack_base base;
  if (GC_get_stack_base(&base) != GC_SUCCESS) throw std::runtime_error("quasi: cannot find this thread's stack");
  if (GC_register_my_thread(&base) == GC_SUCCESS) a.registered_here = true;
}

namespace {

// ---- errors ----------------------------------------------------------------------------------------

std::shared_ptr<void> keep_alive(Value v) {
  return std::shared_ptr<void>(new_root(v.bits), [](void* slot) { free_root(static_cast<Word*>(slot)); });
}

Error to_error(Value payload, SrcLoc where = {}) {
  std::string kind = "raise", message, location;
  std::vector<std::string> irritants, backtrace;
  std::vector<Error::Frame> frames;
  size_t frame_count = 0;
  if (is_condition(payload)) {
    Condition* c = payload.as<Condition>();
    kind = is_symbol(c->kind) ? symbol_name(c->kind) : "error";
    if (is_symbol(c->who)) message = std::string(symbol_name(c->who)) + ": ";
    message += is_string(c->message) ? string_to_utf8(c->message) : write_to_string(c->message, 200);
    for (Value l = c->irritants; is_pair(l); l = cdr(l)) irritants.push_back(write_to_string(car(l), 200));
    location = SrcLoc::unpack(c->loc).to_string();
    if (is_vector(c->backtrace)) {  // #(total #(name location arguments internal? rest?) ...)
      Vector* bt = c->backtrace.as<Vector>();
      frame_count = size_t(bt->items()[0].fixnum());
      for (int64_t i = 1; i < bt->length(); i++) {
        Value* r = bt->items()[i].as<Vector>()->items();
        Error::Frame f;
        f.procedure = is_string(r[0]) ? string_to_utf8(r[0]) : "";
        f.location = is_string(r[1]) ? string_to_utf8(r[1]) : "";
        for (Value a = r[2]; is_pair(a); a = cdr(a)) {
          Value name = car(car(a));
          f.parameters.push_back(is_symbol(name) ? symbol_name(name) : "");
          f.arguments.push_back(write_to_string(cdr(car(a)), 60));
        }
        f.internal = r[3] == kTrue;
        // A rest list (the record's 5th slot says the last argument is one): its elements.
        if (r[4] == kTrue && !f.arguments.empty()) {
          constexpr int kMaxRest = 8;
          Value l = r[2];
          while (is_pair(cdr(l))) l = cdr(l);
          f.has_rest = true;
          Value e = cdr(car(l));
          for (int k = 0; is_pair(e); e = cdr(e), k++) {
            if (k == kMaxRest) {
              f.rest_more = true;
              break;
            }
            f.rest.push_back(write_to_string(car(e), 60));
          }
          if (!is_pair(e) && e != kNil) f.has_rest = false;  // not a list after all: show it whole
        }
        backtrace.push_back(f.procedure.empty() ? "#<procedure>" : f.procedure);
        frames.push_back(std::move(f));
      }
    }
  } else {
    message = "uncaught exception: " + write_to_string(payload, 400);
    irritants.push_back(write_to_string(payload, 200));
    location = where.to_string();
  }
  std::string full = describe_raised(payload);
  if (!is_condition(payload) && where.known()) full = location + ": " + full;
  return Error(full, kind, message, irritants, location, backtrace, keep_alive(payload), std::move(frames),
               frame_count);
}

Error plain_error(const std::string& kind, const std::string& message) {
  return Error("error: " + message, kind, message, {}, "", {});
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

// Claims the engine for the calling thread for the length of one API call.
class Entry {
 public:
  explicit Entry(Engine* e) : e_(e) {
    attach_thread();
    std::thread::id me = std::this_thread::get_id();
    if (e->owner.load() != me) {
      std::thread::id none{};
      if (!e->owner.compare_exchange_strong(none, me))
        throw plain_error("error", "this engine is being used by another thread");
    }
    outer_ = e->depth++ == 0;
  }
  ~Entry() {
    if (--e_->depth == 0) e_->owner.store(std::thread::id{});
  }
  bool outer() const { return outer_; }

 private:
  Engine* e_;
  bool outer_;
};

// Runs `body` (an evaluation), translating every internal way of failing.
template <class F>
Word guarded(Engine* e, F body) {
  Entry entry(e);
  bool outer = entry.outer();
  if (outer) e->vm.begin_evaluation();
  else if (e->vm.limit_error.get() != kFalse) throw to_error(e->vm.limit_error.get());  // stopped
  try {
    Value v;
    {
      // Ends before the handlers below run: their own allocations must not raise the limit again.
      std::optional<LimitScope> limits;
      if (outer) limits.emplace(&e->vm);
      v = body();
    }
    if (outer) flush_vm_ports(e->vm);
    return v.bits;
  } catch (UncaughtRaise& u) {
    if (outer) {
      flush_vm_ports(e->vm);
      recover(e);
    }
    throw to_error(u.payload, u.where);
  } catch (SchemeError& s) {
    if (outer) {
      flush_vm_ports(e->vm);
      recover(e);
    }
    throw to_error(s.payload);
  } catch (ContinuationJump&) {
    if (!outer) throw;  // to the run loop that owns the continuation
    recover(e);
    throw plain_error("error", "a continuation escaped from its C++ call");
  } catch (ExitRequest& x) {
    if (!outer) throw Exit(x.status);  // host_trampoline turns it back into an ExitRequest
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
      flush_vm_ports(e->vm);
    }
    recover(e);
    throw Exit(x.status);
  } catch (std::bad_alloc&) {
    if (outer) recover(e);
    throw plain_error("memory", "out of memory");
  }
}

// ---- host procedures -----------------------------------------------------------------------------

struct HostProc {
  HostInvoke fn;
  void* ctx;
  void (*release)(void* ctx);
  // followed by the procedure's name, NUL-terminated
};

void host_proc_finalizer(void* obj, void*) {
  auto* hp = static_cast<HostProc*>(obj);
  if (hp->release) hp->release(hp->ctx);
  hp->release = nullptr;
}

bool condition_of_kind(Value v, const char* kind) {
  return is_condition(v) && v.as<Condition>()->kind == intern(kind);
}

// The Primitive function of every host procedure: calls the host and turns what it throws into
// Scheme errors at this boundary, so no foreign exception unwinds through the VM.
Value host_trampoline(Vm& vm, Primitive* self, int argc, Value* argv) {
  auto* hp = static_cast<HostProc*>(self->data);
  try {
    static_assert(sizeof(Value) == sizeof(Word));
    Value result{hp->fn(hp->ctx, argc, reinterpret_cast<const Word*>(argv))};
    // A limit stopped Scheme code the host called, and the host went on: stop here too.
    if (vm.limit_error.get() != kFalse) throw UncaughtRaise{vm.limit_error.get(), SrcLoc{}};
    return result;
  } catch (SchemeError&) {
    throw;
  } catch (UncaughtRaise&) {
    throw;
  } catch (ContinuationJump&) {
    throw;
  } catch (ExitRequest&) {
    throw;
  } catch (abi::__forced_unwind&) {
    throw;  // thread cancellation must go on
  } catch (const Error& err) {
    if (const auto* slot = static_cast<const Word*>(err.payload().get())) {
      Value payload{*slot};
      // A limit stays out of reach of Scheme handlers; anything else is raised again here.
      if (condition_of_kind(payload, "limit")) throw UncaughtRaise{payload, SrcLoc{}};
      throw SchemeError{payload};
    }
    throw_condition(err.kind().empty() ? "error" : err.kind().c_str(), self->name, err.message());
  } catch (const Exit& x) {
    throw ExitRequest{x.status(), false};
  } catch (const std::exception& ex) {
    throw_condition("error", self->name, ex.what());
  } catch (...) {
    throw_condition("error", self->name, "unknown C++ exception");
  }
}

// ---- sandbox ---------------------------------------------------------------------------------------

QUASI_PRIM(p_denied) {
  const char* kind = static_cast<const char*>(self->data);
  std::string what = std::string(symbol_name(self->data_value));
  throw_condition(kind, self->name, what + " is disabled in this engine");
}

// Replaces `name` (a procedure or a keyword) in both environments by a procedure that raises.
void deny(Engine* e, Environment* user, const char* name, const char* kind, const char* what) {
  Value sym = intern(name);
  Value prim = make_primitive(name, p_denied, 0, -1, kEffect, const_cast<char*>(kind), intern(what));
  Value b = e->vm.core_env->lookup(sym);
  // A deferred prelude file defining the name would overwrite the denial when it loads: load it
  // first (a sandboxed engine pays for the file at start-up).
  autoload_binding(e->vm, b);
  if (has_type(b, Type::GlobalCell)) {
    b.as<GlobalCell>()->value = prim;  // shared by the user environment and the prelude
    return;
  }
  Value cell = make_global_cell(sym);
  cell.as<GlobalCell>()->value = prim;
  cell.as<GlobalCell>()->owner = make_ptr(e->vm.core_env);
  e->vm.core_env->bind(sym, cell);
  user->bind(sym, cell);
}

void apply_sandbox(Engine* e, Environment* user) {
  const EngineConfig& c = e->config;
  e->vm.allow_files = c.allow_files;
  if (!c.allow_files)
    for (const char* n : {"open-input-file", "open-binary-input-file", "open-output-file",
                          "open-binary-output-file", "file-exists?", "delete-file", "load",
                          "call-with-input-file", "call-with-output-file", "with-input-from-file",
                          "with-output-to-file", "include", "include-ci"})
      deny(e, user, n, "file", "file access");
  if (!c.allow_files) {
    // The process's standard input is the host's: a sandboxed script reads an empty port.
    Value io = e->vm.stdio.get();
    Value empty = make_utf8_input_port("", "<stdin>");
    io.as<Vector>()->items()[0] = empty;
    io.as<Vector>()->items()[3].as<Parameter>()->value = empty;
  }
  // jit-log switches a process-wide setting, which is the host's to choose.
  if (!c.allow_process)
    for (const char* n : {"exit", "emergency-exit", "jit-log"}) deny(e, user, n, "error", "process control");
  if (!c.allow_environment)
    for (const char* n : {"get-environment-variable", "get-environment-variables"})
      deny(e, user, n, "error", "environment access");
}

// ---- foreign objects -------------------------------------------------------------------------------

void foreign_finalizer(void* obj, void*) {
  Foreign* f = static_cast<Foreign*>(obj);
  if (f->holder && f->release) f->release(f->holder);
  f->holder = nullptr;
}

}  // namespace

// ---- engines -----------------------------------------------------------------------------------------

Engine* create_engine(const EngineConfig& config) {
  attach_thread();
  auto e = std::make_unique<Engine>();
  e->config = config;
  e->impl = std::make_unique<VmImpl>(&e->vm);
  e->vm.impl = e->impl.get();
  if (config.jit_mode >= 0) e->impl->set_jit_mode(JitMode(config.jit_mode));
  if (config.jit_log) set_jit_log(true);
  e->vm.pass_options = &e->pass_options;
  e->vm.library_path = config.library_path;
  e->vm.library_path_after = config.library_path_after;
  Environment* core = make_environment(list({intern("quasi"), intern("core")}));
  e->vm.core_env = core;
  e->vm.env_roots.set(list({make_ptr(core)}));
  install_builtins(core);
  install_standard_ports(e->vm, core);
  register_toplevel_primitives(core);
  install_special_forms(core);
  e->impl->raise_cell = core->cell_for(intern("%raise"));
  e->impl->winders_cell = core->cell_for(intern("%winders"));
  e->impl->handlers_cell = core->cell_for(intern("%handlers"));
  e->impl->wind_continue_cell = core->cell_for(intern("%wind-and-continue"));
  e->impl->parameter_assign_cell = core->cell_for(intern("%parameter-assign"));
  e->impl->roots.push_back(e->impl->parameter_assign_cell);
  e->impl->roots.push_back(e->impl->winders_cell);
  e->impl->roots.push_back(e->impl->handlers_cell);
  e->impl->roots.push_back(e->impl->wind_continue_cell);
  e->impl->roots.push_back(e->impl->raise_cell);
  e->vm.interaction_env = core;  // while the prelude loads (without limits)
  try {
    e->vm.lazy_prelude = &e->lazy_prelude;
    for (int i = 0; kPreludeFiles[i].name; i++) {
      if (defer_prelude_file(e->vm, kPreludeFiles[i].name, kPreludeFiles[i].text)) continue;
      eval_source(e->vm, kPreludeFiles[i].text, std::string("prelude/") + kPreludeFiles[i].name, core);
    }
  } catch (UncaughtRaise& u) {
    throw to_error(u.payload, u.where);
  } catch (SchemeError& s) {
    throw to_error(s.payload);
  }
  set_limits(e.get(), config.step_limit, config.time_limit_ns, config.alloc_limit);
  Environment* user = make_environment(kFalse);
  for (auto& [sym, binding] : *core->table)
    if (!is_internal_name(sym)) user->bind(sym, binding);
  e->vm.interaction_env = user;
  e->vm.env_roots.set(list({make_ptr(core), make_ptr(user)}));
  apply_sandbox(e.get(), user);
  // After the prelude: warnings are about the host's and the user's code.
  e->vm.warning_kinds = config.warning_kinds;
  e->vm.on_warning = config.on_warning;
  return e.release();
}

void destroy_engine(Engine* e) {
  if (!e) return;
  attach_thread();
  flush_vm_ports(e->vm);
  delete e;
}

void set_limits(Engine* e, uint64_t steps, int64_t time_ns, uint64_t alloc_bytes) {
  e->vm.step_limit = steps;
  e->vm.time_limit_ns = time_ns;
  e->vm.alloc_limit = alloc_bytes;
}

Word eval(Engine* e, std::string_view code, std::string_view source_name) {
  return guarded(e, [&] { return eval_source(e->vm, code, std::string(source_name), e->vm.interaction_env); });
}

Word eval_each(Engine* e, std::string_view code, std::string_view source_name, ValueSink sink, void* ctx) {
  return guarded(e, [&] {
    return eval_source(e->vm, code, std::string(source_name), e->vm.interaction_env,
                       [&](Value v) { sink(ctx, v.bits); });
  });
}

Word load(Engine* e, const std::string& path) {
  return guarded(e, [&] { return load_file(e->vm, path, e->vm.interaction_env); });
}

Word run_program(Engine* e, std::string_view code, std::string_view source_name) {
  return guarded(e, [&] { return quasi::run_program(e->vm, code, std::string(source_name)); });
}

Word run_program_file(Engine* e, const std::string& path) {
  return guarded(e, [&] {
    std::string text;
    if (!read_source_text(path, true, &text))
      throw_condition("file", "run-program", "cannot open file", list({make_string_utf8(path)}));
    return quasi::run_program(e->vm, text, path);
  });
}

Word apply(Engine* e, Word proc, int argc, const Word* argv) {
  return guarded(e, [&] {
    Value p{proc};
    if (!is_procedure(p)) type_error("call", "a procedure", p);
    return e->vm.apply(p, argc, reinterpret_cast<const Value*>(argv));
  });
}

// ---- environments and libraries --------------------------------------------------------------------

namespace {
// The environment a bridge call names: 0 is the engine's interaction environment.
Environment* env_of(Engine* e, Word env) { return env ? Value{env}.as<Environment>() : e->vm.interaction_env; }

// The datums of `text` as a list (library names, import sets written by the host).
Value read_data(std::string_view text) {
  StringSource src(text, 0);
  Reader reader(src);
  Value items = kNil;
  for (Value d = reader.read(); d != kEof; d = reader.read()) items = cons(d, items);
  return reverse_list(items);
}

Value read_one_datum(std::string_view text, const char* what) {
  Value items = read_data(text);
  if (!is_pair(items) || cdr(items) != kNil)
    throw_condition("error", what, "expected one datum, got " + std::string(text));
  return car(items);
}
}  // namespace

bool lookup_global(Engine* e, std::string_view name, Word* out) { return lookup_in(e, 0, name, out); }
void define_global(Engine* e, std::string_view name, Word value) { define_in(e, 0, name, value); }
std::vector<std::string> global_names(Engine* e, std::string_view prefix) { return names_in(e, 0, prefix); }

bool lookup_in(Engine* e, Word env, std::string_view name, Word* out) {
  Entry entry(e);
  Value b = env_of(e, env)->lookup(intern(name));
  autoload_binding(e->vm, b);
  if (!has_type(b, Type::GlobalCell) || b.as<GlobalCell>()->value == kUnbound) return false;
  *out = b.as<GlobalCell>()->value.bits;
  return true;
}

void define_in(Engine* e, Word env, std::string_view name, Word value) {
  Entry entry(e);
  Environment* target = env_of(e, env);
  Value v{value};
  Value sym = intern(name);
  Value b = target->lookup(sym);
  // A binding the environment owns is assigned (through the VM's write barrier, so code that
  // inlined or depends on it sees the change); anything else gets a new definition.
  if (has_type(b, Type::GlobalCell) && b.as<GlobalCell>()->owner == make_ptr(target)) {
    e->impl->cell_written(b, v);
    return;
  }
  target->define(sym, v);
  apply_redefinitions(target);
}

std::vector<std::string> names_in(Engine* e, Word env, std::string_view prefix) {
  Entry entry(e);
  bool internals = !prefix.empty() && prefix.front() == '%';
  std::vector<std::string> names;
  for (const auto& [sym, binding] : *env_of(e, env)->table) {
    if (has_type(binding, Type::GlobalCell) && binding.as<GlobalCell>()->value == kUnbound &&
        !(binding.obj()->header & kAutoloadCell))
      continue;
    std::string_view name = quasi::symbol_name(sym);
    if (name.substr(0, prefix.size()) != prefix) continue;
    if (!internals && !name.empty() && name.front() == '%') continue;
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> defined_names(Engine* e, Word env) {
  Entry entry(e);
  Environment* target = env_of(e, env);
  std::vector<std::string> names;
  for (const auto& [sym, binding] : *target->table)
    if (has_type(binding, Type::GlobalCell) && binding.as<GlobalCell>()->owner == make_ptr(target) &&
        binding.as<GlobalCell>()->value != kUnbound)
      names.emplace_back(quasi::symbol_name(sym));
  std::sort(names.begin(), names.end());
  return names;
}

Word eval_in(Engine* e, Word env, std::string_view code, std::string_view source_name) {
  return guarded(e, [&] { return eval_source(e->vm, code, std::string(source_name), env_of(e, env)); });
}

Word load_in(Engine* e, Word env, const std::string& path) {
  return guarded(e, [&] { return load_file(e->vm, path, env_of(e, env)); });
}

Word make_environment(Engine* e, std::string_view import_sets) {
  return guarded(e, [&] { return make_ptr(environment_from_imports(e->vm, read_data(import_sets), kFalse)); });
}

void register_library(Engine* e, std::string_view name, Word env, const std::vector<std::string>& exports) {
  guarded(e, [&] {
    Value l = kNil;
    for (auto it = exports.rbegin(); it != exports.rend(); ++it) l = cons(intern(*it), l);
    quasi::register_library(e->vm, read_one_datum(name, "define-library"), env_of(e, env), l);
    return kUnspecified;
  });
}

void set_allowed_libraries(Engine* e, const std::vector<std::string>* names) {
  guarded(e, [&] {
    Value l = kFalse;
    if (names) {
      l = kNil;
      for (auto it = names->rbegin(); it != names->rend(); ++it) l = cons(read_one_datum(*it, "allowed-libraries"), l);
    }
    e->vm.library_allow.set(l);
    return kUnspecified;
  });
}

bool input_incomplete(std::string_view code) { return datum_incomplete(code); }

void set_command_line(Engine* e, const std::vector<std::string>& args) {
  Entry entry(e);
  Value l = kNil;
  for (auto it = args.rbegin(); it != args.rend(); ++it) l = cons(make_string_utf8(*it), l);
  e->vm.command_line.set(l);
}

void interrupt(Engine* e) { e->vm.request_interrupt(); }

std::string dump_ir(Engine* e, std::string_view code, std::string_view after_pass) {
  std::string out;
  guarded(e, [&] {
    out = dump_ir_text(e->vm, e->vm.interaction_env, code, after_pass);
    return kUnspecified;
  });
  return out;
}

std::vector<PassDescription> list_passes() {
  std::vector<PassDescription> out;
  for (const PassInfo& p : registered_passes()) out.push_back({p.name, p.level, p.description});
  return out;
}

quasi::Vm& vm_of(Engine* e) { return e->vm; }

void collect_garbage() {
  attach_thread();
  GC_gcollect();
  GC_invoke_finalizers();
}

// ---- host procedures and foreign objects ---------------------------------------------------------

Word make_host_procedure(Engine* e, std::string_view name, int min_args, int max_args, HostInvoke fn, void* ctx,
                         void (*release)(void* ctx)) {
  attach_thread();
  // Collectable, with the name after it: the Primitive's `data` field (scanned conservatively)
  // keeps it alive, and its finalizer releases the host's context once the procedure is gone.
  auto* hp = static_cast<HostProc*>(gc_alloc_atomic(sizeof(HostProc) + name.size() + 1));
  hp->fn = fn;
  hp->ctx = ctx;
  hp->release = release;
  char* text = reinterpret_cast<char*>(hp + 1);
  std::copy(name.begin(), name.end(), text);
  text[name.size()] = 0;
  if (release) GC_REGISTER_FINALIZER_NO_ORDER(hp, host_proc_finalizer, nullptr, nullptr, nullptr);
  return make_primitive(text, host_trampoline, min_args, max_args, kEffect, hp).bits;
}

void* host_procedure_context(Word w, HostInvoke fn) {
  Value v{w};
  if (!is_primitive(v) || v.as<Primitive>()->fn != host_trampoline) return nullptr;
  auto* hp = static_cast<HostProc*>(v.as<Primitive>()->data);
  return hp->fn == fn ? hp->ctx : nullptr;
}

void set_foreign_hooks(const ForeignHooks& hooks) {
  foreign_hooks.print = hooks.print;
  foreign_hooks.equal = hooks.equal;
  foreign_hooks.hash = hooks.hash;
}

void name_foreign_type(Engine* e, const void* key, std::string_view name) {
  Entry entry(e);
  e->type_names[key] = std::string(name);
}

bool foreign_type_known(Engine* e, const void* key) { return e && e->type_names.count(key) > 0; }

std::string foreign_type_name(Engine* e, const void* key) {
  if (e) {
    auto it = e->type_names.find(key);
    if (it != e->type_names.end()) return it->second;
  }
  return "foreign";
}

Word make_foreign(Engine* e, const void* key, void* object, void* holder, void (*release)(void*)) {
  attach_thread();
  Foreign* f = gc_alloc_object<Foreign>(Type::Foreign, sizeof(Foreign));
  f->type_key = key;
  f->name = intern(foreign_type_name(e, key));
  f->object = object;
  f->holder = holder;
  f->release = release;
  if (holder && release) GC_REGISTER_FINALIZER_NO_ORDER(f, foreign_finalizer, nullptr, nullptr, nullptr);
  return make_ptr(f).bits;
}

bool foreign_parts(Word w, const void** key, void** object, void** holder) {
  Value v{w};
  if (!is_foreign(v)) return false;
  Foreign* f = v.as<Foreign>();
  *key = f->type_key;
  *object = f->object;
  if (holder) *holder = f->holder;
  return true;
}

std::string foreign_name(Word w) { return quasi::symbol_name(Value{w}.as<Foreign>()->name); }

// ---- roots ---------------------------------------------------------------------------------------------

Word* new_root(Word w, Word extra) {
  attach_thread();
  auto* s = static_cast<Word*>(GC_MALLOC_UNCOLLECTABLE(2 * sizeof(Word)));
  if (!s) throw std::bad_alloc();
  s[0] = w;
  s[1] = extra;
  return s;
}
void free_root(Word* slot) {
  attach_thread();  // a handle may die on a thread that never used the engine
  GC_FREE(slot);
}

// ---- making values ---------------------------------------------------------------------------------------

Word make_int(int64_t n) {
  attach_thread();
  return make_integer(n).bits;
}
Word make_uint(uint64_t n) {
  attach_thread();
  if (n <= uint64_t(INT64_MAX)) return make_integer(int64_t(n)).bits;
  mpz_t z;
  mpz_init(z);
  mpz_import(z, 1, 1, sizeof n, 0, 0, &n);
  Value v = make_integer(z);
  mpz_clear(z);
  return v.bits;
}
Word make_double(double d) {
  attach_thread();
  return make_flonum(d).bits;
}
Word make_bool(bool b) { return quasi::make_bool(b).bits; }
Word make_char(char32_t c) { return quasi::make_char(c).bits; }
Word make_string(std::string_view utf8) {
  attach_thread();
  return make_string_utf8(utf8).bits;
}
Word make_symbol(std::string_view utf8) {
  attach_thread();
  return intern(utf8).bits;
}
Word nil() { return kNil.bits; }
Word unspecified() { return kUnspecified.bits; }
Word cons(Word a, Word d) {
  attach_thread();
  return quasi::cons(Value{a}, Value{d}).bits;
}
Word make_vector(int64_t n) {
  attach_thread();
  return quasi::make_vector(n, kFalse).bits;
}
void vector_set(Word v, int64_t i, Word x) { Value{v}.as<Vector>()->items()[i] = Value{x}; }
Word make_bytevector(const void* bytes, size_t n) {
  attach_thread();
  Value bv = quasi::make_bytevector(int64_t(n));
  if (n) std::memcpy(bv.as<Bytevector>()->bytes(), bytes, n);
  return bv.bits;
}
void set_cdr(Word pair, Word x) { Value{pair}.as<Pair>()->cdr = Value{x}; }
Word make_hash_table(Engine* e, size_t capacity) {
  attach_thread();
  return quasi::make_equal_hash_table(e ? &e->vm : nullptr, int64_t(capacity)).bits;
}
void hash_table_set(Word table, Word key, Word value) { quasi::hash_table_insert(Value{table}, Value{key}, Value{value}); }
void hash_table_each(Word table, void (*fn)(void* ctx, Word key, Word value), void* ctx) {
  struct Relay {
    void (*fn)(void*, Word, Word);
    void* ctx;
  } relay{fn, ctx};
  quasi::hash_table_each(Value{table}, [](void* r, Value k, Value v) {
    auto* x = static_cast<Relay*>(r);
    x->fn(x->ctx, k.bits, v.bits);
  }, &relay);
}

// ---- inspecting values ------------------------------------------------------------------------------------

Kind kind(Word w) {
  Value v{w};
  if (v.is_fixnum()) return Kind::Integer;
  if (v.is_char()) return Kind::Char;
  if (v == kTrue || v == kFalse) return Kind::Boolean;
  if (v == kNil) return Kind::Null;
  if (v == kUnspecified) return Kind::Unspecified;
  if (v == kEof) return Kind::Eof;
  if (!is_object(v)) return Kind::Other;
  switch (object_type(v)) {
    case Type::Pair: return Kind::Pair;
    case Type::Bignum: return Kind::Integer;
    case Type::Ratnum: return Kind::Rational;
    case Type::Flonum: return Kind::Real;
    case Type::String: return Kind::String;
    case Type::Symbol: return Kind::Symbol;
    case Type::Vector: return Kind::Vector;
    case Type::Bytevector: return Kind::Bytevector;
    case Type::Condition: return Kind::Error;
    case Type::Foreign: return Kind::Foreign;
    case Type::HashTable: return Kind::HashTable;
    case Type::Compnum: return Kind::Complex;
    case Type::Values:
      return v.as<MultipleValues>()->count() == 0 ? Kind::Unspecified : Kind::Values;
    default: return is_procedure(v) ? Kind::Procedure : Kind::Other;
  }
}

bool is_list(Word w) { return list_length(Value{w}) >= 0; }

bool to_int64(Word w, int64_t* out) {
  Value v{w};
  if (v.is_fixnum()) {
    *out = v.fixnum();
    return true;
  }
  return is_bignum(v) && integer_to_int64(v, out);
}

bool to_uint64(Word w, uint64_t* out) {
  Value v{w};
  if (v.is_fixnum()) {
    if (v.fixnum() < 0) return false;
    *out = uint64_t(v.fixnum());
    return true;
  }
  if (!is_bignum(v)) return false;
  const __mpz_struct* z = &v.as<Bignum>()->z;
  if (mpz_sgn(z) < 0 || mpz_sizeinbase(z, 2) > 64) return false;
  uint64_t r = 0;
  size_t count = 0;
  mpz_export(&r, &count, 1, sizeof r, 0, 0, z);
  *out = count ? r : 0;
  return true;
}

bool to_double(Word w, double* out) {
  Value v{w};
  if (!quasi::is_number(v)) return false;
  *out = number_to_double(v);
  return true;
}

std::string string_utf8(Word w) { return string_to_utf8(Value{w}); }
std::string symbol_name(Word w) { return quasi::symbol_name(Value{w}); }
char32_t char_code(Word w) { return Value{w}.char_code(); }

int64_t length(Word w) {
  Value v{w};
  if (is_vector(v)) return v.as<Vector>()->length();
  if (quasi::is_string(v)) return v.as<String>()->length();
  return list_length(v);
}

Word car(Word w) { return quasi::car(Value{w}).bits; }
Word cdr(Word w) { return quasi::cdr(Value{w}).bits; }
Word vector_ref(Word v, int64_t i) { return Value{v}.as<Vector>()->items()[i].bits; }
uint8_t* bytevector_data(Word w, size_t* n) {
  Bytevector* b = Value{w}.as<Bytevector>();
  *n = size_t(b->length());
  return b->bytes();
}

std::string write(Word w, bool display) {
  attach_thread();
  Value v{w};
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

std::string describe(Word w) {
  attach_thread();
  return write_to_string(Value{w}, 200);
}
bool eqv(Word a, Word b) { return quasi::eqv(Value{a}, Value{b}); }
bool equal(Word a, Word b) {
  attach_thread();
  return quasi::equal(Value{a}, Value{b});
}

}  // namespace quasi::bridge
