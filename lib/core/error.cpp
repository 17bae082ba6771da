#include "core/error.hpp"

#include "read/printer.hpp"

namespace quasi {

[[noreturn]] void throw_condition(const char* kind, const char* who, const std::string& message,
                                  Value irritants) {
  Value c = make_condition(intern(kind), who ? intern(who) : kFalse, make_string_utf8(message),
                           irritants);
  throw SchemeError{c};
}

[[noreturn]] void throw_error(const char* who, const std::string& message, Value irritants) {
  throw_condition("error", who, message, irritants);
}

[[noreturn]] void type_error(const char* who, const char* expected, Value got) {
  throw_condition("type", who, std::string("expected ") + expected + ", got " + write_to_string(got, 200));
}

[[noreturn]] void range_error(const char* who, const std::string& what, Value got) {
  throw_condition("range", who, what + " out of range: " + write_to_string(got, 200));
}

[[noreturn]] void arity_error(const char* who, int min_args, int max_args, int got) {
  std::string expected;
  if (max_args == min_args) expected = std::to_string(min_args);
  else if (max_args < 0) expected = "at least " + std::to_string(min_args);
  else expected = std::to_string(min_args) + " to " + std::to_string(max_args);
  throw_condition("arity", who,
                  "expected " + expected + " argument" + (min_args == 1 && max_args <= 1 ? "" : "s") + ", got " +
                      std::to_string(got));
}

int64_t check_index(const char* who, Value v, int64_t limit) {
  if (!v.is_fixnum()) type_error(who, "an exact integer index", v);
  int64_t i = v.fixnum();
  if (i < 0 || i >= limit) range_error(who, "index", v);
  return i;
}

std::string condition_text(Value cv) {
  Condition* c = cv.as<Condition>();
  std::string out;
  if (is_symbol(c->who)) out += std::string(symbol_name(c->who)) + ": ";
  out += is_string(c->message) ? string_to_utf8(c->message) : write_to_string(c->message, 200);
  for (Value l = c->irritants; is_pair(l); l = cdr(l)) out += " " + write_to_string(car(l), 200);
  return out;
}

std::string describe_raised(Value payload) {
  if (is_condition(payload)) {
    SrcLoc loc = SrcLoc::unpack(payload.as<Condition>()->loc);
    std::string prefix = loc.known() ? loc.to_string() + ": " : "";
    return prefix + "error: " + condition_text(payload);
  }
  return "error: uncaught exception: " + write_to_string(payload, 200);
}

}  // namespace quasi
