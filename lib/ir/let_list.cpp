#include "ir/let_list.hpp"

namespace quasi {

Var* LetList::push(Node* code, Value name) {
  Var* v = make_var(is_symbol(name) ? name : intern("t"));
  push_bind(v, code);
  return v;
}

LetList::Point LetList::mark() {
  stmts_.push_back(LetStmt{LetStmt::kMarker});
  return std::prev(stmts_.end());
}

void LetList::insert_rec(Point at, gc_vector<Var*>* vars, gc_vector<Node*>* codes) {
  LetStmt s{LetStmt::kRec};
  s.rec_vars = vars;
  s.rec_codes = codes;
  stmts_.insert(at, s);
}

bool LetList::empty() const {
  for (const LetStmt& s : stmts_)
    if (s.kind != LetStmt::kMarker) return false;
  return true;
}

Node* LetList::get(Node* result) const {
  Node* body = result;
  for (auto it = stmts_.rbegin(); it != stmts_.rend(); ++it) {
    switch (it->kind) {
      case LetStmt::kMarker:
        break;
      case LetStmt::kBind: {
        LetNode* l = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
        l->vars.push_back(it->var);
        l->inits.push_back(it->code);
        l->body = body;
        body = l;
        break;
      }
      case LetStmt::kEffect: {
        SeqNode* s = gc_new<SeqNode>(SrcLoc{});
        s->exprs.push_back(it->code);
        if (body->kind == NodeKind::Seq)
          for (Node* e : static_cast<SeqNode*>(body)->exprs) s->exprs.push_back(e);
        else
          s->exprs.push_back(body);
        body = s;
        break;
      }
      case LetStmt::kRec: {
        LetNode* l = gc_new<LetNode>(NodeKind::Letrec, SrcLoc{});
        l->vars = *it->rec_vars;
        l->inits = *it->rec_codes;
        l->body = body;
        body = l;
        break;
      }
    }
  }
  return body;
}

}  // namespace quasi
