// facts.cpp — what residual tests and reads teach about dynamic values (positive information).
// After (if (eqv? x 'a) A B) with x dynamic, x is 'a in A and is not 'a in B; after (if x A B),
// x is #f in B. After residual code read (car x), a later (car x) is that value while no
// residual code that may mutate ran since, and x is a pair for good. After (= x 3) or (zero? x),
// x is numerically 3 (or 0) in the then arm, not in the else arm: comparisons with small
// integers are decided, x itself is never replaced (3.0 passes). After (< x 10) (or <=, >, >=
// against a small integer, either side), x is a real below 10 in the then arm and at least 10 or
// NaN in the else arm: a later ordering or = test the range refutes is #f, one it implies is #t
// where x is known not to be NaN (a then arm). A (vector-ref v i) or
// (string-ref s i) read again with the same index in the same epoch is the first read's value.
// Helper keys carry what is
// known (memo.cpp: a known constant as a static value, read fields as a kView), which is what
// turns a naive matcher into a KMP automaton: a restart finds the text it already read.
//
// Soundness: a constant replaces a dynamic value only when eqv? to it means being it (fixnums,
// characters, symbols, booleans, '()). Facts from a test hold in the arm of the `if` that
// learned them (undone by the trail when the arm ends, also on an exception). Read fields hold
// at one epoch: every residual call, call of a helper, primitive with effects, lambda body and
// undone unfolding starts a new one.
#include "core/equality.hpp"
#include "core/error.hpp"
#include "pe/specializer.hpp"

