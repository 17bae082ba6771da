// quasi::Value: conversions both ways, inspection, printing, and GC safety of handles.
// Public header only.
#include <quasi/quasi.hpp>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using quasi::Engine;
using quasi::Value;

TEST_CASE("eval returns values with typed accessors", "[api][values]") {
  Engine engine;
  CHECK(engine.eval("(+ 1 2)").as<int64_t>() == 3);
  CHECK(engine.eval("(+ 1 2)").as<int>() == 3);
  CHECK(engine.eval("(/ 1 4)").as<double>() == 0.25);
  CHECK(engine.eval("2.5").as<double>() == 2.5);
  CHECK(engine.eval("#t").as<bool>());
  CHECK_FALSE(engine.eval("#f").as<bool>());
  CHECK(engine.eval("0").as<bool>());  // only #f is false
  CHECK(engine.eval("\"h\\xe9;llo\"").as<std::string>() == "h\xC3\xA9llo");
  CHECK(engine.eval("'sym").as<std::string>() == "sym");
  CHECK(engine.eval("#\\x").as<char>() == 'x');
  CHECK(engine.eval("'(1 2 3)").as<std::vector<int>>() == std::vector<int>{1, 2, 3});
  CHECK(engine.eval("#(1.5 2)").as<std::vector<double>>() == std::vector<double>{1.5, 2.0});
  CHECK(engine.eval("'((\"a\" \"b\") () (\"c\"))").as<std::vector<std::vector<std::string>>>() ==
        std::vector<std::vector<std::string>>{{"a", "b"}, {}, {"c"}});
  CHECK(engine.eval("#f").as<std::optional<int>>() == std::nullopt);
  CHECK(engine.eval("7").as<std::optional<int>>() == 7);
  CHECK(engine.eval("(expt 2 62)").as<int64_t>() == (int64_t(1) << 62));
  CHECK(engine.eval("(- (expt 2 64) 1)").as<uint64_t>() == UINT64_MAX);
}

TEST_CASE("conversions that do not fit throw quasi::Error", "[api][values]") {
  Engine engine;
  try {
    engine.eval("\"x\"").as<int64_t>();
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.kind() == "type");
    CHECK(std::string(e.what()) == "expected an integer, got \"x\"");
  }
  CHECK_THROWS_AS(engine.eval("300").as<int8_t>(), quasi::Error);
  CHECK_THROWS_AS(engine.eval("(expt 2 70)").as<int64_t>(), quasi::Error);
  CHECK_THROWS_AS(engine.eval("-1").as<unsigned>(), quasi::Error);
  CHECK_THROWS_AS(engine.eval("1.5").as<int>(), quasi::Error);
  CHECK_THROWS_AS(engine.eval("'(1 . 2)").as<std::vector<int>>(), quasi::Error);
  CHECK_THROWS_AS(engine.eval("'(1 \"a\")").as<std::vector<int>>(), quasi::Error);
  CHECK(engine.eval("300").is<int>());
  CHECK_FALSE(engine.eval("300").is<int8_t>());
  CHECK_FALSE(engine.eval("'a").is<double>());
}

