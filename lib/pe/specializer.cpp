// specializer.cpp — the online partial evaluator: evaluation of core IR over partial values,
// unfolding, specialization of calls into memoized helpers, generalization, lifting.
// The design is described in specializer.hpp and lib/pe/README.md.
#include "pe/specializer.hpp"

#include <algorithm>

#include "core/cstack.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "ir/free_vars.hpp"
#include "ir/limits.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::pe {

namespace {

// Restores the evaluator's position (block and dynamic-control depth) when a scope ends, also
// when a restart or a budget exception unwinds through it.
struct ContextGuard {
  Block*& block;
  int& depth;
  Block* saved_block;
  int saved_depth;
  ContextGuard(Block*& b, int& d) : block(b), depth(d), saved_block(b), saved_depth(d) {}
  ~ContextGuard() {
    block = saved_block;
    depth = saved_depth;
  }
};

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

Value sym(const char* s) { return intern(s); }

}  // namespace

// ---- frozen values and free variables ---------------------------------------------------------

const gc_vector<Var*>& lambda_free_vars(PeState& st, LambdaNode* lam) {
  auto it = st.free_vars.find(lam);
  if (it != st.free_vars.end()) return *it->second;
  // One scan gives every lambda nested in `lam` its list too: cache them all.
  FreeVariables scan;
  scan.run(lam);
  if (scan.truncated()) throw Bailout{"procedure too deeply nested to scan"};
  for (auto& [l, info] : scan.lambdas) {
    if (st.free_vars.count(l)) continue;
    auto* out = gc_new<gc_vector<Var*>>(info.free.begin(), info.free.end());
    st.free_vars.emplace(l, out);
  }
  return *st.free_vars.at(lam);
}

// ---- construction ------------------------------------------------------------------------------

Specializer::Specializer(Vm& vm, PeState& st) : vm_(vm), st_(st), core_(vm.core_env) {}

void Specializer::spend(int64_t units) {
  effort_ += units;
  if (effort_ > kEffortLimit) throw Exhausted{"effort"};
  if (stack_exhausted()) throw Exhausted{"stack depth"};
}

PVal* Specializer::make_static(Value v) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Static;
  p->value = v;
  return p;
}

PVal* Specializer::make_pair(PVal* a, PVal* d) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Pair;
  p->car = a;
  p->cdr = d;
  p->home = block_;
  p->point = mark();
  return p;
}

PVal* Specializer::make_vector(const gc_vector<PVal*>& items) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Vector;
  p->items = gc_new<gc_vector<PVal*>>(items);
  p->home = block_;
  p->point = mark();
  return p;
}

static PVal* make_dyn(Var* v) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Dyn;
  p->var = v;
  return p;
}

static PVal* make_mutable(Var* v) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Mutable;
  p->var = v;
  return p;
}

// ---- residual code -----------------------------------------------------------------------------

Node* Specializer::k_const(Value v) { return counted(const_code(st_, v)); }
Node* Specializer::k_ref(Var* v) { return counted(gc_new<LocalRefNode>(v, SrcLoc{})); }

Var* Specializer::fresh(Value name) { return make_var(is_symbol(name) ? name : sym("t")); }

Var* Specializer::emit_bind(Node* code, Value name) {
  Var* v = fresh(name);
  block_->push_bind(v, code);
  return v;
}

void Specializer::emit_effect(Node* code) { block_->push_effect(code); }

StmtList::iterator Specializer::mark() { return block_->mark(); }

PVal* Specializer::emit_dyn(Node* code) { return make_dyn(emit_bind(code, sym("t"))); }

Node* Specializer::finish(Block* b, Node* result) { return b->get(result); }

Node* Specializer::lift(PVal* v) {
  switch (v->kind) {
    case PKind::Static:
      return k_const(v->value);
    case PKind::Dyn:
      return k_ref(v->var);
    case PKind::Mutable:
      throw Bailout{"internal: a set! variable used as a value"};
    default:
      escape(v);
      return k_ref(v->var);
  }
}

Var* Specializer::materialize(PVal* v) {
  if (v->var) return v->var;
  if (v->kind == PKind::Closure) {
    if (v->group) {
      lift_group(v->group);
      return v->var;
    }
    // Lifting puts the body where it runs at unknown times: what it reads must be residual.
    const gc_vector<Var*>& fv = lambda_free_vars(st_, v->lam);
    for (Var* x : fv) {
      PVal** slot = v->env->find(x);
      if (!slot || !*slot) throw Bailout{"closure lifted before a variable it uses is initialized"};
      escape(*slot);
    }
    if (v->var) return v->var;
    Var* var = fresh(is_symbol(v->lam->name) ? v->lam->name : sym("f"));
    v->var = var;
    LambdaNode* code = residual_lambda(v->lam, v->env, 1);
    v->home->insert_bind(v->point, var, code);
    return var;
  }
  if (v->materializing) throw Bailout{"cyclic partially static structure"};
  v->materializing = true;
  // Trivial code for a field: nested objects are materialized too, but not marked escaped (the
  // object holding them has not escaped either).
  auto field_code = [this](PVal* f) -> Node* {
    if (f->kind == PKind::Static) return k_const(f->value);
    if (f->kind == PKind::Dyn) return k_ref(f->var);
    if (f->kind == PKind::Mutable) throw Bailout{"internal: a set! variable stored in an object"};
    return k_ref(materialize(f));
  };
  Node* code;
  if (v->kind == PKind::Pair) {
    Node* a = field_code(v->car);
    Node* d = field_code(v->cdr);
    PrimCallNode* c = gc_new<PrimCallNode>(st_.cons_prim, SrcLoc{});
    c->args.push_back(a);
    c->args.push_back(d);
    code = counted(c);
  } else {
    PrimCallNode* c = gc_new<PrimCallNode>(st_.vector_prim, SrcLoc{});
    for (PVal* f : *v->items)
      c->args.push_back(field_code(f));
    code = counted(c);
  }
  Var* var = fresh(sym(v->kind == PKind::Pair ? "p" : "v"));
  v->home->insert_bind(v->point, var, code);
  v->var = var;
  v->materializing = false;
  return var;
}

