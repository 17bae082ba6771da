// object.hpp — layouts of the core heap objects and their constructors and accessors.
//
// Each struct but Pair starts with Object's header word (see value.hpp). Primitives are in
// core/prim.hpp, closures, code objects and continuations in core/procedure.hpp; objects that
// other subsystems own (Port in builtins/, Environment/Identifier/Macro in eval/) are declared
// there. Variable-length objects keep their length in the header payload and their items inline
// after the header.
#pragma once

#include <gmp.h>

#include <cstring>
#include <string>
#include <string_view>

#include "core/gc.hpp"
#include "core/srcloc.hpp"
#include "core/value.hpp"
#include "core/prim.hpp"

namespace quasi {

struct Vm;

// ---- pairs ----------------------------------------------------------------------------------
// A pair is a headerless cell of two words (value.hpp: the tag, car at [v - 4]). Plain pairs come
// from the collector's exact two-word kind (gc_alloc_small). Pairs that carry facts, those read
// from source (their location) and literal constants (kImmutable), are PairInfo cells of another
// kind (gc_alloc_info_pair: car, cdr and a header-shaped word, the first two scanned); whether a pair is one is a question
// to the collector (gc_is_info_pair), asked only by mutators and by code after locations.
struct Pair {
  Value car;
  Value cdr;
};
struct PairInfo : Pair {
  uint64_t header;  // shaped like an object header: Type::Pair, flags, payload = packed SrcLoc
};
static_assert(sizeof(Pair) == 16 && sizeof(PairInfo) == 24);

inline Value make_pair_value(Pair* p) { return Value{reinterpret_cast<uint64_t>(p) | Value::kPairTag}; }
inline Value cons(Value a, Value d) {
  Pair* p = static_cast<Pair*>(gc_alloc_small(sizeof(Pair)));
  p->car = a;
  p->cdr = d;
  return make_pair_value(p);
}
// A pair that can carry a source location and the literal flag (header: make_header(Pair, ...)).
Value cons_info(Value a, Value d, uint64_t header);
// cons, with loc recorded when known (a PairInfo then).
inline Value cons_at(Value a, Value d, SrcLoc loc) {
  return loc.known() ? cons_info(a, d, make_header(Type::Pair, loc.pack())) : cons(a, d);
}
inline bool is_pair(Value v) { return v.is_pair(); }
inline Value car(Value v) { return v.as<Pair>()->car; }  // unchecked
inline Value cdr(Value v) { return v.as<Pair>()->cdr; }  // unchecked
// The PairInfo of a pair, or null for a plain pair.
inline PairInfo* pair_info(Value pair) {
  return gc_is_info_pair(object_base(pair)) ? static_cast<PairInfo*>(pair.as<Pair>()) : nullptr;
}
inline SrcLoc pair_srcloc(Value v) {
  PairInfo* i = is_pair(v) ? pair_info(v) : nullptr;
  return i ? SrcLoc::unpack(i->header >> 16) : SrcLoc{};
}
// Records loc on a PairInfo; a plain pair has no room for it (make it with cons_at).
void set_pair_srcloc(Value v, SrcLoc loc);
inline bool pair_immutable(Value pair) {
  PairInfo* i = pair_info(pair);
  return i && (i->header & kImmutable);
}
// A literal constant's pair (set-car! and set-cdr! refuse it), at loc when known.
inline Value cons_immutable(Value a, Value d, SrcLoc loc = {}) {
  return cons_info(a, d, make_header(Type::Pair, loc.pack()) | kImmutable);
}
// Whether v is an object flagged kImmutable (a pair: a literal's PairInfo).
inline bool is_immutable_object(Value v) {
  return v.is_pair() ? pair_immutable(v) : v.is_ptr() && v.obj()->immutable();
}

// ---- strings: Unicode code points, O(1) string-ref -----------------------------------------
// Payload: length in code points. Atomic memory (no pointers).
struct String : Object {
  uint32_t* chars() { return reinterpret_cast<uint32_t*>(this + 1); }
  int64_t length() const { return static_cast<int64_t>(payload()); }
};
Value make_string(int64_t length, char32_t fill = U' ');
// A string whose characters are not written yet (atomic memory is not zeroed): the caller writes
// all `length` of them before anything else can see the string.
Value make_string_uninit(int64_t length);
Value make_string_utf8(std::string_view utf8);  // invalid UTF-8 becomes U+FFFD
Value make_string_utf32(const char32_t* s, int64_t n);
std::string string_to_utf8(Value str);
inline bool is_string(Value v) { return has_type(v, Type::String); }

// UTF-8 helpers shared by the reader, ports and the API.
void utf8_append(std::string& out, char32_t c);
// Decodes one code point at s[i], advancing i; returns -1 (and advances by one byte) on invalid
// input.
int32_t utf8_decode(std::string_view s, size_t& i);

// ---- symbols ---------------------------------------------------------------------------------
struct Symbol : Object {
  Value name;        // a String (immutable)
  const char* utf8;  // the same name in UTF-8, NUL-terminated
  uint64_t hash;
  bool interned;
};
Value intern(std::string_view utf8_name);
Value make_uninterned_symbol(std::string_view utf8_name);
// Names in the process-wide symbol table after dead ones are swept out (symbols are collected
// when unreachable; for tests and diagnostics).
size_t interned_symbol_slots();
inline bool is_symbol(Value v) { return has_type(v, Type::Symbol); }
inline const char* symbol_name(Value v) { return v.as<Symbol>()->utf8; }

// ---- vectors and bytevectors -----------------------------------------------------------------
struct Vector : Object {
  Value* items() { return reinterpret_cast<Value*>(this + 1); }
  int64_t length() const { return static_cast<int64_t>(payload()); }
};
Value make_vector(int64_t length, Value fill = kUnspecified);
inline bool is_vector(Value v) { return has_type(v, Type::Vector); }

struct Bytevector : Object {
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(this + 1); }
  int64_t length() const { return static_cast<int64_t>(payload()); }
};
Value make_bytevector(int64_t length, uint8_t fill = 0);
inline bool is_bytevector(Value v) { return has_type(v, Type::Bytevector); }

