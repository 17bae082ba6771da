// print.cpp — ir_to_datum: the IR as readable Scheme (ir/ir.hpp).
#include "ir/ir.hpp"

#include "core/cstack.hpp"

#include <string>
#include <unordered_map>
#include <unordered_set>

namespace quasi {

namespace {

class IrPrinter {
 public:
  explicit IrPrinter(Node* root) { scan(root); }

  Value print(Node* n) {
    // Deeper than this (or near the end of the C stack) prints as `...`.
    if (depth_ > 20000 || stack_exhausted()) return intern("...");
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(x) { d++; }
      ~Depth() { d--; }
    } depth(depth_);
    switch (n->kind) {
      case NodeKind::Const: {
        Value v = static_cast<ConstNode*>(n)->value;
        if (is_symbol(v) || is_pair(v) || v == kNil || has_type(v, Type::Vector))
          return list({intern("quote"), v});
        return v;
      }
      case NodeKind::LocalRef:
        return var_name(static_cast<LocalRefNode*>(n)->var);
      case NodeKind::LocalSet: {
        auto* s = static_cast<LocalSetNode*>(n);
        return list({intern("set!"), var_name(s->var), print(s->value)});
      }
      case NodeKind::GlobalRef:
        return static_cast<GlobalRefNode*>(n)->cell.as<GlobalCell>()->name;
      case NodeKind::GlobalSet: {
        auto* s = static_cast<GlobalSetNode*>(n);
        return list({intern(s->is_define ? "define" : "set!"), s->cell.as<GlobalCell>()->name,
                     print(s->value)});
      }
      case NodeKind::If: {
        auto* i = static_cast<IfNode*>(n);
        bool one_armed = i->otherwise->kind == NodeKind::Const &&
                         static_cast<ConstNode*>(i->otherwise)->value == kUnspecified;
        if (one_armed) return list({intern("if"), print(i->test), print(i->then)});
        return list({intern("if"), print(i->test), print(i->then), print(i->otherwise)});
      }
      case NodeKind::Lambda: {
        auto* l = static_cast<LambdaNode*>(n);
        if (l->clauses.size() == 1) return cons(intern("lambda"), clause(l->clauses[0]));
        Value out = kNil;
        for (size_t i = l->clauses.size(); i-- > 0;) out = cons(clause(l->clauses[i]), out);
        return cons(intern("case-lambda"), out);
      }
      case NodeKind::Call: {
        auto* c = static_cast<CallNode*>(n);
        return cons(print(c->fn), args(c->args));
      }
      case NodeKind::PrimCall: {
        auto* c = static_cast<PrimCallNode*>(n);
        return cons(intern(c->prim.as<Primitive>()->name), args(c->args));
      }
      case NodeKind::Let:
      case NodeKind::Letrec: {
        auto* l = static_cast<LetNode*>(n);
        Value bindings = kNil;
        for (size_t i = l->vars.size(); i-- > 0;)
          bindings = cons(list({var_name(l->vars[i]), print(l->inits[i])}), bindings);
        return cons(intern(n->kind == NodeKind::Let ? "let" : "letrec*"),
                    cons(bindings, body(l->body)));
      }
      case NodeKind::Seq:
        return cons(intern("begin"), body(n));
    }
    return kUnspecified;
  }

 private:
  std::unordered_map<std::string, std::unordered_set<Var*>> vars_by_name_;
  std::unordered_set<std::string> globals_;
  int depth_ = 0;

  void note_var(Var* v) { vars_by_name_[symbol_name(v->name)].insert(v); }

  void scan(Node* n) {
    if (depth_ > 20000 || stack_exhausted()) return;
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(x) { d++; }
      ~Depth() { d--; }
    } depth(depth_);
    switch (n->kind) {
      case NodeKind::Const: break;
      case NodeKind::LocalRef: note_var(static_cast<LocalRefNode*>(n)->var); break;
      case NodeKind::LocalSet:
        note_var(static_cast<LocalSetNode*>(n)->var);
        scan(static_cast<LocalSetNode*>(n)->value);
        break;
      case NodeKind::GlobalRef:
        globals_.insert(symbol_name(static_cast<GlobalRefNode*>(n)->cell.as<GlobalCell>()->name));
        break;
      case NodeKind::GlobalSet: {
        auto* s = static_cast<GlobalSetNode*>(n);
        globals_.insert(symbol_name(s->cell.as<GlobalCell>()->name));
        scan(s->value);
        break;
      }
      case NodeKind::If: {
        auto* i = static_cast<IfNode*>(n);
        scan(i->test);
        scan(i->then);
        scan(i->otherwise);
        break;
      }
      case NodeKind::Lambda:
        for (LambdaClause* c : static_cast<LambdaNode*>(n)->clauses) {
          for (Var* v : c->params) note_var(v);
          if (c->rest) note_var(c->rest);
          scan(c->body);
        }
        break;
      case NodeKind::Call: {
        auto* c = static_cast<CallNode*>(n);
        scan(c->fn);
        for (Node* a : c->args) scan(a);
        break;
      }
      case NodeKind::PrimCall:
        for (Node* a : static_cast<PrimCallNode*>(n)->args) scan(a);
        break;
      case NodeKind::Let:
      case NodeKind::Letrec: {
        auto* l = static_cast<LetNode*>(n);
        for (Var* v : l->vars) note_var(v);
        for (Node* i : l->inits) scan(i);
        scan(l->body);
        break;
      }
      case NodeKind::Seq:
        for (Node* e : static_cast<SeqNode*>(n)->exprs) scan(e);
        break;
    }
  }

  Value var_name(Var* v) {
    std::string name = symbol_name(v->name);
    auto it = vars_by_name_.find(name);
    bool collides = (it != vars_by_name_.end() && it->second.size() > 1) || globals_.count(name);
    if (!collides) return v->name;
    return intern(name + "." + std::to_string(v->id));
  }

  Value clause(LambdaClause* c) {
    Value formals = c->rest ? var_name(c->rest) : kNil;
    for (size_t i = c->params.size(); i-- > 0;) formals = cons(var_name(c->params[i]), formals);
    return cons(formals, body(c->body));
  }

  // A body as a list of expressions: a Seq is spliced.
  Value body(Node* n) {
    if (n->kind != NodeKind::Seq) return list({print(n)});
    auto& exprs = static_cast<SeqNode*>(n)->exprs;
    Value out = kNil;
    for (size_t i = exprs.size(); i-- > 0;) out = cons(print(exprs[i]), out);
    return out;
  }

  Value args(const gc_vector<Node*>& xs) {
    Value out = kNil;
    for (size_t i = xs.size(); i-- > 0;) out = cons(print(xs[i]), out);
    return out;
  }
};

}  // namespace

Value ir_to_datum(Node* n) {
  IrPrinter p(n);
  return p.print(n);
}

}  // namespace quasi
