// C++ classes bound with define_type: properties, methods, static functions, overloaded
// constructors, inheritance (bases<...>), printers, equal?/hash hooks. Public header only.
#include <quasi/quasi.hpp>

#include "support.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

using quasi::Engine;
using quasi::Value;
using api_test::error_of;

namespace {
struct Vec3 {
  double x, y, z;
  Vec3(double x_, double y_, double z_) : x(x_), y(y_), z(z_) {}
  bool operator==(const Vec3&) const = default;
};
struct Vec2 {
  double x = 0, y = 0;
  Vec2() = default;
  Vec2(double x_, double y_) : x(x_), y(y_) {}
  explicit Vec2(double both) : x(both), y(both) {}
  double length() const { return std::hypot(x, y); }
  Vec2 plus(const Vec2& o) const { return {x + o.x, y + o.y}; }
  Vec2 scaled(double k) const { return {x * k, y * k}; }
  Vec2 scaled(double kx, double ky) const { return {x * kx, y * ky}; }
  static Vec2 unit_x() { return {1, 0}; }
  bool operator==(const Vec2& o) const { return x == o.x && y == o.y; }
};

class Account {
 public:
  explicit Account(std::string owner) : owner_(std::move(owner)) {}
  const std::string& owner() const { return owner_; }
  void set_owner(const std::string& o) {
    if (o.empty()) throw std::invalid_argument("empty owner");
    owner_ = o;
  }
  int64_t balance() const { return balance_; }
  const int id = 7;
  int64_t limit = 100;

 private:
  std::string owner_;
  int64_t balance_ = 0;
};

struct Particle {
  Vec2 position;
  Vec2 velocity{1, 1};
  void step() { position = position.plus(velocity); }
};
}  // namespace

TEST_CASE("properties read and write members, getters and setters", "[api][classes]") {
  Engine engine;
  engine.define_type<Vec2>("vec2").constructor<double, double>().property("x", &Vec2::x).property("y", &Vec2::y);
  engine.define_type<Account>("account")
      .constructor<std::string>()
      .property("owner", &Account::owner, &Account::set_owner)
      .property("balance", &Account::balance)
      .property("id", &Account::id)
      .property("limit", &Account::limit)
      .readonly("limit-view", &Account::limit)
      .property("display-name", [](const Account& a) { return "<" + a.owner() + ">"; },
                [](Account& a, std::string s) { a.set_owner(s.substr(1, s.size() - 2)); });

  CHECK(engine.eval("(let ((v (make-vec2 1 2))) (vec2-x-set! v 10) (list (vec2-x v) (vec2-y v)))").to_string() ==
        "(10.0 2.0)");
  engine.eval("(define a (make-account \"ann\"))");
  CHECK(engine.eval("(account-owner a)").as<std::string>() == "ann");
  engine.eval("(account-owner-set! a \"bea\")");
  CHECK(engine.eval("(account-owner a)").as<std::string>() == "bea");
  CHECK(engine.eval("(account-balance a)").as<int>() == 0);
  CHECK(engine.eval("(account-id a)").as<int>() == 7);
  engine.eval("(account-limit-set! a 500)");
  CHECK(engine.eval("(account-limit-view a)").as<int>() == 500);
  CHECK(engine.eval("(account-display-name a)").as<std::string>() == "<bea>");
  engine.eval("(account-display-name-set! a \"<cy>\")");
  CHECK(engine.eval("(account-owner a)").as<std::string>() == "cy");
  // Read-only: no setter is defined.
  CHECK_FALSE(engine.contains("account-balance-set!"));
  CHECK_FALSE(engine.contains("account-id-set!"));
  CHECK_FALSE(engine.contains("account-limit-view-set!"));
  // Setter errors name the setter and the argument.
  CHECK(error_of(engine, "(account-owner-set! a \"\")") == "account-owner-set!: empty owner");
  CHECK(error_of(engine, "(account-limit-set! a \"x\")") ==
        "account-limit-set!: argument 2 (int64_t): expected an integer, got \"x\"");
  CHECK(error_of(engine, "(account-owner 5)") == "account-owner: argument 1 (Account): expected an account, got 5");
}