// ---- numbers (arithmetic lives in core/numbers.hpp) ------------------------------------------
struct Flonum : Object {
  double d;
};
inline Value make_flonum(double d) {
  Flonum* f = static_cast<Flonum*>(gc_alloc_small(sizeof(Flonum)));
  f->header = make_header(Type::Flonum);
  f->d = d;
  return make_ptr(f);
}
inline bool is_flonum(Value v) { return has_type(v, Type::Flonum); }
inline double flonum_value(Value v) { return v.as<Flonum>()->d; }

// Exact integer outside the fixnum range. Always normalized: a value that fits a fixnum is a
// fixnum. Limbs are GC memory (GMP's allocator is pointed at the collector).
struct Bignum : Object {
  __mpz_struct z;
};
// Exact non-integer rational, canonical (denominator > 1).
struct Ratnum : Object {
  __mpq_struct q;
};
// A complex number that is not real: re and im are real numbers (fixnum, bignum, ratnum or
// flonum), both exact or both flonums, and im is not an exact 0 (core/numbers.hpp normalizes).
struct Compnum : Object {
  Value re;
  Value im;
};

// ---- boxes and global cells ------------------------------------------------------------------
struct Box : Object {
  Value value;
};
inline Value make_box(Value v) {
  Box* b = gc_alloc_object<Box>(Type::Box, sizeof(Box));
  b->value = v;
  return make_ptr(b);
}

// A top-level binding. value == kUnbound until defined.
struct GlobalCell : Object {
  Value value;
  Value name;   // symbol
  Value owner;  // the Environment that defined it (#f for none)
};
// Header flag: compiled code inlines the builtin this cell held (see vm/proto.hpp).
constexpr uint64_t kInlinedCell = 1u << 9;
// Header flag: something (a specialization) depends on this cell's value; writing the cell calls
// watched_cell_written (below).
constexpr uint64_t kWatchedCell = 1u << 10;
// Header flag: a prelude file loaded on first use defines this cell (engine/autoload.hpp); it is
// unbound until then. Whatever resolves the name (the expander, library exports, the embedding
// API's lookups) loads the file first, so no compiled code ever reads a flagged cell.
constexpr uint64_t kAutoloadCell = 1u << 11;
// Called after a GlobalCell flagged kWatchedCell is assigned or redefined, by running code or by
// Environment::define. Set by the partial evaluator to invalidate what depended on the cell.
extern void (*watched_cell_written)(Value cell);
Value make_global_cell(Value name);
// Whether `cell` (a GlobalCell) was defined by `env`. An Environment (eval/environment.hpp) is an
// Object whose header is its first member, so comparing addresses needs only its declaration.
struct Environment;
inline bool cell_owned_by(const GlobalCell* cell, const Environment* env) {
  return cell->owner.is_ptr() && static_cast<const void*>(cell->owner.obj()) == static_cast<const void*>(env);
}

// ---- multiple values (only ever in transit between `values` and its consumer) ----------------
struct MultipleValues : Object {
  Value* items() { return reinterpret_cast<Value*>(this + 1); }
  int64_t count() const { return static_cast<int64_t>(payload()); }
};
Value make_values(int64_t n, const Value* items);

// ---- records ---------------------------------------------------------------------------------
struct RecordType : Object {
  Value name;         // symbol
  Value field_names;  // vector of symbols
  int64_t nfields;
};
struct Record : Object {
  RecordType* rtd;
  Value* fields() { return reinterpret_cast<Value*>(this + 1); }
};

// ---- promises and parameters -----------------------------------------------------------------
struct Promise : Object {
  bool done;
  Value value;  // the value when done, else a thunk
};
struct Parameter : Object {
  Value value;      // the global (outermost) value
  Value converter;  // procedure or #f
};

// ---- error objects ---------------------------------------------------------------------------
// Kind is a symbol: error (from `error`), type, arity, range, unbound, syntax, read, file,
// divide-by-zero, interrupt, limit, ... `read-error?` and `file-error?` test it.
struct Condition : Object {
  Value kind;
  Value who;        // symbol naming the procedure, or #f
  Value message;    // string
  Value irritants;  // list
  uint64_t loc;     // packed SrcLoc of the failing call, 0 if unknown
  // () until raised; then #(total frame ...), innermost first: total counts every Scheme frame,
  // the frames listed are the innermost ones (bounded), each #(name location arguments internal? rest?)
  // with name and location strings or #f, arguments ((parameter-name . value) ...) (bounded,
  // names #f when unknown), internal? #t for a procedure of the prelude, and rest? #t when the
  // last argument is the procedure's rest list (a backtrace line spreads it).
  Value backtrace;
};
Value make_condition(Value kind, Value who, Value message, Value irritants, SrcLoc loc = {});
inline bool is_condition(Value v) { return has_type(v, Type::Condition); }

// ---- small list helpers ----------------------------------------------------------------------
inline Value list(std::initializer_list<Value> xs) {
  Value r = kNil;
  for (auto it = xs.end(); it != xs.begin();) r = cons(*--it, r);
  return r;
}
// Length of a proper list, or -1 for an improper or circular one.
int64_t list_length(Value v);
// Number of pairs along the cdr chain of v, whatever the tail (stored in *tail when given);
// -1 when the chain is circular.
int64_t count_pairs(Value v, Value* tail = nullptr);
Value reverse_list(Value v);

}  // namespace quasi