void Specializer::escape(PVal* v) {
  if (!v->is_object() || v->escaped) return;
  v->escaped = true;
  switch (v->kind) {
    case PKind::Pair:
      escape(v->car);
      escape(v->cdr);
      break;
    case PKind::Vector:
      for (PVal* f : *v->items) escape(f);
      break;
    case PKind::Closure:
      for (Var* x : lambda_free_vars(st_, v->lam)) {
        PVal** slot = v->env->find(x);
        if (!slot || !*slot) throw Bailout{"closure escapes before a variable it uses is initialized"};
        escape(*slot);
      }
      break;
    default:
      break;
  }
  materialize(v);
}

void Specializer::lift_group(LetrecGroup* g) {
  if (g->lifted) return;
  g->lifted = true;
  auto* vars = gc_new<gc_vector<Var*>>();
  auto* codes = gc_new<gc_vector<Node*>>();
  for (PVal* m : g->members) {
    m->var = fresh(is_symbol(m->lam->name) ? m->lam->name : sym("f"));
    vars->push_back(m->var);
  }
  // What the lifted bodies read must be residual (they run at unknown times).
  for (PVal* m : g->members)
    for (Var* x : lambda_free_vars(st_, m->lam)) {
      PVal** slot = m->env->find(x);
      if (!slot || !*slot) throw Bailout{"closure lifted before a variable it uses is initialized"};
      PVal* val = *slot;
      if (val->kind == PKind::Closure && val->group == g) continue;
      escape(val);
    }
  for (PVal* m : g->members) codes->push_back(residual_lambda(m->lam, m->env, 1));
  g->home->insert_rec(g->point, vars, codes);
}

// Binds clause parameters in `frame`: a set!-ed parameter gets a residual variable of its own.
void Specializer::bind(PEnv* frame, Var* v, PVal* val) {
  frame->vars.push_back(v);
  if (v->assigned) {
    Var* rv = fresh(v->name);
    rv->assigned = true;
    block_->push_bind(rv, lift(val));
    frame->vals.push_back(make_mutable(rv));
  } else {
    frame->vals.push_back(val);
  }
}

LambdaNode* Specializer::residual_lambda(LambdaNode* lam, PEnv* env, int dyn_depth) {
  ContextGuard guard(block_, dyn_depth_);
  LambdaNode* out = gc_new<LambdaNode>(lam->name, lam->loc);
  for (LambdaClause* c : lam->clauses) {
    spend();
    block_ = gc_new<Block>();
    dyn_depth_ = dyn_depth;
    LambdaClause* rc = gc_new<LambdaClause>();
    PEnv* frame = gc_new<PEnv>(env);
    for (Var* p : c->params) {
      Var* rp = fresh(p->name);
      rc->params.push_back(rp);
      bind(frame, p, make_dyn(rp));
    }
    if (c->rest) {
      rc->rest = fresh(c->rest->name);
      bind(frame, c->rest, make_dyn(rc->rest));
    }
    PVal* r = pe(c->body, frame);
    rc->body = finish(block_, lift(r));
    out->clauses.push_back(rc);
  }
  counted(out);
  return out;
}

// ---- evaluation --------------------------------------------------------------------------------

// Every node visited costs one unit of effort (the functor's dispatch does the rest).
PVal* Specializer::visit(Node* n, PEnv* env) {
  spend();
  return ExprFunctor::visit(n, env);
}

PVal* Specializer::visit_const(ConstNode* n, PEnv*) { return make_static(n->value); }
PVal* Specializer::visit_local_ref(LocalRefNode* n, PEnv* env) { return pe_local_ref(n->var, env); }

PVal* Specializer::visit_local_set(LocalSetNode* s, PEnv* env) {
  PVal* v = pe(s->value, env);
  PVal** slot = env->find(s->var);
  if (!slot || !*slot || (*slot)->kind != PKind::Mutable) throw Bailout{"set! of a variable not known as assigned"};
  emit_effect(counted(gc_new<LocalSetNode>((*slot)->var, lift(v), SrcLoc{})));
  return make_static(kUnspecified);
}

PVal* Specializer::visit_global_ref(GlobalRefNode* n, PEnv*) { return pe_global_ref(n->cell); }

PVal* Specializer::visit_global_set(GlobalSetNode* s, PEnv* env) {
  PVal* v = pe(s->value, env);
  // A global this run read as a constant must not change under the residual code's feet.
  if (read_cells_.count(s->cell.bits)) throw Bailout{"assigns a global procedure it also calls"};
  written_cells_.insert(s->cell.bits);
  emit_effect(counted(gc_new<GlobalSetNode>(s->cell, lift(v), s->is_define, SrcLoc{})));
  return make_static(kUnspecified);
}

PVal* Specializer::visit_if(IfNode* n, PEnv* env) { return pe_if(n, env); }
PVal* Specializer::visit_lambda(LambdaNode* n, PEnv* env) { return pe_lambda(n, env); }

PVal* Specializer::visit_call(CallNode* c, PEnv* env) {
  PVal* fn = pe(c->fn, env);
  gc_vector<PVal*> args;
  for (Node* a : c->args) args.push_back(pe(a, env));
  return call(fn, args);
}

PVal* Specializer::visit_prim_call(PrimCallNode* c, PEnv* env) {
  gc_vector<PVal*> args;
  for (Node* a : c->args) args.push_back(pe(a, env));
  return prim_call(c->prim, args);
}

PVal* Specializer::visit_let(LetNode* n, PEnv* env) { return pe_let(n, env); }
PVal* Specializer::visit_letrec(LetNode* n, PEnv* env) { return pe_letrec(n, env); }

PVal* Specializer::visit_seq(SeqNode* n, PEnv* env) {
  PVal* last = make_static(kUnspecified);
  for (Node* e : n->exprs) last = pe(e, env);
  return last;
}

PVal* Specializer::pe_local_ref(Var* v, PEnv* env) {
  PVal** slot = env->find(v);
  if (!slot) throw Bailout{"internal: variable not in the evaluator's environment"};
  if (!*slot) throw Bailout{"letrec variable used before its initialization"};
  PVal* p = *slot;
  // A set! variable is read where the program reads it: its value may change between reads.
  if (p->kind == PKind::Mutable) return make_dyn(emit_bind(k_ref(p->var), v->name));
  return p;
}