TEST_CASE("predicates and type names", "[api][values]") {
  Engine engine;
  Value l = engine.eval("(list 1 2 3)");
  CHECK(l.is_list());
  CHECK(l.is_pair());
  CHECK(l.size() == 3);
  CHECK(l[1].as<int>() == 2);
  CHECK(l.car().as<int>() == 1);
  CHECK(l.cdr().size() == 2);
  CHECK(l.type_name() == "list");
  CHECK(engine.eval("'(1 . 2)").is_pair());
  CHECK_FALSE(engine.eval("'(1 . 2)").is_list());
  CHECK(engine.eval("'()").is_null());
  CHECK(engine.eval("'()").is_list());
  CHECK(engine.eval("car").is_procedure());
  CHECK(engine.eval("(lambda (x) x)").is_procedure());
  CHECK(engine.eval("(vector 1 2)").is_vector());
  CHECK(engine.eval("(vector 1 2)")[1].as<int>() == 2);
  CHECK(engine.eval("(bytevector 1)").is_bytevector());
  CHECK(engine.eval("(if #f #f)").is_unspecified());
  CHECK(engine.eval("(values)").is_unspecified());
  CHECK(engine.eval("1/3").is_number());
  CHECK_FALSE(engine.eval("1/3").is_integer());
  CHECK(engine.eval("1+2i").is_number());  // complex numbers are numbers, not reals
  CHECK_FALSE(engine.eval("1+2i").is_real());
  CHECK(engine.eval("(make-rectangular 1.5 -2.0)").type_name() == "complex");
  CHECK(engine.eval("(make-hash-table equal?)").is_hash_table());
  CHECK(engine.eval("(make-hash-table eq?)").type_name() == "hash table");
  CHECK_FALSE(engine.eval("'((a . 1))").is_hash_table());
  CHECK(engine.eval("12").is_integer());
  CHECK(engine.eval("#\\a").is_char());
  CHECK(engine.eval("'a").is_symbol());
  CHECK(engine.eval("\"a\"").is_string());
  CHECK(engine.eval("(guard (e (#t e)) (error \"x\"))").is_error());
  CHECK(engine.eval("(eof-object)").is_eof());
  CHECK(engine.eval("#f").is_false());
  CHECK(engine.eval("#t").is_boolean());
  CHECK(engine.eval("\"a\"").type_name() == "string");
  CHECK(Value().is_unspecified());
}

TEST_CASE("values print in write and display form", "[api][values]") {
  Engine engine;
  CHECK(engine.eval("'(1 \"two\" #\\3 4.5 sym)").to_string() == "(1 \"two\" #\\3 4.5 sym)");
  CHECK(engine.eval("\"two\"").to_display_string() == "two");
  CHECK(engine.eval("(values 1 2)").to_string() == "1\n2");
  std::ostringstream out;
  out << engine.eval("'(a b)");
  CHECK(out.str() == "(a b)");
}

TEST_CASE("values made from C++ need no engine", "[api][values]") {
  Value n = 42;
  Value big = int64_t(1) << 62;
  Value d = 2.5;
  Value s = "text";
  Value str = std::string("more");
  Value b = false;
  Value l = std::vector<int>{1, 2, 3};
  Value nested = std::vector<std::vector<std::string>>{{"a"}, {"b", "c"}};
  CHECK(n.to_string() == "42");
  CHECK(big.to_string() == "4611686018427387904");
  CHECK(d.to_string() == "2.5");
  CHECK(s.to_string() == "\"text\"");
  CHECK(str.as<std::string>() == "more");
  CHECK(b.to_string() == "#f");
  CHECK(l.to_string() == "(1 2 3)");
  CHECK(nested.to_string() == "((\"a\") (\"b\" \"c\"))");
  CHECK(Value::symbol("hello").to_string() == "hello");
  CHECK(Value::character(U'λ').to_string() == "#\\λ");
  CHECK(Value::list({1, "x", Value::symbol("y")}).to_string() == "(1 \"x\" y)");
  CHECK(Value::vector({1, 2.5}).to_string() == "#(1 2.5)");
  CHECK(Value::cons(1, 2).to_string() == "(1 . 2)");
  CHECK(Value::empty_list().to_string() == "()");
  CHECK(Value(std::optional<int>()).to_string() == "#f");
  CHECK(Value(UINT64_MAX).to_string() == "18446744073709551615");
  CHECK(Value(-5) == Value(-5));
  CHECK(Value::list({1, 2}) == Value(std::vector<int>{1, 2}));
  CHECK_FALSE(Value("a").eqv(Value("a")));
  CHECK(Value(3).eqv(Value(3)));

  // ...and can be handed to any engine.
  Engine engine;
  CHECK(engine.call("length", l).as<int>() == 3);
  CHECK(engine.call("string-append", s, str).as<std::string>() == "textmore");
}

