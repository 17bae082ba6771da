// args.hpp — argument checks shared by the sequence primitives (strings, vectors, bytevectors,
// lists, ports): literal constants, optional start/end ranges.
#pragma once

#include "core/error.hpp"
#include "read/printer.hpp"

namespace quasi {

[[noreturn]] inline void literal_error(const char* who, Value v) {
  throw_condition("type", who, "cannot modify a literal constant: " + write_to_string(v, 200));
}

// Mutators refuse literal constants (quoted data is immutable). The range mutators (string-copy!,
// vector-fill!, ...) check only when the range is not empty: copying or filling nothing
// modifies nothing (Guile and Chez accept (string-copy! "abc" 0 "") too).
inline void check_mutable(const char* who, Value v) {
  if (is_immutable_object(v)) literal_error(who, v);
}

// An index between 0 and limit inclusive (a start or end bound).
inline int64_t check_bound(const char* who, const char* what, Value v, int64_t limit) {
  if (!v.is_fixnum()) {
    if (has_type(v, Type::Bignum)) range_error(who, what, v);
    type_error(who, "an exact integer index", v);
  }
  if (v.fixnum() < 0 || v.fixnum() > limit) range_error(who, what, v);
  return v.fixnum();
}

// Was optional argument i given (and not #!default)?
inline bool given(int argc, const Value* argv, int i) { return i < argc && argv[i] != kDefault; }

// Optional [start [end]] at argv[i], argv[i + 1] over a sequence of length len.
inline void get_range(const char* who, int argc, const Value* argv, int i, int64_t len, int64_t& start,
                      int64_t& end) {
  start = given(argc, argv, i) ? check_bound(who, "start index", argv[i], len) : 0;
  end = given(argc, argv, i + 1) ? check_bound(who, "end index", argv[i + 1], len) : len;
  if (end < start) range_error(who, "end index", argv[i + 1]);
}

}  // namespace quasi