PVal* Specializer::pe_global_ref(Value cell) {
  GlobalCell* c = cell.as<GlobalCell>();
  Value v = c->value;
  bool constant = v != kUnbound && is_procedure(v) && !written_cells_.count(cell.bits);
  if (!constant) return emit_dyn(counted(gc_new<GlobalRefNode>(cell, SrcLoc{})));
  // A procedure in a core-owned cell is that procedure for good (imported cells cannot be set!).
  // A user global is a dependency: redefining it invalidates the specialization.
  if (c->owner != make_ptr(core_) && read_cells_.insert(cell.bits).second) deps_->push_back(cell);
  return make_static(v);
}

PVal* Specializer::pe_if(IfNode* n, PEnv* env) {
  PVal* t = pe(n->test, env);
  if (t->kind == PKind::Static || t->is_object()) inspect(t);
  if (t->kind == PKind::Static) return pe(t->value.is_true() ? n->then : n->otherwise, env);
  if (t->is_object()) return pe(n->then, env);  // a pair, vector or procedure is true
  Var* test_var = t->var;
  bool swap = false;
  if (t->choice_test) {
    // The test is (if c a b) with static a, b: decided now when a and b agree, else a test on c.
    bool a = t->choice[0].is_true(), b = t->choice[1].is_true();
    if (a == b) {
      inspect(t);
      return pe(a ? n->then : n->otherwise, env);
    }
    test_var = t->choice_test;
    swap = !a;
  }
  Node* test = k_ref(test_var);
  Block* then_b = gc_new<Block>();
  Block* else_b = gc_new<Block>();
  Node* then_code;
  Node* else_code;
  PVal* r1;
  PVal* r2;
  {
    ContextGuard guard(block_, dyn_depth_);
    dyn_depth_++;
    block_ = then_b;
    r1 = pe(n->then, env);
    then_code = finish(then_b, lift(r1));
    block_ = else_b;
    r2 = pe(n->otherwise, env);
    else_code = finish(else_b, lift(r2));
  }
  if (swap) std::swap(then_code, else_code);
  PVal* r = emit_dyn(counted(gc_new<IfNode>(test, then_code, else_code, SrcLoc{})));
  if (r1->kind == PKind::Static && r2->kind == PKind::Static) {
    r->choice_test = test_var;
    r->choice[0] = swap ? r2->value : r1->value;
    r->choice[1] = swap ? r1->value : r2->value;
  }
  return r;
}

PVal* Specializer::pe_let(LetNode* n, PEnv* env) {
  gc_vector<PVal*> vals;
  for (Node* i : n->inits) vals.push_back(pe(i, env));
  PEnv* frame = gc_new<PEnv>(env);
  for (size_t i = 0; i < n->vars.size(); i++) bind(frame, n->vars[i], vals[i]);
  return pe(n->body, frame);
}

PVal* Specializer::pe_letrec(LetNode* n, PEnv* env) {
  PEnv* frame = gc_new<PEnv>(env);
  for (Var* v : n->vars) {
    frame->vars.push_back(v);
    frame->vals.push_back(nullptr);
  }
  LetrecGroup* group = nullptr;
  for (size_t i = 0; i < n->vars.size(); i++) {
    Var* v = n->vars[i];
    Node* init = n->inits[i];
    if (init->kind == NodeKind::Lambda && !v->assigned) {
      if (!group || group->lifted) {
        group = gc_new<LetrecGroup>();
        group->home = block_;
        group->point = mark();
      }
      PVal* c = pe_lambda(static_cast<LambdaNode*>(init), frame);
      c->group = group;
      group->members.push_back(c);
      frame->vals[i] = c;
      continue;
    }
    PVal* val = pe(init, frame);
    if (v->assigned) {
      Var* rv = fresh(v->name);
      rv->assigned = true;
      block_->push_bind(rv, lift(val));
      frame->vals[i] = make_mutable(rv);
    } else {
      frame->vals[i] = val;
    }
  }
  return pe(n->body, frame);
}

PVal* Specializer::pe_lambda(LambdaNode* n, PEnv* env) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Closure;
  p->lam = n;
  p->env = env;
  p->home = block_;
  p->point = mark();
  return p;
}

// ---- calls -------------------------------------------------------------------------------------

// A runtime closure the evaluator may look into: compiled from IR, and no free variable in a Box
// (a set! variable, or a letrec variable captured before its init): those are locations the
// evaluator cannot name in residual code.
// Does the lambda manipulate control state: call a VM-special primitive other than apply
// (%call/cc, %apply-values, eval) or assign a core global (the dynamic-wind stack)? Closures of
// such lambdas stay opaque calls: unfolding them would only spread the machinery of call/cc and
// dynamic-wind through the residual code.
static bool control_prim(Value p) {
  return is_primitive(p) && (p.as<Primitive>()->flags & kVmSpecial) && p.as<Primitive>()->vm_op != kVmApply;
}
namespace {
// Finds a reference to a control primitive or an assignment of a core global. A walk that was cut
// short (too deep) counts as found: the lambda then stays opaque, which is always sound.
class ControlScan : public ExprVisitor {
 public:
  explicit ControlScan(Environment* core) : core_(core) {}
  bool found = false;
  void visit(Node* n) override {
    if (!found) ExprVisitor::visit(n);
  }
  void visit_global_ref(GlobalRefNode* n) override {
    found = found || control_prim(n->cell.as<GlobalCell>()->value);
  }
  void visit_global_set(GlobalSetNode* n) override {
    if (n->cell.as<GlobalCell>()->owner == make_ptr(core_)) found = true;
    ExprVisitor::visit_global_set(n);
  }
  void visit_prim_call(PrimCallNode* n) override {
    found = found || control_prim(n->prim);
    ExprVisitor::visit_prim_call(n);
  }

 private:
  Environment* core_;
};
}  // namespace

static bool is_control_lambda(PeState& st, LambdaNode* lam) {
  auto it = st.control_lambdas.find(lam);
  if (it != st.control_lambdas.end()) return it->second;
  ControlScan scan(st.core);
  for (LambdaClause* c : lam->clauses) scan.visit(c->body);
  bool r = scan.found || scan.truncated();
  st.control_lambdas.emplace(lam, r);
  return r;
}

bool inlinable_closure(Value v) {
  if (!is_closure(v)) return false;
  Closure* c = v.as<Closure>();
  Proto* p = c->proto;
  if (!p->source || (p->ncaptures > 0 && !p->free_vars)) return false;
  for (int32_t i = 0; i < p->ncaptures; i++)
    if (has_type(c->free()[i], Type::Box)) return false;
  return true;
}

