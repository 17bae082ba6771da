// Unit tests of the data-structure builtins (lists.cpp, chars_strings.cpp, vectors.cpp) and of
// core/equality: primitives are looked up in an environment and called directly.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "builtins/registry.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"
#include "core/gc.hpp"
#include "core/object.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"

using namespace quasi;

namespace {

struct Prims {
  quasi::Vm vm;
  Environment* env;

  Prims() {
    env = make_environment(kFalse);
    register_list_primitives(env);
    register_char_string_primitives(env);
    register_vector_primitives(env);
  }

  Primitive* prim(const char* name) {
    Value cell = env->lookup(intern(name));
    REQUIRE(has_type(cell, Type::GlobalCell));
    Value p = cell.as<GlobalCell>()->value;
    REQUIRE(is_primitive(p));
    return p.as<Primitive>();
  }

  // Calls a primitive, checking the arity as the VM would.
  Value call(const char* name, std::initializer_list<Value> args) {
    Primitive* p = prim(name);
    int argc = static_cast<int>(args.size());
    if (argc < p->min_args || (p->max_args >= 0 && argc > p->max_args))
      arity_error(name, p->min_args, p->max_args, argc);
    std::vector<Value> argv(args);
    return p->fn(vm, p, argc, argv.data());
  }

  // The text of the error the call raises, or "<no error>".
  std::string error(const char* name, std::initializer_list<Value> args) {
    try {
      call(name, args);
    } catch (const SchemeError& e) {
      return condition_text(e.payload);
    }
    return "<no error>";
  }

  bool truthy(const char* name, std::initializer_list<Value> args) {
    return call(name, args).is_true();
  }
};

Value fx(int64_t n) { return make_fixnum(n); }
Value ch(char32_t c) { return make_char(c); }
Value str(const char* s) { return make_string_utf8(s); }
Value sym(const char* s) { return intern(s); }
std::string text(Value s) { return string_to_utf8(s); }
Value literal(Value v) {
  if (is_pair(v)) return cons_immutable(car(v), cdr(v));  // a plain pair has no room for the flag
  v.obj()->set_immutable();
  return v;
}
Value bytes(std::initializer_list<int> xs) {
  Value b = make_bytevector(static_cast<int64_t>(xs.size()));
  int i = 0;
  for (int x : xs) b.as<Bytevector>()->bytes()[i++] = static_cast<uint8_t>(x);
  return b;
}
Value vec(std::initializer_list<Value> xs) {
  Value v = make_vector(static_cast<int64_t>(xs.size()));
  int i = 0;
  for (Value x : xs) v.as<Vector>()->items()[i++] = x;
  return v;
}
// A list of n fixnums 0..n-1.
Value range_list(int64_t n) {
  Value r = kNil;
  for (int64_t i = n - 1; i >= 0; i--) r = cons(fx(i), r);
  return r;
}
// A circular list repeating the given items.
Value cycle(std::initializer_list<Value> xs) {
  Value l = list(xs);
  Value last = l;
  while (cdr(last) != kNil) last = cdr(last);
  last.as<Pair>()->cdr = l;
  return l;
}
// n levels of nesting: (((... leaf ...)))
Value nested(int64_t n, Value leaf) {
  Value v = leaf;
  for (int64_t i = 0; i < n; i++) v = cons(v, kNil);
  return v;
}

}  // namespace