TEST_CASE("members of a bound type are handed out in place", "[api][classes]") {
  Engine engine;
  engine.define_type<Vec2>("vec2").constructor<double, double>().property("x", &Vec2::x);
  engine.define_type<Particle>("particle")
      .constructor<>()
      .property("position", &Particle::position)
      .property("velocity", &Particle::velocity)
      .method("step!", &Particle::step);
  // Changing the member through the handle changes the particle.
  CHECK(engine.eval(R"(
    (define p (make-particle))
    (vec2-x-set! (particle-velocity p) 5)
    (particle-step! p)
    (vec2-x (particle-position p)))").as<double>() == 5.0);
  // Assigning a member copies the new value in.
  engine.eval("(particle-position-set! p (make-vec2 -1 0))");
  CHECK(engine.eval("(vec2-x (particle-position p))").as<double>() == -1.0);
  // The member handle keeps its particle alive after the particle is dropped.
  engine.eval("(define v (particle-velocity (make-particle))) (set! p #f)");
  for (int i = 0; i < 3; i++) Engine::collect_garbage();
  CHECK(engine.eval("(vec2-x v)").as<double>() == 1.0);
}

TEST_CASE("methods, static functions and overloaded constructors", "[api][classes][overloads]") {
  Engine engine;
  engine.define_type<Vec2>("vec2")
      .constructor<>()
      .constructor<double, double>()
      .constructor<double>()
      .constructor([](std::string s) { return Vec2(double(s.size()), 0); })
      .property("x", &Vec2::x)
      .property("y", &Vec2::y)
      .method("length", &Vec2::length)
      .method("plus", &Vec2::plus)
      .method("scaled", static_cast<Vec2 (Vec2::*)(double) const>(&Vec2::scaled))
      .method("scaled", static_cast<Vec2 (Vec2::*)(double, double) const>(&Vec2::scaled))
      .static_function("unit-x", &Vec2::unit_x)
      .static_function("from-list", [](std::vector<double> v) { return Vec2(v.at(0), v.at(1)); });
  auto xy = [&](const char* code) {
    Value v = engine.eval(code);
    return std::to_string(int(engine.call("vec2-x", v).as<double>())) + "," +
           std::to_string(int(engine.call("vec2-y", v).as<double>()));
  };
  CHECK(xy("(make-vec2)") == "0,0");
  CHECK(xy("(make-vec2 1 2)") == "1,2");
  CHECK(xy("(make-vec2 3)") == "3,3");
  CHECK(xy("(make-vec2 \"abcd\")") == "4,0");
  CHECK(xy("(vec2-scaled (make-vec2 1 2) 3)") == "3,6");
  CHECK(xy("(vec2-scaled (make-vec2 1 2) 3 4)") == "3,8");
  CHECK(xy("(vec2-plus (make-vec2 1 2) (vec2-unit-x))") == "2,2");
  CHECK(xy("(vec2-from-list '(5 6))") == "5,6");
  CHECK(engine.eval("(vec2-length (make-vec2 3 4))").as<double>() == 5.0);
  CHECK(error_of(engine, "(make-vec2 'a 'b 'c)") == "make-vec2: expected 0 to 2 arguments, got 3");
  CHECK(error_of(engine, "(make-vec2 #t)") ==
        "make-vec2: no overload accepts (#t); candidates: (make-vec2), (make-vec2 double double), "
        "(make-vec2 double), (make-vec2 std::string)");
  // One candidate with this many arguments: its own error, naming the argument.
  CHECK(error_of(engine, "(make-vec2 1 'b)") == "make-vec2: argument 2 (double): expected a real number, got b");
}

namespace {
struct Owned {
  static inline int alive = 0;
  int n;
  explicit Owned(int n_) : n(n_) { alive++; }
  ~Owned() { alive--; }
};
}  // namespace

TEST_CASE("unique_ptr results and factories give the object to Scheme", "[api][classes]") {
  {
    Engine engine;
    engine.define_type<Owned>("owned")
        .constructor([](int n) { return std::make_unique<Owned>(n); })
        .property("n", &Owned::n);
    engine.define("make-owned-pair", [](int n) { return std::make_pair(std::make_shared<Owned>(n), 1); });
    CHECK(engine.eval("(owned-n (make-owned 5))").as<int>() == 5);
    auto p = std::make_unique<Owned>(9);
    Value v = engine.make(std::move(p));
    CHECK(p == nullptr);
    CHECK(engine.call("owned-n", v).as<int>() == 9);
    CHECK(engine.eval("(owned-n (car (make-owned-pair 3)))").as<int>() == 3);
    CHECK(Owned::alive >= 1);
  }
  for (int i = 0; i < 3; i++) Engine::collect_garbage();
  CHECK(Owned::alive <= 2);  // collected (conservative scanning may keep one or two)
}

namespace {
struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
  virtual std::string kind() const { return "shape"; }
  std::string label = "unnamed";
};
struct Circle : Shape {
  double r;
  explicit Circle(double r_) : r(r_) {}
  double area() const override { return 3 * r * r; }
  std::string kind() const override { return "circle"; }
};
struct Square : Shape {
  double side;
  explicit Square(double s) : side(s) {}
  double area() const override { return side * side; }
};
// Multiple inheritance: the Shape part is not at the start of the object.
struct Tagged {
  virtual ~Tagged() = default;
  std::string tag = "t";
};
struct TaggedSquare : Tagged, Square {
  TaggedSquare() : Square(2) {}
};
struct UnitSquare : TaggedSquare {};
}  // namespace

