// runtime.cpp — the primitives behind the transformed code (lib/ad/README.md):
//
//   (%ad-j f)           J(f), f's reverse-mode form: a procedure of f's arguments returning
//                       (value . pullback). For a closure: its source transformed once per code
//                       object (a "maker", ad/reverse.hpp, cached), applied to the closure and its
//                       free values. For a primitive: (%ad-jprim p), a Scheme procedure that asks
//                       %ad-jprim-n for the form of each argument count.
//   (%ad-jprim-n p n)   J of (lambda (x1 ... xn) (p x1 ... xn)), cached per primitive and count.
//
// Each engine has its own AdState; the primitives carry it in `data`.
#include "ad/ad.hpp"

#include <string>

#include "ad/forward.hpp"
#include "ad/reverse.hpp"
#include "pe/pe.hpp"
#include "builtins/registry.hpp"
#include "core/error.hpp"
#include "core/procedure.hpp"
#include "core/redirections.hpp"
#include "eval/environment.hpp"
#include "ir/free_vars.hpp"
#include "ir/functor.hpp"
#include "vm/compiler.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

// Bound on the cached transforms; past it the caches start afresh (the transforms are
// recomputed on demand, so this only costs time).
constexpr size_t kMaxCachedTransforms = 4096;

struct AdState {
  ad::RuleCache* rules = nullptr;
  TracedMap<Proto*, Value> makers;     // code object -> its maker closure
  TracedMap<uint64_t, Value> prim_js;  // (primitive, argument count) -> J
  TracedMap<Proto*, LambdaNode*> maker_ir;  // code object -> its maker's IR
  TracedMap<Proto*, Value> layouts;          // J's code object -> %ad-j-layout's vector
  TracedMap<LambdaNode*, Value> lambda_makers;  // ad_maker_for_lambda's cache
  // The lambdas of the J's of quiet procedures (make_reverse_maker): %ad-j-quiet?. A property of
  // the code, so it survives a redefinition; a J whose lambda was forgotten is only not quiet.
  TracedMap<LambdaNode*, bool> quiet_js;
  // %ad-carrying: per code object, the compiled makers of its carrying forms, a list of
  // (spec . (lambda (fv ...) carrying-lambda)); and the last carrying closure made per closure
  // (direct-mapped, like the J's: a loop calls the same helper at every step).
  TracedMap<Proto*, Value> carrying_makers;
  // The last J made for each of a few closures (direct-mapped by address): a loop calling the same
  // closure at each step asks for its J at each step (particle's potential gradient), and J(f)
  // depends only on f (its free values are f's; a slot the closure assigns in place,
  // Proto::free_assigned, reaches J as a slot cell naming f and the slot, never as a copy).
  static constexpr size_t kJCache = 64;
  Value jcache_f[kJCache] = {};
  Value jcache_j[kJCache] = {};
  Value carry_f[kJCache] = {};  // %ad-carrying's last closure per f (above)
  Value carry_spec[kJCache] = {};
  Value carry_c[kJCache] = {};
  uint64_t redirections = 0;  // code_redirections when the caches above were last valid
  Value cell_tag = kFalse;  // slot 0 of every cell (%ad-cell)
  Value slot_tag = kFalse;  // slot 0 of every slot cell (a closure's own assigned slot, slot_cell)
  // %ad-note-escape!: the last vector that escaped in differentiated code and was then passed to a
  // procedure that may write it, and where it escaped, for the callee's refusal of the write.
  Value escape_vec = kFalse;
  Value escape_how = kFalse;
  int64_t pending = 0;      // cells holding a nonzero adjoint (see %ad-adjoints-pending?)
  // Forward mode (%ad-fwd): per code object, a list of (mask . made): made is (maker .
  // returns-number?), #f when the code has no forward form, #t while it is being made (a
  // recursion through a global); and the last forward form made per closure and mask
  // (direct-mapped, like the J's).
  TracedMap<Proto*, Value> fwd_makers;
  Value fwd_f[kJCache] = {};
  Value fwd_mask[kJCache] = {};
  Value fwd_c[kJCache] = {};
};

