#include "ir/util.hpp"

#include <vector>


namespace quasi {

namespace {

// is_pure looks this deep into nested expressions, then answers "not pure".
constexpr int kMaxPurityDepth = 64;

// is_pure, or with `raising` only_pure_primitive_calls: the same walk, where raising is allowed.
bool is_pure_at(Node* n, Environment* core, int depth, bool raising) {
  if (depth > kMaxPurityDepth) return false;
  switch (n->kind) {
    case NodeKind::Const:
    case NodeKind::LocalRef:
    case NodeKind::Lambda:
      return true;
    case NodeKind::GlobalRef:
      // A cell bound now stays bound (nothing unbinds a cell); an unbound one raises.
      return raising || static_cast<GlobalRefNode*>(n)->cell.as<GlobalCell>()->value != kUnbound;
    case NodeKind::LocalSet:
    case NodeKind::GlobalSet:
      return false;
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(n);
      return is_pure_at(i->test, core, depth + 1, raising) && is_pure_at(i->then, core, depth + 1, raising) &&
             is_pure_at(i->otherwise, core, depth + 1, raising);
    }
    case NodeKind::Call:
    case NodeKind::PrimCall: {
      const gc_vector<Node*>* args = nullptr;
      Primitive* p = called_primitive(n, core, &args);
      // An unknown procedure may do anything.
      if (!p) return false;
      if (raising) {
        if (!(p->flags & kPure) || (p->flags & (kHasEffects | kVmSpecial))) return false;
      } else {
        if (!quiet_primitive(p)) return false;
        // A wrong number of arguments raises.
        if (!arity_ok(p, args->size())) return false;
      }
      for (Node* a : *args)
        if (!is_pure_at(a, core, depth + 1, raising)) return false;
      return true;
    }
    case NodeKind::Let:
    case NodeKind::Letrec: {
      auto* l = static_cast<LetNode*>(n);
      for (Node* i : l->inits)
        if (!is_pure_at(i, core, depth + 1, raising)) return false;
      return is_pure_at(l->body, core, depth + 1, raising);
    }
    case NodeKind::Seq:
      for (Node* e : static_cast<SeqNode*>(n)->exprs)
        if (!is_pure_at(e, core, depth + 1, raising)) return false;
      return true;
  }
  return false;
}

// Deep copy with fresh binders (copy_with_fresh_vars).
class FreshCopier : public ExprFunctor<Node*(Node*)> {
 public:
  bool failed = false;

  Node* visit(Node* n) override {
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(x) { d++; }
      ~Depth() { d--; }
    } guard(depth_);
    // Too deep to copy safely: the caller keeps the original call.
    if (depth_ > kMaxPassDepth || stack_exhausted()) {
      failed = true;
      return n;
    }
    return ExprFunctor<Node*(Node*)>::visit(n);
  }

  Node* visit_const(ConstNode* n) override { return gc_new<ConstNode>(n->value, n->loc); }
  Node* visit_local_ref(LocalRefNode* n) override { return gc_new<LocalRefNode>(var(n->var), n->loc); }
  Node* visit_local_set(LocalSetNode* n) override {
    return gc_new<LocalSetNode>(var(n->var), visit(n->value), n->loc);
  }
  Node* visit_global_ref(GlobalRefNode* n) override { return gc_new<GlobalRefNode>(n->cell, n->loc); }
  Node* visit_global_set(GlobalSetNode* n) override {
    return gc_new<GlobalSetNode>(n->cell, visit(n->value), n->is_define, n->loc);
  }
  Node* visit_if(IfNode* n) override {
    Node* t = visit(n->test);
    Node* c = visit(n->then);
    Node* a = visit(n->otherwise);
    return gc_new<IfNode>(t, c, a, n->loc);
  }
  Node* visit_lambda(LambdaNode* n) override {
    LambdaNode* out = gc_new<LambdaNode>(n->name, n->loc);
    for (LambdaClause* c : n->clauses) {
      LambdaClause* d = gc_new<LambdaClause>();
      for (Var* p : c->params) d->params.push_back(fresh(p));
      d->rest = c->rest ? fresh(c->rest) : nullptr;
      d->body = visit(c->body);
      out->clauses.push_back(d);
    }
    return out;
  }
  Node* visit_call(CallNode* n) override {
    CallNode* out = gc_new<CallNode>(visit(n->fn), n->loc);
    for (Node* a : n->args) out->args.push_back(visit(a));
    return out;
  }
  Node* visit_prim_call(PrimCallNode* n) override {
    PrimCallNode* out = gc_new<PrimCallNode>(n->prim, n->loc);
    for (Node* a : n->args) out->args.push_back(visit(a));
    return out;
  }
  Node* visit_let(LetNode* n) override {
    LetNode* out = gc_new<LetNode>(n->kind, n->loc);
    // Let inits are outside the scope of the new variables; letrec inits inside.
    if (n->kind == NodeKind::Let) {
      for (Node* i : n->inits) out->inits.push_back(visit(i));
      for (Var* v : n->vars) out->vars.push_back(fresh(v));
    } else {
      for (Var* v : n->vars) out->vars.push_back(fresh(v));
      for (Node* i : n->inits) out->inits.push_back(visit(i));
    }
    out->body = visit(n->body);
    return out;
  }
  Node* visit_letrec(LetNode* n) override { return visit_let(n); }
  Node* visit_seq(SeqNode* n) override {
    SeqNode* out = gc_new<SeqNode>(n->loc);
    for (Node* e : n->exprs) out->exprs.push_back(visit(e));
    return out;
  }