TEST_CASE("eq?, eqv?, equal? on atoms and numbers", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(p.truthy("eq?", {sym("a"), sym("a")}));
  CHECK_FALSE(p.truthy("eq?", {str("a"), str("a")}));
  CHECK(p.truthy("eqv?", {make_flonum(1.5), make_flonum(1.5)}));
  CHECK_FALSE(p.truthy("eq?", {make_flonum(1.5), make_flonum(1.5)}));
  CHECK_FALSE(p.truthy("eqv?", {make_flonum(0.0), make_flonum(-0.0)}));
  CHECK_FALSE(p.truthy("eqv?", {make_flonum(2.0), fx(2)}));
  CHECK(p.truthy("eqv?", {ch(U'λ'), ch(U'λ')}));
  CHECK_FALSE(p.truthy("eqv?", {str(""), str("")}));
  CHECK(p.truthy("equal?", {str("λx"), str("λx")}));
  CHECK_FALSE(p.truthy("equal?", {str("ab"), str("abc")}));
  CHECK(p.truthy("equal?", {bytes({1, 2}), bytes({1, 2})}));
  CHECK_FALSE(p.truthy("equal?", {bytes({1, 2}), bytes({1, 3})}));
  CHECK(p.truthy("equal?", {make_flonum(1.5), make_flonum(1.5)}));
  CHECK_FALSE(p.truthy("equal?", {make_flonum(2.0), fx(2)}));
  CHECK(p.truthy("equal?", {vec({}), vec({})}));
}

TEST_CASE("equal? on nested structures", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value a = list({fx(1), vec({str("x"), list({fx(2), fx(3)})}), cons(fx(4), fx(5))});
  Value b = list({fx(1), vec({str("x"), list({fx(2), fx(3)})}), cons(fx(4), fx(5))});
  Value c = list({fx(1), vec({str("x"), list({fx(2), fx(4)})}), cons(fx(4), fx(5))});
  CHECK(p.truthy("equal?", {a, b}));
  CHECK_FALSE(p.truthy("equal?", {a, c}));
  CHECK_FALSE(p.truthy("equal?", {vec({fx(1)}), list({fx(1)})}));
  CHECK(equal_hash(a) == equal_hash(b));
  CHECK(equal_hash(str("abc")) == equal_hash(str("abc")));
  CHECK(eqv_hash(make_flonum(2.5)) == eqv_hash(make_flonum(2.5)));
}

TEST_CASE("equal? terminates on cycles", "[builtins]") {
  quasi::gc_init();
  // Different periods, same unfolding.
  Value a = cycle({fx(1), fx(2)});
  Value b = cycle({fx(1), fx(2), fx(1), fx(2)});
  Value c = cycle({fx(1), fx(2), fx(1), fx(3)});
  CHECK(equal(a, b));
  CHECK_FALSE(equal(a, c));
  CHECK(equal_hash(a) == equal_hash(b));
  // Cycles through cars: x = (x) and y = ((y)).
  Value x = cons(kNil, kNil);
  x.as<Pair>()->car = x;
  Value y = cons(cons(kNil, kNil), kNil);
  car(y).as<Pair>()->car = y;
  CHECK(equal(x, y));
  CHECK(equal_hash(x) == equal_hash(y));
  // A vector containing itself.
  Value v = vec({fx(1), kFalse});
  v.as<Vector>()->items()[1] = v;
  Value w = vec({fx(1), vec({fx(1), kFalse})});
  w.as<Vector>()->items()[1].as<Vector>()->items()[1] = w;
  CHECK(equal(v, w));
  Value z = vec({fx(1), vec({fx(2), kFalse})});
  z.as<Vector>()->items()[1].as<Vector>()->items()[1] = z;
  CHECK_FALSE(equal(v, z));

  // Long chains whose cars point further down the chain, the last one back to the head: many
  // cycles through cars and cdrs at once.
  auto chain = [](int64_t n, int64_t last) {
    Value l = range_list(n);
    Value p = l;
    for (; cdr(p) != kNil; p = cdr(p)) p.as<Pair>()->car = cdr(p);
    p.as<Pair>()->car = l;
    p.as<Pair>()->cdr = cons(fx(last), kNil);
    return l;
  };
  CHECK(equal(chain(2000, 1), chain(2000, 1)));
  CHECK_FALSE(equal(chain(2000, 1), chain(2000, 2)));
  CHECK(equal_hash(chain(2000, 1)) == equal_hash(chain(2000, 1)));
}