AdState& state_of(Primitive* self) { return *static_cast<AdState*>(self->data); }

Value compile_lambda(Vm& vm, LambdaNode* lam) {
  Value thunk = compile_toplevel(vm, lam);
  return vm.apply(thunk, 0, nullptr);
}

// A maker is (lambda (self fv ...) (letrec ((jself J)) jself)) (reverse.hpp): J's lambda.
LambdaNode* j_lambda(LambdaNode* mk) {
  Node* body = mk->clauses[0]->body;
  if (body->kind != NodeKind::Letrec) return nullptr;
  auto* rec = static_cast<LetNode*>(body);
  if (rec->inits.size() != 1 || rec->inits[0]->kind != NodeKind::Lambda) return nullptr;
  return static_cast<LambdaNode*>(rec->inits[0]);
}

void note_quiet(AdState& st, LambdaNode* mk, bool quiet) {
  LambdaNode* j = j_lambda(mk);
  if (!quiet || !j) return;
  if (st.quiet_js.size() >= kMaxCachedTransforms) st.quiet_js.clear();
  st.quiet_js[j] = true;
}

// A variable the compiler keeps in its closure's own slot, assigned in place (Proto::free_assigned,
// the set-free instruction), is a free variable of the differentiated code held in no box: J reads
// and writes it through #(slot-tag closure index), which the cell operations treat as they treat
// the compiler's boxes (no adjoint; a value being differentiated may not be stored). J reads the
// slot itself, so the closure and its J see each other's assignments.
Value slot_cell(AdState& st, Value closure, int32_t i) {
  Value c = make_vector(3, kFalse);
  c.as<Vector>()->items()[0] = st.slot_tag;
  c.as<Vector>()->items()[1] = closure;
  c.as<Vector>()->items()[2] = make_fixnum(i);
  return c;
}
// The place behind a slot cell: the closure's own slot it names.
Value* slot_of(AdState& st, Value v) {
  if (!is_vector(v) || v.as<Vector>()->length() != 3 || v.as<Vector>()->items()[0] != st.slot_tag) return nullptr;
  return &v.as<Vector>()->items()[1].as<Closure>()->free()[v.as<Vector>()->items()[2].fixnum()];
}

Value maker_for(Vm& vm, AdState& st, Proto* proto) {
  auto it = st.makers.find(proto);
  if (it != st.makers.end()) return it->second;
  if (!proto->source) {
    throw_error("grad", "cannot differentiate a procedure without source code", list({proto->name}));
  }
  bool quiet = false;
  LambdaNode* mk = ad::make_reverse_maker(vm, *st.rules, proto->source, proto->free_vars, proto->free_boxed,
                                          size_t(proto->ncaptures), proto->name, &quiet);
  Value m = compile_lambda(vm, mk);
  note_quiet(st, mk, quiet);
  if (st.makers.size() >= kMaxCachedTransforms) {
    st.makers.clear();
    st.maker_ir.clear();
    st.layouts.clear();
    st.lambda_makers.clear();
  }
  st.makers[proto] = m;
  st.maker_ir[proto] = mk;
  return m;
}

// A later define of a built-in moved compiled code (and its source) to the new cell: transforms
// made from the old source would keep the old built-in and its derivative rule. Drop them all.
void check_redirections(AdState& st) {
  if (st.redirections == code_redirections) return;
  st.redirections = code_redirections;
  st.makers.clear();
  st.maker_ir.clear();
  st.lambda_makers.clear();  // (layouts stay: they describe J code objects, which do not change)
  st.carrying_makers.clear();
  st.fwd_makers.clear();
  for (size_t i = 0; i < AdState::kJCache; i++)
    st.jcache_f[i] = st.jcache_j[i] = st.carry_f[i] = st.carry_spec[i] = st.carry_c[i] = st.fwd_f[i] = st.fwd_mask[i] =
        st.fwd_c[i] = Value{};
}