bool Specializer::known_callee(PVal* fn, Callee* out) {
  if (fn->kind == PKind::Closure) {
    out->lam = fn->lam;
    out->closure = fn;
    return true;
  }
  if (fn->kind == PKind::Static && inlinable_closure(fn->value) &&
      !is_control_lambda(st_, fn->value.as<Closure>()->proto->source)) {
    out->lam = fn->value.as<Closure>()->proto->source;
    out->runtime = fn->value;
    return true;
  }
  return false;
}

PEnv* Specializer::callee_env(const Callee& c) {
  if (!c.runtime.is_true()) return c.closure->env;
  Closure* cl = c.runtime.as<Closure>();
  Proto* p = cl->proto;
  PEnv* frame = gc_new<PEnv>(nullptr);
  for (int32_t i = 0; i < p->ncaptures; i++) {
    frame->vars.push_back(p->free_vars[i]);
    frame->vals.push_back(make_static(cl->free()[i]));
  }
  // A letrec-bound lambda reads its own name from the frame (the compiler's "self"): the one
  // free variable of the source that has no slot.
  for (Var* v : lambda_free_vars(st_, c.lam)) {
    bool has_slot = false;
    for (int32_t i = 0; i < p->ncaptures && !has_slot; i++) has_slot = p->free_vars[i] == v;
    if (!has_slot) {
      frame->vars.push_back(v);
      frame->vals.push_back(make_static(c.runtime));
    }
  }
  return frame;
}

LambdaClause* Specializer::pick_clause(LambdaNode* lam, size_t nargs, size_t* index) {
  for (size_t i = 0; i < lam->clauses.size(); i++) {
    LambdaClause* c = lam->clauses[i];
    if (c->params.size() == nargs || (c->rest && c->params.size() <= nargs)) {
      *index = i;
      return c;
    }
  }
  return nullptr;
}

PVal* Specializer::call(PVal* fn, gc_vector<PVal*>& args) {
  inspect(fn);
  if (fn->kind == PKind::Static && is_primitive(fn->value)) return prim_call(fn->value, args);
  Callee c;
  if (known_callee(fn, &c)) return known_call(c, args, false);
  return residual_call(lift(fn), args);
}

PVal* Specializer::residual_call(Node* fn, gc_vector<PVal*>& args) {
  CallNode* c = gc_new<CallNode>(fn, SrcLoc{});
  for (PVal* a : args) c->args.push_back(lift(a));
  return emit_dyn(counted(c));
}

PVal* Specializer::known_call(const Callee& c, gc_vector<PVal*>& args, bool force_specialize) {
  size_t index = 0;
  LambdaClause* cl = pick_clause(c.lam, args.size(), &index);
  if (!cl) {  // wrong number of arguments: the program raises the arity error at run time
    Node* fn = c.runtime.is_true() ? k_const(c.runtime) : lift(c.closure);
    return residual_call(fn, args);
  }
  gc_vector<PVal*> packed(args.begin(), args.begin() + cl->params.size());
  if (cl->rest) {
    PVal* rest = make_static(kNil);
    for (size_t i = args.size(); i-- > cl->params.size();) rest = make_pair(args[i], rest);
    packed.push_back(rest);
  }
  if (force_specialize || dyn_depth_ > 0) return specialize_call(c, index, packed);
  return unfold(c, cl, packed);
}

PVal* Specializer::unfold(const Callee& c, LambdaClause* cl, gc_vector<PVal*>& args) {
  spend(4);
  PEnv* frame = gc_new<PEnv>(callee_env(c));
  for (size_t i = 0; i < cl->params.size(); i++) bind(frame, cl->params[i], args[i]);
  if (cl->rest) bind(frame, cl->rest, args.back());
  return pe(cl->body, frame);
}

// ---- specialization: keys, helpers, generalization ---------------------------------------------

struct Specializer::KeyBuild {
  gc_vector<KeyItem> items;
  gc_vector<uint32_t> slot_start;
  gc_vector<PVal*> inputs;     // one per helper parameter: a Dyn, or an object passed materialized
  gc_vector<Value> input_names;
  gc_vector<PVal*> seen;       // objects encoded so far (for back references)
  gc_vector<uint32_t> seen_at;
  Value name = kFalse;         // the parameter name of the slot being encoded
  bool ok = true;
  uint64_t hash = 0;
};

void Specializer::encode(PVal* v, KeyBuild& kb) {
  switch (v->kind) {
    case PKind::Static: {
      bool fz = frozen(v->value);
      kb.items.push_back(KeyItem{fz ? KeyItem::kFrozen : KeyItem::kRef, v->value});
      return;
    }
    case PKind::Dyn:
      for (size_t k = 0; k < kb.inputs.size(); k++)
        if (kb.inputs[k]->kind == PKind::Dyn && kb.inputs[k]->var == v->var) {
          KeyItem same{KeyItem::kSameHole};
          same.n = int64_t(k);
          kb.items.push_back(same);
          return;
        }
      kb.items.push_back(KeyItem{KeyItem::kHole});
      kb.inputs.push_back(v);
      kb.input_names.push_back(kb.name);
      return;
    case PKind::Mutable:
      kb.ok = false;  // a closure over a set! variable: its location cannot be passed to a helper
      return;
    default:
      break;
  }
  if ((v->kind == PKind::Pair || v->kind == PKind::Vector) && v->escaped) {
    kb.items.push_back(KeyItem{KeyItem::kHole});
    kb.inputs.push_back(make_dyn(materialize(v)));
    kb.input_names.push_back(kb.name);
    return;
  }
  for (size_t i = 0; i < kb.seen.size(); i++)
    if (kb.seen[i] == v) {
      KeyItem back{KeyItem::kBackRef};
      back.n = kb.seen_at[i] == UINT32_MAX ? -1 : int64_t(kb.seen_at[i]);
      kb.items.push_back(back);
      return;
    }
  kb.seen.push_back(v);
  kb.seen_at.push_back(uint32_t(kb.items.size()));
  if (kb.items.size() > size_t(kMaxKeyItems) * 4) {
    kb.ok = false;
    return;
  }
  switch (v->kind) {
    case PKind::Pair:
      kb.items.push_back(KeyItem{KeyItem::kPair});
      kb.inputs.push_back(v);
      kb.input_names.push_back(sym("p"));
      encode(v->car, kb);
      encode(v->cdr, kb);
      return;
    case PKind::Vector: {
      KeyItem it{KeyItem::kVector};
      it.n = int64_t(v->items->size());
      kb.items.push_back(it);
      kb.inputs.push_back(v);
      kb.input_names.push_back(sym("v"));
      for (PVal* f : *v->items) encode(f, kb);
      return;
    }
    case PKind::Closure: {
      KeyItem it{KeyItem::kClosure};
      it.lam = v->lam;
      kb.items.push_back(it);
      for (Var* x : lambda_free_vars(st_, v->lam)) {
        PVal** slot = v->env->find(x);
        if (!slot || !*slot) {
          kb.ok = false;
          return;
        }
        Value saved = kb.name;
        kb.name = x->name;
        encode(*slot, kb);
        kb.name = saved;
        if (!kb.ok) return;
      }
      return;
    }
    default:
      return;
  }
}