TEST_CASE("equal? on very long and very deep structures", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value a = range_list(1000000);
  Value b = range_list(1000000);
  CHECK(equal(a, b));
  CHECK(p.call("length", {a}) == fx(1000000));
  Value tail = p.call("last-pair", {b});
  tail.as<Pair>()->car = fx(-1);
  CHECK_FALSE(equal(a, b));

  Value d1 = nested(1000000, fx(7));
  Value d2 = nested(1000000, fx(7));
  Value d3 = nested(1000000, fx(8));
  CHECK(equal(d1, d2));
  CHECK_FALSE(equal(d1, d3));
  CHECK(equal_hash(d1) == equal_hash(d2));
  CHECK(p.truthy("member", {d2, list({fx(1), d1})}));
}

TEST_CASE("booleans and pairs", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(p.call("not", {kFalse}) == kTrue);
  CHECK(p.call("not", {fx(0)}) == kFalse);
  CHECK(p.truthy("boolean?", {kFalse}));
  CHECK_FALSE(p.truthy("boolean?", {kNil}));
  CHECK(p.truthy("boolean=?", {kTrue, kTrue, kTrue}));
  CHECK_FALSE(p.truthy("boolean=?", {kTrue, kFalse}));
  CHECK(p.error("boolean=?", {kTrue, fx(1)}) == "boolean=?: expected a boolean, got 1");

  Value pr = p.call("cons", {fx(1), fx(2)});
  CHECK(p.call("car", {pr}) == fx(1));
  CHECK(p.call("cdr", {pr}) == fx(2));
  CHECK(p.error("car", {fx(42)}) == "car: expected a pair, got 42");
  CHECK(p.error("cdr", {kNil}) == "cdr: expected a pair, got ()");
  p.call("set-car!", {pr, fx(3)});
  p.call("set-cdr!", {pr, fx(4)});
  CHECK(equal(pr, cons(fx(3), fx(4))));
  Value lit = literal(list({fx(1), fx(2)}));
  CHECK(p.error("set-car!", {lit, fx(0)}) ==
        "set-car!: cannot modify a literal constant: (1 2)");
  CHECK(p.error("set-cdr!", {lit, fx(0)}) ==
        "set-cdr!: cannot modify a literal constant: (1 2)");

  Value l = list({fx(1), list({fx(2), fx(3)}), fx(4), fx(5)});
  CHECK(p.call("cadr", {l}) == p.call("car", {p.call("cdr", {l})}));
  CHECK(p.call("caadr", {l}) == fx(2));
  CHECK(equal(p.call("cdadr", {l}), list({fx(3)})));
  CHECK(p.call("caddr", {l}) == fx(4));
  CHECK(p.call("cadddr", {l}) == fx(5));
  CHECK(equal(p.call("cddddr", {l}), kNil));
  CHECK(p.error("caddr", {list({fx(1)})}) ==
        "caddr: expected a value whose cdr is a pair, got (1)");
  CHECK(p.error("cadr", {fx(1)}) == "cadr: expected a pair, got 1");
}

