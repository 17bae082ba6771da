// error.hpp — how C++ code raises Scheme errors.
//
// Primitives signal an error by throwing SchemeError carrying the raised object (normally a
// Condition). The VM catches it at the call site, stamps the call's source location on a
// Condition that has none, and raises it in Scheme (handlers, guard, then the top level).
// Messages follow one shape: "car: expected a pair, got 42".
#pragma once

#include <string>

#include "core/object.hpp"

namespace quasi {

struct SchemeError {
  Value payload;  // what was raised: a Condition, or any object given to `raise`
  bool continuable = false;
};

[[noreturn]] void throw_condition(const char* kind, const char* who, const std::string& message,
                                  Value irritants = kNil);
// "who: message" with irritants, kind 'error.
[[noreturn]] void throw_error(const char* who, const std::string& message, Value irritants = kNil);
// "who: expected <expected>, got <written value>", kind 'type.
[[noreturn]] void type_error(const char* who, const char* expected, Value got);
// "who: index 10 out of range for <value>" style, kind 'range.
[[noreturn]] void range_error(const char* who, const std::string& what, Value got);
// "who: expected N arguments, got M", kind 'arity.
[[noreturn]] void arity_error(const char* who, int min_args, int max_args, int got);

// The full text of an error object: "who: message irritant ..." (irritants written).
std::string condition_text(Value condition);
// What the top level prints: "file:line:col: error: <condition_text>" (location when known).
std::string describe_raised(Value payload);

// Checked accessors that raise the standard type error.
inline int64_t check_fixnum(const char* who, Value v) {
  if (!v.is_fixnum()) type_error(who, "a fixnum", v);
  return v.fixnum();
}
// A non-negative fixnum index below limit.
int64_t check_index(const char* who, Value v, int64_t limit);
inline Value check_pair(const char* who, Value v) {
  if (!is_pair(v)) type_error(who, "a pair", v);
  return v;
}

}  // namespace quasi
