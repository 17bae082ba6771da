// specializer.cpp — the online partial evaluator: evaluation of core IR over partial values,
// unfolding, specialization of calls into memoized helpers, generalization, lifting.
// The design is described in specializer.hpp and lib/pe/README.md.
#include "pe/specializer.hpp"

#include <algorithm>

#include "core/cstack.hpp"
#include "pe/pe.hpp"
#include "core/equality.hpp"
#include "core/error.hpp"
#include "core/numbers.hpp"
#include "ir/free_vars.hpp"
#include "ir/limits.hpp"
#include "ir/util.hpp"
#include "ir/verify.hpp"
#include "vm/compiler.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::pe {

// ---- frozen values and free variables ---------------------------------------------------------

const quasi::gc_vector<Var*>& lambda_free_vars(PeState& st, LambdaNode* lam) {
  auto it = st.free_vars.find(lam);
  if (it != st.free_vars.end()) return *it->second;
  // One scan gives every lambda nested in `lam` its list too: cache them all.
  FreeVariables scan;
  scan.run(lam);
  if (scan.truncated()) throw Bailout{"procedure too deeply nested to scan"};
  for (auto& [l, info] : scan.lambdas) {
    if (st.free_vars.count(l)) continue;
    auto* out = gc_new<quasi::gc_vector<Var*>>(info.free.begin(), info.free.end());
    st.free_vars.emplace(l, out);
  }
  return *st.free_vars.at(lam);
}

// ---- construction ------------------------------------------------------------------------------

Specializer::Specializer(Vm& vm, PeState& st, const Options& options)
    : vm_(vm), st_(st), options_(options), core_(vm.core_env), runner_(vm, st, options.static_steps) {}

void Specializer::spend(int64_t units) {
  effort_ += units;
  if (effort_ > options_.effort) throw exhausted("effort");
  if (stack_exhausted()) throw exhausted("stack depth");
}

// ---- notes (specialize-explain) ----------------------------------------------------------------

void add_note(NoteList& notes, Note n) {
  for (Note& m : notes)
    if (m.action == n.action && m.reason == n.reason && m.procedure == n.procedure && m.detail == n.detail) {
      m.count += n.count;
      return;
    }
  if (notes.size() >= kMaxNotes) {
    notes.back().count += n.count;  // the last note stands for the rest
    return;
  }
  notes.push_back(std::move(n));
}

void Specializer::note(const char* action, const char* reason, LambdaNode* lam, std::string detail) {
  Note n;
  n.action = sym(action);
  n.reason = sym(reason);
  if (lam) {
    n.procedure = is_symbol(lam->name) ? lam->name : kFalse;
    n.loc = lam->loc;
  }
  n.detail = std::move(detail);
  add_note(notes_, std::move(n));
}

void Specializer::note(const char* action, const char* reason, Value proc, std::string detail) {
  LambdaNode* lam = is_closure(proc) ? proc.as<Closure>()->proto->source : nullptr;
  if (lam) return note(action, reason, lam, std::move(detail));
  Note n;
  n.action = sym(action);
  n.reason = sym(reason);
  std::string name = is_procedure(proc) ? procedure_name(proc) : "";
  if (!name.empty()) n.procedure = intern(name);
  n.detail = std::move(detail);
  add_note(notes_, std::move(n));
}

std::string Specializer::slot_names(LambdaNode* lam, size_t clause, bool runtime, const std::vector<bool>& which) {
  std::vector<Value> names;
  if (!runtime)
    for (Var* x : lambda_free_vars(st_, lam)) names.push_back(x->name);
  LambdaClause* cl = lam->clauses[clause];
  for (Var* p : cl->params) names.push_back(p->name);
  if (cl->rest) names.push_back(cl->rest->name);
  std::string out;
  for (size_t s = 0; s < which.size() && s < names.size(); s++) {
    if (!which[s]) continue;
    if (!out.empty()) out += ", ";
    out += is_symbol(names[s]) ? symbol_name(names[s]) : "?";
  }
  return out.empty() ? "arguments" : out;
}

// Every node visited costs one unit of effort (the functor's dispatch does the rest).
// Tail position (unfold.cpp): only the node tail_node_ names is in it; its case reads in_tail_
// before visiting anything else.
PVal* Specializer::visit(Node* n, PEnv* env) {
  spend();
  in_tail_ = n == tail_node_;
  tail_node_ = nullptr;
  return ExprFunctor::visit(n, env);
}

PVal* Specializer::visit_const(ConstNode* n, PEnv*) { return make_static(n->value); }
PVal* Specializer::visit_local_ref(LocalRefNode* n, PEnv* env) { return pe_local_ref(n->var, env); }

