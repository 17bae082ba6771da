// generator.cpp — see generator.hpp for what a program is and why it terminates.
#include "generator.hpp"

#include <initializer_list>

namespace quasi_gen {
namespace {

enum class Ty { Int, Num, Bool, Char, Str, List, Vec, Proc };
constexpr int kTypeCount = 8;
// Types a trace entry or a result may have (a procedure would print as #<procedure ...>).
constexpr Ty kPrintable[] = {Ty::Int, Ty::Num, Ty::Bool, Ty::Char, Ty::Str, Ty::List, Ty::Vec};

Sexp A(std::string s) { return Sexp::a(std::move(s)); }
Sexp L(std::initializer_list<Sexp> kids) { return Sexp::l(std::vector<Sexp>(kids)); }
Sexp Q(Sexp s) { return L({A("quote"), std::move(s)}); }

const char* const kInts[] = {
    "0", "1", "-1", "2", "3", "5", "7", "-5", "10", "42", "100", "255", "-128", "1000",
    "1073741823", "2147483648", "-2147483649",
    // around 2^60 (fixnum bounds of a 61-bit fixnum), 2^62 and 2^63, and beyond 64 bits
    "1152921504606846975", "1152921504606846976", "-1152921504606846976", "-1152921504606846977",
    "4611686018427387903", "4611686018427387904", "-4611686018427387904", "-4611686018427387905",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551616", "100000000000000000000", "-340282366920938463463374607431768211456"};
const char* const kNums[] = {"1/3",  "-7/2", "22/7",   "1/1152921504606846976", "0.5",    "-0.0", "0.0",
                             "1e300", "-2.5", "+inf.0", "-inf.0",                "+nan.0", "3.141592653589793",
                             "1e-310", "123456789.125", "4.0", "-1e20", "9007199254740993.0"};
const char* const kChars[] = {"#\\a", "#\\Z", "#\\0", "#\\space", "#\\newline", "#\\x3bb", "#\\x1F600", "#\\~"};
const char* const kStrs[] = {"\"\"", "\"abc\"", "\"Hello, World\"", "\"h\\xe9;llo\"", "\"\\x3bb;x\"",
                             "\"a\\\"b\"", "\"12\"", "\"  x \"", "\"-7/2\""};
const char* const kLists[] = {"()", "(1 2 3)", "(0)", "(-5 100000000000000000000 7)", "(3 1 2 1)",
                              "(4611686018427387903 1)", "(10 20 30 40 50 60)"};
const char* const kSyms[] = {"foo", "bar", "baz"};

template <class T, size_t N>
constexpr size_t count(const T (&)[N]) {
  return N;
}

struct Var {
  std::string name;
  Ty ty;
  bool mut;  // set! allowed (not loop counters)
};
struct Escape {
  std::string name;
  Ty ty;
};

class Gen {
 public:
  explicit Gen(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {
    if (s_ == 0) s_ = 1;
    for (int i = 0; i < 4; ++i) next();
  }

  uint64_t next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 2685821657736338717ull;
  }
  int rnd(int n) { return static_cast<int>((next() >> 11) % static_cast<uint64_t>(n)); }
  bool chance(int pct) { return rnd(100) < pct; }

  Program program() {
    Program p;
    vars_ = {{"a", Ty::Int, true}, {"b", Ty::Num, true}, {"c", Ty::List, true}, {"d", Ty::Str, true}};
    Ty t = kPrintable[rnd(static_cast<int>(count(kPrintable)))];
    p.proc = wrap(gen(t, 4 + rnd(3)));
    int tuples = 3;
    for (int i = 0; i < tuples; ++i) {
      p.args.push_back({int_lit(), num_lit(), "'" + std::string(kLists[rnd(count(kLists))]), kStrs[rnd(count(kStrs))]});
      std::vector<int> st;
      for (int k = 0; k < kParams; ++k)
        if (chance(50)) st.push_back(k);
      if (st.empty()) st.push_back(rnd(kParams));
      p.static_positions.push_back(st);
    }
    return p;
  }

 private:
  uint64_t s_;
  std::vector<Var> vars_;
  std::vector<Escape> escapes_;
  int loops_ = 0;  // loops around the expression being built (procedure bodies count as one)
  int counter_ = 0;

  std::string fresh(const char* prefix) { return prefix + std::to_string(++counter_); }
  bool restricted() const { return loops_ > 0; }

  // (lambda (a b c d) (let ((out '())) (let ((r (guard (e (#t (gen-describe e))) (list 'value
  // BODY)))) (list r (reverse out))))): every run is one datum.
  static Sexp wrap(Sexp body) {
    Sexp guarded = L({A("guard"), L({A("e"), L({A("#t"), L({A("gen-describe"), A("e")})})}),
                      L({A("list"), Q(A("value")), std::move(body)})});
    return L({A("lambda"), L({A("a"), A("b"), A("c"), A("d")}),
              L({A("let"), L({L({A("out"), Q(L({}))})}),
                 L({A("let"), L({L({A("r"), guarded})}), L({A("list"), A("r"), L({A("reverse"), A("out")})})})})});
  }

  std::string int_lit() { return chance(70) ? kInts[rnd(14)] : kInts[rnd(count(kInts))]; }
  std::string num_lit() { return chance(40) ? int_lit() : kNums[rnd(count(kNums))]; }
  Ty any_type() { return static_cast<Ty>(rnd(kTypeCount)); }
  Ty printable() { return kPrintable[rnd(static_cast<int>(count(kPrintable)))]; }

  Sexp literal(Ty t) {
    switch (t) {
      case Ty::Int: return A(int_lit());
      case Ty::Num: return A(num_lit());
      case Ty::Bool: return A(chance(50) ? "#t" : "#f");
      case Ty::Char: return A(kChars[rnd(count(kChars))]);
      case Ty::Str: return A(kStrs[rnd(count(kStrs))]);
      case Ty::List: return Q(A(kLists[rnd(count(kLists))]));
      case Ty::Vec: {
        Sexp v = L({A("vector")});
        int n = rnd(4);
        for (int i = 0; i < n; ++i) v.kids.push_back(A(int_lit()));
        return v;
      }
      case Ty::Proc: {
        switch (rnd(4)) {
          case 0: return A("abs");
          case 1: return A("-");
          case 2: return L({A("lambda"), L({A("x")}), L({A("+"), A("x"), A(int_lit())})});
          default: return L({A("lambda"), L({A("x")}), L({A("quotient"), A("x"), A(int_lit())})});
        }
      }
    }
    return A("0");
  }

  const Var* pick_var(Ty t, bool must_be_mutable) {
    std::vector<const Var*> fit;
    for (const Var& v : vars_)
      if (v.ty == t && (!must_be_mutable || v.mut)) fit.push_back(&v);
    if (fit.empty()) return nullptr;
    return fit[rnd(static_cast<int>(fit.size()))];
  }

  Sexp leaf(Ty t) {
    if (chance(55))
      if (const Var* v = pick_var(t, false)) return A(v->name);
    return literal(t);
  }

  // A second operand that cannot grow with the loop (see the invariants in generator.hpp).
  Sexp growth_operand(Ty t, int d) { return restricted() ? literal(t) : gen(t, d); }

  // Runs `body` with `v` in scope.
  template <class F>
  Sexp with_var(const std::string& name, Ty t, bool mut, F body) {
    vars_.push_back({name, t, mut});
    Sexp r = body();
    vars_.pop_back();
    return r;
  }

  // A procedure body that may run after the expression that made it returned: no escapes.
  template <class F>
  Sexp lambda_body(F body) {
    std::vector<Escape> saved;
    saved.swap(escapes_);
    ++loops_;
    Sexp r = body();
    --loops_;
    escapes_.swap(saved);
    return r;
  }

  Sexp emit(Sexp what) { return L({A("set!"), A("out"), L({A("cons"), std::move(what), A("out")})}); }

  Sexp raising(Ty t, int d) {
    switch (rnd(9)) {
      case 0: return L({A("raise"), gen(Ty::Int, d)});
      case 1: return L({A("raise"), Q(A(kSyms[rnd(count(kSyms))]))});
      case 2: return L({A("raise"), gen(Ty::Str, d)});
      case 3: return L({A("error"), A("\"gen-error\""), gen(printable(), d)});
      case 4: return L({A("car"), Q(L({}))});
      case 5: return L({A("vector-ref"), L({A("vector"), A("1")}), A("5")});
      case 6: return L({A("exact"), A("+nan.0")});
      case 7: return L({A("raise-continuable"), gen(Ty::List, d)});
      default: return L({A("quotient"), gen(Ty::Int, d), A("0")});
    }
  }

  Sexp guard_form(Ty t, int d) {
    std::string e = fresh("e");
    Sexp body = gen(t, d);
    Sexp clauses = L({A(e)});
    if (chance(60))
      clauses.kids.push_back(with_var(e, Ty::Num, false, [&] {
        return L({L({A("number?"), A(e)}), gen(t, d)});
      }));
    if (chance(40))
      clauses.kids.push_back(with_var(e, Ty::Str, false, [&] {
        return L({L({A("string?"), A(e)}), gen(t, d)});
      }));
    if (chance(50))
      clauses.kids.push_back(L({L({A("error-object?"), A(e)}),
                                L({A("begin"), emit(L({A("error-object-message"), A(e)})),
                                   emit(L({A("error-object-irritants"), A(e)})), gen(t, d)})}));
    if (chance(30)) clauses.kids.push_back(L({L({A("symbol?"), A(e)}), gen(t, d)}));
    if (chance(40) || clauses.kids.size() == 1) clauses.kids.push_back(L({A("else"), gen(t, d)}));
    return L({A("guard"), clauses, body});
  }

  // A named let or do loop running a literal number of times, accumulating a value of type t.
  Sexp loop_form(Ty t, int d) {
    std::string i = fresh("i"), acc = fresh("acc"), name = fresh("loop");
    Sexp init = gen(t, d);
    Sexp k = A(std::to_string(rnd(6)));
    ++loops_;
    Sexp step = with_var(i, Ty::Int, false, [&] { return with_var(acc, t, true, [&] { return gen(t, d); }); });
    --loops_;
    if (chance(30))
      return L({A("do"), L({L({A(i), A("0"), L({A("+"), A(i), A("1")})}), L({A(acc), init, step})}),
                L({L({A(">="), A(i), k}), A(acc)})});
    return L({A("let"), A(name), L({L({A(i), A("0")}), L({A(acc), init})}),
              L({A("if"), L({A(">="), A(i), k}), A(acc), L({A(name), L({A("+"), A(i), A("1")}), step})})});
  }

  // Non-tail recursion counting down from (modulo x 6).
  Sexp recursion_form(Ty t, int d) {
    std::string f = fresh("f"), n = fresh("n"), r = fresh("r");
    Sexp start = L({A("modulo"), gen(Ty::Int, d), A(std::to_string(1 + rnd(6)))});
    ++loops_;
    Sexp base = with_var(n, Ty::Int, false, [&] { return gen(t, d - 1); });
    Sexp step = with_var(n, Ty::Int, false, [&] { return with_var(r, t, true, [&] { return gen(t, d); }); });
    --loops_;
    Sexp lam = L({A("lambda"), L({A(n)}),
                  L({A("if"), L({A("<="), A(n), A("0")}), base,
                     L({A("let"), L({L({A(r), L({A(f), L({A("-"), A(n), A("1")})})})}), step})})});
    return L({A("letrec"), L({L({A(f), lam})}), L({A(f), start})});
  }

  Sexp stmt(int d) {
    if (d <= 0) return emit(leaf(printable()));
    switch (rnd(10)) {
      case 0:
      case 1: return emit(gen(printable(), d - 1));
      case 2: {
        Ty t = any_type();
        if (const Var* v = pick_var(t, true)) {
          std::string name = v->name;
          return L({A("set!"), A(name), gen(t, d - 1)});
        }
        return emit(gen(Ty::Int, d - 1));
      }
      case 3: return L({A("vector-set!"), gen(Ty::Vec, d - 1), gen(Ty::Int, d - 1), gen(Ty::Int, d - 1)});
      case 4:
        if (loops_ < 2) {
          std::string x = fresh("x");
          ++loops_;
          Sexp body = with_var(x, Ty::Int, true, [&] { return stmt(d - 1); });
          --loops_;
          return L({A("for-each"), L({A("lambda"), L({A(x)}), body}), gen(Ty::List, d - 1)});
        }
        return emit(leaf(Ty::Int));
      case 5: return L({A(chance(50) ? "when" : "unless"), gen(Ty::Bool, d - 1), stmt(d - 1), stmt(d - 1)});
      case 6: return L({A("if"), gen(Ty::Bool, d - 1), stmt(d - 1), stmt(d - 1)});
      case 7:
        if (loops_ < 2) {
          std::string i = fresh("i");
          ++loops_;
          Sexp body = with_var(i, Ty::Int, false, [&] { return stmt(d - 1); });
          --loops_;
          return L({A("do"), L({L({A(i), A("0"), L({A("+"), A(i), A("1")})})}),
                    L({L({A(">="), A(i), A(std::to_string(rnd(5)))})}), body});
        }
        return emit(leaf(Ty::Int));
      case 8:
        if (!escapes_.empty() && chance(30)) {
          Escape k = escapes_[rnd(static_cast<int>(escapes_.size()))];
          return L({A("when"), gen(Ty::Bool, d - 1), L({A(k.name), gen(k.ty, d - 1)})});
        }
        return emit(gen(printable(), d - 1));
      default: return L({A("begin"), stmt(d - 1), stmt(d - 1)});
    }
  }

 public:
  Sexp gen(Ty t, int d) {
    if (d <= 0 || chance(8)) return leaf(t);
    int dd = d - 1;
    if (chance(40)) {
      switch (rnd(16)) {
        case 0: return L({A("if"), gen(Ty::Bool, dd), gen(t, dd), gen(t, dd)});
        case 1:
        case 2: {
          std::string v = fresh("v");
          Ty vt = any_type();
          Sexp init = gen(vt, dd);
          Sexp body = with_var(v, vt, true, [&] { return gen(t, dd); });
          return L({A("let"), L({L({A(v), init})}), body});
        }
        case 3: {
          std::string v = fresh("v"), w = fresh("v");
          Ty vt = any_type(), wt = any_type();
          Sexp vi = gen(vt, dd);
          return with_var(v, vt, true, [&] {
            Sexp wi = gen(wt, dd);
            Sexp body = with_var(w, wt, true, [&] { return gen(t, dd); });
            return L({A("let*"), L({L({A(v), vi}), L({A(w), wi})}), body});
          });
        }
        case 4: return L({A("begin"), stmt(dd), gen(t, dd)});
        case 5:
          return L({A("cond"), L({gen(Ty::Bool, dd), gen(t, dd)}), L({gen(Ty::Bool, dd), gen(t, dd)}),
                    L({A("else"), gen(t, dd)})});
        case 6:
          if (chance(50))
            return L({A("case"), gen(Ty::Int, dd), L({L({A("1"), A("2")}), gen(t, dd)}),
                      L({L({A("0"), A("7"), A("-5")}), gen(t, dd)}), L({A("else"), gen(t, dd)})});
          return L({A("case"), gen(Ty::Char, dd), L({L({A("#\\a"), A("#\\Z")}), gen(t, dd)}),
                    L({A("else"), gen(t, dd)})});
        case 7: {
          std::string k = fresh("k");
          escapes_.push_back({k, t});
          Sexp body = chance(50) ? gen(t, dd) : L({A("begin"), stmt(dd), gen(t, dd)});
          escapes_.pop_back();
          return L({A(chance(70) ? "call/cc" : "call-with-current-continuation"), L({A("lambda"), L({A(k)}), body})});
        }
        case 8:
          return L({A("dynamic-wind"), L({A("lambda"), L({}), emit(Q(A(fresh("in"))))}),
                    L({A("lambda"), L({}), gen(t, dd)}), L({A("lambda"), L({}), emit(Q(A(fresh("out"))))})});
        case 9: return guard_form(t, dd);
        case 10:
          if (chance(50)) return raising(t, dd);
          break;
        case 11:
          for (size_t i = 0; i < escapes_.size(); ++i)
            if (escapes_[i].ty == t && chance(60)) {
              std::string name = escapes_[i].name;
              return L({A(name), gen(t, dd)});
            }
          break;
        case 12:
          if (loops_ < 2) return loop_form(t, dd);
          break;
        case 13:
          if (loops_ < 2) return recursion_form(t, dd);
          break;
        case 14:
          if (const Var* v = pick_var(t, true)) {
            std::string name = v->name;  // gen may grow vars_
            return L({A("begin"), L({A("set!"), A(name), gen(t, dd)}), A(name)});
          }
          break;
        default:
          if (t != Ty::Proc) return L({A("apply"), L({A("lambda"), L({A("p")}), A("p")}), L({A("list"), gen(t, dd)})});
          break;
      }
    }
    switch (t) {
      case Ty::Int: return gen_int(dd);
      case Ty::Num: return gen_num(dd);
      case Ty::Bool: return gen_bool(dd);
      case Ty::Char: return gen_char(dd);
      case Ty::Str: return gen_str(dd);
      case Ty::List: return gen_list(dd);
      case Ty::Vec: return gen_vec(dd);
      case Ty::Proc: return gen_proc(dd);
    }
    return leaf(t);
  }

 private:
  Sexp gen_int(int d) {
    static const char* const kFree[] = {"+", "-", "quotient", "remainder", "modulo", "max", "min", "gcd",
                                        "truncate-quotient", "floor-remainder"};
    switch (rnd(22)) {
      case 0:
      case 1:
      case 2: return L({A(kFree[rnd(count(kFree))]), gen(Ty::Int, d), gen(Ty::Int, d)});
      case 3: return L({A("*"), gen(Ty::Int, d), growth_operand(Ty::Int, d)});
      case 4: return L({A("abs"), gen(Ty::Int, d)});
      case 5: return L({A("length"), gen(Ty::List, d)});
      case 6: return L({A("vector-length"), gen(Ty::Vec, d)});
      case 7: return L({A("string-length"), gen(Ty::Str, d)});
      case 8: return L({A("char->integer"), gen(Ty::Char, d)});
      case 9: return L({A("vector-ref"), gen(Ty::Vec, d), gen(Ty::Int, d)});
      case 10: return L({A("list-ref"), gen(Ty::List, d), gen(Ty::Int, d)});
      case 11: return L({A(chance(50) ? "car" : "cadr"), gen(Ty::List, d)});
      case 12: return L({A("apply"), A(chance(50) ? "+" : "max"), gen(Ty::Int, d), gen(Ty::List, d)});
      case 13: {
        static const char* const kRound[] = {"round", "floor", "ceiling", "truncate", "numerator", "denominator"};
        return L({A("exact"), L({A(kRound[rnd(count(kRound))]), gen(Ty::Num, d)})});
      }
      case 14:
        return L({A("expt"), A(kInts[rnd(10)]), L({A("modulo"), gen(Ty::Int, d), A("70")})});
      case 15: return L({gen(Ty::Proc, d), gen(Ty::Int, d)});
      case 16: return L({A("apply"), gen(Ty::Proc, d), L({A("list"), gen(Ty::Int, d)})});
      case 17: {
        std::string s = fresh("s"), x = fresh("x");
        if (loops_ >= 2) return L({A("length"), gen(Ty::List, d)});
        ++loops_;
        Sexp body = with_var(x, Ty::Int, false, [&] { return L({A("+"), A(s), gen(Ty::Int, d)}); });
        --loops_;
        return L({A("let"), L({L({A(s), A("0")})}),
                  L({A("for-each"), L({A("lambda"), L({A(x)}), L({A("set!"), A(s), body})}), gen(Ty::List, d)}), A(s)});
      }
      case 18: return L({A("string->number"), L({A("number->string"), gen(Ty::Int, d), A(chance(50) ? "10" : "16")}),
                         A(chance(50) ? "10" : "16")});
      case 19: {
        // Sum of a list by a named let over its tail.
        std::string lp = fresh("lp"), l = fresh("l"), acc = fresh("acc");
        return L({A("let"), A(lp), L({L({A(l), gen(Ty::List, d)}), L({A(acc), gen(Ty::Int, d)})}),
                  L({A("if"), L({A("null?"), A(l)}), A(acc),
                     L({A(lp), L({A("cdr"), A(l)}), L({A("+"), A(acc), L({A("car"), A(l)})})})})});
      }
      case 20: {
        // Two values.
        std::string q = fresh("q"), r = fresh("r");
        return L({A("call-with-values"), L({A("lambda"), L({}), L({A("exact-integer-sqrt"), L({A("abs"), gen(Ty::Int, d)})})}),
                  L({A("lambda"), L({A(q), A(r)}), L({A("-"), A(q), A(r)})})});
      }
      default: return L({A("-"), gen(Ty::Int, d)});
    }
  }

  Sexp gen_num(int d) {
    switch (rnd(16)) {
      case 0:
      case 1: return gen(Ty::Int, d);
      case 2: return L({A(chance(50) ? "+" : "-"), gen(Ty::Num, d), gen(Ty::Num, d)});
      case 3: return L({A("*"), gen(Ty::Num, d), growth_operand(Ty::Num, d)});
      case 4: return L({A("/"), gen(Ty::Num, d), restricted() ? literal(Ty::Num) : gen(Ty::Num, d)});
      case 5: return L({A(chance(50) ? "exact->inexact" : "inexact"), gen(Ty::Num, d)});
      case 6: return L({A("sqrt"), L({A("abs"), gen(Ty::Num, d)})});
      case 7: {
        static const char* const kRound[] = {"round", "floor", "ceiling", "truncate", "abs", "-"};
        return L({A(kRound[rnd(count(kRound))]), gen(Ty::Num, d)});
      }
      case 8: return L({A(chance(50) ? "max" : "min"), gen(Ty::Num, d), gen(Ty::Num, d)});
      case 9: return L({A("exact"), gen(Ty::Num, d)});
      case 10: return L({A("*"), A(kNums[rnd(3)]), gen(Ty::Num, d)});
      case 11: return L({A("atan"), gen(Ty::Num, d), gen(Ty::Num, d)});
      case 12: return L({A("exp"), L({A("min"), A("50"), gen(Ty::Num, d)})});
      case 13: return L({A("log"), L({A("+"), A("1"), L({A("abs"), gen(Ty::Num, d)})})});
      case 14: return L({A("square"), restricted() ? literal(Ty::Num) : gen(Ty::Num, d)});
      default: return A(num_lit());
    }
  }

  Sexp gen_bool(int d) {
    switch (rnd(20)) {
      case 0: {
        static const char* const kCmp[] = {"<", "<=", "=", ">", ">="};
        return L({A(kCmp[rnd(5)]), gen(Ty::Num, d), gen(Ty::Num, d)});
      }
      case 1: {
        static const char* const kCmp[] = {"<", "<=", "=", ">", ">="};
        return L({A(kCmp[rnd(5)]), gen(Ty::Int, d), gen(Ty::Int, d), gen(Ty::Int, d)});
      }
      case 2: {
        static const char* const kPred[] = {"zero?", "positive?", "negative?", "exact?", "integer?",
                                            "nan?", "rational?", "real?", "exact-integer?", "finite?"};
        return L({A(kPred[rnd(count(kPred))]), gen(Ty::Num, d)});
      }
      case 3: return L({A(chance(50) ? "even?" : "odd?"), gen(Ty::Int, d)});
      case 4: return L({A(chance(50) ? "null?" : "pair?"), gen(Ty::List, d)});
      case 5: return L({A("eqv?"), gen(Ty::Num, d), gen(Ty::Num, d)});
      case 6: return L({A("equal?"), gen(Ty::List, d), gen(Ty::List, d)});
      case 7: return L({A(chance(50) ? "string=?" : "string<?"), gen(Ty::Str, d), gen(Ty::Str, d)});
      case 8: return L({A(chance(50) ? "char=?" : "char<?"), gen(Ty::Char, d), gen(Ty::Char, d)});
      case 9: return L({A("char-alphabetic?"), gen(Ty::Char, d)});
      case 10: return L({A("not"), gen(Ty::Bool, d)});
      case 11: return L({A(chance(50) ? "and" : "or"), gen(Ty::Bool, d), gen(Ty::Bool, d)});
      case 12: return L({A("if"), L({A("memv"), gen(Ty::Int, d), gen(Ty::List, d)}), A("#t"), A("#f")});
      case 13: return L({A("equal?"), gen(Ty::Vec, d), gen(Ty::Vec, d)});
      case 14: return L({A("procedure?"), gen(Ty::Proc, d)});
      case 15: return L({A("boolean=?"), gen(Ty::Bool, d), gen(Ty::Bool, d)});
      case 16: return L({A("eq?"), gen(Ty::Char, d), gen(Ty::Char, d)});
      case 17: return L({A("list?"), gen(Ty::List, d)});
      case 18: return L({A("string?"), gen(printable(), d)});
      default: return L({A("equal?"), gen(Ty::Str, d), gen(Ty::Str, d)});
    }
  }

  Sexp gen_char(int d) {
    switch (rnd(6)) {
      case 0: return L({A("string-ref"), gen(Ty::Str, d), gen(Ty::Int, d)});
      case 1: return L({A("integer->char"), L({A("+"), A("48"), L({A("modulo"), gen(Ty::Int, d), A("60")})})});
      case 2: return L({A(chance(50) ? "char-upcase" : "char-downcase"), gen(Ty::Char, d)});
      case 3: return L({A("car"), L({A("string->list"), gen(Ty::Str, d)})});
      case 4: return L({A("integer->char"), gen(Ty::Int, d)});
      default: return literal(Ty::Char);
    }
  }

  Sexp gen_str(int d) {
    switch (rnd(14)) {
      case 0:
      case 1: return L({A("string-append"), gen(Ty::Str, d), growth_operand(Ty::Str, d)});
      case 2: return L({A("substring"), gen(Ty::Str, d), gen(Ty::Int, d), gen(Ty::Int, d)});
      case 3: {
        std::string s = fresh("s");
        Sexp body = L({A("substring"), A(s), A("0"), L({A("min"), L({A("string-length"), A(s)}), L({A("modulo"), gen(Ty::Int, d), A("4")})})});
        return L({A("let"), L({L({A(s), gen(Ty::Str, d)})}), body});
      }
      case 4: return L({A("number->string"), gen(Ty::Num, d)});
      case 5: return L({A("string"), gen(Ty::Char, d), gen(Ty::Char, d)});
      case 6: return L({A("make-string"), L({A("modulo"), gen(Ty::Int, d), A("4")}), gen(Ty::Char, d)});
      case 7: return L({A("symbol->string"), Q(A(kSyms[rnd(count(kSyms))]))});
      case 8: return L({A(chance(50) ? "string-upcase" : "string-downcase"), gen(Ty::Str, d)});
      case 9: return L({A("string-copy"), gen(Ty::Str, d)});
      case 10: return L({A("list->string"), L({A("list"), gen(Ty::Char, d), gen(Ty::Char, d)})});
      case 11: {
        std::string s = fresh("s");
        return L({A("let"), L({L({A(s), L({A("string-copy"), gen(Ty::Str, d)})})}),
                  L({A("string-set!"), A(s), gen(Ty::Int, d), gen(Ty::Char, d)}), A(s)});
      }
      case 12: return L({A("string-map"), A(chance(50) ? "char-upcase" : "char-downcase"), gen(Ty::Str, d)});
      default: return literal(Ty::Str);
    }
  }

  Sexp gen_list(int d) {
    switch (rnd(16)) {
      case 0:
      case 1: return L({A("cons"), gen(Ty::Int, d), gen(Ty::List, d)});
      case 2: return L({A("list"), gen(Ty::Int, d), gen(Ty::Int, d)});
      case 3: return L({A("cdr"), gen(Ty::List, d)});
      case 4: return L({A("append"), gen(Ty::List, d), restricted() ? literal(Ty::List) : gen(Ty::List, d)});
      case 5: return L({A("reverse"), gen(Ty::List, d)});
      case 6:
        if (loops_ < 2) return L({A("map"), gen(Ty::Proc, d), gen(Ty::List, d)});
        return literal(Ty::List);
      case 7:
        if (loops_ < 2) {
          std::string x = fresh("x");
          Sexp body = lambda_body([&] { return with_var(x, Ty::Int, true, [&] { return gen(Ty::Int, d); }); });
          return L({A("map"), L({A("lambda"), L({A(x)}), body}), gen(Ty::List, d)});
        }
        return literal(Ty::List);
      case 8: return L({A("vector->list"), gen(Ty::Vec, d)});
      case 9: return L({A("list-tail"), gen(Ty::List, d), gen(Ty::Int, d)});
      case 10: return L({A("list-copy"), gen(Ty::List, d)});
      case 11: return L({A("or"), L({A("memv"), gen(Ty::Int, d), gen(Ty::List, d)}), Q(L({}))});
      case 12:
        if (loops_ < 2) return L({A("map"), A(chance(50) ? "+" : "max"), gen(Ty::List, d), gen(Ty::List, d)});
        return literal(Ty::List);
      case 13: return L({A("list-sort"), A(chance(50) ? "<" : ">"), gen(Ty::List, d)});
      case 14: return L({A("apply"), A("list"), gen(Ty::List, d)});
      default: return literal(Ty::List);
    }
  }

  Sexp gen_vec(int d) {
    switch (rnd(10)) {
      case 0: return L({A("vector"), gen(Ty::Int, d), gen(Ty::Int, d)});
      case 1: return L({A("make-vector"), L({A("modulo"), gen(Ty::Int, d), A("4")}), gen(Ty::Int, d)});
      case 2: return L({A("list->vector"), gen(Ty::List, d)});
      case 3:
        if (loops_ < 2) return L({A("vector-map"), gen(Ty::Proc, d), gen(Ty::Vec, d)});
        return literal(Ty::Vec);
      case 4: {
        std::string v = fresh("vec");
        return L({A("let"), L({L({A(v), L({A("vector"), gen(Ty::Int, d), gen(Ty::Int, d), gen(Ty::Int, d)})})}),
                  L({A("vector-set!"), A(v), gen(Ty::Int, d), gen(Ty::Int, d)}), A(v)});
      }
      case 5: return L({A("vector-copy"), gen(Ty::Vec, d)});
      case 6: return L({A("vector-append"), gen(Ty::Vec, d), restricted() ? literal(Ty::Vec) : gen(Ty::Vec, d)});
      case 7: {
        std::string v = fresh("vec");
        return L({A("let"), L({L({A(v), L({A("make-vector"), A("3"), A("0")})})}),
                  L({A("vector-fill!"), A(v), gen(Ty::Int, d)}), A(v)});
      }
      default: return literal(Ty::Vec);
    }
  }

  Sexp gen_proc(int d) {
    switch (rnd(5)) {
      case 0:
      case 1: {
        std::string x = fresh("x");
        Sexp body = lambda_body([&] { return with_var(x, Ty::Int, true, [&] { return gen(Ty::Int, d); }); });
        return L({A("lambda"), L({A(x)}), body});
      }
      case 2: {
        // A counter closure: state kept between calls.
        std::string c = fresh("cnt"), x = fresh("x");
        Sexp init = gen(Ty::Int, d);
        return L({A("let"), L({L({A(c), init})}),
                  L({A("lambda"), L({A(x)}), L({A("set!"), A(c), L({A("+"), A(c), A(x)})}), A(c)})});
      }
      case 3: {
        std::string f = fresh("f"), g = fresh("g"), x = fresh("x");
        return L({A("let"), L({L({A(f), gen(Ty::Proc, d)}), L({A(g), gen(Ty::Proc, d)})}),
                  L({A("lambda"), L({A(x)}), L({A(f), L({A(g), A(x)})})})});
      }
      default: return literal(Ty::Proc);
    }
  }
};

}  // namespace

Program generate(uint64_t seed) {
  Gen g(seed);
  return g.program();
}

uint64_t program_seed(uint64_t run_seed, uint64_t index) {
  // splitmix64 of the pair: neighbouring indexes give unrelated programs.
  uint64_t z = run_seed * 0x9E3779B97F4A7C15ull + index + 0x7F4A7C159E3779B9ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace quasi_gen