TEST_CASE("derived objects are accepted where a base is expected", "[api][classes][inheritance]") {
  Engine engine;
  engine.define_type<Shape>("shape")
      .method("area", &Shape::area)
      .method("kind", &Shape::kind)
      .property("label", &Shape::label);
  engine.define_type<Circle>("circle", quasi::bases<Shape>()).constructor<double>().property("r", &Circle::r);
  engine.define_type<Square>("square", quasi::bases<Shape>()).constructor<double>();
  engine.define_type<Tagged>("tagged").property("tag", &Tagged::tag);
  engine.define_type<TaggedSquare>("tagged-square", quasi::bases<Tagged, Square>()).constructor<>();
  engine.define_type<UnitSquare>("unit-square", quasi::bases<TaggedSquare>()).constructor<>();
  engine.define("total-area", [](const std::vector<std::shared_ptr<Shape>>& shapes) {
    double t = 0;
    for (const auto& s : shapes) t += s->area();
    return t;
  });
  engine.define("describe", [](const Shape& s) { return s.kind() + ":" + s.label; });
  engine.define("bigger", [](Shape* a, Shape* b) { return a->area() >= b->area() ? a : b; });

  // Base methods apply, with virtual dispatch.
  CHECK(engine.eval("(shape-area (make-circle 1))").as<double>() == 3.0);
  CHECK(engine.eval("(shape-kind (make-circle 1))").as<std::string>() == "circle");
  CHECK(engine.eval("(shape-kind (make-square 1))").as<std::string>() == "shape");
  CHECK(engine.eval("(let ((c (make-circle 2))) (shape-label-set! c \"c\") (describe c))").as<std::string>() ==
        "circle:c");
  CHECK(engine.eval("(total-area (list (make-circle 1) (make-square 2)))").as<double>() == 7.0);
  CHECK(engine.eval("(circle-r (bigger (make-square 1) (make-circle 1)))").as<double>() == 1.0);
  // Predicates follow the hierarchy.
  CHECK(engine.eval("(list (shape? (make-circle 1)) (circle? (make-circle 1)) (circle? (make-square 1)))")
            .to_string() == "(#t #t #f)");
  // Multiple inheritance, two levels: the pointer is adjusted to each base.
  CHECK(engine.eval("(shape-area (make-tagged-square))").as<double>() == 4.0);
  CHECK(engine.eval("(tagged-tag (make-tagged-square))").as<std::string>() == "t");
  CHECK(engine.eval("(shape-area (make-unit-square))").as<double>() == 4.0);
  CHECK(engine.eval("(describe (make-unit-square))").as<std::string>() == "shape:unnamed");
  CHECK(engine.eval("(tagged-tag (make-unit-square))").as<std::string>() == "t");
  CHECK(engine.eval("(shape? (make-unit-square))").as<bool>());
  // From C++: a derived object as its base, and shared ownership through the base.
  Value c = engine.eval("(make-circle 3)");
  CHECK(c.is<Shape>());
  CHECK(c.as<Shape&>().area() == 27.0);
  std::shared_ptr<Shape> shared = c.as<std::shared_ptr<Shape>>();
  c = Value();
  for (int i = 0; i < 3; i++) Engine::collect_garbage();
  CHECK(shared->area() == 27.0);  // still owned through the shared_ptr
  // Not a base: refused with the expected type.
  CHECK(error_of(engine, "(circle-r (make-square 1))") == "circle-r: argument 1 (Circle): expected a circle, got #<square>");
  CHECK(error_of(engine, "(describe (make-tagged-square))") == "(no error)");
  CHECK_FALSE(engine.eval("(make-tagged-square)").is<Circle>());
}