 private:
  TracedMap<Var*, Var*> renamed_;
  int depth_ = 0;

  Var* fresh(Var* v) {
    Var* w = make_var(v->name);
    w->assigned = v->assigned;
    renamed_[v] = w;
    return w;
  }
  Var* var(Var* v) {
    auto it = renamed_.find(v);
    return it == renamed_.end() ? v : it->second;
  }
};

}  // namespace

Primitive* known_primitive(Node* fn, Environment* core) {
  if (fn->kind != NodeKind::GlobalRef || core == nullptr) return nullptr;
  GlobalCell* cell = static_cast<GlobalRefNode*>(fn)->cell.as<GlobalCell>();
  // A cell of another environment may be redefined by the program.
  if (!cell_owned_by(cell, core)) return nullptr;
  if (!is_primitive(cell->value)) return nullptr;
  return cell->value.as<Primitive>();
}

Primitive* called_primitive(Node* call, Environment* core, const gc_vector<Node*>** args) {
  if (call->kind == NodeKind::PrimCall) {
    auto* c = static_cast<PrimCallNode*>(call);
    *args = &c->args;
    return c->prim.as<Primitive>();
  }
  if (call->kind != NodeKind::Call) return nullptr;
  auto* c = static_cast<CallNode*>(call);
  *args = &c->args;
  return known_primitive(c->fn, core);
}

bool quiet_primitive(const Primitive* p) {
  return (p->flags & kPure) && !(p->flags & (kMayRaise | kHasEffects | kVmSpecial));
}

bool is_frozen_shallow(Value v) {
  if (v.is_fixnum() || v.is_char()) return true;
  if (!is_object(v)) return v != kUnbound && v != kDefault;  // #t #f () unspecified eof
  switch (object_type(v)) {
    case Type::Symbol:
    case Type::Flonum:
    case Type::Bignum:
    case Type::Ratnum:
    case Type::Compnum:
      return true;
    case Type::String:
    case Type::Pair:
    case Type::Vector:
    case Type::Bytevector:
      return is_immutable_object(v);
    default:
      return false;
  }
}

bool is_frozen_deep(Value v, FrozenCache* cache) {
  if (!is_object(v)) return true;  // fixnums, characters, booleans, '(), other constants
  switch (object_type(v)) {
    case Type::Symbol:
    case Type::Flonum:
    case Type::Bignum:
    case Type::Ratnum:
    case Type::Compnum:
    case Type::Primitive:
    case Type::Closure:
    case Type::Continuation:
      return true;
    case Type::String:
    case Type::Bytevector:
      return is_immutable_object(v);
    case Type::Pair:
    case Type::Vector:
      break;
    default:
      return false;
  }
  if (cache && cache->count(v.bits)) return true;
  // Iterative walk over immutable pairs and vectors; every visited object is frozen if the root is.
  std::vector<Value> stack{v};
  std::vector<uint64_t> visited;
  std::unordered_set<uint64_t> seen;
  while (!stack.empty()) {
    Value x = stack.back();
    stack.pop_back();
    if (!is_object(x)) continue;
    Type t = object_type(x);
    if (t != Type::Pair && t != Type::Vector) {
      if (!is_frozen_deep(x, nullptr)) return false;
      continue;
    }
    if (!is_immutable_object(x)) return false;
    if ((cache && cache->count(x.bits)) || !seen.insert(x.bits).second) continue;
    visited.push_back(x.bits);
    if (t == Type::Pair) {
      stack.push_back(car(x));
      stack.push_back(cdr(x));
    } else {
      Vector* vec = x.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) stack.push_back(vec->items()[i]);
    }
  }
  if (cache)
    for (uint64_t b : visited) cache->insert(b);
  return true;
}

bool is_pure(Node* n, Environment* core) { return is_pure_at(n, core, 0, false); }
bool only_pure_primitive_calls(Node* n, Environment* core) { return is_pure_at(n, core, 0, true); }

Node* make_seq(const gc_vector<Node*>& exprs, SrcLoc loc) {
  gc_vector<Node*> flat;
  for (Node* e : exprs) {
    if (e->kind == NodeKind::Seq) {
      for (Node* x : static_cast<SeqNode*>(e)->exprs) flat.push_back(x);
    } else {
      flat.push_back(e);
    }
  }
  if (flat.size() == 1) return flat[0];
  SeqNode* s = gc_new<SeqNode>(loc);
  s->exprs = std::move(flat);
  return s;
}

size_t node_size(Node* n, size_t limit) {
  struct Counter : ExprVisitor {
    size_t count = 0;
    size_t limit = 0;
    void visit(Node* x) override {
      if (count > limit) return;
      count++;
      ExprVisitor::visit(x);
    }
  } c;
  c.limit = limit;
  c.visit(n);
  return c.truncated() ? limit + 1 : c.count;
}

Node* copy_with_fresh_vars(Node* n) {
  FreshCopier copier;
  Node* out = copier.visit(n);
  return copier.failed ? nullptr : out;
}

}  // namespace quasi