QUASI_PRIM(p_ad_j) {
  AdState& st = state_of(self);
  check_redirections(st);
  Value f = argv[0];
  if (is_closure(f)) {
    size_t slot = (f.bits >> 4) % AdState::kJCache;
    if (st.jcache_f[slot] == f) return st.jcache_j[slot];
    Closure* c = f.as<Closure>();
    Proto* p = c->proto;
    Value m = maker_for(vm, st, p);
    std::vector<Value> args;
    args.push_back(f);
    for (int32_t i = 0; i < p->ncaptures; i++)
      args.push_back(p->free_assigned && p->free_assigned[i] ? slot_cell(st, f, i) : c->free()[i]);
    Value j = vm.apply(m, int(args.size()), args.data());
    // Which of J's free slots hold f itself (-1) and which f's free value i (i), for the
    // derivative rule of %ad-j (%ad-j-adjoint, scheme/prelude/70-ad.scm).
    Proto* jp = j.as<Closure>()->proto;
    if (!st.layouts.count(jp)) {
      LambdaClause* mc = st.maker_ir[p]->clauses[0];
      Value lay = make_vector(jp->ncaptures + 1, make_fixnum(-2));
      lay.as<Vector>()->items()[0] = make_fixnum(p->ncaptures);
      for (int32_t k = 0; k < jp->ncaptures; k++)
        for (size_t i = 0; i < mc->params.size(); i++)
          if (mc->params[i] == jp->free_vars[k]) lay.as<Vector>()->items()[k + 1] = make_fixnum(int64_t(i) - 1);
      st.layouts[jp] = lay;
    }
    st.jcache_f[slot] = f;
    st.jcache_j[slot] = j;
    return j;
  }
  if (is_primitive(f)) {
    Value cell = vm.core_env->cell_for(intern("%ad-jprim"));
    Value jp = cell.as<GlobalCell>()->value;
    return vm.apply(jp, 1, &f);
  }
  if (!is_procedure(f)) type_error("grad", "a procedure", f);
  throw_error("grad", "cannot differentiate through this procedure", list({f}));
}

QUASI_PRIM(p_ad_jprim_n) {
  AdState& st = state_of(self);
  if (!is_primitive(argv[0])) type_error("%ad-jprim-n", "a primitive", argv[0]);
  int64_t n = check_fixnum("%ad-jprim-n", argv[1]);
  Primitive* p = argv[0].as<Primitive>();
  if (n < 0 || n > 255) throw_error("grad", "too many arguments for a primitive", list({argv[0]}));
  uint64_t key = argv[0].bits * 256 + uint64_t(n);
  auto it = st.prim_js.find(key);
  if (it != st.prim_js.end()) return it->second;
  // (lambda (x1 ... xn) (p x1 ... xn)), then its maker applied to nothing but the closure slot.
  LambdaNode* eta = gc_new<LambdaNode>(intern(p->name ? p->name : "primitive"), SrcLoc{});
  LambdaClause* c = gc_new<LambdaClause>();
  PrimCallNode* call = gc_new<PrimCallNode>(argv[0], SrcLoc{});
  for (int64_t i = 0; i < n; i++) {
    Var* v = make_var(intern("x"));
    c->params.push_back(v);
    call->args.push_back(gc_new<LocalRefNode>(v, SrcLoc{}));
  }
  c->body = call;
  eta->clauses.push_back(c);
  bool quiet = false;
  LambdaNode* mk =
      ad::make_reverse_maker(vm, *st.rules, eta, nullptr, nullptr, 0, intern(p->name ? p->name : "primitive"), &quiet);
  Value m = compile_lambda(vm, mk);
  note_quiet(st, mk, quiet);
  Value self_arg = kFalse;
  Value j = vm.apply(m, 1, &self_arg);
  if (st.prim_js.size() >= kMaxCachedTransforms) st.prim_js.clear();
  st.prim_js[key] = j;
  return j;
}

