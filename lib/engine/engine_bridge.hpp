// engine_bridge.hpp — the narrow interface between the public API (api.cpp, which sees only
// quasi.hpp) and the engine (engine.cpp, which sees only the internals). Values cross as raw
// 64-bit words (Word); errors cross as quasi::Error / quasi::Exit.
//
// A Word names a heap object only while something keeps it reachable: a root slot (new_root), the
// VM's stack, or the C++ stack of a registered thread (the collector scans those conservatively).
// Never keep a Word in malloc'd memory.
//
// Threads: every function that may allocate or touch an engine first registers the calling thread
// with the collector (attach_thread), so hosts never do it themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace quasi {
struct Vm;
}

namespace quasi::bridge {

struct Engine;
using Word = uint64_t;

// Registers the calling thread with the collector once (and unregisters it when the thread
// exits). Cheap after the first call: a thread_local flag.
void attach_thread();

// ---- engines ---------------------------------------------------------------------------------
struct EngineConfig {
  bool allow_files = true;        // file procedures, load, include, library files
  bool allow_process = true;      // exit, emergency-exit
  bool allow_environment = true;  // get-environment-variable(s)
  uint64_t step_limit = 0;        // per outermost evaluation; 0 = none
  int64_t time_limit_ns = 0;
  uint64_t alloc_limit = 0;
  int jit_mode = -1;              // -1: the process default (QUASI_JIT); else a JitMode
  bool jit_log = false;           // report compilations on stderr (process-wide)
  std::vector<std::string> library_path;        // searched after the program's directory
  std::vector<std::string> library_path_after;  // searched after the built-in libraries
  unsigned warning_kinds = 0;                              // engine/warnings.hpp WarningKind
  std::function<void(const std::string&)> on_warning;      // null: no warnings
};

Engine* create_engine(const EngineConfig& config = EngineConfig{});
void destroy_engine(Engine* e);
void set_limits(Engine* e, uint64_t steps, int64_t time_ns, uint64_t alloc_bytes);
Word eval(Engine* e, std::string_view code, std::string_view source_name);
// The same, calling sink(ctx, value) with the value of each top-level form once it has run.
using ValueSink = void (*)(void* ctx, Word value);
Word eval_each(Engine* e, std::string_view code, std::string_view source_name, ValueSink sink, void* ctx);
Word load(Engine* e, const std::string& path);
// Runs a program (Engine::run_program): text, or the file at `path`.
Word run_program(Engine* e, std::string_view code, std::string_view source_name);
Word run_program_file(Engine* e, const std::string& path);
// Calls `proc` with argv[0..argc) (words kept reachable by the caller).
Word apply(Engine* e, Word proc, int argc, const Word* argv);
// The value of a global of the interaction environment; false when unbound.
bool lookup_global(Engine* e, std::string_view name, Word* out);
// (define name value) in the interaction environment.
void define_global(Engine* e, std::string_view name, Word value);
// Names bound in the interaction environment (variables with a value, and keywords) that start
// with `prefix`, sorted; names starting with '%' (internals) only when `prefix` does.
std::vector<std::string> global_names(Engine* e, std::string_view prefix);

// ---- environments and libraries (engine/library.hpp) -------------------------------------------
// An environment is named by its word; 0 is the engine's interaction environment.
bool lookup_in(Engine* e, Word env, std::string_view name, Word* out);
// (define name value) in env: a cell env owns is assigned, anything else defined anew.
void define_in(Engine* e, Word env, std::string_view name, Word value);
// As global_names, for env.
std::vector<std::string> names_in(Engine* e, Word env, std::string_view prefix);
// The names env itself defines (its own cells with a value, not its imports), sorted.
std::vector<std::string> defined_names(Engine* e, Word env);
Word eval_in(Engine* e, Word env, std::string_view code, std::string_view source_name);
Word load_in(Engine* e, Word env, const std::string& path);
// A new environment (definitions allowed) holding what `import_sets` (text: "(scheme base)
// (only (app host) log)") names.
Word make_environment(Engine* e, std::string_view import_sets);
// Registers the library `name` (text: "(app host)") exporting `exports` of env; again with the
// same name replaces it for later imports.
void register_library(Engine* e, std::string_view name, Word env, const std::vector<std::string>& exports);
// The libraries `import` may load (texts of library names), or any (null). Libraries the host
// registered are always allowed.
void set_allowed_libraries(Engine* e, const std::vector<std::string>* names);
bool input_incomplete(std::string_view code);
void set_command_line(Engine* e, const std::vector<std::string>& args);
// Any thread; async-signal-safe.
void interrupt(Engine* e);

// ---- optimizer (lib/passes/) -------------------------------------------------------------------
// The IR of each top-level form of `code` after `after_pass` ("expand", a pass name, "" or "all"
// for the whole pipeline), one line per form, as Scheme. Nothing of `code` runs.
std::string dump_ir(Engine* e, std::string_view code, std::string_view after_pass);
struct PassDescription {
  std::string name;
  int level;
  std::string description;
};
// The passes of the default pipeline, in the order it runs them.
std::vector<PassDescription> list_passes();
// White-box access for the unit tests (tests/unit): the engine's VM.
quasi::Vm& vm_of(Engine* e);
void collect_garbage();

// ---- procedures implemented by the host ------------------------------------------------------
// Called with the arguments; returns the result word. May throw quasi::Error (becomes a Scheme
// error naming the procedure), quasi::Exit, or any C++ exception (its what() becomes the message).
using HostInvoke = Word (*)(void* ctx, int argc, const Word* argv);
// A procedure named `name` (copied) that calls fn(ctx, ...). max_args -1: variadic. When the
// procedure is collected, `release(ctx)` runs (a collector finalizer: any thread, any time).
Word make_host_procedure(Engine* e, std::string_view name, int min_args, int max_args, HostInvoke fn,
                         void* ctx, void (*release)(void* ctx));
// The ctx of a procedure made by make_host_procedure with `fn`, or null for any other value.
void* host_procedure_context(Word w, HostInvoke fn);

// ---- C++ objects held by Scheme (core/foreign.hpp) ---------------------------------------------
// `key` identifies the C++ type; the type's name is what name_foreign_type gave in this engine
// (or "foreign"). `release(holder)` runs when the Scheme object is collected (holder may be null).
// The hooks (process-wide, set once by the API) print and compare foreign objects; see
// core/foreign.hpp.
struct ForeignHooks {
  bool (*print)(const void* key, void* object, std::string& out);
  int (*equal)(const void* key_a, void* a, const void* key_b, void* b);
  bool (*hash)(const void* key, void* object, uint64_t* out);
};
void set_foreign_hooks(const ForeignHooks& hooks);
void name_foreign_type(Engine* e, const void* key, std::string_view name);
Word make_foreign(Engine* e, const void* key, void* object, void* holder, void (*release)(void*));
// False when `w` is not a foreign object.
bool foreign_parts(Word w, const void** key, void** object, void** holder);
std::string foreign_type_name(Engine* e, const void* key);
bool foreign_type_known(Engine* e, const void* key);  // named by name_foreign_type in e
std::string foreign_name(Word w);  // the type name a foreign object prints with

// ---- roots -------------------------------------------------------------------------------------
// A slot of two words the collector scans: slot[0] = w (the root), slot[1] = extra (for the host).
Word* new_root(Word w, Word extra = 0);
void free_root(Word* slot);

// ---- making values -------------------------------------------------------------------------------
Word make_int(int64_t n);
Word make_uint(uint64_t n);
Word make_double(double d);
Word make_bool(bool b);
Word make_char(char32_t c);
Word make_string(std::string_view utf8);
Word make_symbol(std::string_view utf8);
Word nil();
Word unspecified();
Word cons(Word a, Word d);
Word make_vector(int64_t n);  // filled with #f
void vector_set(Word v, int64_t i, Word x);
Word make_bytevector(const void* bytes, size_t n);
void set_cdr(Word pair, Word x);  // pair must be a pair
// A new equal? hash table (seeded by e's engine, or process-wide when e is null).
Word make_hash_table(Engine* e, size_t capacity);
void hash_table_set(Word table, Word key, Word value);  // throws quasi::Error for a custom table
// fn(ctx, key, value) for each entry of a hash table (w must be one).
void hash_table_each(Word table, void (*fn)(void* ctx, Word key, Word value), void* ctx);

// ---- inspecting values ---------------------------------------------------------------------------
enum class Kind : int {
  Unspecified, Boolean, Null, Pair, Integer, Rational, Real, Complex, String, Symbol, Char, Vector,
  Bytevector, Procedure, Error, Foreign, Eof, Values, HashTable, Other
};
Kind kind(Word w);
bool is_list(Word w);                    // proper list
bool to_int64(Word w, int64_t* out);     // exact integer in range
bool to_uint64(Word w, uint64_t* out);
bool to_double(Word w, double* out);     // any real number
std::string string_utf8(Word w);         // a string's contents (w must be a string)
std::string symbol_name(Word w);         // w must be a symbol
char32_t char_code(Word w);              // w must be a character
int64_t length(Word w);                  // proper list, vector or string; -1 otherwise
Word car(Word w);                        // w must be a pair
Word cdr(Word w);
Word vector_ref(Word v, int64_t i);      // in range
uint8_t* bytevector_data(Word w, size_t* n);  // w must be a bytevector
std::string write(Word w, bool display);
std::string describe(Word w);            // written, shortened: for error messages
bool eqv(Word a, Word b);
bool equal(Word a, Word b);

}  // namespace quasi::bridge