namespace quasi::pe {

namespace {

bool identity_constant(Value v) {
  return v.is_fixnum() || v.is_char() || is_symbol(v) || v == kTrue || v == kFalse || v == kNil;
}

// A frozen static list of identity constants (at most 64), for memq/memv tests.
bool constant_list(Value l) {
  int n = 0;
  for (; is_pair(l); l = cdr(l))
    if (++n > 64 || !identity_constant(car(l))) return false;
  return l == kNil && n > 0;
}

// A fixnum that a double holds exactly: when (= x c) holds for such a c, x is a real number
// equal to c, so comparing x with another such constant is comparing c with it (no rounding
// either way). Not that x is the fixnum c: it may be 3.0, so x is never replaced by c.
bool small_integer(Value v) {
  return v.is_fixnum() && v.fixnum() > -(int64_t(1) << 53) && v.fixnum() < (int64_t(1) << 53);
}

// (= a b), (< a b), ... of two arguments, or (zero? a).
bool numeric_comparison(const PrimFacts& f, size_t n) {
  return (f.num_result == NumResult::kBoolean && n == 2) || (f.inline_op == InlineOp::kZeroP && n == 1);
}

bool ordering(InlineOp op) {
  return op == InlineOp::kLt || op == InlineOp::kLe || op == InlineOp::kGt || op == InlineOp::kGe;
}

// (op c x) is (flip(op) x c).
InlineOp flipped(InlineOp op) {
  switch (op) {
    case InlineOp::kLt: return InlineOp::kGt;
    case InlineOp::kLe: return InlineOp::kGe;
    case InlineOp::kGt: return InlineOp::kLt;
    default: return InlineOp::kLe;
  }
}

// The test that holds where (op x c) fails, for x not NaN.
InlineOp negated(InlineOp op) {
  switch (op) {
    case InlineOp::kLt: return InlineOp::kGe;
    case InlineOp::kLe: return InlineOp::kGt;
    case InlineOp::kGt: return InlineOp::kLe;
    default: return InlineOp::kLt;
  }
}

// Narrows f's range to the reals y with (op y c).
void narrow(Specializer::Fact& f, InlineOp op, int64_t c) {
  bool open = op == InlineOp::kLt || op == InlineOp::kGt;
  if (op == InlineOp::kLt || op == InlineOp::kLe) {
    if (!f.has_hi || c < f.hi || (c == f.hi && open)) {
      f.has_hi = true;
      f.hi = c;
      f.hi_open = open;
    }
  } else if (!f.has_lo || c > f.lo || (c == f.lo && open)) {
    f.has_lo = true;
    f.lo = c;
    f.lo_open = open;
  }
}

// Does every real y in f's range satisfy (op y c)?
bool range_implies(const Specializer::Fact& f, InlineOp op, int64_t c) {
  switch (op) {
    case InlineOp::kLt: return f.has_hi && (f.hi < c || (f.hi == c && f.hi_open));
    case InlineOp::kLe: return f.has_hi && f.hi <= c;
    case InlineOp::kGt: return f.has_lo && (f.lo > c || (f.lo == c && f.lo_open));
    default: return f.has_lo && f.lo >= c;
  }
}

bool element_read(const PrimFacts& f, size_t n) {
  return n == 2 && (f.inline_op == InlineOp::kVectorRef || f.inline_op == InlineOp::kStringRef);
}

}  // namespace

Specializer::FactWorld::FactWorld(Specializer* sp) : s(sp) {
  saved_facts.swap(sp->facts_);
  saved_trail.swap(sp->trail_);
  saved_epoch = sp->epoch_;
  sp->mutation();
}

Specializer::FactWorld::~FactWorld() {
  s->facts_.swap(saved_facts);
  s->trail_.swap(saved_trail);
  s->epoch_ = saved_epoch;  // building the helper ran nothing
}

Specializer::Fact* Specializer::fact_of(Var* v) {
  auto it = facts_.find(v);
  return it == facts_.end() ? nullptr : &it->second;
}

Specializer::Fact& Specializer::fact_for_update(Var* v) {
  auto it = facts_.find(v);
  if (it == facts_.end()) {
    trail_.push_back(TrailEntry{v, false, Fact{}});
    return facts_[v];
  }
  trail_.push_back(TrailEntry{v, true, it->second});
  return it->second;
}

void Specializer::fact_undo(size_t mark) {
  while (trail_.size() > mark) {
    TrailEntry& t = trail_.back();
    if (t.had) facts_[t.var] = t.old;
    else facts_.erase(t.var);
    trail_.pop_back();
  }
}

PVal* Specializer::known(PVal* v) {
  if (v->kind != PKind::Dyn || !v->var) return v;
  Fact* f = fact_of(v->var);
  if (!f || !f->has_value) return v;
  PVal* s = make_static(f->value);
  s->tags = v->tags;
  return s;
}

PVal* Specializer::known_field(PVal* v, int which) {
  if (v->kind != PKind::Dyn || !v->var) return nullptr;
  Fact* f = fact_of(v->var);
  if (!f || f->epoch != epoch_ || !f->field[which]) return nullptr;
  return known(f->field[which]);
}

void Specializer::learn_field(Var* v, int which, PVal* value) {
  Fact& f = fact_for_update(v);
  if (f.epoch != epoch_) {
    f.field[0] = f.field[1] = nullptr;
    f.epoch = epoch_;
  }
  f.field[which] = value;
  f.is_pair = true;
}

bool Specializer::excluded(PVal* v, Value c) {
  if (v->kind != PKind::Dyn || !v->var) return false;
  Fact* f = fact_of(v->var);
  if (!f) return false;
  if (f->is_pair && identity_constant(c)) return true;  // a pair is none of these
  if (f->excluded)
    for (Value e : *f->excluded)
      if (e == c) return true;
  return false;
}

void Specializer::learn_test(PVal* t, bool outcome) {
  if (t->kind != PKind::Dyn || !t->var) return;
  // The test's own value: #f in the else arm, not #f in the then arm.
  auto exclude = [this](Var* x, Value c) {
    Fact& f = fact_for_update(x);
    auto* ex = gc_new<gc_vector<Value>>();
    if (f.excluded) *ex = *f.excluded;
    ex->push_back(c);
    f.excluded = ex;
  };
  auto is = [this](Var* x, Value c) {
    Fact& f = fact_for_update(x);
    f.has_value = true;
    f.value = c;
  };
  if (outcome) exclude(t->var, kFalse);
  else is(t->var, kFalse);
  if (!t->test_of) return;
  if (t->test_numeric && t->test_order != InlineOp::kNone) {
    Fact& f = fact_for_update(t->test_of);
    if (outcome) f.real = true;  // NaN fails every ordering test
    narrow(f, outcome ? t->test_order : negated(t->test_order), t->test_value.fixnum());
    return;
  }
  if (t->test_numeric) {
    Fact& f = fact_for_update(t->test_of);
    if (outcome) {
      f.has_num = true;
      f.num = t->test_value;
    } else {
      auto* ex = gc_new<gc_vector<Value>>();
      if (f.num_excluded) *ex = *f.num_excluded;
      ex->push_back(t->test_value);
      f.num_excluded = ex;
    }
    return;
  }
  if (!t->test_list.is_true()) {
    if (outcome) is(t->test_of, t->test_value);
    else exclude(t->test_of, t->test_value);
    return;
  }
  Value l = t->test_list;
  if (outcome) {
    if (cdr(l) == kNil) is(t->test_of, car(l));
    return;
  }
  for (; is_pair(l); l = cdr(l)) exclude(t->test_of, car(l));
}

PVal* Specializer::fact_structural(const PrimFacts& f, gc_vector<PVal*>& args) {
  auto dyn = [](PVal* v) { return v->kind == PKind::Dyn && v->var; };
  auto pair_known = [this](PVal* v) {
    Fact* fa = v->kind == PKind::Dyn && v->var ? fact_of(v->var) : nullptr;
    return fa && fa->is_pair;
  };
  switch (f.structure) {
    case Structure::kCar:
    case Structure::kCdr:
      if (args.size() != 1) return nullptr;
      return known_field(args[0], f.structure == Structure::kCdr ? 1 : 0);
    case Structure::kCxr: {
      if (args.size() != 1 || !dyn(args[0])) return nullptr;
      PVal* v = args[0];
      for (int i = 0; i < f.cxr_len; i++) {
        int d = (f.cxr_bits >> i) & 1;
        if (dyn(v)) {
          v = known_field(v, d);
          if (!v) return nullptr;
        } else if (v->kind == PKind::Pair && v->known_fields()) {
          v = d ? v->cdr : v->car;
        } else if (v->kind == PKind::Static && is_pair(v->value) && frozen(v->value)) {
          v = make_static(d ? cdr(v->value) : car(v->value));
        } else {
          return nullptr;
        }
      }
      return v;
    }
    case Structure::kTypePred:
      if (args.size() != 1 || !pair_known(args[0])) return nullptr;
      switch (f.type_test) {
        case TypeTest::kPair: return make_static(kTrue);
        case TypeTest::kNull:
        case TypeTest::kVector:
        case TypeTest::kProcedure: return make_static(kFalse);
        default: return nullptr;
      }
    case Structure::kNot:
      if (args.size() != 1) return nullptr;
      if (pair_known(args[0]) || excluded(args[0], kFalse)) return make_static(kFalse);
      return nullptr;
    case Structure::kEq:
    case Structure::kEqual:
    case Structure::kCharEq:
      if (args.size() != 2) return nullptr;
      for (int k = 0; k < 2; k++)
        if (dyn(args[k]) && args[1 - k]->kind == PKind::Static && excluded(args[k], args[1 - k]->value))
          return make_static(kFalse);
      return nullptr;
    case Structure::kMemq: {
      if (args.size() != 2 || !dyn(args[0]) || args[1]->kind != PKind::Static || !constant_list(args[1]->value))
        return nullptr;
      for (Value l = args[1]->value; is_pair(l); l = cdr(l))
        if (!excluded(args[0], car(l))) return nullptr;
      return make_static(kFalse);
    }
    default:
      return nullptr;
  }
}

PVal* Specializer::fact_numeric(Primitive* p, const PrimFacts& f, gc_vector<PVal*>& args) {
  auto fact = [this](PVal* v) { return v->kind == PKind::Dyn && v->var ? fact_of(v->var) : nullptr; };
  if (numeric_comparison(f, args.size())) {
    // Every argument a small integer, or known equal to one: the comparison of those.
    std::vector<Value> argv;
    bool learned = false;
    for (PVal* a : args) {
      Fact* fa = fact(a);
      if (a->kind == PKind::Static && small_integer(a->value)) argv.push_back(a->value);
      else if (fa && fa->has_num) {
        argv.push_back(fa->num);
        learned = true;
      }
    }
    if (learned && argv.size() == args.size()) {
      spend(2);
      try {
        return make_static(p->fn(vm_, p, int(argv.size()), argv.data()));
      } catch (SchemeError&) {
        return nullptr;
      }
    }
    // A range (learned from ordering tests) that decides the test: refuted, #f (also for NaN);
    // implied, #t when the value is known to be a real number that is not NaN.
    if (args.size() == 2 && (ordering(f.inline_op) || f.inline_op == InlineOp::kNumEq)) {
      for (size_t k = 0; k < 2; k++) {
        Fact* fa = fact(args[k]);
        PVal* other = args[1 - k];
        if (!fa || !(fa->has_lo || fa->has_hi) || other->kind != PKind::Static || !small_integer(other->value))
          continue;
        int64_t c = other->value.fixnum();
        if (f.inline_op == InlineOp::kNumEq) {
          if (range_implies(*fa, InlineOp::kLt, c) || range_implies(*fa, InlineOp::kGt, c)) return make_static(kFalse);
          continue;
        }
        InlineOp op = k == 0 ? f.inline_op : flipped(f.inline_op);
        if (range_implies(*fa, negated(op), c)) return make_static(kFalse);
        if (fa->real && range_implies(*fa, op, c)) return make_static(kTrue);
      }
    }
    // Known not to equal the constant it is compared with.
    bool eq = f.inline_op == InlineOp::kNumEq || f.inline_op == InlineOp::kZeroP;
    for (size_t k = 0; eq && k < args.size(); k++) {
      Fact* fa = fact(args[k]);
      if (!fa || !fa->num_excluded) continue;
      Value c = args.size() == 1 ? make_fixnum(0) : args[1 - k]->kind == PKind::Static ? args[1 - k]->value : kFalse;
      if (!small_integer(c)) continue;
      for (Value e : *fa->num_excluded)
        if (e == c) return make_static(kFalse);
    }
    return nullptr;
  }
  return nullptr;
}

PVal* Specializer::known_element(const PrimFacts& f, gc_vector<PVal*>& args) {
  if (!element_read(f, args.size()) || args[0]->kind != PKind::Dyn || !args[0]->var) return nullptr;
  Fact* fa = fact_of(args[0]->var);
  if (!fa || !fa->elems || fa->elems_epoch != epoch_) return nullptr;
  PVal* i = args[1];
  bool var_index = i->kind == PKind::Dyn && i->var;
  if (!var_index && !(i->kind == PKind::Static && i->value.is_fixnum())) return nullptr;
  uint64_t index = var_index ? uint64_t(reinterpret_cast<uintptr_t>(i->var)) : i->value.bits;
  for (const Fact::Element& e : *fa->elems)
    if (e.op == uint8_t(f.inline_op) && e.var_index == var_index && e.index == index) return known(e.value);
  return nullptr;
}

// The compared value is the counter or one step from it: a loop tests its counter before or
// after the step ((< i n), then (+ i 1); or the step's result), and the helper's key holds the
// counter of the iteration it starts. A value computed otherwise from the key (a table entry at
// a static index, a binary search's midpoint) rarely lies next to it: such a slot keeps the
// floor and bounded indices stay apart.
void Specializer::mark_counted(Entry* e, PVal* v) {
  int64_t c = v->value.fixnum();
  for (size_t s = 0; s < e->slot_start.size() && s < 64; s++) {
    if (!((v->tags >> s) & 1)) continue;
    size_t end = s + 1 < e->slot_start.size() ? e->slot_start[s + 1] : e->key.size();
    for (size_t k = e->slot_start[s]; k < end; k++) {
      const KeyItem& it = e->key[k];
      if ((it.tag != KeyItem::kFrozen && it.tag != KeyItem::kRef) || !it.value.is_fixnum()) continue;
      int64_t x = it.value.fixnum();
      if (x < c - 1 || x > c + 1) continue;
      if (e->counted.empty()) e->counted.assign(e->key.size(), false);
      if (!e->counted[k]) e->n_counted++;
      e->counted[k] = true;
    }
  }
}

void Specializer::note_result(const PrimFacts& f, gc_vector<PVal*>& args, PVal* r) {
  if (r->kind != PKind::Dyn || !r->var) return;
  for (PVal* a : args)
    if (a == r) return;
  if (numeric_comparison(f, args.size()) && args.size() == 2 &&
      (f.inline_op == InlineOp::kLt || f.inline_op == InlineOp::kLe || f.inline_op == InlineOp::kGt ||
       f.inline_op == InlineOp::kGe) && !pending_.empty()) {
    // A loop variable of the helper being built compared with a dynamic number: a counter
    // under dynamic control (Entry::counted, whistle.hpp).
    for (size_t k = 0; k < 2; k++)
      if (args[k]->kind == PKind::Static && args[k]->value.is_fixnum() && args[k]->tags && args[1 - k]->kind == PKind::Dyn)
        mark_counted(pending_.back(), args[k]);
  }
  if (numeric_comparison(f, args.size()) && args.size() == 2 && ordering(f.inline_op)) {
    // (< x c) and the like: each arm learns a bound of x (narrow, learn_test).
    for (size_t k = 0; k < 2; k++) {
      Value c = args[1 - k]->kind == PKind::Static ? args[1 - k]->value : kFalse;
      if (args[k]->kind == PKind::Dyn && args[k]->var && small_integer(c)) {
        r->test_of = args[k]->var;
        r->test_value = c;
        r->test_numeric = true;
        r->test_order = k == 0 ? f.inline_op : flipped(f.inline_op);
        return;
      }
    }
    return;
  }
  if (numeric_comparison(f, args.size()) && (f.inline_op == InlineOp::kNumEq || f.inline_op == InlineOp::kZeroP)) {
    // (= x c) or (zero? x): each arm learns whether x is numerically c (fact_numeric).
    for (size_t k = 0; k < args.size(); k++) {
      Value c = args.size() == 1 ? make_fixnum(0) : args[1 - k]->kind == PKind::Static ? args[1 - k]->value : kFalse;
      if (args[k]->kind == PKind::Dyn && args[k]->var && small_integer(c)) {
        r->test_of = args[k]->var;
        r->test_value = c;
        r->test_numeric = true;
        if (args.size() == 2) inspect(args[1 - k]);
        return;
      }
    }
    return;
  }
  if (element_read(f, args.size()) && args[0]->kind == PKind::Dyn && args[0]->var) {
    PVal* i = args[1];
    bool var_index = i->kind == PKind::Dyn && i->var;
    if (var_index || (i->kind == PKind::Static && i->value.is_fixnum())) {
      Fact& fa = fact_for_update(args[0]->var);
      auto* elems = gc_new<gc_vector<Fact::Element>>();
      if (fa.elems && fa.elems_epoch == epoch_) *elems = *fa.elems;
      if (elems->size() < 64)
        elems->push_back(Fact::Element{uint8_t(f.inline_op), var_index,
                                       var_index ? uint64_t(reinterpret_cast<uintptr_t>(i->var)) : i->value.bits, r});
      fa.elems = elems;
      fa.elems_epoch = epoch_;
    }
    return;
  }
  switch (f.structure) {
    case Structure::kCar:
    case Structure::kCdr:
      if (args.size() == 1 && args[0]->kind == PKind::Dyn && args[0]->var)
        learn_field(args[0]->var, f.structure == Structure::kCdr ? 1 : 0, r);
      return;
    case Structure::kEq:
    case Structure::kEqual:
    case Structure::kCharEq:
      if (args.size() != 2) return;
      for (int k = 0; k < 2; k++)
        if (args[k]->kind == PKind::Dyn && args[k]->var && args[1 - k]->kind == PKind::Static &&
            identity_constant(args[1 - k]->value)) {
          r->test_of = args[k]->var;
          r->test_value = args[1 - k]->value;
          // The constant decides what each arm learns: the slot it came from shapes the
          // residual code (a pattern compared with the text), so it is no accumulator.
          inspect(args[1 - k]);
          return;
        }
      return;
    case Structure::kMemq:
      if (args.size() == 2 && args[0]->kind == PKind::Dyn && args[0]->var && args[1]->kind == PKind::Static &&
          constant_list(args[1]->value)) {
        r->test_of = args[0]->var;
        r->test_list = args[1]->value;
        inspect(args[1]);
      }
      return;
    default:
      return;
  }
}

}  // namespace quasi::pe