// (%ad-carrying f spec): f's carrying form (ad/reverse.hpp, carrying_source) for the arguments
// spec names: a closure of the same free values in the same layout (so its cotangent is f's),
// whose code owns those vectors and returns (vector value version ...). Refused when f cannot
// carry them (it may keep or pass on the vector, or return it where the caller does not expect
// it): the caller decided to carry when the transformation saw another procedure in the global.
QUASI_PRIM(p_ad_carrying) {
  AdState& st = state_of(self);
  check_redirections(st);
  Value f = argv[0];
  int64_t spec = check_fixnum("%ad-carrying", argv[1]);
  size_t slot = (f.bits >> 4) % AdState::kJCache;
  if (st.carry_f[slot] == f && st.carry_spec[slot] == argv[1]) return st.carry_c[slot];
  std::vector<size_t> ks;
  for (int k = 0; k < ad::kCarryAliased; k++)
    if (spec & (int64_t(1) << k)) ks.push_back(size_t(k));
  bool aliased = spec & (int64_t(1) << ad::kCarryAliased);
  bool returns = false;
  if (ks.empty() || !ad::carryable(*st.rules, f, ks, &returns) || (returns && !aliased))
    throw_error("grad", "cannot differentiate through vector-set! of a vector passed to a procedure that may keep it",
                list({f}));
  Proto* p = f.as<Closure>()->proto;
  Value wrapper = kFalse;
  auto it = st.carrying_makers.find(p);
  Value known = it == st.carrying_makers.end() ? kNil : it->second;
  for (Value l = known; is_pair(l); l = cdr(l))
    if (car(car(l)) == argv[1]) wrapper = cdr(car(l));
  if (wrapper == kFalse) {
    // (lambda (fv ...) carrying): the carrying lambda closed over f's free variables, in order
    LambdaNode* carrying = ad::carrying_source(vm, *st.rules, p->source, ks, returns);
    LambdaNode* w = gc_new<LambdaNode>(p->name, SrcLoc{});
    LambdaClause* wc = gc_new<LambdaClause>();
    for (int32_t i = 0; i < p->ncaptures; i++) wc->params.push_back(p->free_vars[i]);
    wc->body = carrying;
    w->clauses.push_back(wc);
    wrapper = compile_lambda(vm, w);
    if (st.carrying_makers.size() >= kMaxCachedTransforms) st.carrying_makers.clear();
    st.carrying_makers[p] = cons(cons(argv[1], wrapper), known);
  }
  Closure* c = f.as<Closure>();
  Value r = vm.apply(wrapper, p->ncaptures, c->free());
  Proto* rp = is_closure(r) ? r.as<Closure>()->proto : nullptr;
  bool same = rp && rp->ncaptures == p->ncaptures;
  for (int32_t i = 0; same && i < p->ncaptures; i++) same = rp->free_vars[i] == p->free_vars[i];
  if (!same) throw_error("grad", "internal error: the carrying form of a procedure has another layout", list({f}));
  st.carry_f[slot] = f;
  st.carry_spec[slot] = argv[1];
  st.carry_c[slot] = r;
  return r;
}


// ---- forward mode (ad/forward.hpp) ----
// Whether f is a closure of one clause taking exactly n arguments: a call of another count raises
// its arity error through reverse mode (jvp), not through the forward form's extra parameters.
bool fwd_arity_ok(Value f, int64_t n) {
  if (!is_closure(f)) return false;
  Proto* p = f.as<Closure>()->proto;
  return !p->next_clause && !p->has_rest && p->nparams == n;
}