TEST_CASE("list operations", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value l = list({fx(1), fx(2), fx(3)});
  CHECK(p.truthy("list?", {l}));
  CHECK_FALSE(p.truthy("list?", {cons(fx(1), fx(2))}));
  CHECK_FALSE(p.truthy("list?", {cycle({fx(1)})}));
  CHECK(p.truthy("null?", {kNil}));
  CHECK(equal(p.call("list", {fx(1), fx(2), fx(3)}), l));
  CHECK(p.call("list", {}) == kNil);
  CHECK(equal(p.call("make-list", {fx(2), ch('x')}), list({ch('x'), ch('x')})));
  CHECK(p.call("length", {l}) == fx(3));
  CHECK(p.error("length", {cons(fx(1), fx(2))}) ==
        "length: expected a proper list, got (1 . 2)");
  CHECK(p.error("length", {cycle({fx(1)})}).rfind("length: expected a proper list, got ", 0) ==
        0);

  // append copies all but the last argument, which may be anything.
  Value tail = list({fx(4)});
  Value app = p.call("append", {l, kNil, tail});
  CHECK(equal(app, list({fx(1), fx(2), fx(3), fx(4)})));
  CHECK(p.call("list-tail", {app, fx(3)}) == tail);
  CHECK(p.call("append", {}) == kNil);
  CHECK(p.call("append", {fx(5)}) == fx(5));
  CHECK(equal(p.call("append", {l, fx(5)}), cons(fx(1), cons(fx(2), cons(fx(3), fx(5))))));
  CHECK(p.error("append", {cons(fx(1), fx(2)), kNil}) ==
        "append: expected a proper list, got (1 . 2)");

  CHECK(equal(p.call("reverse", {l}), list({fx(3), fx(2), fx(1)})));
  CHECK(p.call("list-ref", {l, fx(2)}) == fx(3));
  CHECK(p.error("list-ref", {l, fx(3)}) == "list-ref: index out of range: 3");
  CHECK(p.error("list-tail", {l, fx(4)}) == "list-tail: index out of range: 4");
  CHECK(p.call("list-tail", {l, fx(3)}) == kNil);
  CHECK(p.call("list-tail", {cons(fx(1), fx(2)), fx(1)}) == fx(2));

  Value copy = p.call("list-copy", {l});
  CHECK(equal(copy, l));
  CHECK(copy != l);
  CHECK(p.call("list-copy", {fx(5)}) == fx(5));
  CHECK(equal(p.call("list-copy", {cons(fx(1), fx(2))}), cons(fx(1), fx(2))));
  p.call("list-set!", {copy, fx(1), sym("b")});
  CHECK(equal(copy, list({fx(1), sym("b"), fx(3)})));
  CHECK(p.error("list-set!", {literal(list({fx(1)})), fx(0), fx(2)}) ==
        "list-set!: cannot modify a literal constant: (1)");

  CHECK(equal(p.call("last-pair", {l}), list({fx(3)})));
  CHECK(equal(p.call("cons*", {fx(1), fx(2), l}), list({fx(1), fx(2), fx(1), fx(2), fx(3)})));
  CHECK(p.call("cons*", {fx(1)}) == fx(1));
  CHECK(equal(p.call("iota", {fx(3)}), list({fx(0), fx(1), fx(2)})));
  CHECK(equal(p.call("iota", {fx(3), fx(1), fx(2)}), list({fx(1), fx(3), fx(5)})));
  CHECK(p.call("iota", {fx(0)}) == kNil);
}

TEST_CASE("member and assoc families", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value l = list({sym("a"), str("b"), make_flonum(1.5), list({fx(1)})});
  CHECK(p.call("memq", {sym("a"), l}) == l);
  CHECK(p.call("memq", {str("b"), l}) == kFalse);
  CHECK(p.call("member", {str("b"), l}) == cdr(l));
  CHECK(p.call("memv", {make_flonum(1.5), l}) == cdr(cdr(l)));
  CHECK(p.call("member", {list({fx(1)}), l}) == cdr(cdr(cdr(l))));
  // A circular list raises instead of looping (after every element was looked at).
  CHECK(p.error("memq", {fx(9), cycle({fx(1), fx(2), fx(3)})})
            .rfind("memq: expected a proper list, got ", 0) == 0);
  CHECK(p.call("memv", {fx(3), cycle({fx(1), fx(2), fx(3)})}) != kFalse);
  CHECK(p.error("memq", {fx(9), cons(fx(1), fx(2))}) ==
        "memq: expected a proper list, got (1 . 2)");

  Value al = list({cons(sym("a"), fx(1)), cons(str("b"), fx(2)), cons(fx(3), fx(4))});
  CHECK(p.call("assq", {sym("a"), al}) == car(al));
  CHECK(p.call("assq", {str("b"), al}) == kFalse);
  CHECK(p.call("assoc", {str("b"), al}) == car(cdr(al)));
  CHECK(p.call("assv", {fx(3), al}) == car(cdr(cdr(al))));
  CHECK(p.call("assv", {fx(5), al}) == kFalse);
  CHECK(p.error("assq", {sym("z"), list({fx(1)})}) == "assq: expected a list of pairs, got (1)");
}

