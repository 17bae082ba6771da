// Printer: write / display / write-shared / write-simple, escapes, labels, truncation.
#include <catch2/catch.hpp>

#include <string>

#include "core/gc.hpp"
#include "core/object.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"

using namespace quasi;

namespace {

Value rd(const std::string& text) {
  StringSource src(text, intern_source_file("p.scm"));
  Reader r(src);
  return r.read();
}

std::string show(Value v, PrintMode mode) {
  std::string out;
  print_value(out, v, mode);
  return out;
}

Value str(const char* s) { return make_string_utf8(s); }

}  // namespace

TEST_CASE("printer: atoms", "[printer]") {
  gc_init();
  CHECK(write_to_string(make_fixnum(42)) == "42");
  CHECK(write_to_string(make_fixnum(-3)) == "-3");
  CHECK(write_to_string(kTrue) == "#t");
  CHECK(write_to_string(kFalse) == "#f");
  CHECK(write_to_string(kNil) == "()");
  CHECK(write_to_string(kEof) == "#!eof");
  CHECK(write_to_string(kUnspecified) == "#!unspecified");
  CHECK(write_to_string(kDefault) == "#!default");
  CHECK(write_to_string(kUnbound) == "#!unbound");
  CHECK(write_to_string(make_flonum(1.5)) == "1.5");
}

TEST_CASE("printer: strings and characters", "[printer]") {
  gc_init();
  CHECK(write_to_string(str("a\"b\\c\nd\te\rf")) == "\"a\\\"b\\\\c\\nd\\te\\rf\"");
  CHECK(write_to_string(str("\x01x\x7f")) == "\"\\x1;x\\x7f;\"");
  CHECK(write_to_string(str("λ")) == "\"λ\"");
  CHECK(display_to_string(str("a\"b\nc")) == "a\"b\nc");
  CHECK(write_to_string(make_char('a')) == "#\\a");
  CHECK(write_to_string(make_char(' ')) == "#\\space");
  CHECK(write_to_string(make_char('\n')) == "#\\newline");
  CHECK(write_to_string(make_char('\t')) == "#\\tab");
  CHECK(write_to_string(make_char(0)) == "#\\null");
  CHECK(write_to_string(make_char(0x7f)) == "#\\delete");
  CHECK(write_to_string(make_char(0x1)) == "#\\x1");
  CHECK(write_to_string(make_char(0xA0)) == "#\\xa0");
  CHECK(write_to_string(make_char(0x3bb)) == "#\\λ");
  CHECK(write_to_string(make_char('(')) == "#\\(");
  CHECK(display_to_string(make_char('a')) == "a");
  CHECK(display_to_string(make_char(0x3bb)) == "λ");
}

TEST_CASE("printer: symbols", "[printer]") {
  gc_init();
  CHECK(write_to_string(intern("abc")) == "abc");
  CHECK(write_to_string(intern("ABC")) == "ABC");
  CHECK(write_to_string(intern("a b")) == "|a b|");
  CHECK(write_to_string(intern("")) == "||");
  CHECK(write_to_string(intern("42")) == "|42|");
  CHECK(write_to_string(intern("1.5")) == "|1.5|");
  CHECK(write_to_string(intern("1+")) == "1+");
  CHECK(write_to_string(intern("+")) == "+");
  CHECK(write_to_string(intern("...")) == "...");
  CHECK(write_to_string(intern(".")) == "|.|");
  CHECK(write_to_string(intern("#foo")) == "|#foo|");
  CHECK(write_to_string(intern("a#b")) == "a#b");
  CHECK(write_to_string(intern("a|b")) == "|a\\|b|");
  CHECK(write_to_string(intern("(")) == "|(|");
  CHECK(write_to_string(intern("a\nb")) == "|a\\nb|");
  CHECK(write_to_string(intern("λ")) == "λ");
  CHECK(display_to_string(intern("a b")) == "a b");
  // Round trips through the reader.
  for (const char* name : {"a b", "", "42", ".", "#x", "a|b", "a\\b", "x;y", "'q", "\x01"}) {
    Value sym = intern(name);
    CHECK(rd(write_to_string(sym)) == sym);
  }
}

