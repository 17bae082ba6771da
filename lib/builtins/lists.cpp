// lists.cpp — pairs, lists, symbols, booleans and the equivalence predicates.
//
// None of these call Scheme procedures (map, for-each, member/assoc with a predicate, ... are
// written in Scheme). Procedures taking a list raise "who: expected a proper list, got ..." on an
// improper or circular one instead of looping.
#include <atomic>
#include <string>

#include "builtins/args.hpp"
#include "builtins/registry.hpp"
#include "core/equality.hpp"
#include "core/numbers.hpp"
#include "read/printer.hpp"

namespace quasi {

namespace {

// A non-negative fixnum (a count or an index with no upper bound known yet).
int64_t check_count(const char* who, Value v) {
  if (!v.is_fixnum() || v.fixnum() < 0) {
    if (is_bignum(v) && mpz_sgn(&v.as<Bignum>()->z) > 0) range_error(who, "count", v);
    type_error(who, "a non-negative exact integer", v);
  }
  return v.fixnum();
}

int64_t check_list(const char* who, Value v) {
  int64_t n = list_length(v);
  if (n < 0) type_error(who, "a proper list", v);
  return n;
}

// Builds a list front to back.
struct ListBuilder {
  Value head = kNil;
  Value tail = kNil;
  void add(Value x) {
    Value p = cons(x, kNil);
    if (tail == kNil) head = p;
    else tail.as<Pair>()->cdr = p;
    tail = p;
  }
  // Ends the list with `rest` instead of ().
  Value finish(Value rest = kNil) {
    if (tail == kNil) return rest;
    tail.as<Pair>()->cdr = rest;
    return head;
  }
};

// ---- equivalence and booleans ---------------------------------------------------------------
QUASI_PRIM(p_eq) { return make_bool(argv[0] == argv[1]); }
QUASI_PRIM(p_eqv) { return make_bool(eqv(argv[0], argv[1])); }
QUASI_PRIM(p_equal) { return make_bool(equal(argv[0], argv[1])); }
QUASI_PRIM(p_not) { return make_bool(argv[0] == kFalse); }
QUASI_PRIM(p_booleanp) { return make_bool(argv[0] == kTrue || argv[0] == kFalse); }

QUASI_PRIM(p_boolean_eq) {
  for (int i = 0; i < argc; i++)
    if (argv[i] != kTrue && argv[i] != kFalse) type_error("boolean=?", "a boolean", argv[i]);
  for (int i = 1; i < argc; i++)
    if (argv[i] != argv[0]) return kFalse;
  return kTrue;
}

// ---- pairs -----------------------------------------------------------------------------------
QUASI_PRIM(p_pairp) { return make_bool(is_pair(argv[0])); }
QUASI_PRIM(p_cons) { return cons(argv[0], argv[1]); }
QUASI_PRIM(p_car) { return car(check_pair("car", argv[0])); }
QUASI_PRIM(p_cdr) { return cdr(check_pair("cdr", argv[0])); }

QUASI_PRIM(p_set_car) {
  check_pair("set-car!", argv[0]);
  check_mutable("set-car!", argv[0]);
  argv[0].as<Pair>()->car = argv[1];
  return kUnspecified;
}
QUASI_PRIM(p_set_cdr) {
  check_pair("set-cdr!", argv[0]);
  check_mutable("set-cdr!", argv[0]);
  argv[0].as<Pair>()->cdr = argv[1];
  return kUnspecified;
}

// c[ad]{2,4}r. Ops encodes the letters between 'c' and 'r', one bit each, last letter (applied
// first) in bit 0: 1 = d (cdr), 0 = a (car).
template <int N, unsigned Ops>
Value p_cxr(Vm&, Primitive* self, int, Value* argv) {
  Value v = argv[0];
  for (int i = 0; i < N; i++) {
    if (!is_pair(v)) {
      if (i == 0) type_error(self->name, "a pair", v);
      // The part of the accessor applied so far: for "caddr" after two steps, "cddr".
      const char* name = self->name;
      std::string done = std::string("c") + std::string(name + 1 + N - i, name + 1 + N) + "r";
      type_error(self->name, ("a value whose " + done + " is a pair").c_str(), argv[0]);
    }
    v = ((Ops >> i) & 1) ? cdr(v) : car(v);
  }
  return v;
}

// ---- lists -----------------------------------------------------------------------------------
QUASI_PRIM(p_nullp) { return make_bool(argv[0] == kNil); }
QUASI_PRIM(p_listp) { return make_bool(list_length(argv[0]) >= 0); }

QUASI_PRIM(p_make_list) {
  int64_t n = check_count("make-list", argv[0]);
  Value fill = argc > 1 ? argv[1] : kUnspecified;
  Value r = kNil;
  for (int64_t i = 0; i < n; i++) r = cons(fill, r);
  return r;
}

QUASI_PRIM(p_list) {
  Value r = kNil;
  for (int i = argc - 1; i >= 0; i--) r = cons(argv[i], r);
  return r;
}

// (cons* x) => x; (cons* a b c) => (a b . c)
QUASI_PRIM(p_cons_star) {
  Value r = argv[argc - 1];
  for (int i = argc - 2; i >= 0; i--) r = cons(argv[i], r);
  return r;
}

QUASI_PRIM(p_length) { return make_fixnum(check_list("length", argv[0])); }

QUASI_PRIM(p_append) {
  if (argc == 0) return kNil;
  for (int i = 0; i < argc - 1; i++) check_list("append", argv[i]);
  ListBuilder b;
  for (int i = 0; i < argc - 1; i++)
    for (Value l = argv[i]; is_pair(l); l = cdr(l)) b.add(car(l));
  return b.finish(argv[argc - 1]);
}

QUASI_PRIM(p_reverse) {
  check_list("reverse", argv[0]);
  return reverse_list(argv[0]);
}

// Follows k cdrs; "who: index out of range: k" when the list is too short. On a circular list
// the walk goes round the cycle at most once more than needed to find its length (Brent), so a
// huge k costs no more than a small one.
Value nth_tail(const char* who, Value lst, Value kv, bool need_pair) {
  int64_t k = check_count(who, kv);
  Value l = lst, mark = lst;
  int64_t since_mark = 0, window = 1;
  for (int64_t i = 0; i < k; i++) {
    if (!is_pair(l)) {
      if (l == kNil) range_error(who, "index", kv);
      type_error(who, "a list", lst);
    }
    l = cdr(l);
    if (l == mark) {  // l is on a cycle of since_mark + 1 pairs: skip whole rounds
      for (int64_t left = (k - i - 1) % (since_mark + 1); left > 0; left--) l = cdr(l);
      break;
    }
    if (++since_mark == window) {
      mark = l;
      since_mark = 0;
      window *= 2;
    }
  }
  if (need_pair && !is_pair(l)) {
    if (l == kNil) range_error(who, "index", kv);
    type_error(who, "a list", lst);
  }
  return l;
}

QUASI_PRIM(p_list_tail) { return nth_tail("list-tail", argv[0], argv[1], false); }
QUASI_PRIM(p_list_ref) { return car(nth_tail("list-ref", argv[0], argv[1], true)); }

QUASI_PRIM(p_list_set) {
  Value p = nth_tail("list-set!", argv[0], argv[1], true);
  check_mutable("list-set!", p);
  p.as<Pair>()->car = argv[2];
  return kUnspecified;
}

// Copies the spine; an improper tail is kept, a non-list is returned as is.
QUASI_PRIM(p_list_copy) {
  Value l = argv[0];
  Value slow = l;
  ListBuilder b;
  while (is_pair(l)) {
    b.add(car(l));
    l = cdr(l);
    if (!is_pair(l)) break;
    b.add(car(l));
    l = cdr(l);
    slow = cdr(slow);
    if (l == slow) type_error("list-copy", "a finite list", argv[0]);
  }
  return b.finish(l);
}

QUASI_PRIM(p_last_pair) {
  Value l = check_pair("last-pair", argv[0]);
  Value slow = l;
  for (;;) {
    if (!is_pair(cdr(l))) return l;
    l = cdr(l);
    if (!is_pair(cdr(l))) return l;
    l = cdr(l);
    slow = cdr(slow);
    if (l == slow) type_error("last-pair", "a finite list", argv[0]);
  }
}

// Searches a list (tortoise and hare, so a circular list raises instead of looping). The hare
// visits every distinct pair before the two meet, so no element is missed.
template <class Match>
Value search_list(const char* who, Value lst, Match match) {
  Value l = lst;
  Value slow = lst;
  for (;;) {
    if (!is_pair(l)) break;
    if (match(car(l))) return l;
    l = cdr(l);
    if (!is_pair(l)) break;
    if (match(car(l))) return l;
    l = cdr(l);
    slow = cdr(slow);
    if (l == slow) break;
  }
  if (l != kNil) type_error(who, "a proper list", lst);
  return kFalse;
}

QUASI_PRIM(p_memq) {
  Value x = argv[0];
  return search_list("memq", argv[1], [x](Value e) { return e == x; });
}
QUASI_PRIM(p_memv) {
  Value x = argv[0];
  return search_list("memv", argv[1], [x](Value e) { return eqv(e, x); });
}
QUASI_PRIM(p_member) {
  Value x = argv[0];
  return search_list("member", argv[1], [x](Value e) { return equal(x, e); });
}

template <class Match>
Value search_alist(const char* who, Value alist, Match match) {
  Value found = kFalse;
  search_list(who, alist, [&](Value e) {
    if (!is_pair(e)) type_error(who, "a list of pairs", alist);
    if (!match(car(e))) return false;
    found = e;
    return true;
  });
  return found;
}

QUASI_PRIM(p_assq) {
  Value x = argv[0];
  return search_alist("assq", argv[1], [x](Value k) { return k == x; });
}
QUASI_PRIM(p_assv) {
  Value x = argv[0];
  return search_alist("assv", argv[1], [x](Value k) { return eqv(k, x); });
}
QUASI_PRIM(p_assoc) {
  Value x = argv[0];
  return search_alist("assoc", argv[1], [x](Value k) { return equal(x, k); });
}

// (iota count [start [step]]) => (start start+step ... start+(count-1)*step)
QUASI_PRIM(p_iota) {
  int64_t n = check_count("iota", argv[0]);
  Value start = argc > 1 ? argv[1] : make_fixnum(0);
  Value step = argc > 2 ? argv[2] : make_fixnum(1);
  if (!is_number(start)) type_error("iota", "a number", start);
  if (!is_number(step)) type_error("iota", "a number", step);
  Value r = kNil;
  for (int64_t i = n - 1; i >= 0; i--) {
    Value x;
    int64_t prod, sum;
    if (start.is_fixnum() && step.is_fixnum() &&
        !__builtin_mul_overflow(i, step.fixnum(), &prod) &&
        !__builtin_add_overflow(prod, start.fixnum(), &sum) && fits_fixnum(sum)) {
      x = make_fixnum(sum);
    } else {
      // start + i*step, not repeated addition: no accumulated rounding with flonums.
      x = num_add(start, num_mul(make_integer(i), step));
    }
    r = cons(x, r);
  }
  return r;
}

// ---- symbols ---------------------------------------------------------------------------------
Value check_symbol(const char* who, Value v) {
  if (!is_symbol(v)) type_error(who, "a symbol", v);
  return v;
}

QUASI_PRIM(p_symbolp) { return make_bool(is_symbol(argv[0])); }

QUASI_PRIM(p_symbol_eq) {
  for (int i = 0; i < argc; i++) check_symbol("symbol=?", argv[i]);
  for (int i = 1; i < argc; i++)
    if (argv[i] != argv[0]) return kFalse;
  return kTrue;
}

// Code point order: byte order of the UTF-8 names is the same.
QUASI_PRIM(p_symbol_lt) {
  for (int i = 0; i < argc; i++) check_symbol("symbol<?", argv[i]);
  for (int i = 1; i < argc; i++)
    if (std::strcmp(symbol_name(argv[i - 1]), symbol_name(argv[i])) >= 0) return kFalse;
  return kTrue;
}

// The symbol's own name string, which is immutable.
QUASI_PRIM(p_symbol_to_string) {
  return check_symbol("symbol->string", argv[0]).as<Symbol>()->name;
}

QUASI_PRIM(p_string_to_symbol) {
  if (!is_string(argv[0])) type_error("string->symbol", "a string", argv[0]);
  return intern(string_to_utf8(argv[0]));
}

QUASI_PRIM(p_string_to_uninterned_symbol) {
  if (!is_string(argv[0])) type_error("string->uninterned-symbol", "a string", argv[0]);
  return make_uninterned_symbol(string_to_utf8(argv[0]));
}

// (gensym [prefix]): a new uninterned symbol named prefix (a string or symbol, default "g")
// followed by a number, so it prints readably but is eq? to no symbol read or made before.
QUASI_PRIM(p_gensym) {
  static std::atomic<uint64_t> counter{0};
  std::string prefix = "g";
  if (argc > 0) {
    if (is_string(argv[0])) prefix = string_to_utf8(argv[0]);
    else if (is_symbol(argv[0])) prefix = symbol_name(argv[0]);
    else type_error("gensym", "a string or a symbol", argv[0]);
  }
  return make_uninterned_symbol(prefix + std::to_string(++counter));
}

// Derivative rules (core/prim.hpp, DerivativeRule): adjoints over the arguments a, b, the
// result r and its cotangent d; the %ad- helpers are lib/ad's (scheme/prelude/70-ad.scm).
using DK = DerivativeRule::Kind;
constexpr DerivativeRule kDCxr{DK::kCxr, false, {}, {}};
constexpr DerivativeRule kDCons{DK::kLinear, false, {}, {"(%ad-car d)", "(%ad-cdr d)"}};
constexpr DerivativeRule kDList{DK::kList, false, {}, {}};
constexpr DerivativeRule kDListRef{DK::kLinear, false, {}, {"(%ad-list-onehot b d)", nullptr}};
constexpr DerivativeRule kDReverse{DK::kLinear, false, {"(%ad-reverse d (length a))"}, {}};
constexpr DerivativeRule kDAppend{DK::kLinear, true, {"d"}, {"(%ad-take d (length a))", "(%ad-drop d (length a))"}};
constexpr DerivativeRule kDZeroL{DK::kZero, false, {}, {}};

#define CXR(name, n, ops) {name, p_cxr<n, ops>, 1, 1, kPureFoldRaise, kFacts.cxr(n, ops).differentiable(&kDCxr)}

constexpr uint32_t kAllocRaise = kAlloc | kMayRaise;

const PrimDef kListPrims[] = {
    {"eq?", p_eq, 2, 2, kPureFold,
     kFacts.inline_as(InlineOp::kEq).structural(Structure::kEq)},
    {"eqv?", p_eqv, 2, 2, kPureFold,
     kFacts.structural(Structure::kEq, TypeTest::kOther, true).jit_as(JitRecipe::kEqv)},
    {"equal?", p_equal, 2, 2, kPureFold, kFacts.structural(Structure::kEqual)},
    {"not", p_not, 1, 1, kPureFold,
     kFacts.inline_as(InlineOp::kNot).structural(Structure::kNot)},
    {"boolean?", p_booleanp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred).jit_as(JitRecipe::kBoolean)},
    {"boolean=?", p_boolean_eq, 1, -1, kPureFoldRaise},