TEST_CASE("symbols", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value s = p.call("symbol->string", {sym("héllo")});
  CHECK(text(s) == "héllo");
  CHECK(s.obj()->immutable());
  CHECK(p.error("string-set!", {s, fx(0), ch('x')}).find("cannot modify a literal") !=
        std::string::npos);
  CHECK(p.call("string->symbol", {str("abc")}) == sym("abc"));
  Value u = p.call("string->uninterned-symbol", {str("abc")});
  CHECK(is_symbol(u));
  CHECK(u != sym("abc"));
  CHECK(p.truthy("symbol=?", {sym("a"), sym("a"), sym("a")}));
  CHECK_FALSE(p.truthy("symbol=?", {sym("a"), sym("b")}));
  CHECK(p.truthy("symbol<?", {sym("a"), sym("b"), sym("c")}));
  CHECK_FALSE(p.truthy("symbol<?", {sym("b"), sym("a")}));
  CHECK(p.error("symbol->string", {fx(1)}) == "symbol->string: expected a symbol, got 1");
}

TEST_CASE("characters", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(p.call("char->integer", {ch(U'λ')}) == fx(0x3BB));
  CHECK(p.call("integer->char", {fx(0x41)}) == ch('A'));
  CHECK(p.error("integer->char", {fx(0xD800)}) == "integer->char: code point out of range: 55296");
  CHECK(p.error("integer->char", {fx(0x110000)}).find("out of range") != std::string::npos);
  CHECK(p.truthy("char<?", {ch('a'), ch('b'), ch('c')}));
  CHECK_FALSE(p.truthy("char<?", {ch('a'), ch('c'), ch('b')}));
  CHECK(p.truthy("char>=?", {ch('c'), ch('c'), ch('a')}));
  CHECK(p.error("char=?", {ch('a'), ch('b'), fx(1)}) == "char=?: expected a character, got 1");
  CHECK(p.truthy("char-ci=?", {ch('a'), ch('A')}));
  CHECK(p.truthy("char-ci=?", {ch(U'σ'), ch(U'Σ'), ch(U'ς')}));

  CHECK(p.call("char-upcase", {ch(U'λ')}) == ch(U'Λ'));
  CHECK(p.call("char-downcase", {ch(U'Λ')}) == ch(U'λ'));
  CHECK(p.call("char-upcase", {ch(U'ß')}) == ch(U'ß'));
  CHECK(p.call("char-foldcase", {ch(U'ς')}) == ch(U'σ'));
  CHECK(p.call("char-foldcase", {ch('A')}) == ch('a'));
  CHECK(p.call("char-foldcase", {ch(0xAB70)}) == ch(0x13A0));
  CHECK(p.call("char-downcase", {ch('1')}) == ch('1'));

  CHECK(p.truthy("char-alphabetic?", {ch(U'λ')}));
  CHECK(p.truthy("char-alphabetic?", {ch('z')}));
  CHECK_FALSE(p.truthy("char-alphabetic?", {ch('1')}));
  CHECK_FALSE(p.truthy("char-alphabetic?", {ch(0x664)}));
  CHECK(p.truthy("char-numeric?", {ch(0x664)}));
  CHECK_FALSE(p.truthy("char-numeric?", {ch('x')}));
  CHECK(p.truthy("char-whitespace?", {ch(' ')}));
  CHECK(p.truthy("char-whitespace?", {ch(0xA0)}));
  CHECK(p.truthy("char-whitespace?", {ch(0x3000)}));
  CHECK_FALSE(p.truthy("char-whitespace?", {ch('a')}));
  CHECK(p.truthy("char-upper-case?", {ch(U'Λ')}));
  CHECK_FALSE(p.truthy("char-upper-case?", {ch(U'λ')}));
  CHECK(p.truthy("char-lower-case?", {ch(U'λ')}));
  CHECK(p.call("digit-value", {ch('7')}) == fx(7));
  CHECK(p.call("digit-value", {ch(0x664)}) == fx(4));
  CHECK(p.call("digit-value", {ch(0x0EA6)}) == kFalse);
  CHECK(p.call("digit-value", {ch(0x1D7FF)}) == fx(9));
  CHECK(p.call("digit-value", {ch('a')}) == kFalse);
}