TEST_CASE("printer: lists, vectors, bytevectors, abbreviations", "[printer]") {
  gc_init();
  CHECK(write_to_string(rd("(1 2 3)")) == "(1 2 3)");
  CHECK(write_to_string(rd("(1 . 2)")) == "(1 . 2)");
  CHECK(write_to_string(rd("(1 (2 (3)) . 4)")) == "(1 (2 (3)) . 4)");
  CHECK(write_to_string(rd("#(1 \"a\" #\\b)")) == "#(1 \"a\" #\\b)");
  CHECK(display_to_string(rd("#(1 \"a\" #\\b)")) == "#(1 a b)");
  CHECK(display_to_string(rd("(\"x y\" |a b|)")) == "(x y a b)");
  CHECK(write_to_string(rd("#u8(1 2 255)")) == "#u8(1 2 255)");
  CHECK(write_to_string(rd("'a")) == "'a");
  CHECK(write_to_string(rd("(quote a b)")) == "(quote a b)");
  CHECK(write_to_string(rd("(quote . a)")) == "(quote . a)");
  CHECK(write_to_string(rd("(a 'b `(c ,d ,@e))")) == "(a 'b `(c ,d ,@e))");
  CHECK(write_to_string(make_vector(0)) == "#()");
  CHECK(write_to_string(make_bytevector(0)) == "#u8()");
}

TEST_CASE("printer: cycles and sharing", "[printer]") {
  gc_init();
  Value c = rd("#0=(1 2 . #0#)");
  CHECK(write_to_string(c) == "#0=(1 2 . #0#)");
  CHECK(display_to_string(c) == "#0=(1 2 . #0#)");
  CHECK(show(c, PrintMode::WriteShared) == "#0=(1 2 . #0#)");
  Value tail = rd("(1 . #0=(2 3 . #0#))");
  CHECK(write_to_string(tail) == "(1 . #0=(2 3 . #0#))");
  Value v = rd("#0=#(a #0# b)");
  CHECK(write_to_string(v) == "#0=#(a #0# b)");
  Value carcycle = rd("#0=(#0# . x)");
  CHECK(write_to_string(carcycle) == "#0=(#0# . x)");
  // Sharing without cycles: labels only in write-shared.
  Value shared = rd("(#0=(x) #0# #1=#(y) #1#)");
  CHECK(write_to_string(shared) == "((x) (x) #(y) #(y))");
  CHECK(show(shared, PrintMode::WriteShared) == "(#0=(x) #0# #1=#(y) #1#)");
  CHECK(show(shared, PrintMode::WriteSimple) == "((x) (x) #(y) #(y))");
  // Two cycles, labels numbered in print order.
  Value two = rd("(#5=(a . #5#) #7=(b . #7#))");
  CHECK(write_to_string(two) == "(#0=(a . #0#) #1=(b . #1#))");
  Value q = rd("#0='#0#");
  CHECK(write_to_string(q) == "#0='#0#");
  // Output reads back to the same shape.
  Value back = rd(write_to_string(c));
  CHECK(cdr(cdr(back)) == back);
  // write-simple of a cycle terminates only with a limit.
  std::string simple;
  {
    std::string t = write_to_string(c, 30);
    CHECK(t == "#0=(1 2 . #0#)");
  }
  (void)simple;
}

TEST_CASE("printer: truncation", "[printer]") {
  gc_init();
  Value big = kNil;
  for (int i = 0; i < 100000; i++) big = cons(make_fixnum(i), big);
  std::string s = write_to_string(big, 50);
  CHECK(s.size() <= 53);
  CHECK(s.substr(s.size() - 3) == "...");
  CHECK(s.rfind("(99999 99998", 0) == 0);
  CHECK(write_to_string(rd("(1 2)"), 50) == "(1 2)");
  // A huge cyclic list: labels found early, or truncation, but always finite.
  Value ring = cons(make_fixnum(0), kNil);
  Value last = ring;
  for (int i = 1; i < 100000; i++) {
    Value p = cons(make_fixnum(i), kNil);
    last.as<Pair>()->cdr = p;
    last = p;
  }
  last.as<Pair>()->cdr = ring;
  std::string r = write_to_string(ring, 40);
  CHECK(r.size() <= 43);
  CHECK(write_to_string(ring).size() > 100000);  // full write labels the cycle
  // Never split a UTF-8 sequence.
  std::string l = write_to_string(str("λλλλλλλλλλλλλλλλλλλλ"), 6);
  CHECK(l == "\"λλ...");
}

