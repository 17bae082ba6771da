// Reader: R7RS lexical syntax, source locations, errors, robustness on arbitrary input.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/gc.hpp"
#include "core/object.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"

using namespace quasi;

namespace {

uint32_t test_file() { return intern_source_file("t.scm"); }

Value read1(const std::string& text) {
  StringSource src(text, test_file());
  Reader r(src);
  return r.read();
}

std::vector<Value> read_all(const std::string& text) {
  StringSource src(text, test_file());
  Reader r(src);
  std::vector<Value> out;
  for (Value v = r.read(); v != kEof; v = r.read()) out.push_back(v);
  return out;
}

// Reads one datum and writes it back.
std::string rw(const std::string& text) { return write_to_string(read1(text)); }

// The message of the error of kind `kind` raised by reading all of `text`, or "" when none.
std::string read_error(const std::string& text, const char* kind = "read") {
  try {
    read_all(text);
  } catch (const SchemeError& e) {
    REQUIRE(is_condition(e.payload));
    Condition* c = e.payload.as<Condition>();
    CHECK(std::string(symbol_name(c->kind)) == kind);
    return describe_raised(e.payload);
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("reader: atoms", "[reader]") {
  gc_init();
  CHECK(read1("42") == make_fixnum(42));
  CHECK(read1("-7") == make_fixnum(-7));
  CHECK(is_flonum(read1("1.5")));
  CHECK(read1("#t") == kTrue);
  CHECK(read1("#f") == kFalse);
  CHECK(read1("#true") == kTrue);
  CHECK(read1("#false") == kFalse);
  CHECK(read1("foo") == intern("foo"));
  CHECK(read1("Foo") == intern("Foo"));
  CHECK(read1("...") == intern("..."));
  CHECK(read1("+") == intern("+"));
  CHECK(read1("-") == intern("-"));
  CHECK(read1("->x") == intern("->x"));
  CHECK(read1("1+") == intern("1+"));
  CHECK(read1("a.b") == intern("a.b"));
  CHECK(read1("λ") == intern("λ"));
  CHECK(read1("|hello world|") == intern("hello world"));
  CHECK(read1("||") == intern(""));
  CHECK(read1("|a\\|b\\x41;\\n|") == intern("a|bA\n"));
  CHECK(read1("#!eof") == kEof);
  CHECK(read1("#!default") == kDefault);
  CHECK(read1("#!unspecified") == kUnspecified);
  CHECK(read1("") == kEof);
  CHECK(read1("   ; just a comment\n  ") == kEof);
}

TEST_CASE("reader: characters", "[reader]") {
  gc_init();
  CHECK(read1("#\\a") == make_char('a'));
  CHECK(read1("#\\A") == make_char('A'));
  CHECK(read1("#\\space") == make_char(' '));
  CHECK(read1("#\\newline") == make_char('\n'));
  CHECK(read1("#\\tab") == make_char('\t'));
  CHECK(read1("#\\nul") == make_char(0));
  CHECK(read1("#\\null") == make_char(0));
  CHECK(read1("#\\alarm") == make_char(7));
  CHECK(read1("#\\backspace") == make_char(8));
  CHECK(read1("#\\delete") == make_char(127));
  CHECK(read1("#\\escape") == make_char(27));
  CHECK(read1("#\\return") == make_char(13));
  CHECK(read1("#\\x41") == make_char('A'));
  CHECK(read1("#\\x3bb") == make_char(0x3bb));
  CHECK(read1("#\\x") == make_char('x'));
  CHECK(read1("#\\λ") == make_char(0x3bb));
  CHECK(read1("#\\(") == make_char('('));
  CHECK(read1("#\\)") == make_char(')'));
  CHECK(read1("#\\ ") == make_char(' '));
  CHECK(rw("(#\\a #\\( #\\))") == "(#\\a #\\( #\\))");
  CHECK(has(read_error("#\\foo"), "unknown character name: #\\foo"));
  CHECK(has(read_error("#\\xD800"), "bad character code"));
  CHECK(has(read_error("#\\Space"), "unknown character name"));
}

TEST_CASE("reader: strings", "[reader]") {
  gc_init();
  Value s = read1("\"hello\"");
  REQUIRE(is_string(s));
  CHECK(string_to_utf8(s) == "hello");
  CHECK_FALSE(s.obj()->immutable());
  CHECK(string_to_utf8(read1(R"("a\"b\\c\nd\te\rf\ag\bh\|")")) == "a\"b\\c\nd\te\rf\ag\bh|");
  CHECK(string_to_utf8(read1(R"("\x41;\x3bb;")")) == "Aλ");
  CHECK(string_to_utf8(read1("\"ab\\   \n     cd\"")) == "abcd");
  CHECK(string_to_utf8(read1("\"ab\\\n\tcd\"")) == "abcd");
  CHECK(string_to_utf8(read1("\"ab\\\r\ncd\"")) == "abcd");
  CHECK(string_to_utf8(read1("\"line1\nline2\"")) == "line1\nline2");
  CHECK(string_to_utf8(read1("\"λ→\"")) == "λ→");
  CHECK(s.as<String>()->length() == 5);
  CHECK(read1("\"λ→\"").as<String>()->length() == 2);
  CHECK(has(read_error("\"abc"), "unterminated string"));
  CHECK(has(read_error("\"a\\qb\""), "bad escape in string"));
  CHECK(has(read_error("\"a\\x41b\""), "bad \\x escape"));
  CHECK(has(read_error("\"a\\  b\""), "bad escape in string"));
}

TEST_CASE("reader: lists, dots, brackets, abbreviations", "[reader]") {
  gc_init();
  CHECK(rw("()") == "()");
  CHECK(read1("()") == kNil);
  CHECK(read1("[]") == kNil);
  CHECK(rw("(1 2 3)") == "(1 2 3)");
  CHECK(rw("(a . b)") == "(a . b)");
  CHECK(rw("(a b . c)") == "(a b . c)");
  CHECK(rw("(a . (b c))") == "(a b c)");
  CHECK(rw("[a (b [c])]") == "(a (b (c)))");
  CHECK(rw("'x") == "'x");
  CHECK(write_to_string(car(read1("'x"))) == "quote");
  CHECK(write_to_string(car(read1("`x"))) == "quasiquote");
  CHECK(write_to_string(car(read1(",x"))) == "unquote");
  CHECK(write_to_string(car(read1(",@x"))) == "unquote-splicing");
  CHECK(rw("`(a ,b ,@c)") == "`(a ,b ,@c)");
  CHECK(rw("''a") == "''a");
  CHECK(rw("' a") == "'a");
  CHECK(rw("(quote)") == "(quote)");
  CHECK(rw("(a .b)") == "(a .b)");
  CHECK(has(read_error(")"), "unexpected ')'"));
  CHECK(has(read_error("(a b]"), "unexpected ']'"));
  CHECK(has(read_error("(a b"), "unterminated list (opened at t.scm:1:1)"));
  CHECK(has(read_error("(. a)"), "unexpected '.'"));
  CHECK(has(read_error("(a . )"), "missing datum after '.'"));
  CHECK(has(read_error("(a . b c)"), "more than one datum after '.'"));
  CHECK(has(read_error("."), "unexpected '.'"));
  CHECK(has(read_error("'"), "end of input after 'quote'"));
}

TEST_CASE("reader: vectors and bytevectors", "[reader]") {
  gc_init();
  Value v = read1("#(1 (2) \"x\")");
  REQUIRE(is_vector(v));
  CHECK(v.as<Vector>()->length() == 3);
  CHECK(rw("#(1 (2) \"x\")") == "#(1 (2) \"x\")");
  CHECK(rw("#()") == "#()");
  Value b = read1("#u8(0 1 255)");
  REQUIRE(is_bytevector(b));
  CHECK(b.as<Bytevector>()->length() == 3);
  CHECK(b.as<Bytevector>()->bytes()[2] == 255);
  CHECK(rw("#u8()") == "#u8()");
  CHECK(has(read_error("#u8(256)"), "0..255"));
  CHECK(has(read_error("#u8(-1)"), "0..255"));
  CHECK(has(read_error("#u8(a)"), "0..255"));
  CHECK(has(read_error("#u8 (1)"), "bad # syntax"));
  CHECK(has(read_error("#(1 2"), "unterminated vector"));
  CHECK(has(read_error("#u8(1 2"), "unterminated bytevector"));
}

TEST_CASE("reader: comments", "[reader]") {
  gc_init();
  CHECK(rw("; c\n(a ; c\n b)") == "(a b)");
  CHECK(rw("#| block |# x") == "x");
  CHECK(rw("#| outer #| inner |# still |# x") == "x");
  CHECK(rw("(a #|c|# b)") == "(a b)");
  CHECK(rw("(a #;(ignored 1 2) b)") == "(a b)");
  CHECK(rw("#;a b") == "b");
  CHECK(rw("(#; #; a b c)") == "(c)");
  CHECK(rw("(a . #;b c)") == "(a . c)");
  CHECK(rw("(a . b #;c)") == "(a . b)");
  CHECK(read1("#;a") == kEof);
  CHECK(rw("#||#x") == "x");
  // A lone return ends a line comment too (idea: Larceny test/R7RS/Lib/tests/scheme/read.sld).
  CHECK(rw("(a ; c\rb ; d\r\nc ; e\nd)") == "(a b c d)");
  CHECK(has(read_error("#| never closed"), "unterminated block comment"));
  CHECK(has(read_error("(a #;)"), "unexpected ')'"));
  CHECK(rw("\u00a0\u3000 x") == "x");  // Unicode spaces are whitespace
}

TEST_CASE("reader: # syntax errors and numbers with prefixes", "[reader]") {
  gc_init();
  CHECK(has(read_error("#q"), "bad # syntax: #q"));
  CHECK(has(read_error("#!foo"), "bad # syntax: #!foo"));
  CHECK(has(read_error("#tru"), "bad # syntax"));
  CHECK(has(read_error("#"), "bad # syntax"));
  CHECK(has(read_error("#)"), "bad # syntax"));
  CHECK(has(read_error("#xzz"), "bad number syntax: #xzz"));
  // Error messages start with the location.
  CHECK(read_error("\n  #q").rfind("t.scm:2:3: ", 0) == 0);
  // A well-formed number over a limit is a limit error, located at its token like the others.
  CHECK(read_error("\n  #e1e100000000", "limit").rfind("t.scm:2:3: ", 0) == 0);
  CHECK(read_error("(1\n 2 1e3 #e-2.5e99999999)", "limit").rfind("t.scm:2:8: ", 0) == 0);
  CHECK(has(read_error("#e1e100000000", "limit"), "decimal exponent"));
}

TEST_CASE("reader: numbers and number-like symbols", "[reader]") {
  gc_init();
  CHECK(read1("#x1F") == make_fixnum(31));
  CHECK(read1("#X1f") == make_fixnum(31));
  CHECK(read1("#b101") == make_fixnum(5));
  CHECK(read1("#o17") == make_fixnum(15));
  CHECK(read1("#d10") == make_fixnum(10));
  CHECK(rw("#e1.5") == "3/2");
  CHECK(rw("1/2") == "1/2");
  CHECK(rw("#i1/2") == "0.5");
  CHECK(rw("1e3") == "1000.0");
  CHECK(rw("(+inf.0 -inf.0 +nan.0)") == "(+inf.0 -inf.0 +nan.0)");
  CHECK(rw(".5") == "0.5");
  CHECK(rw("123456789012345678901234567890") == "123456789012345678901234567890");
  CHECK(rw("(+i -i 1+i)") == "(+i -i 1+i)");  // the imaginary unit is a number (R7RS 7.1.1)
  CHECK(!is_symbol(read1("+i")));
  for (const char* sym : {"+", "-", "...", "1+", "-1+", "+.", "+a", "-x-", "1a", ".x", "+in", "-ix"}) {
    INFO(sym);
    CHECK(read1(sym) == intern(sym));
    CHECK(rw(sym) == sym);
  }
  CHECK(write_to_string(intern("1/2")) == "|1/2|");
  CHECK(write_to_string(intern("+inf.0")) == "|+inf.0|");
  CHECK(write_to_string(intern("1e3")) == "|1e3|");
}

TEST_CASE("reader: fold-case directives", "[reader]") {
  gc_init();
  auto v = read_all("ABC #!fold-case ABC (Hello ÀÉΣ) #\\SPACE |Keep| #!no-fold-case ABC");
  REQUIRE(v.size() == 6);
  CHECK(v[0] == intern("ABC"));
  CHECK(v[1] == intern("abc"));
  CHECK(write_to_string(v[2]) == "(hello àéσ)");
  CHECK(v[3] == make_char(' '));
  CHECK(v[4] == intern("Keep"));
  CHECK(v[5] == intern("ABC"));
  StringSource src("FOO", test_file());
  Reader r(src);
  r.set_fold_case(true);
  CHECK(r.read() == intern("foo"));
}

TEST_CASE("reader: datum labels", "[reader]") {
  gc_init();
  Value v = read1("#0=(a . #0#)");
  REQUIRE(is_pair(v));
  CHECK(cdr(v) == v);
  Value l = read1("(#1=(x) #1# #1#)");
  CHECK(car(l) == car(cdr(l)));
  CHECK(car(l) == car(cdr(cdr(l))));
  Value vec = read1("#0=#(1 #0# 3)");
  REQUIRE(is_vector(vec));
  CHECK(vec.as<Vector>()->items()[1] == vec);
  Value nested = read1("#0=(a #1=(b #0# #1#))");
  Value inner = car(cdr(nested));
  CHECK(car(cdr(inner)) == nested);
  CHECK(car(cdr(cdr(inner))) == inner);
  Value q = read1("#0='#0#");
  CHECK(car(cdr(q)) == q);
  CHECK(has(read_error("#3#"), "datum label #3# not defined"));
  CHECK(has(read_error("#0=#0#"), "datum label"));
  CHECK(has(read_error("(#0=a #0=b)"), "defined twice"));
  // Labels are scoped to one top-level datum.
  CHECK(has(read_error("#0=a #0#"), "not defined"));
  CHECK(write_to_string(read1("#0=(1 . #0#)")) == "#0=(1 . #0#)");
}

TEST_CASE("reader: source locations", "[reader]") {
  gc_init();
  uint32_t f = test_file();
  StringSource src("\n  (foo\n   bar (baz))\n'q", f);
  Reader r(src);
  Value v = r.read();
  SrcLoc loc = pair_srcloc(v);
  CHECK(loc.file == f);
  CHECK(loc.line == 2);
  CHECK(loc.col == 3);
  CHECK(pair_srcloc(cdr(v)).line == 3);
  CHECK(pair_srcloc(cdr(v)).col == 4);
  Value inner = car(cdr(cdr(v)));
  CHECK(pair_srcloc(inner).line == 3);
  CHECK(pair_srcloc(inner).col == 8);
  Value q = r.read();
  CHECK(pair_srcloc(q).line == 4);
  CHECK(pair_srcloc(q).col == 1);
  // Columns count code points, not bytes.
  StringSource src2("λλ (x)", f);
  Reader r2(src2);
  r2.read();
  CHECK(pair_srcloc(r2.read()).col == 4);
}

TEST_CASE("reader: StringSource", "[reader]") {
  gc_init();
  StringSource s("aλ\nb", 7, 10, 5);
  CHECK(s.location().line == 10);
  CHECK(s.location().col == 5);
  CHECK(s.peek() == 'a');
  CHECK(s.next() == 'a');
  CHECK(s.next() == 0x3bb);
  CHECK(s.location().col == 7);
  CHECK(s.next() == '\n');
  CHECK(s.location().line == 11);
  CHECK(s.location().col == 1);
  CHECK(s.next() == 'b');
  CHECK(s.peek() == -1);
  CHECK(s.next() == -1);
  StringSource bad("\xff" "a", 7);
  CHECK(bad.peek() == -2);
  CHECK(bad.next() == -2);
  CHECK(bad.next() == 'a');
  CHECK(has(read_error("(a \xc3)"), "invalid UTF-8 in input"));
  CHECK(has(read_error("\"\xe2\x82\""), "invalid UTF-8 in input"));
}

TEST_CASE("reader: datum_incomplete", "[reader]") {
  gc_init();
  CHECK(datum_incomplete("(a b"));
  CHECK(datum_incomplete("(a (b c)"));
  CHECK(datum_incomplete("\"abc"));
  CHECK(datum_incomplete("#| comment"));
  CHECK(datum_incomplete("'"));
  CHECK(datum_incomplete("#(1 2"));
  CHECK(datum_incomplete("(a) (b"));
  CHECK(datum_incomplete("#;"));
  CHECK(datum_incomplete("|abc"));
  CHECK(datum_incomplete("(a . "));
  CHECK_FALSE(datum_incomplete(""));
  CHECK_FALSE(datum_incomplete("(a b)"));
  CHECK_FALSE(datum_incomplete("a b c"));
  CHECK_FALSE(datum_incomplete("(a))"));
  CHECK_FALSE(datum_incomplete("#q"));
  CHECK_FALSE(datum_incomplete("(a #q"));
  CHECK_FALSE(datum_incomplete("; (open in comment"));
}

TEST_CASE("reader: deep nesting does not use the C stack", "[reader]") {
  gc_init();
  const int depth = 100000;
  std::string text(depth, '(');
  text += std::string(depth, ')');
  Value v = read1(text);
  int n = 0;
  while (is_pair(v)) {
    v = car(v);
    n++;
  }
  CHECK(n == depth - 1);
  std::string quotes(depth, '\'');
  quotes += "x";
  CHECK(is_pair(read1(quotes)));
  CHECK(datum_incomplete(std::string(depth, '(')));
  std::string comments;
  for (int i = 0; i < 1000; i++) comments += "#|";
  for (int i = 0; i < 1000; i++) comments += "|#";
  CHECK(read1(comments + " y") == intern("y"));
}

TEST_CASE("reader: never crashes or loops on random input", "[reader]") {
  gc_init();
  std::mt19937 rng(12345);
  const std::string alphabet = "()[]#\\\"|;'`,@.0123456789abcxu8!=+- \n\t\xce\xbb\xff";
  const char* const fragments[] = {"(", ")", "#(", "#u8(", "'", ",@", "`", "#0=", "#0#", "#1=",
                                   "#1#", "#;", "#|", "|#", "\"", "\\", " ", "a", "1", ".", "#\\",
                                   "x41", "|", "[", "]", "#t", "#!fold-case", "λ", "\n", ";", "@",
                                   "2.5", "-", "#x"};
  for (int iter = 0; iter < 6000; iter++) {
    std::string text;
    int len = static_cast<int>(rng() % 40);
    bool bytes = iter % 3 == 0;
    for (int i = 0; i < len; i++) {
      if (bytes) text += static_cast<char>(rng() & 0xFF);
      else if (iter % 3 == 1) text += alphabet[rng() % alphabet.size()];
      else text += fragments[rng() % (sizeof fragments / sizeof *fragments)];
    }
    std::vector<Value> v;
    try {
      v = read_all(text);
    } catch (const SchemeError& e) {
      REQUIRE(is_condition(e.payload));
    }
    // Whatever was read writes back to text that reads as the same shape.
    for (Value x : v) {
      std::string once = write_to_string(x);
      INFO("input: " << text << "  written: " << once);
      std::string twice;
      REQUIRE_NOTHROW(twice = write_to_string(read1(once)));
      CHECK(once == twice);
      write_to_string(x, 10);
    }
    datum_incomplete(text);
  }
}