// The compiled forward maker of p's code for `mask` with whether it returns only numbers, as
// (maker . returns-number?); #f when the code has none, #t while it is being made (a global the
// code calls, calling it back: assumed to have one).
Value fwd_maker(Vm& vm, AdState& st, Proto* p, uint64_t mask) {
  Value key = make_fixnum(int64_t(mask));
  auto it = st.fwd_makers.find(p);
  Value known = it == st.fwd_makers.end() ? kNil : it->second;
  for (Value l = known; is_pair(l); l = cdr(l))
    if (car(car(l)) == key) return cdr(car(l));
  // A closure whose code assigns one of its own slots (Proto::free_assigned, null when none
  // is) has no forward form: the maker takes the slots' values.
  if (!p->source || p->free_assigned) return kFalse;
  if (st.fwd_makers.size() >= kMaxCachedTransforms) st.fwd_makers.clear();
  Value entry = cons(key, kTrue);
  st.fwd_makers[p] = cons(entry, known);
  ad::ForwardCallee callee = [&vm, &st](Value g, uint64_t m, size_t n) {
    return fwd_arity_ok(g, int64_t(n)) && fwd_maker(vm, st, g.as<Closure>()->proto, m) != kFalse;
  };
  bool num = false;
  LambdaNode* mk = ad::make_forward_maker(*st.rules, p->source, p->free_vars, p->free_boxed, size_t(p->ncaptures),
                                          mask, callee, &num);
  Value m = mk ? cons(compile_lambda(vm, mk), make_bool(num)) : kFalse;
  entry.as<Pair>()->cdr = m;
  return m;
}

// f's forward form for mask and n arguments, or #f when f has none.
Value fwd_for(Vm& vm, AdState& st, Value f, Value mask, Value n) {
  if (!n.is_fixnum() || !fwd_arity_ok(f, n.fixnum()) || !mask.is_fixnum() || mask.fixnum() < 0) return kFalse;
  size_t slot = (f.bits >> 4) % AdState::kJCache;
  if (st.fwd_f[slot] == f && st.fwd_mask[slot] == mask) return st.fwd_c[slot];
  Closure* c = f.as<Closure>();
  Proto* p = c->proto;
  Value made = fwd_maker(vm, st, p, uint64_t(mask.fixnum()));
  if (!is_pair(made)) return kFalse;
  Value m = car(made);
  std::vector<Value> args;
  args.push_back(f);
  for (int32_t i = 0; i < p->ncaptures; i++) args.push_back(c->free()[i]);
  Value r = vm.apply(m, int(args.size()), args.data());
  st.fwd_f[slot] = f;
  st.fwd_mask[slot] = mask;
  st.fwd_c[slot] = r;
  return r;
}

// (%ad-fwd-try f mask n): f's forward form for a call with n arguments, whose parameters are f's
// with a tangent after each one in mask, returning (value . tangent); #f when f has none
// (derivative and jvp then use reverse mode).
QUASI_PRIM(p_ad_fwd_try) {
  AdState& st = state_of(self);
  check_redirections(st);
  return fwd_for(vm, st, argv[0], argv[1], argv[2]);
}

// (%ad-fwd-number? f mask n): whether f has that forward form and it returns only numbers (so
// derivative and jvp need no shape walk and no case for a procedure-valued f; foldable, so the
// partial evaluator sees only the number case).
QUASI_PRIM(p_ad_fwd_number) {
  AdState& st = state_of(self);
  check_redirections(st);
  if (fwd_for(vm, st, argv[0], argv[1], argv[2]) == kFalse) return kFalse;
  Value made = fwd_maker(vm, st, argv[0].as<Closure>()->proto, uint64_t(argv[1].fixnum()));
  return make_bool(is_pair(made) && cdr(made) == kTrue);
}

// (%ad-fwd f mask n): the same, for a call in forward code: a procedure that has no forward form
// (the global that held one when the caller was transformed holds another now) gets one from
// jvp (%ad-fwd-adapter, scheme/prelude/70-ad.scm).
QUASI_PRIM(p_ad_fwd) {
  AdState& st = state_of(self);
  check_redirections(st);
  Value r = fwd_for(vm, st, argv[0], argv[1], argv[2]);
  if (r != kFalse) return r;
  Value cell = vm.core_env->cell_for(intern("%ad-fwd-adapter"));
  return vm.apply(cell.as<GlobalCell>()->value, 3, argv);
}