TEST_CASE("basic string operations", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(text(p.call("make-string", {fx(3), ch(U'λ')})) == "λλλ");
  CHECK(p.call("string-length", {p.call("make-string", {fx(2)})}) == fx(2));
  CHECK(text(p.call("string", {ch('a'), ch(U'é')})) == "aé");
  Value s = str("aλc");
  CHECK(p.call("string-length", {s}) == fx(3));
  CHECK(p.call("string-ref", {s, fx(1)}) == ch(U'λ'));
  CHECK(p.error("string-ref", {s, fx(3)}) == "string-ref: index out of range: 3");
  CHECK(p.error("string-ref", {fx(1), fx(0)}) == "string-ref: expected a string, got 1");
  p.call("string-set!", {s, fx(0), ch('z')});
  CHECK(text(s) == "zλc");
  CHECK(p.error("string-set!", {literal(str("ab")), fx(0), ch('x')}) ==
        "string-set!: cannot modify a literal constant: \"ab\"");

  Value h = str("hello");
  CHECK(text(p.call("substring", {h, fx(1), fx(3)})) == "el");
  CHECK(text(p.call("string-copy", {h})) == "hello");
  CHECK(p.call("string-copy", {h}) != h);
  CHECK(text(p.call("string-copy", {h, fx(2)})) == "llo");
  CHECK(text(p.call("string-copy", {h, fx(1), fx(1)})) == "");
  CHECK(p.error("string-copy", {h, fx(3), fx(2)}) == "string-copy: end index out of range: 2");
  CHECK(p.error("string-copy", {h, fx(6)}) == "string-copy: start index out of range: 6");
  CHECK(text(p.call("string-append", {str("a"), str("βγ"), str("")})) == "aβγ");
  CHECK(text(p.call("string-append", {})) == "");

  // Overlapping copies in both directions.
  Value t = str("abcdef");
  p.call("string-copy!", {t, fx(2), t, fx(0), fx(4)});
  CHECK(text(t) == "ababcd");
  t = str("abcdef");
  p.call("string-copy!", {t, fx(0), t, fx(2)});
  CHECK(text(t) == "cdefef");
  CHECK(p.error("string-copy!", {str("ab"), fx(1), str("xyz")}) ==
        "string-copy!: destination index out of range: 1");
  t = str("abcde");
  p.call("string-fill!", {t, ch('x'), fx(1), fx(3)});
  CHECK(text(t) == "axxde");
  p.call("string-fill!", {t, ch('y')});
  CHECK(text(t) == "yyyyy");
  CHECK(p.error("string-fill!", {literal(str("a")), ch('b')}).find("literal") != std::string::npos);

  CHECK(equal(p.call("string->list", {str("abc"), fx(1)}), list({ch('b'), ch('c')})));
  CHECK(equal(p.call("string->list", {str("abc")}), list({ch('a'), ch('b'), ch('c')})));
  CHECK(text(p.call("list->string", {list({ch('x'), ch(U'ÿ')})})) == "xÿ");
  CHECK(p.error("list->string", {list({ch('x'), fx(1)})}) ==
        "list->string: expected a proper list of characters, got (#\\x 1)");
  CHECK(equal(p.call("string->vector", {str("abc"), fx(1), fx(2)}), vec({ch('b')})));
  CHECK(text(p.call("vector->string", {vec({ch('a'), ch('b'), ch('c')}), fx(1)})) == "bc");
}

