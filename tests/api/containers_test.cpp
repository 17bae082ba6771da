// Standard containers, bytes, variants and string views crossing the boundary both ways, and the
// errors when they do not fit. Public header only.
#include <quasi/quasi.hpp>

#include "support.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

using quasi::Engine;
using quasi::Value;
using api_test::error_of;

namespace {
std::string as_error(const Value& v, auto convert) {
  try {
    convert(v);
  } catch (const quasi::Error& e) {
    return e.message();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("pairs and tuples are pairs and lists", "[api][containers]") {
  Engine engine;
  engine.define("swap", [](std::pair<int, std::string> p) { return std::pair<std::string, int>(p.second, p.first); });
  engine.define("split", [](std::tuple<int, double, std::string> t) {
    auto [a, b, c] = t;
    return std::make_tuple(c, b, a);
  });
  CHECK(engine.eval("(swap '(1 . \"a\"))").to_string() == "(\"a\" . 1)");
  CHECK(engine.eval("(split '(1 2.5 \"x\"))").to_string() == "(\"x\" 2.5 1)");
  CHECK(engine.eval("(split #(1 2 \"x\"))").to_string() == "(\"x\" 2.0 1)");  // from a vector too
  CHECK(engine.eval("'(3 . 4)").as<std::pair<int, int>>() == std::pair(3, 4));
  CHECK(engine.eval("'(1 \"b\" #\\c)").as<std::tuple<int, std::string, char>>() == std::tuple(1, std::string("b"), 'c'));
  CHECK(engine.eval("'()").as<std::tuple<>>() == std::tuple<>());
  CHECK(Value(std::make_pair(1, 2.5)).to_string() == "(1 . 2.5)");
  CHECK(Value(std::make_tuple(1, std::string("a"), true)).to_string() == "(1 \"a\" #t)");

  CHECK(error_of(engine, "(split '(1 2))") == "split: argument 1 (std::tuple<int32_t, double, std::string>): "
                                              "expected 3 elements, got (1 2)");
  CHECK(error_of(engine, "(split '(1 2 3))") == "split: argument 1 (std::tuple<int32_t, double, std::string>): "
                                                "expected a string, got 3");
  CHECK(error_of(engine, "(swap 5)") == "swap: argument 1 (std::pair<int32_t, std::string>): expected a pair, got 5");
  CHECK_FALSE(engine.eval("'(1 2)").is<std::tuple<int>>());
  CHECK(engine.eval("'(1 2)").is<std::tuple<int, int>>());
  CHECK(engine.eval("'(1 2)").is<std::pair<int, std::vector<int>>>());  // (1 . (2))
}

TEST_CASE("arrays are vectors", "[api][containers]") {
  Engine engine;
  engine.define("rgb", [](std::array<uint8_t, 3> c) { return std::array<int, 3>{c[2], c[1], c[0]}; });
  CHECK(engine.eval("(rgb #(1 2 3))").to_string() == "#(3 2 1)");
  CHECK(engine.eval("(rgb '(1 2 3))").to_string() == "#(3 2 1)");
  CHECK(engine.eval("(vector-ref (rgb #(1 2 3)) 0)").as<int>() == 3);
  CHECK(error_of(engine, "(rgb #(1 2))") == "rgb: argument 1 (std::array<uint8_t, 3>): expected 3 elements, got #(1 2)");
  CHECK(error_of(engine, "(rgb #(1 2 300))") ==
        "rgb: argument 1 (std::array<uint8_t, 3>): expected an integer from 0 to 255, got 300");
  CHECK((engine.eval("#(1.5 2.5)").as<std::array<double, 2>>() == std::array<double, 2>{1.5, 2.5}));
  CHECK(Value(std::array<int, 2>{7, 8}).to_string() == "#(7 8)");
}

TEST_CASE("maps are hash tables, multimaps association lists, sets lists", "[api][containers][maps]") {
  Engine engine;
  engine.define("stock", [] { return std::map<std::string, int>{{"pears", 3}, {"apples", 5}}; });
  engine.define("total", [](const std::unordered_map<std::string, int>& m) {
    int t = 0;
    for (const auto& [k, v] : m) t += v;
    return t;
  });
  engine.define("tags", [](std::set<std::string> s) { return s; });
  engine.define("pairs", [] { return std::vector<std::pair<std::string, int>>{{"b", 2}, {"a", 1}}; });

  // A map becomes a mutable equal? hash table of this engine that Scheme's procedures use.
  Value stock = engine.eval("(define s (stock)) s");
  CHECK(stock.is_hash_table());
  CHECK(stock.type_name() == "hash table");
  CHECK(stock.to_string() == "#<hash-table>");
  CHECK(engine.eval("(hash-table-ref/default s \"pears\" 0)").as<int>() == 3);
  CHECK(engine.eval("(hash-table-ref s \"apples\" (lambda () 0))").as<int>() == 5);
  CHECK(engine.eval("(hash-table-size s)").as<int>() == 2);
  CHECK(engine.eval("(hash-table-mutable? s)").is_true());
  CHECK(engine.eval("(eq? (hash-table-equivalence-function s) equal?)").is_true());
  CHECK(engine.eval("(hash-table-set! s (string #\\k #\\i #\\w #\\i) 7) (hash-table-ref/default s \"kiwi\" 0)").as<int>() == 7);
  CHECK(engine.eval("(list-sort string<? (hash-table-keys s))").to_string() == "(\"apples\" \"kiwi\" \"pears\")");

  // Back: from a hash table (whatever its equivalence) or, as before, an association list.
  CHECK(engine.eval("(total s)").as<int>() == 15);
  CHECK(engine.eval("(total (stock))").as<int>() == 8);
  CHECK(engine.eval("(let ((t (make-hash-table eq?))) (hash-table-set! t 'a 1 'b 2) (total t))").as<int>() == 3);
  CHECK(engine.eval("(let ((t (make-hash-table string=?))) (hash-table-set! t \"x\" 4) (total t))").as<int>() == 4);
  CHECK(engine.eval("(total (make-hash-table equal?))").as<int>() == 0);
  CHECK(engine.eval("(total '((a . 1) (b . 2)))").as<int>() == 3);  // symbols as string keys
  CHECK(engine.eval("(total '())").as<int>() == 0);
  CHECK((stock.as<std::map<std::string, int>>() == std::map<std::string, int>{{"apples", 5}, {"kiwi", 7}, {"pears", 3}}));
  CHECK(stock.is<std::unordered_map<std::string, int>>());
  CHECK_FALSE(stock.is<std::map<std::string, std::string>>());
  CHECK_FALSE(stock.is<std::map<int, int>>());

  // Round trip of nested values, without an engine too (a process-wide seed and equal?).
  std::map<int, std::vector<std::string>> nested{{1, {"a", "b"}}, {2, {}}};
  Value free = Value(nested);
  CHECK(free.is_hash_table());
  CHECK(free.engine() == nullptr);
  CHECK(free.as<std::map<int, std::vector<std::string>>>() == nested);
  CHECK(engine.call("hash-table-ref/default", free, 1, false).to_string() == "(\"a\" \"b\")");
  CHECK(engine.call("hash-table-contains?", free, 3).is_false());
  Value same = engine.call("hash-table-equivalence-function", free);
  CHECK(engine.call(same, Value::list({1, "x"}), Value::list({1, "x"})).is_true());
  CHECK(engine.call(same, 1, 1.0).is_false());
  CHECK(engine.eval("(lambda (t) (let ((c (hash-table-copy t #t))) (hash-table-set! c (list 1) 2) (hash-table-ref/default c (list 1) 0)))")
            .as<std::function<int(Value)>>()(free) == 2);
  std::unordered_map<std::string, double> um{{"k", 1.5}};
  CHECK(engine.call("hash-table->alist", um).to_string() == "((\"k\" . 1.5))");
  // A map whose C++ keys collide as Scheme keys keeps one entry for each.
  CHECK(engine.call("hash-table-size", std::map<std::string, int>{{"a", 1}, {"b", 2}}).as<int>() == 2);

  // An association list on the way out: a vector of pairs.
  CHECK(engine.eval("(pairs)").to_string() == "((\"b\" . 2) (\"a\" . 1))");
  CHECK(engine.eval("(cdr (assoc \"a\" (pairs)))").as<int>() == 1);

  // From an association list, an earlier entry wins over a later one with the same key, as with assoc.
  auto m = engine.eval("'((1 . \"one\") (2 . \"two\") (1 . \"uno\"))").as<std::map<int, std::string>>();
  CHECK(m == std::map<int, std::string>{{1, "one"}, {2, "two"}});

  // Multimaps stay association lists (a hash table holds one value per key), in their order.
  auto mm = engine.eval("'((1 . a) (1 . b))").as<std::multimap<int, std::string>>();
  CHECK(mm.size() == 2);
  CHECK(Value(mm).to_string() == "((1 . \"a\") (1 . \"b\"))");
  CHECK(engine.eval("(let ((t (make-hash-table equal?))) (hash-table-set! t 1 'x) t)").as<std::multimap<int, std::string>>() ==
        std::multimap<int, std::string>{{1, "x"}});
  engine.define("count-multi", [](const std::unordered_multimap<std::string, int>& m) { return m.size(); });
  CHECK(engine.eval("(count-multi '((a . 1) (a . 2) (b . 3)))").as<int>() == 3);

  auto u = engine.eval("'(x y x)").as<std::unordered_set<std::string>>();
  CHECK(u.size() == 2);
  CHECK(engine.eval("(tags '(\"b\" \"a\" \"b\"))").to_string() == "(\"a\" \"b\")");
  auto nested_alist = engine.eval("'((\"a\" 1 2) (\"b\"))").as<std::map<std::string, std::vector<int>>>();
  CHECK(nested_alist.at("a") == std::vector<int>{1, 2});
  CHECK(nested_alist.at("b").empty());

  CHECK(error_of(engine, "(total '((a . 1) b))") ==
        "total: argument 1 (map<std::string, int32_t>): expected a (key . value) pair, got b");
  CHECK(error_of(engine, "(total '((a . x)))") == "total: argument 1 (map<std::string, int32_t>): expected an integer, got x");
  CHECK(error_of(engine, "(let ((t (make-hash-table equal?))) (hash-table-set! t \"a\" 'x) (total t))") ==
        "total: argument 1 (map<std::string, int32_t>): expected an integer, got x");
  CHECK(error_of(engine, "(let ((t (make-hash-table equal?))) (hash-table-set! t 5 1) (total t))") ==
        "total: argument 1 (map<std::string, int32_t>): expected a string, got 5");
  CHECK(error_of(engine, "(total 5)") ==
        "total: argument 1 (map<std::string, int32_t>): expected a hash table or an association list, got 5");
  CHECK(error_of(engine, "(count-multi 5)") ==
        "count-multi: argument 1 (multimap<std::string, int32_t>): expected a hash table or an association list, got 5");
  CHECK_FALSE(engine.eval("'((1 . 2) 3)").is<std::map<int, int>>());
}

namespace {
struct Unbound {
  int n = 1;
};
struct Known {
  int n = 2;
};
}  // namespace

TEST_CASE("a C++ type not given to define_type is an error, not an opaque object", "[api][containers][errors]") {
  Engine engine;
  engine.define("opaque", [] { return Unbound{}; });
  engine.define("opaque-in-map", [] { return std::map<std::string, Unbound>{{"a", {}}}; });
  engine.define("opaque-ptr", [] {
    static Unbound u;
    return &u;
  });
  const std::string why = "Unbound is not a type of this engine: give it to Engine::define_type first";
  CHECK(error_of(engine, "(opaque)") == "opaque: " + why);
  CHECK(error_of(engine, "(opaque-in-map)").find(why) != std::string::npos);
  CHECK(error_of(engine, "(opaque-ptr)").find(why) != std::string::npos);
  Unbound local;
  try {
    engine.set("u", &local);
    FAIL("set of an unregistered type succeeded");
  } catch (const quasi::Error& e) {
    CHECK(e.kind() == "type");
    CHECK(e.message().find(why) != std::string::npos);
  }
  CHECK_THROWS_AS(engine.make(std::make_shared<Unbound>()), quasi::Error);
  CHECK_THROWS_AS(engine.make(std::make_unique<Unbound>()), quasi::Error);
  // Registration belongs to an engine: another engine does not know the type.
  engine.define_type<Known>("known").property("n", &Known::n);
  CHECK(engine.make(Known{}).to_string() == "#<known>");
  Engine other;
  CHECK_THROWS_AS(other.make(Known{}), quasi::Error);
}

TEST_CASE("bytes are bytevectors", "[api][containers][bytes]") {
  Engine engine;
  engine.define("checksum", [](std::span<const uint8_t> bytes) {
    unsigned sum = 0;
    for (uint8_t b : bytes) sum += b;
    return sum;
  });
  engine.define("fill!", [](std::span<uint8_t> bytes, uint8_t x) {
    for (uint8_t& b : bytes) b = x;
  });
  engine.define("reversed", [](std::vector<uint8_t> v) { return std::vector<uint8_t>(v.rbegin(), v.rend()); });
  engine.define("raw", [](const std::vector<std::byte>& v) { return v.size(); });
  CHECK(engine.eval("(checksum (bytevector 1 2 255))").as<int>() == 258);
  CHECK(engine.eval("(checksum (bytevector))").as<int>() == 0);
  CHECK(engine.eval("(let ((b (make-bytevector 3 0))) (fill! b 7) b)").to_string() == "#u8(7 7 7)");
  CHECK(engine.eval("(reversed (bytevector 1 2 3))").to_string() == "#u8(3 2 1)");
  CHECK(engine.eval("(reversed '(1 2))").to_string() == "#u8(2 1)");  // a list of bytes converts too
  CHECK(engine.eval("(raw (bytevector 9 9))").as<int>() == 2);
  CHECK(error_of(engine, "(checksum '(1 2))") ==
        "checksum: argument 1 (std::span<const uint8_t>): expected a bytevector, got (1 2)");
  CHECK(error_of(engine, "(reversed '(1 256))") ==
        "reversed: argument 1 (std::vector<uint8_t>): expected an integer from 0 to 255, got 256");
  CHECK(engine.eval("(bytevector 1 2)").as<std::vector<uint8_t>>() == std::vector<uint8_t>{1, 2});
  CHECK(Value(std::vector<uint8_t>{0, 255}).to_string() == "#u8(0 255)");
  CHECK(Value(std::vector<uint8_t>{}).is_bytevector());
  // Other integer vectors stay lists.
  CHECK(Value(std::vector<int>{1, 2}).to_string() == "(1 2)");
}

TEST_CASE("variants take the first alternative that fits", "[api][containers][variant]") {
  Engine engine;
  using Num = std::variant<int64_t, double>;
  engine.define("kind", [](std::variant<int64_t, double, std::string, std::vector<int>> v) {
    return std::visit([](const auto& x) -> std::string {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, int64_t>) return "int";
      else if constexpr (std::is_same_v<X, double>) return "double";
      else if constexpr (std::is_same_v<X, std::string>) return "string";
      else return "list";
    }, v);
  });
  engine.define("half", [](Num n) -> Num {
    if (auto* i = std::get_if<int64_t>(&n); i && *i % 2 == 0) return *i / 2;
    return std::visit([](auto x) { return double(x) / 2; }, n);
  });
  CHECK(engine.eval("(kind 2)").as<std::string>() == "int");
  CHECK(engine.eval("(kind 2.5)").as<std::string>() == "double");
  CHECK(engine.eval("(kind 1/2)").as<std::string>() == "double");  // converted: no exact fit
  CHECK(engine.eval("(kind \"s\")").as<std::string>() == "string");
  CHECK(engine.eval("(kind 'sym)").as<std::string>() == "string");
  CHECK(engine.eval("(kind '(1 2))").as<std::string>() == "list");
  CHECK(engine.eval("(half 4)").to_string() == "2");
  CHECK(engine.eval("(half 3)").to_string() == "1.5");
  CHECK(error_of(engine, "(kind #\\a)") ==
        "kind: argument 1 (int64_t or double or std::string or std::vector<int32_t>): "
        "expected int64_t or double or std::string or std::vector<int32_t>, got #\\a");
  CHECK(std::get<std::string>(engine.eval("\"x\"").as<std::variant<int, std::string>>()) == "x");
  // Order matters when both fit exactly: the first wins.
  CHECK(engine.eval("#t").as<std::variant<bool, int>>().index() == 0);
  CHECK(engine.eval("1").as<std::variant<bool, int>>().index() == 1);  // bool takes 1 only with conversion
  CHECK(Value(std::variant<int, std::string>("v")).to_string() == "\"v\"");
}

TEST_CASE("string views as parameters", "[api][containers]") {
  Engine engine;
  engine.define("count-a", [](std::string_view s) { return std::count(s.begin(), s.end(), 'a'); });
  engine.define("join", [](std::vector<std::string_view> parts, std::string_view sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); i++) out += std::string(i ? sep : "") + std::string(parts[i]);
    return out;
  });
  CHECK(engine.eval("(count-a \"banana\")").as<int>() == 3);
  CHECK(engine.eval("(count-a 'aa)").as<int>() == 2);
  CHECK(engine.call("count-a", std::string_view("a-a")).as<int>() == 2);
  CHECK(error_of(engine, "(count-a 1)") == "count-a: argument 1 (std::string_view): expected a string, got 1");
}

TEST_CASE("conversions from Value report what did not fit", "[api][containers][errors]") {
  Engine engine;
  Value v = engine.eval("'(1 \"two\" 3)");
  CHECK(as_error(v, [](const Value& x) { x.as<std::vector<int>>(); }) == "expected an integer, got \"two\"");
  CHECK(as_error(v, [](const Value& x) { x.as<std::array<int, 2>>(); }) == "expected 2 elements, got (1 \"two\" 3)");
  engine.eval("(define width \"wide\")");
  try {
    engine.get<int>("width");
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.message() == "width: expected an integer, got \"wide\"");
    CHECK(e.kind() == "type");
  }
}