TEST_CASE("printer: long and deep structures", "[printer]") {
  gc_init();
  Value deep = kNil;
  for (int i = 0; i < 100000; i++) deep = cons(deep, kNil);
  std::string s = write_to_string(deep);
  CHECK(s.size() == 200002);
  Value dv = make_vector(0);
  for (int i = 0; i < 100000; i++) {
    Value nv = make_vector(1);
    nv.as<Vector>()->items()[0] = dv;
    dv = nv;
  }
  CHECK(write_to_string(dv).size() == 300003);
  Value lng = kNil;
  for (int i = 0; i < 200000; i++) lng = cons(make_fixnum(1), lng);
  CHECK(write_to_string(lng).size() == 400001);
}

TEST_CASE("printer: non-datum objects", "[printer]") {
  gc_init();
  Value prim = make_primitive("car", nullptr, 1, 1, 0);
  CHECK(write_to_string(prim) == "#<procedure car>");

  RecordType* rtd = gc_alloc_object<RecordType>(Type::RecordType, sizeof(RecordType));
  rtd->name = intern("point");
  rtd->field_names = kNil;
  rtd->nfields = 2;
  CHECK(write_to_string(make_ptr(rtd)) == "#<record-type point>");
  Record* rec = gc_alloc_object<Record>(Type::Record, sizeof(Record) + 2 * sizeof(Value));
  rec->rtd = rtd;
  rec->fields()[0] = make_fixnum(1);
  rec->fields()[1] = str("s");
  CHECK(write_to_string(make_ptr(rec)) == "#<point 1 \"s\">");
  CHECK(display_to_string(make_ptr(rec)) == "#<point 1 s>");
  rec->fields()[1] = make_ptr(rec);
  CHECK(write_to_string(make_ptr(rec)) == "#0=#<point 1 #0#>");

  Value cond = make_condition(intern("error"), intern("car"), str("expected a pair"),
                              list({make_fixnum(42), str("x")}));
  CHECK(write_to_string(cond) == "#<condition error: car: expected a pair 42 \"x\">");
  Value cond2 = make_condition(intern("read"), kFalse, str("oops"), kNil);
  CHECK(write_to_string(cond2) == "#<condition read: oops>");

  CHECK(write_to_string(make_box(make_fixnum(3))) == "#<box 3>");
  CHECK(write_to_string(make_global_cell(intern("g"))) == "#<global g>");
  Value items[2] = {make_fixnum(1), make_fixnum(2)};
  CHECK(write_to_string(make_values(2, items)) == "1 2");
  Promise* pr = gc_alloc_object<Promise>(Type::Promise, sizeof(Promise));
  CHECK(write_to_string(make_ptr(pr)) == "#<promise>");
  Parameter* pa = gc_alloc_object<Parameter>(Type::Parameter, sizeof(Parameter));
  CHECK(write_to_string(make_ptr(pa)) == "#<parameter>");
  Object* port = gc_alloc_object<Object>(Type::Port, 16);
  CHECK(write_to_string(make_ptr(port)) == "#<port>");
  Object* cont = gc_alloc_object<Object>(Type::Continuation, 16);
  CHECK(write_to_string(make_ptr(cont)) == "#<continuation>");
  Object* env = gc_alloc_object<Object>(Type::Environment, 16);
  CHECK(write_to_string(make_ptr(env)) == "#<environment>");
  Object* id = gc_alloc_object<Object>(Type::Identifier, 16);
  CHECK(write_to_string(make_ptr(id)) == "#<identifier>");
}

TEST_CASE("printer: round trip of read data", "[printer]") {
  gc_init();
  for (const char* text :
       {"(define (f x) (if (< x 2) x (+ (f (- x 1)) (f (- x 2)))))", "#(1 #(2) (3 . 4) \"s\\n\")",
        "(#\\a #\\space #\\x0 |sym bol| ||)", "`(a ,b ,@(c d) 'e)", "#u8(0 127 255)",
        "(a . #0=(b #1=#(c #0# #1#)))"}) {
    Value v = rd(text);
    std::string once = write_to_string(v);
    std::string twice = write_to_string(rd(once));
    CHECK(once == twice);
  }
}