static uint64_t hash_key(const gc_vector<KeyItem>& items, LambdaNode* lam, size_t clause, Value runtime) {
  uint64_t h = mix(reinterpret_cast<uintptr_t>(lam), clause);
  h = mix(h, runtime.bits);
  for (const KeyItem& it : items) {
    h = mix(h, it.tag);
    switch (it.tag) {
      case KeyItem::kFrozen: h = mix(h, equal_hash(it.value)); break;
      case KeyItem::kRef: h = mix(h, eqv_hash(it.value)); break;
      case KeyItem::kClosure: h = mix(h, reinterpret_cast<uintptr_t>(it.lam)); break;
      case KeyItem::kVector:
      case KeyItem::kSameHole:
      case KeyItem::kBackRef: h = mix(h, uint64_t(it.n)); break;
      default: break;
    }
  }
  return h;
}

static bool item_equal(const KeyItem& a, const KeyItem& b) {
  if (a.tag != b.tag) return false;
  switch (a.tag) {
    case KeyItem::kFrozen: return equal(a.value, b.value);
    case KeyItem::kRef: return eqv(a.value, b.value);
    case KeyItem::kClosure: return a.lam == b.lam;
    case KeyItem::kVector:
    case KeyItem::kSameHole:
    case KeyItem::kBackRef: return a.n == b.n;
    default: return true;
  }
}

static bool slice_equal(const gc_vector<KeyItem>& a, size_t a0, size_t a1, const gc_vector<KeyItem>& b,
                        size_t b0, size_t b1) {
  if (a1 - a0 != b1 - b0) return false;
  for (size_t i = 0; i < a1 - a0; i++) {
    // Back references are relative to the whole key: compare their distance into the slice.
    const KeyItem& x = a[a0 + i];
    const KeyItem& y = b[b0 + i];
    if (x.tag == KeyItem::kBackRef && y.tag == KeyItem::kBackRef && x.n >= 0 && y.n >= 0) {
      if (x.n - int64_t(a0) != y.n - int64_t(b0)) return false;
      continue;
    }
    if (x.tag == KeyItem::kSameHole && y.tag == KeyItem::kSameHole) continue;  // approximate
    if (!item_equal(x, y)) return false;
  }
  return true;
}

bool Specializer::build_key(const Callee& c, size_t clause, gc_vector<PVal*>& slots, KeyBuild& kb) {
  LambdaClause* cl = c.lam->clauses[clause];
  size_t nfree = slots.size() - cl->params.size() - (cl->rest ? 1 : 0);
  if (c.closure) {  // references to the callee inside its own environment
    kb.seen.push_back(c.closure);
    kb.seen_at.push_back(UINT32_MAX);
  }
  for (size_t s = 0; s < slots.size(); s++) {
    size_t start = kb.items.size();
    size_t inputs_at = kb.inputs.size();
    kb.slot_start.push_back(uint32_t(start));
    if (s < nfree) kb.name = lambda_free_vars(st_, c.lam)[s]->name;
    else if (s - nfree < cl->params.size()) kb.name = cl->params[s - nfree]->name;
    else kb.name = cl->rest->name;
    encode(slots[s], kb);
    if (!kb.ok) return false;
    // An argument with too large a skeleton is passed as a dynamic value instead.
    if (kb.items.size() - start > size_t(kMaxKeyItems)) {
      kb.items.resize(start);
      kb.inputs.resize(inputs_at);
      kb.input_names.resize(inputs_at);
      while (!kb.seen_at.empty() && kb.seen_at.back() >= start && kb.seen_at.back() != UINT32_MAX) {
        kb.seen.pop_back();
        kb.seen_at.pop_back();
      }
      slots[s] = generalize(slots[s]);
      encode(slots[s], kb);
    }
  }
  kb.hash = hash_key(kb.items, c.lam, clause, c.runtime);
  return true;
}

Entry* Specializer::lookup(const KeyBuild& kb, LambdaNode* lam, size_t clause, Value runtime) {
  auto range = memo_.equal_range(kb.hash);
  for (auto it = range.first; it != range.second; ++it) {
    Entry* e = it->second;
    if (e->dead || e->lam != lam || e->clause != clause || e->runtime != runtime) continue;
    if (e->key.size() != kb.items.size()) continue;
    bool same = true;
    for (size_t i = 0; i < e->key.size() && same; i++) same = item_equal(e->key[i], kb.items[i]);
    if (same) return e;
  }
  return nullptr;
}

PVal* Specializer::generalize(PVal* v) {
  switch (v->kind) {
    case PKind::Static:
      return emit_dyn(k_const(v->value));
    case PKind::Dyn:
    case PKind::Mutable:
      return v;
    default:
      escape(v);
      return make_dyn(v->var);
  }
}