PVal* Specializer::visit_local_set(LocalSetNode* s, PEnv* env) {
  PVal* v = pe(s->value, env);
  PVal** slot = env->find(s->var);
  if (!slot || !*slot || (*slot)->kind != PKind::Box) throw Bailout{"set! of a variable not known as assigned"};
  box_write(*slot, v);
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
  bool tail = in_tail_;
  // The compiler's order (ir/util.hpp, operator_read_last). The residual reads an unbound
  // operator where the original does, so an operand that raises first raises in both
  // (fuzz_specialize: (undefined-op (cdr ""))).
  bool operator_last = operator_read_last(c->fn);
  PVal* fn = operator_last ? nullptr : pe(c->fn, env);
  gc_vector<PVal*> args;
  for (Node* a : c->args) args.push_back(pe(a, env));
  if (operator_last) fn = pe(c->fn, env);
  return call(fn, args, tail);
}

PVal* Specializer::visit_prim_call(PrimCallNode* c, PEnv* env) {
  gc_vector<PVal*> args;
  for (Node* a : c->args) args.push_back(pe(a, env));
  return prim_call(c->prim, args);
}

PVal* Specializer::visit_let(LetNode* n, PEnv* env) { return pe_let(n, env); }
PVal* Specializer::visit_letrec(LetNode* n, PEnv* env) { return pe_letrec(n, env); }

PVal* Specializer::visit_seq(SeqNode* n, PEnv* env) {
  bool tail = in_tail_;
  PVal* last = make_static(kUnspecified);
  for (size_t i = 0; i < n->exprs.size(); i++) {
    if (tail && i + 1 == n->exprs.size()) tail_node_ = n->exprs[i];
    last = pe(n->exprs[i], env);
  }
  return last;
}

PVal* Specializer::pe_local_ref(Var* v, PEnv* env) {
  PVal** slot = env->find(v);
  if (!slot) throw Bailout{"internal: variable not in the evaluator's environment"};
  if (!*slot) throw Bailout{"letrec variable used before its initialization"};
  PVal* p = *slot;
  // A set! variable: what its box holds here (boxes.cpp).
  if (p->kind == PKind::Box) return box_read(p, v->name);
  return known(p);
}

PVal* Specializer::pe_global_ref(Value cell) {
  GlobalCell* c = cell.as<GlobalCell>();
  Value v = c->value;
  bool constant = v != kUnbound && is_procedure(v) && !written_cells_.count(cell.bits);
  if (!constant) return emit_dyn(counted(gc_new<GlobalRefNode>(cell, SrcLoc{})));
  // The global is a dependency: assigning a user global, or a later `define` of a core name in
  // the environment the code was compiled in (engine/redefinition.hpp: that code then calls the
  // new definition), invalidates the specialization, whose residual then calls the original.
  if (read_cells_.insert(cell.bits).second) deps_->push_back(cell);
  PVal* p = make_static(v);
  if (c->owner != make_ptr(core_)) p->cell = cell;
  return p;
}