// (%ad-j-layout j): #(n s ...) for a J made by %ad-j from a closure with n free values: per free
// slot of j, -1 for the closure itself, i for its free value i, -2 for neither.
QUASI_PRIM(p_ad_j_layout) {
  AdState& st = state_of(self);
  if (!is_closure(argv[0])) return make_vector(1, make_fixnum(0));
  Proto* jp = argv[0].as<Closure>()->proto;
  auto it = st.layouts.find(jp);
  if (it != st.layouts.end()) return it->second;
  Value lay = make_vector(jp->ncaptures + 1, make_fixnum(-2));
  lay.as<Vector>()->items()[0] = make_fixnum(0);
  return lay;
}

// (%ad-j-quiet? j): whether j is the J of a quiet procedure (reverse.hpp), whose pullback need not
// run for a call no cotangent reaches. #f when not known. Foldable: a fact of j's code.
QUASI_PRIM(p_ad_j_quiet) {
  if (!is_closure(argv[0])) return kFalse;
  LambdaNode* src = argv[0].as<Closure>()->proto->source;
  return make_bool(src && state_of(self).quiet_js.count(src));
}

// ---- cells: set! of local variables in differentiated code (lib/ad/README.md, "set!") ----
// A cell is #(tag value adjoint-cell-or-#f): the transformed code keeps an assigned variable in
// one, and its adjoint (made on first use) is a cell too, so nested code can differentiate the
// backward sweep's updates of it. The compiler's own boxes (a variable bound outside the
// differentiated code) are read and written like cells but have no adjoint.
bool is_cell(AdState& st, Value v) {
  return is_vector(v) && v.as<Vector>()->length() == 3 && v.as<Vector>()->items()[0] == st.cell_tag;
}
Value new_cell(AdState& st, Value v) {
  Value c = make_vector(3, kFalse);
  c.as<Vector>()->items()[0] = st.cell_tag;
  c.as<Vector>()->items()[1] = v;
  return c;
}

QUASI_PRIM(p_ad_cell) { return new_cell(state_of(self), argv[0]); }

QUASI_PRIM(p_ad_cell_ref) {
  AdState& st = state_of(self);
  if (is_cell(st, argv[0])) return argv[0].as<Vector>()->items()[1];
  if (has_type(argv[0], Type::Box)) return argv[0].as<Box>()->value;
  if (Value* slot = slot_of(st, argv[0])) return *slot;
  type_error("%ad-cell-ref", "a cell", argv[0]);
}

QUASI_PRIM(p_ad_cell_set) {
  AdState& st = state_of(self);
  Value zero = intern("%ad-zero");
  if (is_cell(st, argv[0])) {
    Value& slot = argv[0].as<Vector>()->items()[1];
    if (slot == zero && argv[1] != zero) st.pending++;
    if (slot != zero && argv[1] == zero && st.pending > 0) st.pending--;
    slot = argv[1];
  } else if (has_type(argv[0], Type::Box)) {
    argv[0].as<Box>()->value = argv[1];
  } else if (Value* slot = slot_of(st, argv[0])) {
    *slot = argv[1];
  } else {
    type_error("%ad-cell-set!", "a cell", argv[0]);
  }
  return kUnspecified;
}

// (%ad-note-escape! v how) / (%ad-escape-note v): see AdState::escape_vec. Only for an error
// message: a note overwritten by a later one leaves the refusal naming the writer.
QUASI_PRIM(p_ad_note_escape) {
  AdState& st = state_of(self);
  st.escape_vec = argv[0];
  st.escape_how = argv[1];
  return kUnspecified;
}
QUASI_PRIM(p_ad_escape_note) {
  AdState& st = state_of(self);
  return argv[0] == st.escape_vec ? st.escape_how : kFalse;
}

QUASI_PRIM(p_ad_cell_p) { return make_bool(is_cell(state_of(self), argv[0])); }

// (%ad-cell-adj c): c's adjoint cell, made (holding the zero) on first use; the zero for a box.
QUASI_PRIM(p_ad_cell_adj) {
  AdState& st = state_of(self);
  if (!is_cell(st, argv[0])) return intern("%ad-zero");
  Value& a = argv[0].as<Vector>()->items()[2];
  if (a == kFalse) a = new_cell(st, intern("%ad-zero"));
  return a;
}

