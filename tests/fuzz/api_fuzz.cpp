// api_fuzz.cpp — the embedding API's conversions (lib/include/quasi/convert.hpp).
//
// The input is Scheme source, evaluated (with limits) in a sandboxed engine that has host
// functions of many C++ parameter types (h-int, h-vec, h-map, h-variant, h-fn ...), so Scheme
// calls convert arbitrary values to C++ and back. Its value then goes through Value::is<T> and
// Value::as<T> for each type T of a list. Invariants:
//   - as<T>() throws quasi::Error exactly when is<T>() is false (is<T> is documented as "as<T>
//     succeeds"), never anything else;
//   - a converted x, made into a Scheme value again (Engine::make), converts back to x.
#include <quasi/quasi.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <variant>
#include <vector>

#include "common.hpp"

namespace {

std::string_view g_input;

quasi::Engine& engine() {
  static quasi::Engine* e = [] {
    quasi::Engine::Options o = quasi::Engine::Options::sandboxed();
    o.step_limit = 1'000'000;
    o.time_limit = std::chrono::milliseconds(1000);
    o.memory_limit = 256u << 20;
    auto* e = new quasi::Engine(o);
    e->define("h-int", [](int64_t x) { return x; });
    e->define("h-int32", [](int32_t x) { return x; });
    e->define("h-u8", [](uint8_t x) { return x; });
    e->define("h-double", [](double x) { return x; });
    e->define("h-float", [](float x) { return x; });
    e->define("h-bool", [](bool x) { return x; });
    e->define("h-char", [](char32_t x) { return x; });
    e->define("h-string", [](const std::string& s) { return s + "!"; });
    e->define("h-vec", [](const std::vector<int64_t>& v) { return v; });
    e->define("h-strings", [](std::vector<std::string> v) { return v; });
    e->define("h-bytes", [](const std::vector<uint8_t>& v) { return v; });
    e->define("h-map", [](const std::map<std::string, int64_t>& m) { return m; });
    e->define("h-umap", [](const std::unordered_map<int64_t, std::string>& m) { return m.size(); });
    e->define("h-set", [](const std::set<int64_t>& s) { return s; });
    e->define("h-pair", [](std::pair<int64_t, std::string> p) { return p; });
    e->define("h-tuple", [](std::tuple<int64_t, double, std::string> t) { return t; });
    e->define("h-array", [](std::array<int64_t, 3> a) { return a; });
    e->define("h-optional", [](std::optional<std::string> o) { return o; });
    e->define("h-variant", [](std::variant<int64_t, std::string, std::vector<int64_t>> v) { return v; });
    e->define("h-fn", [](std::function<int64_t(int64_t)> f, int64_t x) { return f(f(x)); });
    e->define("h-value", [](quasi::Value v) { return v; });
    e->define("h-overload", [](int64_t x) { return x + 1; }, [](double x) { return x * 2; },
              [](const std::string& s) { return s.size(); });
    e->define("h-throw", [](const std::string& s) -> int64_t { throw std::runtime_error(s); });
    return e;
  }();
  return *e;
}

template <class T>
bool same(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
  else return a == b;
}

template <class T>
void check(quasi::Engine& e, const quasi::Value& v, const char* name) {
  bool fits = v.is<T>();
  std::optional<T> x;
  try {
    x = v.as<T>();
  } catch (quasi::Error&) {
    if (fits) quasi_fuzz::fail(std::string("is<") + name + "> but as<" + name + "> threw, value " + v.to_string(), g_input);
    return;
  }
  if (!fits) quasi_fuzz::fail(std::string("as<") + name + "> succeeded but is<" + name + "> is false, value " + v.to_string(), g_input);
  quasi::Value back = e.make(*x);
  T y;
  try {
    y = back.as<T>();
  } catch (quasi::Error& err) {
    quasi_fuzz::fail(std::string("round trip of ") + name + " threw: " + err.what() + ", value " + v.to_string(), g_input);
  }
  if (!same(*x, y)) quasi_fuzz::fail(std::string("round trip of ") + name + " changed the value " + v.to_string(), g_input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view code(reinterpret_cast<const char*>(data), size);
  g_input = code;
  quasi::Engine& e = engine();
  quasi::Value v;
  try {
    v = e.eval(code, "<fuzz>");
  } catch (quasi::Error&) {
    return 0;
  } catch (quasi::Exit&) {
    return 0;
  }
  check<int64_t>(e, v, "int64_t");
  check<int32_t>(e, v, "int32_t");
  check<uint64_t>(e, v, "uint64_t");
  check<uint8_t>(e, v, "uint8_t");
  check<int16_t>(e, v, "int16_t");
  check<double>(e, v, "double");
  check<float>(e, v, "float");
  check<bool>(e, v, "bool");
  check<char32_t>(e, v, "char32_t");
  check<std::string>(e, v, "std::string");
  check<std::vector<int64_t>>(e, v, "std::vector<int64_t>");
  check<std::vector<double>>(e, v, "std::vector<double>");
  check<std::vector<std::string>>(e, v, "std::vector<std::string>");
  check<std::vector<uint8_t>>(e, v, "std::vector<uint8_t>");
  check<std::vector<std::vector<int64_t>>>(e, v, "std::vector<std::vector<int64_t>>");
  check<std::map<std::string, int64_t>>(e, v, "std::map<std::string, int64_t>");
  check<std::map<int64_t, std::vector<std::string>>>(e, v, "std::map<int64_t, std::vector<std::string>>");
  check<std::set<std::string>>(e, v, "std::set<std::string>");
  check<std::pair<int64_t, std::string>>(e, v, "std::pair<int64_t, std::string>");
  check<std::tuple<int64_t, double, std::string>>(e, v, "std::tuple<int64_t, double, std::string>");
  check<std::array<int64_t, 3>>(e, v, "std::array<int64_t, 3>");
  check<std::optional<int64_t>>(e, v, "std::optional<int64_t>");
  check<std::variant<int64_t, std::string, std::vector<int64_t>>>(e, v, "std::variant<int64_t, std::string, std::vector<int64_t>>");
  // Walk it as the host would.
  try {
    if (v.is_list() || v.is_vector())
      for (quasi::Value x : v) (void)x.to_string();
    (void)v.type_name();
    (void)v.to_display_string();
  } catch (quasi::Error&) {
  }
  return 0;
}