TEST_CASE("get, set and call", "[api][values]") {
  Engine engine;
  engine.eval("(define counter 10) (define (add a b) (+ a b))");
  CHECK(engine.get<int>("counter") == 10);
  CHECK(engine.get("counter").as<int>() == 10);
  engine.set("counter", 11);
  CHECK(engine.eval("counter").as<int>() == 11);
  engine.set("greeting", "hi");
  engine.set("items", std::vector<std::string>{"a", "b"});
  CHECK(engine.eval("(string-append greeting (car items))").as<std::string>() == "hia");
  CHECK(engine.call("add", 2, 3).as<int>() == 5);
  std::string name = "add";
  CHECK(engine.call(name, 2.5, 3).as<double>() == 5.5);
  Value add = engine.get("add");
  CHECK(engine.call(add, 1, 1).as<int>() == 2);
  CHECK(engine.apply(add, {Value(4), Value(5)}).as<int>() == 9);
  CHECK(engine.contains("add"));
  CHECK_FALSE(engine.contains("no-such-thing"));
  try {
    engine.get("no-such-thing");
    FAIL("no error");
  } catch (const quasi::Error& e) {
    CHECK(e.kind() == "unbound");
  }
  // Code compiled before a set sees the new value.
  engine.eval("(define (read-counter) counter)");
  engine.set("counter", 99);
  CHECK(engine.call("read-counter").as<int>() == 99);
  // A Scheme procedure as a std::function.
  auto add_fn = engine.get<std::function<int(int, int)>>("add");
  CHECK(add_fn(20, 22) == 42);
}

TEST_CASE("globals lists bound names by prefix", "[api][values]") {
  Engine engine;
  engine.eval("(define my-counter 1) (define (my-add a b) (+ a b)) (define-syntax my-swap! (syntax-rules () ((_ a b) #t)))");
  engine.define("my-host", [](int x) { return x + 1; });
  using Names = std::vector<std::string>;
  CHECK(engine.globals("my-") == Names{"my-add", "my-counter", "my-host", "my-swap!"});
  Names cars = engine.globals("car");
  CHECK(std::find(cars.begin(), cars.end(), "car") != cars.end());
  Names defs = engine.globals("defin");
  CHECK(std::find(defs.begin(), defs.end(), "define") != defs.end());  // keywords too
  CHECK(engine.globals("no-such-prefix-").empty());
  // A name referred to but never defined is not bound.
  engine.eval("(define (later) (my-undefined-thing))");
  CHECK(engine.globals("my-undefined").empty());
  // Internals ('%' names) only when asked for.
  for (const std::string& n : engine.globals("")) CHECK(n.front() != '%');
  // The engine's own internals are never bound where user code runs; a script's %-names are.
  CHECK(engine.globals("%").empty());
  engine.eval("(define %mine 1)");
  CHECK(engine.globals("%") == Names{"%mine"});
  Names all = engine.globals();
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(all.size() > 200);
}

namespace {
struct Holder {
  Value kept;
};
Value g_global_value;
}  // namespace

TEST_CASE("handles keep their values alive across collections", "[api][gc]") {
  Engine engine;
  auto holder = std::make_unique<Holder>();
  holder->kept = engine.eval("(list (make-string 3 #\\a) (vector 1 2 3) (lambda (x) (* x 2)))");
  std::vector<Value> many;
  for (int i = 0; i < 200; i++) many.push_back(engine.eval("(list \"item\" " + std::to_string(i) + ")"));
  g_global_value = engine.eval("(string-copy \"global\")");
  Value moved_from = engine.eval("(list 'moved)");
  Value moved = std::move(moved_from);
  Value copy = holder->kept;
  // Churn: allocate a lot and collect several times.
  for (int round = 0; round < 5; round++) {
    engine.eval("(let loop ((i 0) (acc '())) (if (< i 20000) (loop (+ i 1) (cons (make-vector 4 i) acc)) (length acc)))");
    Engine::collect_garbage();
  }
  CHECK(holder->kept.to_string() == "(\"aaa\" #(1 2 3) #<procedure>)");
  CHECK(engine.call(holder->kept[2], 21).as<int>() == 42);
  for (int i = 0; i < 200; i++) REQUIRE(many[i].to_string() == "(\"item\" " + std::to_string(i) + ")");
  CHECK(g_global_value.as<std::string>() == "global");
  CHECK(moved.to_string() == "(moved)");
  CHECK(moved_from.is_unspecified());
  CHECK(copy == holder->kept);
  copy = Value(5);  // a heap value replaced by an immediate and back
  copy = moved;
  CHECK(copy.to_string() == "(moved)");
  g_global_value = Value();
}