    {"pair?", p_pairp, 1, 1, kPureFold,
     kFacts.inline_as(InlineOp::kPairP).structural(Structure::kTypePred, TypeTest::kPair).jit_heap_type(Type::Pair)},
    {"cons", p_cons, 2, 2, kAlloc,
     kFacts.inline_as(InlineOp::kCons).structural(Structure::kCons).differentiable(&kDCons)},
    {"car", p_car, 1, 1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kCar).structural(Structure::kCar).cxr(1, 0b0).differentiable(&kDCxr)},
    {"cdr", p_cdr, 1, 1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kCdr).structural(Structure::kCdr).cxr(1, 0b1).differentiable(&kDCxr)},
    {"set-car!", p_set_car, 2, 2, kEffect},
    {"set-cdr!", p_set_cdr, 2, 2, kEffect},
    CXR("caar", 2, 0b00), CXR("cadr", 2, 0b01), CXR("cdar", 2, 0b10), CXR("cddr", 2, 0b11),
    CXR("caaar", 3, 0b000), CXR("caadr", 3, 0b001), CXR("cadar", 3, 0b010),
    CXR("caddr", 3, 0b011), CXR("cdaar", 3, 0b100), CXR("cdadr", 3, 0b101),
    CXR("cddar", 3, 0b110), CXR("cdddr", 3, 0b111),
    CXR("caaaar", 4, 0b0000), CXR("caaadr", 4, 0b0001), CXR("caadar", 4, 0b0010),
    CXR("caaddr", 4, 0b0011), CXR("cadaar", 4, 0b0100), CXR("cadadr", 4, 0b0101),
    CXR("caddar", 4, 0b0110), CXR("cadddr", 4, 0b0111), CXR("cdaaar", 4, 0b1000),
    CXR("cdaadr", 4, 0b1001), CXR("cdadar", 4, 0b1010), CXR("cdaddr", 4, 0b1011),
    CXR("cddaar", 4, 0b1100), CXR("cddadr", 4, 0b1101), CXR("cdddar", 4, 0b1110),
    CXR("cddddr", 4, 0b1111),

    {"null?", p_nullp, 1, 1, kPureFold,
     kFacts.inline_as(InlineOp::kNullP).structural(Structure::kTypePred, TypeTest::kNull)},
    {"list?", p_listp, 1, 1, kPureFold, kFacts.structural(Structure::kListP)},
    {"make-list", p_make_list, 1, 2, kAllocRaise},
    {"list", p_list, 0, -1, kAlloc,
     kFacts.structural(Structure::kList).maker(Sequence::kList, MakerLength::kArgCount, MakerFill::kAny).differentiable(&kDList)
         .jit_as(JitRecipe::kList)},
    {"cons*", p_cons_star, 1, -1, kAlloc,
     kFacts.structural(Structure::kConsStar)},
    {"list*", p_cons_star, 1, -1, kAlloc,
     kFacts.structural(Structure::kConsStar)},
    {"length", p_length, 1, 1, kPureFoldRaise,
     kFacts.structural(Structure::kLength).measure(Sequence::kList).differentiable(&kDZeroL).numeric(NumResult::kExactInteger, false)},
    {"append", p_append, 0, -1, kAllocRaise,
     kFacts.structural(Structure::kAppend).differentiable(&kDAppend)},
    {"reverse", p_reverse, 1, 1, kAllocRaise,
     kFacts.differentiable(&kDReverse)},
    {"list-tail", p_list_tail, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kListTail)},
    {"list-ref", p_list_ref, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kListRef).differentiable(&kDListRef)},
    {"list-set!", p_list_set, 3, 3, kEffect},
    {"list-copy", p_list_copy, 1, 1, kAllocRaise},
    {"last-pair", p_last_pair, 1, 1, kPureFoldRaise},
    {"memq", p_memq, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kMemq).jit_as(JitRecipe::kMemq)},
    {"memv", p_memv, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kMemq, TypeTest::kOther, true).jit_as(JitRecipe::kMemv)},
    {"member", p_member, 2, 2, kPureFoldRaise},
    {"assq", p_assq, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kAssq)},
    {"assv", p_assv, 2, 2, kPureFoldRaise,
     kFacts.structural(Structure::kAssq, TypeTest::kOther, true)},
    {"assoc", p_assoc, 2, 2, kPureFoldRaise},
    {"iota", p_iota, 1, 3, kAllocRaise},

    {"symbol?", p_symbolp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred).jit_heap_type(Type::Symbol)},
    {"symbol=?", p_symbol_eq, 1, -1, kPureFoldRaise},
    {"symbol<?", p_symbol_lt, 1, -1, kPureFoldRaise},
    {"symbol->string", p_symbol_to_string, 1, 1, kPureFoldRaise},
    {"string->symbol", p_string_to_symbol, 1, 1, kPureFoldRaise},
    {"string->uninterned-symbol", p_string_to_uninterned_symbol, 1, 1, kAllocRaise},
    {"gensym", p_gensym, 0, 1, kAllocRaise},
};

#undef CXR

}  // namespace

void register_list_primitives(Environment* env) { install_primitives(env, kListPrims); }

}  // namespace quasi
