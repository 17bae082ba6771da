// residual.cpp — the residual builder of the partial evaluator: partial values, residual code
// emitted by let-insertion into the current Block, lifting a partial value to code,
// materializing partially static objects where they were created, escape, and residual lambdas
// for closures that escape. The design is described in specializer.hpp and lib/pe/README.md.
#include "pe/specializer.hpp"

#include "core/cstack.hpp"
#include "core/error.hpp"
#include "ir/free_vars.hpp"

namespace quasi::pe {

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

PVal* make_dyn(Var* v) {
  PVal* p = gc_new<PVal>();
  p->kind = PKind::Dyn;
  p->var = v;
  return p;
}

// ---- residual code -----------------------------------------------------------------------------

Node* Specializer::k_const(Value v) { return counted(const_code(st_, v)); }
Node* Specializer::k_ref(Var* v) {
  if (!values_of_.empty()) bind_values(v);  // a pending (values ...) is bound where it was made
  return counted(gc_new<LocalRefNode>(v, SrcLoc{}));
}

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
      // A procedure read from a user global is named by it, as the program names it, so
      // (residual p) reads back; the validity guard checks on entry that it still holds it.
      if (v->cell.is_true() && v->cell.as<GlobalCell>()->value == v->value)
        return counted(gc_new<GlobalRefNode>(v->cell, SrcLoc{}));
      return k_const(v->value);
    case PKind::Dyn:
      return k_ref(v->var);
    case PKind::Box:
      throw Bailout{"internal: a set! variable used as a value"};
    default:
      escape(v);
      return k_ref(v->var);
  }
}

Var* Specializer::materialize(PVal* v) {
  if (v->var) return v->var;
  // Partially static structures can be as deep as the data a static loop built.
  if (stack_exhausted()) throw exhausted("stack depth");
  if (v->kind == PKind::Closure) {
    if (v->group) {
      lift_group(v->group);
      return v->var;
    }
    // Lifting puts the body where it runs at unknown times: what it reads must be residual.
    const quasi::gc_vector<Var*>& fv = lambda_free_vars(st_, v->lam);
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
    if (f->kind == PKind::Box) throw Bailout{"internal: a set! variable stored in an object"};
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
  if (v->kind == PKind::Box) return escape_box(v);  // a closure's free variable
  // a pending (values ...) a lifted closure reads: its parts are residual from now on
  if (v->kind == PKind::Dyn && v->var && !values_of_.empty()) bind_values(v->var);
  if (!v->is_object() || v->escaped) return;
  if (stack_exhausted()) throw exhausted("stack depth");
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
  auto* vars = gc_new<quasi::gc_vector<Var*>>();
  auto* codes = gc_new<quasi::gc_vector<Node*>>();
  // Members that exist already (a helper's closure arguments: the caller's objects) are not
  // made again.
  gc_vector<PVal*> made;
  for (PVal* m : g->members) {
    if (m->var) continue;
    m->var = fresh(is_symbol(m->lam->name) ? m->lam->name : sym("f"));
    vars->push_back(m->var);
    made.push_back(m);
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
  for (PVal* m : made) codes->push_back(residual_lambda(m->lam, m->env, 1));
  if (!made.empty()) g->home->insert_rec(g->point, vars, codes);
}

// Binds clause parameters in `frame`: a set!-ed parameter gets a box of its own.
void Specializer::bind(PEnv* frame, Var* v, PVal* val) {
  frame->vars.push_back(v);
  frame->vals.push_back(v->assigned ? make_box(val, v->name) : val);
}

LambdaNode* Specializer::residual_lambda(LambdaNode* lam, PEnv* env, int dyn_depth) {
  ContextGuard guard(block_, dyn_depth_);
  BoxWorld boxes(this);  // the body runs at unknown times: its boxes are its own
  LambdaNode* out = gc_new<LambdaNode>(lam->name, lam->loc);
  for (LambdaClause* c : lam->clauses) {
    spend();
    // The body runs at unknown times: fields read outside may have changed by then, and what
    // it reads is not visible outside. What tests taught about values still holds.
    FactScope scope(this);
    struct Epoch {  // creating the lambda runs nothing: the epoch after it is the one before
      uint64_t& e;
      uint64_t saved;
      ~Epoch() { e = saved; }
    } keep{epoch_, epoch_};
    mutation();
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


}  // namespace quasi::pe