// Whether some cell's adjoint is not the zero: then a pullback whose result no cotangent reaches
// must still run (it may move a cell's adjoint); else running it would only compute zeros.
// Conservative: an error in the middle of a backward sweep leaves the count high.
QUASI_PRIM(p_ad_adjoints_pending) { return make_bool(state_of(self).pending > 0); }

// (%ad-values? x): whether x is several values (not one): their cotangent is a list.
QUASI_PRIM(p_ad_values_p) { return make_bool(has_type(argv[0], Type::Values)); }

// (%ad-arity f): f's argument count when it takes exactly one count, else #f. grad and friends
// return a procedure of that many parameters, not of a rest list, so that the partial evaluator
// knows the argument list's length and a fixed-shape gradient specializes to straight-line code
// (lib/ad/README.md, "Residuals").
QUASI_PRIM(p_ad_arity) {
  Value p = argv[0];
  if (has_type(p, Type::Closure)) {
    Proto* proto = p.as<Closure>()->proto;
    if (proto->next_clause || proto->has_rest) return kFalse;
    return make_fixnum(proto->nparams);
  }
  if (has_type(p, Type::Primitive)) {
    Primitive* prim = p.as<Primitive>();
    return prim->min_args == prim->max_args ? make_fixnum(prim->min_args) : kFalse;
  }
  return kFalse;
}

// Nested derivatives differentiate code that calls %ad-j: the cotangent of J(f) is sent to f.
constexpr DerivativeRule kDNone{DerivativeRule::Kind::kZero, false, {}, {}};
constexpr DerivativeRule kDJ{DerivativeRule::Kind::kLinear, false, {"(%ad-j-adjoint r d)"}, {}};
// the carrying form's cotangent is f's (the same free values in the same layout)
constexpr DerivativeRule kDCarrying{DerivativeRule::Kind::kLinear, false, {}, {"d", nullptr}};

using CellOp = DerivativeRule::CellOp;
constexpr DerivativeRule kDCellMake{DerivativeRule::Kind::kLinear, false, {"(%ad-cell-take! (%ad-cell-adj r))"}, {},
                                    CellOp::kMake};
constexpr DerivativeRule kDCellRef{DerivativeRule::Kind::kLinear, false, {"(%ad-cell-accum! (%ad-cell-adj a) d)"}, {},
                                   CellOp::kRef};
constexpr DerivativeRule kDCellSet{
    DerivativeRule::Kind::kLinear, false, {}, {nullptr, "(%ad-cell-take! (%ad-cell-adj a))"}, CellOp::kSet};
constexpr DerivativeRule kDCellAdj{DerivativeRule::Kind::kZero, false, {}, {}, CellOp::kAdjoint};
constexpr DerivativeRule kDCellNested{DerivativeRule::Kind::kZero, false, {}, {}, CellOp::kNested};