// Rebuilds a partial value from the key inside a helper: holes and objects take the helper's
// parameters, in the order the key lists them.
PVal* Specializer::rebuild(const gc_vector<KeyItem>& key, size_t& i, gc_vector<Var*>& params, size_t& pi,
                           gc_vector<PVal*>& objects, LetrecGroup* group, Block* home,
                           StmtList::iterator point, PVal* callee) {
  const KeyItem& it = key[i++];
  auto tagged = [this](PVal* v) {
    v->tags |= rebuild_tag_;
    return v;
  };
  switch (it.tag) {
    case KeyItem::kFrozen:
    case KeyItem::kRef:
      return tagged(make_static(it.value));
    case KeyItem::kHole:
      return tagged(make_dyn(params[pi++]));
    case KeyItem::kSameHole:
      return tagged(make_dyn(params[size_t(it.n)]));
    case KeyItem::kBackRef:
      if (it.n < 0) {
        if (!callee) throw Bailout{"internal: back reference to no callee"};
        return callee;
      }
      for (size_t k = 0; k < objects.size(); k++)
        if (objects[k]->key_index == size_t(it.n)) return objects[k];
      throw Bailout{"internal: bad back reference in a key"};
    case KeyItem::kPair: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Pair;
      p->key_index = i - 1;
      p->var = params[pi++];
      p->home = home;
      p->point = point;
      objects.push_back(p);
      p->car = rebuild(key, i, params, pi, objects, group, home, point, callee);
      p->cdr = rebuild(key, i, params, pi, objects, group, home, point, callee);
      return p;
    }
    case KeyItem::kVector: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Vector;
      p->key_index = i - 1;
      p->var = params[pi++];
      p->home = home;
      p->point = point;
      p->items = gc_new<gc_vector<PVal*>>();
      objects.push_back(p);
      for (int64_t k = 0; k < it.n; k++) p->items->push_back(rebuild(key, i, params, pi, objects, group, home, point, callee));
      return p;
    }
    case KeyItem::kClosure: {
      PVal* p = tagged(gc_new<PVal>());
      p->kind = PKind::Closure;
      p->key_index = i - 1;
      p->lam = it.lam;
      p->home = home;
      p->point = point;
      p->group = group;
      group->members.push_back(p);
      objects.push_back(p);
      PEnv* frame = gc_new<PEnv>(nullptr);
      p->env = frame;
      for (Var* x : lambda_free_vars(st_, it.lam)) {
        frame->vars.push_back(x);
        frame->vals.push_back(rebuild(key, i, params, pi, objects, group, home, point, callee));
      }
      return p;
    }
  }
  throw Bailout{"internal: bad key item"};
}

Entry* Specializer::build_helper(const Callee& c, size_t clause, KeyBuild& kb, Entry** created,
                                 bool pessimistic) {
  spend(8);
  LambdaClause* cl = c.lam->clauses[clause];
  Entry* e = gc_new<Entry>();
  *created = e;
  e->hash = kb.hash;
  e->key = kb.items;
  e->slot_start = kb.slot_start;
  e->lam = c.lam;
  e->clause = clause;
  e->runtime = c.runtime;
  // Named after the procedure; the residual printer numbers duplicates (try, try2, ...).
  e->var = fresh(is_symbol(c.lam->name) ? c.lam->name : sym("f"));
  ++helper_counter_;
  e->nparams = kb.inputs.size();
  e->pessimistic = pessimistic;
  e->index = entries_.size();
  memo_.emplace(e->hash, e);
  pending_.push_back(e);
  entries_.push_back(e);
  variants_[mix(reinterpret_cast<uintptr_t>(c.lam), clause)]++;

  struct PendingPop {
    Specializer* s;
    Entry* e;
    bool done = false;
    ~PendingPop() {
      if (!s->pending_.empty() && s->pending_.back() == e) s->pending_.pop_back();
      // Unwound by a restart or a budget: the entry never existed, nor did the helpers built
      // while it was pending (they may rely on assumptions about it).
      if (!done)
        for (size_t k = e->index; k < s->entries_.size(); k++) s->kill(s->entries_[k]);
    }
  } pop{this, e};

  ContextGuard guard(block_, dyn_depth_);
  block_ = gc_new<Block>();
  dyn_depth_ = 0;
  StmtList::iterator start = mark();
  LambdaClause* rc = gc_new<LambdaClause>();
  for (size_t k = 0; k < kb.inputs.size(); k++) rc->params.push_back(fresh(kb.input_names[k]));

  // Rebuild the slots: the callee's free variables (for the evaluator's closures), then the
  // arguments.
  gc_vector<PVal*> objects;
  LetrecGroup* group = gc_new<LetrecGroup>();
  group->home = block_;
  group->point = start;
  size_t i = 0, pi = 0;
  PEnv* callee_frame;
  PVal* self = nullptr;
  if (c.runtime.is_true()) {
    callee_frame = callee_env(c);
  } else {
    callee_frame = gc_new<PEnv>(nullptr);
    self = gc_new<PVal>();
    self->kind = PKind::Closure;
    self->lam = c.lam;
    self->env = callee_frame;
    self->home = block_;
    self->point = start;
    self->group = group;
    group->members.push_back(self);
    size_t slot = 0;
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      rebuild_tag_ = slot < 64 ? uint64_t(1) << slot : 0;
      slot++;
      callee_frame->vars.push_back(x);
      callee_frame->vals.push_back(rebuild(e->key, i, rc->params, pi, objects, group, block_, start, self));
    }
  }
  PEnv* frame = gc_new<PEnv>(callee_frame);
  gc_vector<PVal*> args;
  size_t first_arg_slot = c.runtime.is_true() ? 0 : lambda_free_vars(st_, c.lam).size();
  for (size_t k = 0; k < cl->params.size() + (cl->rest ? 1 : 0); k++) {
    size_t slot = first_arg_slot + k;
    rebuild_tag_ = slot < 64 ? uint64_t(1) << slot : 0;
    args.push_back(rebuild(e->key, i, rc->params, pi, objects, group, block_, start, self));
  }
  rebuild_tag_ = 0;
  for (size_t k = 0; k < cl->params.size(); k++) bind(frame, cl->params[k], args[k]);
  if (cl->rest) bind(frame, cl->rest, args.back());

  PVal* r = pe(cl->body, frame);
  rc->body = finish(block_, lift(r));
  LambdaNode* code = gc_new<LambdaNode>(c.lam->name, c.lam->loc);
  code->clauses.push_back(rc);
  counted(code);
  e->code = code;
  for (PVal* o : objects)
    if (o->kind != PKind::Closure && o->escaped) e->objects_escaped = true;
  if (e->objects_escaped && e->hit_while_pending && !e->pessimistic) {
    Restart r{e, std::vector<bool>(e->slot_start.size(), false)};
    r.pessimistic = true;
    throw r;
  }
  e->pending = false;
  pop.done = true;
  return e;
}