PVal* Specializer::pe_if(IfNode* n, PEnv* env) {
  bool tail = in_tail_;
  // A decided test: the arm is the if's value, in tail position when the if is.
  auto decided = [&](Node* arm) {
    if (tail) tail_node_ = arm;
    return pe(arm, env);
  };
  PVal* t = known(pe(n->test, env));
  if (t->kind == PKind::Static || t->is_object()) inspect(t);
  if (t->kind == PKind::Static) return decided(t->value.is_true() ? n->then : n->otherwise);
  if (t->is_object()) return decided(n->then);  // a pair, vector or procedure is true
  if (excluded(t, kFalse)) {  // an earlier test found it true, or it is a pair (facts.cpp)
    inspect(t);
    return decided(n->then);
  }
  Var* test_var = t->var;
  bool swap = false;
  if (t->choice_test) {
    // The test is (if c a b) with static a, b: decided now when a and b agree, else a test on c.
    bool a = t->choice[0].is_true(), b = t->choice[1].is_true();
    if (a == b) {
      inspect(t);
      return decided(a ? n->then : n->otherwise);
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
    // Each arm starts from the boxes' states before the if; where they end disagreeing, the
    // contents go to the cells at the ends of the arms (boxes.cpp).
    FramePush frame(this, block_, mark());
    BoxFrame f = frame.frame();
    std::vector<PVal*> then_boxes, else_boxes;
    std::vector<BoxState> then_states, else_states;
    dyn_depth_++;
    uint64_t e0 = epoch_, e1;
    Node* then_res;
    Node* else_res;
    // The else arm is built first. A helper an else arm makes is then finished before the then
    // arm goes deeper: the KMP matcher's restart after a mismatch at position k unfolds into the
    // state of the restart after position k-1, whose helper it enters (enters_helper) instead of
    // unfolding the whole cascade again (O(m^2) work for a pattern of m characters, not O(m^3)).
    // One arm in its block, knowing how the test came out (facts.cpp); the boxes it touched and
    // their states at its end are kept, then undone for the other arm.
    auto arm = [&](bool outcome, Node* body, Block* b, PVal*& r, Node*& res, std::vector<PVal*>& boxes,
                   std::vector<BoxState>& states) {
      block_ = b;
      {
        FactScope scope(this);
        if (!t->choice_test) learn_test(t, outcome);
        r = pe(body, env);
        res = lift(r);
      }
      touched_boxes(f.trail_mark, f.seq, boxes);
      for (PVal* x : boxes) states.push_back(x->box);
      box_undo(f.trail_mark, f.seq);
    };
    arm(false, n->otherwise, else_b, r2, else_res, else_boxes, else_states);
    e1 = epoch_;
    epoch_ = e0;  // the then arm runs instead of the else arm
    arm(true, n->then, then_b, r1, then_res, then_boxes, then_states);
    if (!then_boxes.empty() || !else_boxes.empty()) {
      std::vector<PVal*> all(then_boxes);
      for (PVal* b : else_boxes)
        if (std::find(all.begin(), all.end(), b) == all.end()) all.push_back(b);
      std::vector<BoxState> states[2];
      for (PVal* b : all) {
        auto ti = std::find(then_boxes.begin(), then_boxes.end(), b);
        auto ei = std::find(else_boxes.begin(), else_boxes.end(), b);
        states[0].push_back(ti == then_boxes.end() ? b->box : then_states[size_t(ti - then_boxes.begin())]);
        states[1].push_back(ei == else_boxes.end() ? b->box : else_states[size_t(ei - else_boxes.begin())]);
      }
      Block* arms[2] = {then_b, else_b};
      merge_boxes(f, arms, all, states);
    }
    boxes_.resize(f.nboxes);  // boxes made in an arm are gone after it (or escaped)
    then_code = finish(then_b, then_res);
    else_code = finish(else_b, else_res);
    if (e1 != e0 || epoch_ != e0) mutation();  // one arm may have mutated
  }
  if (swap) std::swap(then_code, else_code);
  PVal* r = emit_dyn(counted(gc_new<IfNode>(test, then_code, else_code, SrcLoc{})));
  // Both arms return the same object: the value is known (the if stays, for what its arms do).
  if (r1->kind == PKind::Static && r2->kind == PKind::Static && eqv(r1->value, r2->value)) {
    PVal* same = make_static(r1->value);
    same->tags = r1->tags | r2->tags;
    return same;
  }
  auto number = [](PVal* v) {
    return (v->kind == PKind::Static && is_number(v->value)) || (v->kind == PKind::Dyn && v->known_number);
  };
  if (number(r1) && number(r2)) r->known_number = true;
  if (r1->kind == PKind::Static && r2->kind == PKind::Static) {
    r->choice_test = test_var;
    r->choice[0] = swap ? r2->value : r1->value;
    r->choice[1] = swap ? r1->value : r2->value;
  }
  return r;
}

PVal* Specializer::pe_let(LetNode* n, PEnv* env) {
  bool tail = in_tail_;
  gc_vector<PVal*> vals;
  for (Node* i : n->inits) vals.push_back(pe(i, env));
  PEnv* frame = gc_new<PEnv>(env);
  for (size_t i = 0; i < n->vars.size(); i++) bind(frame, n->vars[i], vals[i]);
  if (tail) tail_node_ = n->body;
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
      frame->vals[i] = make_box(val, v->name);
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
// (%call/cc, eval) or assign a core global (the dynamic-wind stack)? Closures of
// such lambdas stay opaque calls: unfolding them would only spread the machinery of call/cc and
// dynamic-wind through the residual code.
static bool control_prim(Value p) {
  if (!is_primitive(p)) return false;
  Primitive* q = p.as<Primitive>();
  // %apply-values is followed (Specializer::apply_values): call-with-values unfolds
  return (q->flags & kVmSpecial) && q->vm_op != kVmApply && q->vm_op != kVmApplyValues;
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
  if (!p->source || (p->ncaptures > 0 && !p->free_vars) || p->free_assigned) return false;
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
    out->cell = fn->cell;
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

PVal* Specializer::call(PVal* fn, gc_vector<PVal*>& args, bool tail) {
  inspect(fn);
  if (fn->kind == PKind::Static && is_primitive(fn->value)) return prim_call(fn->value, args);
  Callee c;
  if (known_callee(fn, &c)) return known_call(c, args, false, tail);
  return residual_call(lift(fn), args);
}

PVal* Specializer::residual_call(Node* fn, gc_vector<PVal*>& args) {
  CallNode* c = gc_new<CallNode>(fn, SrcLoc{});
  for (PVal* a : args) c->args.push_back(lift(a));
  capture_point();  // unknown code: it may capture a continuation and re-enter what follows
  PVal* r = emit_dyn(counted(c));
  mutation();  // unknown code: fields read before may have changed
  return r;
}

PVal* Specializer::known_call(const Callee& c, gc_vector<PVal*>& args, bool force_specialize, bool tail) {
  size_t index = 0;
  LambdaClause* cl = pick_clause(c.lam, args.size(), &index);
  if (!cl) {  // wrong number of arguments: the program raises the arity error at run time
    Node* fn = c.runtime.is_true() ? k_const(c.runtime) : lift(c.closure);
    return residual_call(fn, args);
  }
  if (PVal* r = c.runtime.is_true() ? static_call(c, args) : static_closure_call(c.closure, args)) return r;
  gc_vector<PVal*> packed(args.begin(), args.begin() + cl->params.size());
  if (cl->rest) {
    PVal* rest = make_static(kNil);
    for (size_t i = args.size(); i-- > cl->params.size();) rest = make_pair(args[i], rest);
    packed.push_back(rest);
  }
  if (force_specialize || no_unfold_.count(c.lam) || (dyn_depth_ > 0 && !unfold_under_control(c)))
    return specialize_call(c, index, packed);
  if (dyn_depth_ == 0) {
    if (uint64_t outer = repeats_outer_unfolding(c, index, packed)) {
      if (outer != kMoreGeneral && loop_entries_ < kMaxLoopEntries) {
        loop_entries_++;
        throw EnterLoop{outer};
      }
      return specialize_call(c, index, packed);
    }
  }
  if (enters_helper(c, index, packed)) return specialize_call(c, index, packed);
  if (tail) {  // the unfolding whose body this call ends is finished by the same loop (unfold.cpp)
    UnfoldLevel* next = gc_new<UnfoldLevel>();
    next->c = c;
    next->clause = index;
    next->args.assign(packed.begin(), packed.end());
    tail_next_ = next;
    return &tail_call_;
  }
  return unfold(c, index, packed);
}

Exhausted Specializer::exhausted(const char* which) {
  Exhausted ex{which};
  int deepest = 3;
  for (auto& [lam, d] : unfold_depth_)
    if (d > deepest) {
      deepest = d;
      ex.runaway = lam;
    }
  return ex;
}

// Can the callee reach itself? Evaluator closures bound by letrec may (a named let); others only
// through a runtime procedure. Runtime closures: a walk over the globals their code reads and the
// procedures they capture; a letrec-made closure (one that reads its own name) may.
bool Specializer::may_recurse(const Callee& c) {
  if (!c.runtime.is_true()) return c.closure->group != nullptr;
  auto known = recursive_.find(c.runtime.bits);
  if (known != recursive_.end()) return known->second;
  std::vector<Value> todo{c.runtime};
  FrozenCache seen;
  seen.insert(c.runtime.bits);
  bool rec = false;
  int looked = 0;
  auto reach = [&](Value v) {
    if (v == c.runtime) rec = true;
    else if (is_closure(v) && seen.insert(v.bits).second) todo.push_back(v);
  };
  while (!rec && !todo.empty()) {
    if (++looked > kRecursionScanClosures) {
      rec = true;
      break;
    }
    Value v = todo.back();
    todo.pop_back();
    Closure* cl = v.as<Closure>();
    Proto* p = cl->proto;
    if (!p->source) continue;
    for (int32_t i = 0; i < p->ncaptures; i++) reach(cl->free()[i]);
    if (size_t(p->ncaptures) < lambda_free_vars(st_, p->source).size()) rec = true;  // reads its own name
    bool walked = for_each_node(p->source, [&](Node* n) {
      if (n->kind == NodeKind::GlobalRef) reach(static_cast<GlobalRefNode*>(n)->cell.as<GlobalCell>()->value);
      else if (n->kind == NodeKind::Const) reach(static_cast<ConstNode*>(n)->value);
    });
    if (!walked) rec = true;
  }
  recursive_[c.runtime.bits] = rec;
  pinned_.push_back(c.runtime);
  return rec;
}

// Under dynamic control a call is unfolded when that terminates by itself: the callee cannot
// reach itself, is not being unfolded already, and is small (selectors, constructors, ...).
bool Specializer::unfold_under_control(const Callee& c) {
  auto d = unfold_depth_.find(c.lam);
  if (d != unfold_depth_.end() && d->second > 0) return false;
  for (Entry* p : pending_)
    if (p->lam == c.lam) return false;
  for (LambdaClause* cl : c.lam->clauses)
    if (node_size(cl->body, kDynUnfoldBodyLimit) > kDynUnfoldBodyLimit) return false;
  return !may_recurse(c);
}

bool Specializer::static_args(gc_vector<PVal*>& args, std::vector<Value>& argv, gc_vector<Value>& cells) {
  for (PVal* a : args) {
    Value v;
    if (a->kind == PKind::Closure) {
      v = static_closure_value(a, cells);
      if (v == kFalse) return false;
    } else if (a->kind == PKind::Static) {
      v = a->value;
      if (is_procedure(v) ? !runner_.pure_code(v, written_cells_, cells) : !runner_.plain_data(v)) return false;
    } else {
      return false;
    }
    argv.push_back(v);
  }
  return true;
}

PVal* Specializer::static_call(const Callee& c, gc_vector<PVal*>& args) {
  if (builds_data_.count(c.lam)) return nullptr;
  std::vector<Value> argv;
  gc_vector<Value> cells;
  if (!static_args(args, argv, cells)) return nullptr;
  if (!runner_.pure_code(c.runtime, written_cells_, cells)) return nullptr;
  return static_result(c.runtime, nullptr, args, argv, cells, c.cell);
}

PVal* Specializer::static_closure_call(PVal* fn, gc_vector<PVal*>& args) {
  if (builds_data_.count(fn->lam)) return nullptr;
  std::vector<Value> argv;
  gc_vector<Value> cells;
  if (!static_args(args, argv, cells)) return nullptr;
  Value proc = static_closure_value(fn, cells);
  if (proc == kFalse) return nullptr;
  return static_result(proc, fn, args, argv, cells);
}

Value Specializer::static_closure_value(PVal* fn, gc_vector<Value>& cells) {
  // The closures `fn` reaches through its free variables, each named by the variable that refers
  // to it (one name each), and the static values of the other free variables.
  gc_vector<PVal*> group{fn};
  quasi::gc_vector<Var*> names{nullptr};
  quasi::gc_vector<Var*> params;
  gc_vector<Value> values;
  std::unordered_map<Var*, PVal*> bound;
  for (size_t i = 0; i < group.size(); i++) {
    if (group.size() > 32) return kFalse;
    for (Var* x : lambda_free_vars(st_, group[i]->lam)) {
      PVal** slot = group[i]->env->find(x);
      if (!slot || !*slot || x->assigned) return kFalse;
      PVal* v = *slot;
      auto [it, fresh_name] = bound.emplace(x, v);
      if (!fresh_name) {
        if (it->second != v) return kFalse;  // one variable, two values (two activations)
        continue;
      }
      if (v->kind == PKind::Closure) {
        size_t j = 0;
        while (j < group.size() && group[j] != v) j++;
        if (j == group.size()) {
          group.push_back(v);
          names.push_back(x);
        } else if (names[j]) {
          return kFalse;  // the same closure under two names
        } else {
          names[j] = x;
        }
      } else if (v->kind == PKind::Static) {
        if (is_procedure(v->value) ? !runner_.pure_code(v->value, written_cells_, cells)
                                   : !runner_.plain_data(v->value))
          return kFalse;
        params.push_back(x);
        values.push_back(v->value);
      } else {
        return kFalse;
      }
    }
  }
  if (!names[0]) names[0] = fresh(fn->lam->name);
  // (lambda (param ...) (letrec ((name copy-of-lambda) ...) name0))
  LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, SrcLoc{});
  for (size_t i = 0; i < group.size(); i++) {
    Node* copy = copy_with_fresh_vars(group[i]->lam);
    if (!copy) return kFalse;
    rec->vars.push_back(names[i]);
    rec->inits.push_back(copy);
  }
  rec->body = gc_new<LocalRefNode>(names[0], SrcLoc{});
  LambdaNode* maker = gc_new<LambdaNode>(sym("static-run"), SrcLoc{});
  LambdaClause* mc = gc_new<LambdaClause>();
  mc->params = params;
  mc->body = rec;
  maker->clauses.push_back(mc);
  if (!runner_.pure_tree(maker, written_cells_, cells) || !verify_ir(maker).empty()) return kFalse;
  spend(8);
  try {
    Value thunk = compile_toplevel(vm_, maker);
    Value mk = vm_.apply(thunk, 0, nullptr);
    std::vector<Value> vals(values.begin(), values.end());
    return vm_.apply(mk, int(vals.size()), vals.data());
  } catch (SchemeError&) {
    return kFalse;
  }
}

PVal* Specializer::static_result(Value proc, PVal* fn, gc_vector<PVal*>& args, const std::vector<Value>& argv,
                                 gc_vector<Value>& cells, Value cell) {
  spend(4);
  Value out = kFalse;
  st_.stats.static_runs++;
  RunOutcome outcome = runner_.run(proc, argv, &out);
  if (outcome == RunOutcome::kBudget || outcome == RunOutcome::kRaised) {
    bool budget = outcome == RunOutcome::kBudget;
    if (budget) st_.stats.residualized_calls++;
    const char* reason = budget ? "static-run-budget" : "static-run-error";
    std::string why = budget ? "a call with all arguments static ran out of steps: it runs at run time"
                             : "a call with all arguments static raises: it is left to raise at run time, if reached";
    if (fn) note("residualized", reason, fn->lam, why);
    else note("residualized", reason, proc, why);
  }
  switch (outcome) {
    case RunOutcome::kValue: {
      // The value depends on the procedures the run called: dependencies, as for a static call.
      for (Value cell : cells)
        if (read_cells_.insert(cell.bits).second) deps_->push_back(cell);
      if (!within_fold_limits(out)) break;
      PVal* r = make_static(out);
      r->tags = tags_of(args);
      return r;
    }
    case RunOutcome::kRaised:
    case RunOutcome::kBudget:
      break;
    case RunOutcome::kUnusable:
      // It builds data with an identity (a fresh list): its other calls are not run either.
      if (is_closure(proc)) builds_data_.insert(proc.as<Closure>()->proto->source);
      if (fn) builds_data_.insert(fn->lam);
      return nullptr;
  }
  // The call does at run time what it would do now: raise, or run long.
  // A call left residual names the global the procedure came from (a dependency: it holds the
  // procedure while the residual code is valid).
  Node* callee = fn ? lift(fn) : cell != kFalse ? counted(gc_new<GlobalRefNode>(cell, SrcLoc{})) : k_const(proc);
  return residual_call(callee, args);
}

// ---- specialization: keys, helpers, generalization ---------------------------------------------


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

// (%ad-j c) for a closure the evaluator made: the closure has no compiled layout, so J is made
// from its lambda (lib/ad/README.md, "Residuals"): the maker for that lambda, called on c and its
// free values in the order in which the code that made c sends c's cotangent to them
// (closure_layout, the compiler's rule), then unfolded like any call. A free variable the
// program assigns (a set! cell or box) is not modelled here: bail out.
static AdMakerHook ad_maker_hook = nullptr;
void set_ad_maker_hook(AdMakerHook hook) { ad_maker_hook = hook; }
static AdQuietHook ad_quiet_hook = nullptr;
void set_ad_quiet_hook(AdQuietHook hook) { ad_quiet_hook = hook; }

PVal* Specializer::ad_j_closure(PVal* c) {
  if (!ad_maker_hook) throw Bailout{"automatic differentiation of a procedure the evaluator made"};
  depend_on_transformed(c->lam);
  FreeVariables scan;
  scan.run(c->lam);
  if (scan.truncated()) throw Bailout{"procedure too deeply nested to scan"};
  Var* self = nullptr;
  if (c->group)
    for (Var* v : scan.lambdas[c->lam].free) {
      PVal** slot = c->env->find(v);
      if (slot && *slot == c) self = v;
    }
  std::vector<Var*> fvs;
  Value maker;
  try {
    maker = ad_maker_hook(vm_, st_.ad_j_prim, c->lam, self, fvs);
  } catch (SchemeError&) {
    throw Bailout{"automatic differentiation refused for a closure the evaluator made"};
  }
  gc_vector<PVal*> margs;
  margs.push_back(c);
  for (Var* v : fvs) {
    PVal** slot = c->env->find(v);
    if (!slot || !*slot || (*slot)->kind == PKind::Box || v->assigned)
      throw Bailout{"automatic differentiation of a closure over an assigned variable"};
    margs.push_back(*slot);
  }
  spend(4);
  // J is the maker's letrec-bound lambda: remembered, for %ad-j-layout of the J made here
  Proto* mp = is_closure(maker) ? maker.as<Closure>()->proto : nullptr;
  LambdaNode* src = mp ? mp->source : nullptr;
  if (!src || src->clauses.size() != 1 || src->clauses[0]->body->kind != NodeKind::Letrec)
    throw Bailout{"internal: the maker of J has an unexpected shape"};
  auto* rec = static_cast<LetNode*>(src->clauses[0]->body);
  if (rec->inits.size() != 1 || rec->inits[0]->kind != NodeKind::Lambda)
    throw Bailout{"internal: the maker of J has an unexpected shape"};
  // bounded like lib/ad's maker caches: a forgotten entry only makes %ad-j-layout bail out
  if (st_.ad_j_makers.size() >= 4096) st_.ad_j_makers.clear();
  st_.ad_j_makers[static_cast<LambdaNode*>(rec->inits[0])] = src;
  return call(make_static(maker), margs);
}

// J's code (lib/ad) has the derivative rules of the built-ins f's source calls in place of their
// cells: (cos x) gives (cos x) and (- (sin x)), both constants. The residual made from J depends
// on the cells f's source read, as if it had read them itself: a later define of cos reports
// the old cell written (engine/redefinition.hpp) and invalidates it, as for any built-in the
// evaluator folds. Every primitive's cell in the source, not only the reached ones: the
// transform read all. (Other globals stay references in J's code, read when reached.)
void Specializer::depend_on_transformed(LambdaNode* src) {
  if (!src || !transformed_.insert(reinterpret_cast<uint64_t>(src)).second) return;
  for_each_node(src, [&](Node* n) {
    if (n->kind != NodeKind::GlobalRef) return;
    Value cell = static_cast<GlobalRefNode*>(n)->cell;
    if (is_primitive(cell.as<GlobalCell>()->value) && read_cells_.insert(cell.bits).second) deps_->push_back(cell);
  });
}

// (%ad-j-layout j) for a J made by ad_j_closure: per free slot of j (the compiler's layout,
// closure_layout with j's letrec self), -1 for the maker's `self` parameter (f itself), i for
// its free-value parameter i, -2 for anything else; element 0 is the number of f's free values.
// What the run-time %ad-j records for a J it makes (ad/runtime.cpp).
PVal* Specializer::ad_j_layout(PVal* j) {
  auto it = j->kind == PKind::Closure ? st_.ad_j_makers.find(j->lam) : st_.ad_j_makers.end();
  if (it == st_.ad_j_makers.end()) throw Bailout{"nested automatic differentiation of a J the evaluator made"};
  LambdaNode* mk = it->second;
  const quasi::gc_vector<Var*>& mparams = mk->clauses[0]->params;
  FreeVariables scan;
  scan.run(j->lam);
  if (scan.truncated()) throw Bailout{"procedure too deeply nested to scan"};
  Var* self = nullptr;
  if (j->group)
    for (Var* v : scan.lambdas[j->lam].free) {
      PVal** slot = j->env->find(v);
      if (slot && *slot == j) self = v;
    }
  std::vector<Var*> slots = closure_layout(j->lam, self);
  Value lay = quasi::make_vector(int64_t(slots.size()) + 1, make_fixnum(-2));
  lay.as<Vector>()->items()[0] = make_fixnum(int64_t(mparams.size()) - 1);
  for (size_t k = 0; k < slots.size(); k++)
    for (size_t i = 0; i < mparams.size(); i++)
      if (mparams[i] == slots[k]) lay.as<Vector>()->items()[k + 1] = make_fixnum(int64_t(i) - 1);
  lay.obj()->set_immutable();  // a constant: the evaluator reads its items (%ad-j-adjoint's loop)
  return make_static(lay);
}

PVal* Specializer::prim_call(Value prim, gc_vector<PVal*>& args) {
  Primitive* p = prim.as<Primitive>();
  if (!arity_ok(p, args.size())) return residual_prim(prim, args);
  if (p->flags & kVmSpecial) {
    if (p->vm_op == kVmApply) return apply_call(args);
    if (p->vm_op == kVmApplyValues && args.size() == 2) return apply_values(prim, args);
    return residual_prim(prim, args);  // call/cc, eval: conservatively residual
  }
  // (values x) is x; the parts of (values a b ...) are remembered for %apply-values
  if (prim == st_.values_prim && args.size() == 1) return args[0];
  if (prim == st_.values_prim) return make_values(args);
  if (prim == st_.ad_j_prim && args.size() == 1 && args[0]->kind == PKind::Closure) return ad_j_closure(args[0]);
  if (prim == st_.ad_arity_prim && args.size() == 1 && args[0]->kind == PKind::Closure) {
    // grad's procedure takes the differentiated closure's own parameters (70-ad.scm, %ad-like)
    LambdaNode* lam = args[0]->lam;
    bool fixed = lam->clauses.size() == 1 && !lam->clauses[0]->rest;
    return make_static(fixed ? make_fixnum(int64_t(lam->clauses[0]->params.size())) : kFalse);
  }
  if (prim == st_.ad_j_layout_prim && args.size() == 1 && args[0]->kind != PKind::Static)
    return ad_j_layout(args[0]);
  // a J the evaluator knows the code of: quiet or not is a fact of that code (lib/ad records it)
  if (prim == st_.ad_j_quiet_prim && args.size() == 1 && args[0]->kind == PKind::Closure)
    return make_static(make_bool(ad_quiet_hook && ad_quiet_hook(st_.ad_j_prim, args[0]->lam)));
  if (prim == st_.ad_j_prim && (args.size() != 1 || args[0]->kind != PKind::Static))
    throw Bailout{"automatic differentiation of a procedure the evaluator made"};
  if (prim == st_.ad_j_prim && is_closure(args[0]->value))
    depend_on_transformed(args[0]->value.as<Closure>()->proto->source);
  const PrimFacts& facts = p->facts;
  // (dynamic x): x under a residual variable of its own, so nothing known about it — its
  // static value, its fields, what tests taught — reaches helper keys or decisions.
  if (prim == st_.dynamic_prim && args.size() == 1) {
    PVal* r = make_dyn(emit_bind(lift(args[0]), sym("d")));
    r->opaque = true;
    return r;
  }
  // The validity guard of a residual this code calls (request.cpp): while that residual is
  // valid it is its residual code, so the guard is #t here and this specialization depends on
  // what that one assumed (the same writes invalidate both). Without this, the guard's fallback
  // (the original procedure) would be specialized too: a residual of code calling residuals
  // grew by every original's code (ad's saddle: (specialize (grad outer)) over a specialized
  // inner gradient gave up on the residual size).
  if (prim == st_.guard_prim && args.size() == 1 && args[0]->kind == PKind::Static && has_type(args[0]->value, Type::Box)) {
    Value tok = args[0]->value;
    if (tok.as<Box>()->value == kFalse) return make_static(kFalse);  // invalid for good
    for (auto& [h, rec] : st_.cache)
      if (rec->token == tok && rec->valid) {
        for (Value cell : rec->deps)
          if (read_cells_.insert(cell.bits).second) deps_->push_back(cell);
        return make_static(kTrue);
      }
  }
  for (PVal*& a : args) a = known(a);
  if (facts.structure != Structure::kNone) {
    PVal* r = structural(facts, prim, args);
    if (!r) r = fact_structural(facts, args);
    if (r) {
      if (r->kind == PKind::Static && r->tags == 0) r->tags = tags_of(args);
      return r;
    }
  }
  if (p->flags & kFoldable) {
    if (PVal* r = fold(p, prim, args)) return r;
    if (PVal* r = choice_fold(p, args)) return r;
  }
  if (PVal* r = fact_numeric(p, facts, args)) return r;
  if (PVal* r = known_element(facts, args)) return r;
  PVal* r = residual_prim(prim, args);
  if (facts.structure == Structure::kResultChar) r->known_char = true;
  note_result(facts, args, r);
  if (facts.num_result != NumResult::kNone && facts.num_result != NumResult::kBoolean) r->known_number = true;
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
  uint32_t flags = prim.as<Primitive>()->flags;
  if ((flags & kVmSpecial) || !(flags & kPure)) capture_point();  // call/cc, apply, a callback
  PVal* r = emit_dyn(counted(c));
  if (!(flags & kPure)) mutation();  // set-car!, string-set!, ...
  return r;
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

// (values a b ...): a dynamic value whose variable is bound when residual code first refers to it
// (bind_values); %apply-values on it calls its consumer on the parts, which have not escaped.
PVal* Specializer::make_values(gc_vector<PVal*>& args) {
  PVal* r = make_dyn(fresh(sym("t")));
  values_of_.emplace(r->var, PendingValues{gc_new<gc_vector<PVal*>>(args.begin(), args.end()), block_, mark()});
  return r;
}

void Specializer::bind_values(Var* v) {
  auto it = values_of_.find(v);
  if (it == values_of_.end() || !it->second.home) return;
  PendingValues pv = it->second;
  it->second.home = nullptr;  // bound: a reference below is an ordinary one
  PrimCallNode* c = gc_new<PrimCallNode>(st_.values_prim, SrcLoc{});
  for (PVal* a : *pv.parts) c->args.push_back(lift(a));  // residual code may take the parts
  pv.home->insert_bind(pv.point, v, counted(c));
}

// (%apply-values consumer vals): a call of the consumer on the values when the evaluator knows
// them — the parts of a call of values it saw, or one value that cannot be a multiple-values
// object (a number, a known pair, vector or closure, a static value of another type) —, else
// residual.
PVal* Specializer::apply_values(Value prim, gc_vector<PVal*>& args) {
  PVal* vals = args[1];
  if (vals->kind == PKind::Dyn) {
    auto it = values_of_.find(vals->var);
    if (it != values_of_.end()) {
      gc_vector<PVal*> parts(*it->second.parts);
      return call(args[0], parts);
    }
  }
  PVal* k = known(vals);
  bool single = k->kind == PKind::Pair || k->kind == PKind::Vector || k->kind == PKind::Closure ||
                (k->kind == PKind::Static && !has_type(k->value, Type::Values)) ||
                (k->kind == PKind::Dyn && k->known_number);
  if (single) {
    gc_vector<PVal*> one{vals};
    return call(args[0], one);
  }
  return residual_prim(prim, args);
}

// ---- a request ---------------------------------------------------------------------------------

Node* Specializer::run_clause(const ClausePlan& plan, gc_vector<Value>& deps) {
  deps_ = &deps;
  ContextGuard guard(block_, dyn_depth_);
  FactWorld world(this);
  BoxWorld boxes(this);
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

}  // namespace quasi::pe