const PrimDef kAdPrims[] = {
    // Cells (set! of local variables). The %ad-jcell forms are what transformed code runs; the
    // same operations, refused when differentiated again.
    {"%ad-cell", p_ad_cell, 1, 1, kEffect, kFacts.differentiable(&kDCellMake)},
    {"%ad-cell-ref", p_ad_cell_ref, 1, 1, kEffect, kFacts.differentiable(&kDCellRef)},
    {"%ad-cell-set!", p_ad_cell_set, 2, 2, kEffect, kFacts.differentiable(&kDCellSet)},
    {"%ad-cell-adj", p_ad_cell_adj, 1, 1, kEffect, kFacts.differentiable(&kDCellAdj)},
    {"%ad-values?", p_ad_values_p, 1, 1, kPure, kFacts.differentiable(&kDNone)},
    {"%ad-cell?", p_ad_cell_p, 1, 1, kEffect, kFacts.differentiable(&kDNone)},
    {"%ad-note-escape!", p_ad_note_escape, 2, 2, kEffect, kFacts.differentiable(&kDNone)},
    {"%ad-escape-note", p_ad_escape_note, 1, 1, kEffect, kFacts.differentiable(&kDNone)},
    {"%ad-adjoints-pending?", p_ad_adjoints_pending, 0, 0, kEffect, kFacts.differentiable(&kDNone)},
    {"%ad-jcell", p_ad_cell, 1, 1, kEffect, kFacts.differentiable(&kDCellNested)},
    {"%ad-jcell-ref", p_ad_cell_ref, 1, 1, kEffect, kFacts.differentiable(&kDCellNested)},
    {"%ad-jcell-set!", p_ad_cell_set, 2, 2, kEffect, kFacts.differentiable(&kDCellNested)},
    // Foldable: J(f) depends only on f (the caches only save work), so the partial evaluator
    // makes it for a known f and unfolds the transformed code (lib/ad/README.md, "Residuals").
    {"%ad-j", p_ad_j, 1, 1, kPureFoldRaise, kFacts.differentiable(&kDJ)},
    {"%ad-arity", p_ad_arity, 1, 1, kPureFold, kFacts.differentiable(&kDNone)},
    {"%ad-j-layout", p_ad_j_layout, 1, 1, kEffect, kFacts.differentiable(&kDNone)},
    {"%ad-j-quiet?", p_ad_j_quiet, 1, 1, kPureFold, kFacts.differentiable(&kDNone)},
    // foldable like %ad-j: its result depends only on f and spec (a fresh closure, not eq? to another)
    {"%ad-carrying", p_ad_carrying, 2, 2, kPureFoldRaise, kFacts.differentiable(&kDCarrying)},
    {"%ad-jprim-n", p_ad_jprim_n, 2, 2, kEffect, kFacts.differentiable(&kDNone)},
    // Foldable like %ad-j: the forward form depends only on f and the mask. Reverse mode reads
    // %ad-fwd-try as #f (reverse.cpp, prim_call); %ad-fwd appears only in forward code.
    {"%ad-fwd-try", p_ad_fwd_try, 3, 3, kPureFoldRaise, kFacts.differentiable(&kDNone)},
    {"%ad-fwd", p_ad_fwd, 3, 3, kPureFoldRaise, kFacts.differentiable(&kDNone)},
    {"%ad-fwd-number?", p_ad_fwd_number, 3, 3, kPureFoldRaise, kFacts.differentiable(&kDNone)},
};

}  // namespace

Value ad_maker_for_lambda(Vm& vm, Value ad_j, LambdaNode* lam, Var* self, std::vector<Var*>& fvs) {
  AdState& st = state_of(ad_j.as<Primitive>());
  check_redirections(st);
  fvs = closure_layout(lam, self);
  auto it = st.lambda_makers.find(lam);
  if (it != st.lambda_makers.end()) return it->second;
  bool quiet = false;
  LambdaNode* mk = ad::make_reverse_maker(vm, *st.rules, lam, fvs.data(), nullptr, fvs.size(), lam->name, &quiet);
  Value m = compile_lambda(vm, mk);
  note_quiet(st, mk, quiet);
  if (st.lambda_makers.size() >= kMaxCachedTransforms) st.lambda_makers.clear();
  st.lambda_makers[lam] = m;
  return m;
}

static bool ad_j_lambda_quiet(Value ad_j, LambdaNode* j) { return state_of(ad_j.as<Primitive>()).quiet_js.count(j) > 0; }

void register_ad_primitives(Environment* env) {
  pe::set_ad_maker_hook(&ad_maker_for_lambda);
  pe::set_ad_quiet_hook(&ad_j_lambda_quiet);
  AdState* st = gc_new<AdState>();
  st->rules = ad::make_rule_cache(env);
  st->cell_tag = cons(intern("%ad-cell"), kNil);
  st->slot_tag = cons(intern("%ad-slot"), kNil);
  for (const PrimDef& d : kAdPrims) {
    Value p = make_primitive(d.name, d.fn, d.min_args, d.max_args, d.flags, st);
    p.as<Primitive>()->facts = d.facts;
    env->define(intern(d.name), p);
  }
}

}  // namespace quasi