void Specializer::kill(Entry* e) {
  if (e->dead) return;
  e->dead = true;
  variants_[mix(reinterpret_cast<uintptr_t>(e->lam), e->clause)]--;
  auto range = memo_.equal_range(e->hash);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second == e) {
      memo_.erase(it);
      return;
    }
}

PVal* Specializer::specialize_call(const Callee& c, size_t clause, gc_vector<PVal*>& args) {
  spend(4);
  // Slots: the evaluator closure's free variables, then the arguments.
  gc_vector<PVal*> slots;
  if (!c.runtime.is_true()) {
    for (Var* x : lambda_free_vars(st_, c.lam)) {
      PVal** slot = c.closure->env->find(x);
      if (!slot || !*slot) throw Bailout{"closure called before a variable it uses is initialized"};
      slots.push_back(*slot);
    }
  }
  size_t nfree = slots.size();
  for (PVal* a : args) slots.push_back(a);
  uint64_t vkey = mix(reinterpret_cast<uintptr_t>(c.lam), clause);
  bool pessimistic = false;

  for (;;) {
    KeyBuild kb;
    if (!build_key(c, clause, slots, kb)) {
      // Not expressible as a helper (a closure over a set! variable): call the procedure itself.
      Node* fn = c.runtime.is_true() ? k_const(c.runtime) : lift(c.closure);
      gc_vector<PVal*> rest(slots.begin() + nfree, slots.end());
      LambdaClause* cl = c.lam->clauses[clause];
      if (cl->rest) {  // spread the packed rest list back into arguments
        PVal* l = rest.back();
        rest.pop_back();
        while (l->kind == PKind::Pair && !l->escaped) {
          rest.push_back(l->car);
          l = l->cdr;
        }
        if (!(l->kind == PKind::Static && l->value == kNil)) throw Bailout{"internal: rest list"};
      }
      return residual_call(fn, rest);
    }
    Entry* e = lookup(kb, c.lam, clause, c.runtime);
    if (!e) {
      int& count = variants_[vkey];
      bool all_dynamic = true;
      for (const KeyItem& it : kb.items) all_dynamic = all_dynamic && it.tag == KeyItem::kHole;
      if (count >= kMaxVariantsPerClause && !all_dynamic) {
        for (PVal*& s : slots) s = generalize(s);
        continue;
      }
      // Accumulators: a pending variant of this clause that differs from this call only in slots
      // its body never decided anything on (a counter passed along, a result being built) —
      // keeping those static only multiplies variants. Where the pending variant already has the
      // slot dynamic, this call's value is made dynamic (and the call can reuse it); otherwise
      // the pending variant is restarted with those slots dynamic.
      bool local = false;
      for (Entry* p : pending_) {
        if (p->lam != c.lam || p->clause != clause) continue;
        Restart r{p, std::vector<bool>(slots.size(), false)};
        std::vector<bool> here(slots.size(), false);
        bool any_restart = false, ok = true;
        for (size_t s = 0; s < slots.size() && ok; s++) {
          size_t a0 = p->slot_start[s];
          size_t a1 = s + 1 < p->slot_start.size() ? p->slot_start[s + 1] : p->key.size();
          size_t b0 = kb.slot_start[s];
          size_t b1 = s + 1 < kb.slot_start.size() ? kb.slot_start[s + 1] : kb.items.size();
          if (slice_equal(p->key, a0, a1, kb.items, b0, b1)) continue;
          if (s < 64 && (p->inspected >> s) & 1) ok = false;
          bool p_dynamic = a1 - a0 == 1 && (p->key[a0].tag == KeyItem::kHole || p->key[a0].tag == KeyItem::kSameHole);
          if (p_dynamic) {
            here[s] = true;
          } else {
            r.slots[s] = true;
            any_restart = true;
          }
        }
        if (!ok) continue;
        if (any_restart) throw r;
        bool any_here = false;
        for (size_t s = 0; s < slots.size(); s++)
          if (here[s] && slots[s]->kind != PKind::Dyn) {
            slots[s] = generalize(slots[s]);
            any_here = true;
          }
        if (any_here) {
          local = true;
          break;
        }
      }
      if (local) continue;
      // The whistle: too many nested variants of this clause are being built.
      int nested = 0;
      Entry* oldest = nullptr;
      for (Entry* p : pending_)
        if (p->lam == c.lam && p->clause == clause) {
          if (!oldest) oldest = p;
          nested++;
        }
      if (nested >= kMaxPendingVariants) {
        Restart r{oldest, std::vector<bool>(slots.size(), false)};
        bool any = false;
        for (size_t s = 0; s < slots.size(); s++) {
          size_t a0 = oldest->slot_start[s];
          size_t a1 = s + 1 < oldest->slot_start.size() ? oldest->slot_start[s + 1] : oldest->key.size();
          size_t b0 = kb.slot_start[s];
          size_t b1 = s + 1 < kb.slot_start.size() ? kb.slot_start[s + 1] : kb.items.size();
          if (!slice_equal(oldest->key, a0, a1, kb.items, b0, b1)) {
            r.slots[s] = true;
            any = true;
          }
        }
        if (!any) r.slots.assign(slots.size(), true);
        throw r;
      }
      Entry* created = nullptr;
      try {
        e = build_helper(c, clause, kb, &created, pessimistic);
      } catch (Restart& r) {
        if (r.target != created) throw;
        pessimistic = pessimistic || r.pessimistic;
        for (size_t s = 0; s < slots.size(); s++)
          if (r.slots[s]) slots[s] = generalize(slots[s]);
        continue;
      }
    } else {
      spend(2);
      if (e->pending && !e->pessimistic) e->hit_while_pending = true;
    }
    // The call: holes pass their values, objects pass themselves (materialized).
    CallNode* call = gc_new<CallNode>(k_ref(e->var), SrcLoc{});
    for (PVal* in : kb.inputs) call->args.push_back(k_ref(in->kind == PKind::Dyn ? in->var : materialize(in)));
    // What the helper may have done with the objects is unknown while it is being built.
    if ((e->pending && e->pessimistic) || (!e->pending && e->objects_escaped))
      for (PVal* in : kb.inputs)
        if (in->kind != PKind::Dyn) escape(in);
    return emit_dyn(counted(call));
  }
}