TEST_CASE("string comparison, case and UTF-8", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(p.truthy("string=?", {str("abc"), str("abc"), str("abc")}));
  CHECK_FALSE(p.truthy("string=?", {str("abc"), str("abd")}));
  CHECK(p.truthy("string<?", {str("ab"), str("abc"), str("b")}));
  CHECK_FALSE(p.truthy("string<?", {str("abc"), str("ab")}));
  CHECK(p.truthy("string>=?", {str("b"), str("b"), str("a")}));
  CHECK(p.truthy("string<=?", {str(""), str("a")}));
  CHECK(p.truthy("string-ci=?", {str("HeLLo"), str("hello")}));
  CHECK(p.truthy("string-ci=?", {str("Straße"), str("STRASSE")}));
  CHECK(p.truthy("string-ci<?", {str("apple"), str("BANANA")}));
  CHECK(p.error("string<?", {str("a"), fx(1)}) == "string<?: expected a string, got 1");

  CHECK(text(p.call("string-upcase", {str("straße λ")})) == "STRASSE Λ");
  CHECK(text(p.call("string-downcase", {str("ΧΑΟΣ")})) == "χαος");
  CHECK(text(p.call("string-downcase", {str("ΣΑ Σ")})) == "σα σ");
  CHECK(text(p.call("string-foldcase", {str("Straße ΧΑΟΣ")})) == "strasse χαοσ");

  Value u = p.call("string->utf8", {str("aλ")});
  CHECK(equal(u, bytes({0x61, 0xCE, 0xBB})));
  CHECK(equal(p.call("string->utf8", {str("aλb"), fx(1), fx(2)}), bytes({0xCE, 0xBB})));
  CHECK(text(p.call("utf8->string", {u})) == "aλ");
  CHECK(text(p.call("utf8->string", {u, fx(1)})) == "λ");
  CHECK(text(p.call("utf8->string", {bytes({0x61, 0xFF, 0x62})})) == "a\uFFFDb");

  Value h = str("hello world");
  CHECK(p.call("string-contains", {h, str("o")}) == fx(4));
  CHECK(p.call("string-contains", {h, str("o"), fx(5)}) == fx(7));
  CHECK(p.call("string-contains", {h, str("world")}) == fx(6));
  CHECK(p.call("string-contains", {h, str("worlds")}) == kFalse);
  CHECK(p.call("string-contains", {h, str("")}) == fx(0));
  CHECK(p.call("string-contains", {h, str("o"), fx(0), fx(4)}) == kFalse);
}

TEST_CASE("vectors", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value v = p.call("make-vector", {fx(3), fx(0)});
  CHECK(equal(v, vec({fx(0), fx(0), fx(0)})));
  CHECK(p.call("vector-length", {v}) == fx(3));
  p.call("vector-set!", {v, fx(1), sym("x")});
  CHECK(p.call("vector-ref", {v, fx(1)}) == sym("x"));
  CHECK(p.error("vector-ref", {v, fx(10)}) == "vector-ref: index out of range: 10");
  CHECK(p.error("vector-ref", {v, fx(-1)}) == "vector-ref: index out of range: -1");
  CHECK(p.error("vector-ref", {v, sym("a")}) ==
        "vector-ref: expected an exact integer index, got a");
  CHECK(p.error("vector-set!", {literal(vec({fx(1)})), fx(0), fx(2)}) ==
        "vector-set!: cannot modify a literal constant: #(1)");
  CHECK(equal(p.call("vector", {fx(1), fx(2)}), vec({fx(1), fx(2)})));

  Value w = vec({fx(1), fx(2), fx(3), fx(4)});
  CHECK(equal(p.call("vector->list", {w}), list({fx(1), fx(2), fx(3), fx(4)})));
  CHECK(equal(p.call("vector->list", {w, fx(1), fx(3)}), list({fx(2), fx(3)})));
  CHECK(equal(p.call("list->vector", {list({fx(1), fx(2)})}), vec({fx(1), fx(2)})));
  CHECK(p.error("list->vector", {fx(1)}) == "list->vector: expected a proper list, got 1");
  CHECK(equal(p.call("vector-copy", {w, fx(2)}), vec({fx(3), fx(4)})));
  CHECK(p.call("vector-copy", {w}) != w);
  CHECK(equal(p.call("vector-append", {w, vec({}), vec({fx(5)})}),
              vec({fx(1), fx(2), fx(3), fx(4), fx(5)})));

  Value f = vec({fx(1), fx(2), fx(3), fx(4), fx(5)});
  p.call("vector-copy!", {f, fx(1), f, fx(0), fx(3)});
  CHECK(equal(f, vec({fx(1), fx(1), fx(2), fx(3), fx(5)})));
  p.call("vector-copy!", {f, fx(0), f, fx(2)});
  CHECK(equal(f, vec({fx(2), fx(3), fx(5), fx(3), fx(5)})));
  CHECK(p.error("vector-copy!", {f, fx(4), w}) ==
        "vector-copy!: destination index out of range: 4");
  p.call("vector-fill!", {f, fx(0), fx(3)});
  CHECK(equal(f, vec({fx(2), fx(3), fx(5), fx(0), fx(0)})));
  CHECK(p.error("vector-fill!", {f, fx(0), fx(6)}) ==
        "vector-fill!: start index out of range: 6");
}