TEST_CASE("overloads are chosen by arity and type, exact fits first", "[api][overloads]") {
  Engine engine;
  engine.define("show", [](int64_t n) { return "int " + std::to_string(n); },
                [](double d) { return "double " + std::to_string(int(d * 10)); },
                [](const std::string& s) { return "string " + s; },
                [](int64_t a, int64_t b) { return "two " + std::to_string(a + b); });
  CHECK(engine.eval("(show 3)").as<std::string>() == "int 3");
  CHECK(engine.eval("(show 2.5)").as<std::string>() == "double 25");
  CHECK(engine.eval("(show 1/2)").as<std::string>() == "double 5");  // no exact fit: converted
  CHECK(engine.eval("(show \"s\")").as<std::string>() == "string s");
  CHECK(engine.eval("(show 'sym)").as<std::string>() == "string sym");
  CHECK(engine.eval("(show 1 2)").as<std::string>() == "two 3");
  CHECK(error_of(engine, "(show #\\a)") ==
        "show: no overload accepts (#\\a); candidates: (show int64_t), (show double), (show std::string), "
        "(show int64_t int64_t)");
  CHECK(error_of(engine, "(show)") == "show: expected 1 to 2 arguments, got 0");
  CHECK(engine.eval("(guard (e ((error-object? e) 'caught)) (show 1 2 3))").to_string() == "caught");

  // overload() adds to the set; define() replaces it, as Scheme's define does.
  engine.overload("show", [](bool b) { return std::string(b ? "yes" : "no"); });
  CHECK(engine.eval("(show #t)").as<std::string>() == "yes");
  CHECK(engine.eval("(show 3)").as<std::string>() == "int 3");
  engine.overload("fresh", [](int x) { return x; });  // nothing bound yet: a plain definition
  CHECK(engine.eval("(fresh 4)").as<int>() == 4);
  engine.define("show", [](int64_t n) { return n; });
  CHECK(error_of(engine, "(show \"s\")") == "show: argument 1 (int64_t): expected an integer, got \"s\"");
  engine.eval("(define (scheme-proc x) x)");
  CHECK_THROWS_WITH(engine.overload("scheme-proc", [](int x) { return x; }),
                    "overload: scheme-proc is bound to #<procedure scheme-proc>, not to a C++ function of this engine");
  // Optional and rest parameters take part.
  engine.define("opt", [](int64_t a, std::optional<int64_t> b) { return a + b.value_or(100); },
                [](std::string s, quasi::Rest rest) { return int64_t(s.size() + rest.values.size()); });
  CHECK(engine.eval("(opt 1)").as<int>() == 101);
  CHECK(engine.eval("(opt 1 2)").as<int>() == 3);
  CHECK(engine.eval("(opt \"ab\" 1 2 3)").as<int>() == 5);
  CHECK(error_of(engine, "(opt 1.5 'b)") == "opt: no overload accepts (1.5 b); candidates: (opt int64_t [std::optional<int64_t>]), "
                                          "(opt std::string ...)");
  // Derived objects: the exact type first, then a base.
  engine.define_type<Shape>("shape");
  engine.define_type<Circle>("circle", quasi::bases<Shape>()).constructor<double>();
  engine.define_type<Square>("square", quasi::bases<Shape>()).constructor<double>();
  engine.define("which", [](const Shape&) { return "shape"; }, [](const Circle&) { return "circle"; });
  CHECK(engine.eval("(which (make-circle 1))").as<std::string>() == "circle");
  CHECK(engine.eval("(which (make-square 1))").as<std::string>() == "shape");
}

