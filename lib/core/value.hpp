// value.hpp — what a Scheme value is: one tagged 64-bit word, and the header every heap object
// starts with.
//
// Bit layout of a Value (low bits decide):
//
//   ...............................1   fixnum: 63-bit signed n stored as (n << 1) | 1
//   ............................000   heap pointer, 8-byte aligned, never 0; the object starts
//                                      with a Header whose low byte is its Type
//   ............................010   character: Unicode code point << 3 | 0b010
//   ............................110   special constant (#f, #t, '(), unspecified, eof, ...)
//   ............................100   pair: address of a headerless two-word cell (car, cdr) + 4
//
// Heap pointers are untagged so Boehm GC sees exact base pointers. Fixnum arithmetic can add and
// subtract without untagging (a + b - 1), which the JIT relies on.
// Pairs carry no header (16 bytes, not 24): pair? is a tag test, car is at [v - 4] and cdr at
// [v + 4]. The collector recognizes interior pointers, so the tagged word keeps its cell alive.
// A pair read from source or frozen as a literal is a cell of a second collector kind with a
// third word shaped like a header (core/object.hpp, PairInfo): its source location and kImmutable.
//
// Header word of every heap object:
//   bits 0..7   Type
//   bits 8..15  flags (kImmutable, ...)
//   bits 16..63 payload: the length for strings, vectors, bytevectors, closures (free count),
//               multiple values; the packed source location in a PairInfo's header word.
#pragma once

#include <cstddef>
#include <cstdint>

namespace quasi {

struct Object;

struct Value {
  uint64_t bits;

  constexpr bool operator==(Value o) const { return bits == o.bits; }
  constexpr bool operator!=(Value o) const { return bits != o.bits; }

  constexpr bool is_fixnum() const { return bits & 1; }
  constexpr int64_t fixnum() const { return static_cast<int64_t>(bits) >> 1; }
  // A pointer to an object with a header (not a pair: see is_object).
  constexpr bool is_ptr() const { return (bits & 7) == 0 && bits != 0; }
  constexpr bool is_pair() const { return (bits & 7) == kPairTag; }
  static constexpr uint64_t kPairTag = 4;
  Object* obj() const {
#ifdef QUASI_SANITIZED
    if ((bits & 7) == 4) __builtin_trap();  // a pair has no header: object_type, as<Pair>
#endif
    return reinterpret_cast<Object*>(bits);
  }
  template <class T> T* as() const { return reinterpret_cast<T*>(bits); }
  constexpr bool is_char() const { return (bits & 7) == 2; }
  constexpr char32_t char_code() const { return static_cast<char32_t>(bits >> 3); }
  constexpr bool is_true() const;  // everything but #f
};

constexpr Value make_fixnum(int64_t n) { return Value{(static_cast<uint64_t>(n) << 1) | 1}; }
constexpr Value make_char(char32_t c) { return Value{(static_cast<uint64_t>(c) << 3) | 2}; }
inline Value make_ptr(const void* p) { return Value{reinterpret_cast<uint64_t>(p)}; }

constexpr int64_t kFixnumMax = (int64_t(1) << 62) - 1;
constexpr int64_t kFixnumMin = -(int64_t(1) << 62);
constexpr bool fits_fixnum(int64_t n) { return n >= kFixnumMin && n <= kFixnumMax; }

constexpr Value kFalse{0x06};
constexpr Value kTrue{0x0E};
constexpr Value kNil{0x16};
constexpr Value kUnspecified{0x1E};
constexpr Value kEof{0x26};
// Marks an optional argument that was not supplied (#!default).
constexpr Value kDefault{0x2E};
// Content of a variable that is not yet bound (global never defined, letrec before its init).
constexpr Value kUnbound{0x36};

constexpr bool Value::is_true() const { return bits != kFalse.bits; }
constexpr Value make_bool(bool b) { return b ? kTrue : kFalse; }

enum class Type : uint8_t {
  Pair = 1,
  Symbol,
  String,
  Vector,
  Bytevector,
  Flonum,
  Bignum,
  Ratnum,
  Compnum,       // a non-real complex number (core/numbers.hpp)
  Primitive,
  Closure,
  Proto,         // compiled code of one lambda (vm/proto.hpp)
  Continuation,
  Parameter,
  RecordType,
  Record,
  Promise,
  Values,        // multiple values (not a first-class datum)
  Box,           // a mutable cell for assigned, captured variables
  GlobalCell,    // a top-level binding
  Port,
  Environment,
  Condition,     // error object
  HashTable,
  Identifier,    // a renamed identifier made by the macro expander
  Macro,
  Foreign,       // a C++ object exposed through the embedding API
  WeakBox,
};

enum ObjectFlags : uint64_t {
  kImmutable = 1u << 8,  // literal constants: string-set!, set-car! etc. refuse them
};

struct Object {
  uint64_t header;

  Type type() const { return static_cast<Type>(header & 0xFF); }
  uint64_t payload() const { return header >> 16; }
  void set_payload(uint64_t p) { header = (header & 0xFFFF) | (p << 16); }
  bool immutable() const { return header & kImmutable; }
  void set_immutable() { header |= kImmutable; }
};

constexpr uint64_t make_header(Type t, uint64_t payload = 0) {
  return static_cast<uint64_t>(t) | (payload << 16);
}

inline bool has_type(Value v, Type t) {
  return t == Type::Pair ? v.is_pair() : v.is_ptr() && v.obj()->type() == t;
}
// Whether v names a heap object of any type, pairs included, and that object's type.
inline bool is_object(Value v) { return v.is_ptr() || v.is_pair(); }
inline Type object_type(Value v) { return v.is_pair() ? Type::Pair : v.obj()->type(); }
// The address the object starts at (the collector's base pointer).
inline void* object_base(Value v) { return reinterpret_cast<void*>(v.bits & ~uint64_t(7)); }

// The cell of a pair: v.as<Pair>() untags (every other type's pointer is untagged).
struct Pair;
template <>
inline Pair* Value::as<Pair>() const {
  return reinterpret_cast<Pair*>(bits - kPairTag);
}

}  // namespace quasi