// ---- primitives --------------------------------------------------------------------------------

PVal* Specializer::fold(Primitive* p, Value prim, gc_vector<PVal*>& args) {
  std::vector<Value> argv;
  for (PVal* a : args) {
    if (a->kind != PKind::Static || !frozen(a->value)) return nullptr;
    argv.push_back(a->value);
  }
  spend(2);
  Value r;
  try {
    r = p->fn(vm_, p, int(argv.size()), argv.data());
  } catch (SchemeError&) {
    return nullptr;  // the error happens at run time, if the residual code gets there
  }
  if (!within_fold_limits(r) || !frozen(r)) return nullptr;
  PVal* out = make_static(r);
  out->tags = tags_of(args);
  return out;
}

PVal* Specializer::prim_call(Value prim, gc_vector<PVal*>& args) {
  Primitive* p = prim.as<Primitive>();
  if (!arity_ok(p, args.size())) return residual_prim(prim, args);
  if (p->flags & kVmSpecial) {
    if (p->vm_op == kVmApply) return apply_call(args);
    return residual_prim(prim, args);  // call/cc, eval, %apply-values: conservatively residual
  }
  const PrimFacts& facts = p->facts;
  if (facts.structure != Structure::kNone) {
    if (PVal* r = structural(facts, prim, args)) {
      if (r->kind == PKind::Static && r->tags == 0) r->tags = tags_of(args);
      return r;
    }
  }
  if (p->flags & kFoldable) {
    if (PVal* r = fold(p, prim, args)) return r;
    if (PVal* r = choice_fold(p, args)) return r;
  }
  PVal* r = residual_prim(prim, args);
  if (facts.structure == Structure::kResultChar) r->known_char = true;
  return r;
}

// A foldable primitive over choices on one test (and frozen static values) is a choice again:
// (= (if c 1 0) 0) is (if c #f #t). Only when both arms fold without error.
PVal* Specializer::choice_fold(Primitive* p, gc_vector<PVal*>& args) {
  Var* test = nullptr;
  for (PVal* a : args) {
    if (a->kind == PKind::Dyn && a->choice_test) {
      if ((test && test != a->choice_test) || !frozen(a->choice[0]) || !frozen(a->choice[1])) return nullptr;
      test = a->choice_test;
    } else if (a->kind != PKind::Static || !frozen(a->value)) {
      return nullptr;
    }
  }
  if (!test) return nullptr;
  Value out[2];
  for (int arm = 0; arm < 2; arm++) {
    std::vector<Value> argv;
    for (PVal* a : args) argv.push_back(a->kind == PKind::Static ? a->value : a->choice[arm]);
    try {
      out[arm] = p->fn(vm_, p, int(argv.size()), argv.data());
    } catch (SchemeError&) {
      return nullptr;
    }
    if (!within_fold_limits(out[arm]) || !frozen(out[arm])) return nullptr;
  }
  spend(2);
  PVal* r = emit_dyn(counted(gc_new<IfNode>(k_ref(test), k_const(out[0]), k_const(out[1]), SrcLoc{})));
  r->choice_test = test;
  r->choice[0] = out[0];
  r->choice[1] = out[1];
  r->tags = tags_of(args);
  return r;
}

PVal* Specializer::residual_prim(Value prim, gc_vector<PVal*>& args) {
  PrimCallNode* c = gc_new<PrimCallNode>(prim, SrcLoc{});
  for (PVal* a : args) c->args.push_back(lift(a));
  return emit_dyn(counted(c));
}

// (apply f a ... list): a direct call when the list's spine is known.
PVal* Specializer::apply_call(gc_vector<PVal*>& args) {
  gc_vector<PVal*> spread(args.begin() + 1, args.end() - 1);
  PVal* l = args.back();
  for (int64_t n = 0;; n++) {
    if (n > kMaxFoldElements) return residual_prim(st_.apply_prim, args);
    if (l->kind == PKind::Pair && !l->escaped) {
      spread.push_back(l->car);
      l = l->cdr;
    } else if (l->kind == PKind::Static && l->value == kNil) {
      break;
    } else if (l->kind == PKind::Static && is_pair(l->value) && frozen(l->value)) {
      spread.push_back(make_static(car(l->value)));
      l = make_static(cdr(l->value));
    } else {
      // The known prefix of the list becomes ordinary arguments: (apply f a b rest).
      spread.insert(spread.begin(), args[0]);
      spread.push_back(l);
      return residual_prim(st_.apply_prim, spread);
    }
  }
  return call(args[0], spread);
}

// ---- a request ---------------------------------------------------------------------------------

Node* Specializer::run_clause(const ClausePlan& plan, gc_vector<Value>& deps) {
  deps_ = &deps;
  ContextGuard guard(block_, dyn_depth_);
  block_ = gc_new<Block>();
  dyn_depth_ = 0;
  gc_vector<PVal*> args;
  for (const ArgSpec& a : plan.args) args.push_back(a.param ? make_dyn(a.param) : make_static(a.value));
  PVal* r;
  if (is_primitive(plan.proc)) {
    for (Value v : plan.rest_prefix) args.push_back(make_static(v));
    if (plan.rest_param) {
      args.insert(args.begin(), make_static(plan.proc));
      args.push_back(make_dyn(plan.rest_param));
      r = residual_prim(st_.apply_prim, args);
    } else {
      r = prim_call(plan.proc, args);
    }
  } else {
    Callee c;
    c.runtime = plan.proc;
    c.lam = plan.proc.as<Closure>()->proto->source;
    LambdaClause* cl = c.lam->clauses[plan.clause];
    if (cl->rest) {
      PVal* rest = plan.rest_param ? make_dyn(plan.rest_param) : make_static(kNil);
      for (size_t i = plan.rest_prefix.size(); i-- > 0;) rest = make_pair(make_static(plan.rest_prefix[i]), rest);
      args.push_back(rest);
    }
    r = specialize_call(c, plan.clause, args);
  }
  return finish(block_, lift(r));
}

void Specializer::collect_helpers(gc_vector<Helper>& out) {
  for (Entry* e : entries_)
    if (!e->dead && !e->pending && e->code) out.push_back(Helper{e->var, e->code});
}

}  // namespace quasi::pe