TEST_CASE("printer, equal? and hash hooks", "[api][classes][hooks]") {
  Engine engine;
  engine.define_type<Vec2>("vec2")
      .constructor<double, double>()
      .printer([](const Vec2& v) { return "#<vec2 " + std::to_string(int(v.x)) + " " + std::to_string(int(v.y)) + ">"; })
      .equal()
      .hash([](const Vec2& v) { return std::hash<double>{}(v.x) ^ std::hash<double>{}(v.y); });
  CHECK(engine.eval("(make-vec2 1 2)").to_string() == "#<vec2 1 2>");
  CHECK(engine.eval("(list (make-vec2 1 2) 'x)").to_string() == "(#<vec2 1 2> x)");
  CHECK(engine.eval("(with-output-to-string (lambda () (display (make-vec2 3 4))))").as<std::string>() ==
        "#<vec2 3 4>");
  CHECK(engine.eval("(equal? (make-vec2 1 2) (make-vec2 1 2))").as<bool>());
  CHECK_FALSE(engine.eval("(equal? (make-vec2 1 2) (make-vec2 2 1))").as<bool>());
  CHECK_FALSE(engine.eval("(eqv? (make-vec2 1 2) (make-vec2 1 2))").as<bool>());
  CHECK(engine.eval("(equal? (list (make-vec2 1 2)) (list (make-vec2 1 2)))").as<bool>());
  CHECK(engine.eval("(member (make-vec2 0 1) (list (make-vec2 1 0) (make-vec2 0 1)))").to_string() == "(#<vec2 0 1>)");
  CHECK(engine.eval("(make-vec2 5 5)") == engine.eval("(make-vec2 5 5)"));  // Value's == is equal?
  // The hash hook keys equal? hash tables: a fresh equal object finds the entry, and so does a
  // map handed over from C++ (std::map<std::string, Vec2> -> table with objects as values).
  CHECK(engine.eval("(= (equal-hash (make-vec2 1 2)) (equal-hash (make-vec2 1 2)))").as<bool>());
  CHECK(engine.eval(R"((let ((t (make-hash-table equal?)))
                         (do ((i 0 (+ i 1))) ((= i 200)) (hash-table-set! t (make-vec2 i (- i)) i))
                         (list (hash-table-size t)
                               (hash-table-ref/default t (make-vec2 17 -17) #f)
                               (hash-table-ref/default t (make-vec2 17 17) #f))))")
            .to_string() == "(200 17 #f)");
  engine.define("corners", [] { return std::map<std::string, Vec2>{{"origin", {0, 0}}, {"unit", {1, 1}}}; });
  CHECK(engine.eval("(equal? (hash-table-ref/default (corners) \"unit\" #f) (make-vec2 1 1))").as<bool>());
  CHECK(engine.eval("(hash-table->alist (let ((t (make-hash-table equal?))) (hash-table-set! t (make-vec2 3 4) 'a) t))")
            .to_string() == "((#<vec2 3 4> . a))");
  // Error messages show the printed form.
  engine.define("needs-int", [](int x) { return x; });
  CHECK(error_of(engine, "(needs-int (make-vec2 7 8))") == "needs-int: argument 1 (int32_t): expected an integer, got #<vec2 7 8>");

  // Without hooks: #<name>, and equal? is identity.
  engine.define_type<Account>("account").constructor<std::string>();
  CHECK(engine.eval("(make-account \"a\")").to_string() == "#<account>");
  CHECK_FALSE(engine.eval("(equal? (make-account \"a\") (make-account \"a\"))").as<bool>());
  CHECK(engine.eval("(let ((a (make-account \"a\"))) (equal? a a))").as<bool>());
  // With equal but no hash hook all objects of a type hash alike: tables still find them.
  engine.define_type<Vec3>("vec3").constructor<double, double, double>().equal();
  CHECK(engine.eval(R"((let ((t (make-hash-table equal?)))
                         (hash-table-set! t (make-vec3 1 2 3) 'a (make-vec3 3 2 1) 'b)
                         (list (hash-table-ref/default t (make-vec3 3 2 1) #f) (hash-table-size t))))")
            .to_string() == "(b 2)");

  // A derived type uses its base's hooks (printer and equality), the object seen as the base.
  engine.define_type<Shape>("shape").printer([](const Shape& s) { return "#<" + s.kind() + ">"; }).equal(
      [](const Shape& a, const Shape& b) { return a.area() == b.area(); });
  engine.define_type<Circle>("circle", quasi::bases<Shape>()).constructor<double>();
  engine.define_type<TaggedSquare>("tagged-square", quasi::bases<Tagged, Square>()).constructor<>();
  engine.define_type<Square>("square", quasi::bases<Shape>()).constructor<double>();
  CHECK(engine.eval("(make-circle 1)").to_string() == "#<circle>");
  CHECK(engine.eval("(make-tagged-square)").to_string() == "#<shape>");
  CHECK(engine.eval("(equal? (make-circle 2) (make-square (sqrt 12)))").as<bool>() ==
        (3.0 * 2 * 2 == std::sqrt(12.0) * std::sqrt(12.0)));
  CHECK(engine.eval("(equal? (make-square 2) (make-tagged-square))").as<bool>());
  // A printer that throws falls back to the default form.
  engine.define_type<Particle>("particle").constructor<>().printer([](const Particle&) -> std::string {
    throw std::runtime_error("no");
  });
  CHECK(engine.eval("(make-particle)").to_string() == "#<particle>");
}