TEST_CASE("bytevectors", "[builtins]") {
  quasi::gc_init();
  Prims p;
  Value b = p.call("make-bytevector", {fx(3), fx(7)});
  CHECK(equal(b, bytes({7, 7, 7})));
  CHECK(p.error("make-bytevector", {fx(3), fx(256)}) ==
        "make-bytevector: byte out of range: 256");
  CHECK(equal(p.call("bytevector", {fx(1), fx(255)}), bytes({1, 255})));
  CHECK(p.error("bytevector", {fx(1), sym("x")}) ==
        "bytevector: expected a byte (exact integer 0-255), got x");
  CHECK(p.call("bytevector-length", {b}) == fx(3));
  p.call("bytevector-u8-set!", {b, fx(0), fx(200)});
  CHECK(p.call("bytevector-u8-ref", {b, fx(0)}) == fx(200));
  CHECK(p.error("bytevector-u8-ref", {b, fx(3)}) == "bytevector-u8-ref: index out of range: 3");
  CHECK(p.error("bytevector-u8-set!", {b, fx(0), fx(-1)}) ==
        "bytevector-u8-set!: byte out of range: -1");
  CHECK(p.error("bytevector-u8-set!", {literal(bytes({1})), fx(0), fx(0)})
            .find("cannot modify a literal constant") != std::string::npos);
  Value c = bytes({1, 2, 3, 4, 5});
  CHECK(equal(p.call("bytevector-copy", {c, fx(1), fx(3)}), bytes({2, 3})));
  p.call("bytevector-copy!", {c, fx(1), c, fx(0), fx(3)});
  CHECK(equal(c, bytes({1, 1, 2, 3, 5})));
  CHECK(equal(p.call("bytevector-append", {bytes({1}), bytes({}), bytes({2, 3})}),
              bytes({1, 2, 3})));
  p.call("bytevector-fill!", {c, fx(9), fx(3)});
  CHECK(equal(c, bytes({1, 1, 2, 9, 9})));
}

TEST_CASE("primitive flags are consistent", "[builtins]") {
  quasi::gc_init();
  Prims p;
  CHECK(p.prim("car")->flags == (kPure | kFoldable | kMayRaise));
  CHECK(p.prim("cons")->flags == kAlloc);
  CHECK(p.prim("list")->flags == kAlloc);
  CHECK((p.prim("make-vector")->flags & kAlloc) == kAlloc);
  CHECK((p.prim("string-append")->flags & kAlloc) == kAlloc);
  CHECK(p.prim("set-car!")->flags == kEffect);
  CHECK(p.prim("vector-set!")->flags == kEffect);
  CHECK(p.prim("eq?")->flags == kPureFold);
  CHECK((p.prim("length")->flags & (kPure | kMayRaise)) == (kPure | kMayRaise));
  int count = 0;
  for (auto& [name, cell] : *p.env->table) {
    Primitive* prim = cell.as<GlobalCell>()->value.as<Primitive>();
    std::string n = prim->name;
    INFO(n);
    count++;
    CHECK(n == symbol_name(name));
    if (n.back() == '!') {
      CHECK((prim->flags & kHasEffects) != 0);
      CHECK((prim->flags & (kPure | kFoldable)) == 0);
    } else {
      CHECK((prim->flags & kPure) != 0);
      CHECK((prim->flags & kHasEffects) == 0);
    }
    if (prim->flags & kAllocates) CHECK((prim->flags & kFoldable) == 0);
  }
  CHECK(count > 130);
}
