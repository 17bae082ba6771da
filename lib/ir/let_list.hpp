// let_list.hpp — LetList: building straight-line code by let-insertion, as TVM Relay's LetList.
//
// Owner: ir. Used by the partial evaluator for residual code and meant for every transformation
// that emits code in evaluation order (automatic differentiation, ...). Each push binds one
// computation to a fresh variable at the current end of the list; get(result) wraps the result in
// the bindings, innermost last:
//
//   LetList ll;  Var* t = ll.push(code1, "t");  ll.push_effect(code2);  Node* n = ll.get(ref(t));
//   => (let ((t code1)) (begin code2 t))
//
// Invariants: statements keep their order, so effects happen in the order and number they were
// pushed, and a value bound once is computed once however often it is referenced. A mark() is an
// insertion point: insert_bind/insert_rec put code there later (a binding that must exist
// "where the object was created", above every later use); marks print nothing.
#pragma once

#include <list>

#include "core/gc.hpp"
#include "ir/ir.hpp"

namespace quasi {

struct LetStmt {
  enum Kind : uint8_t {
    kBind,    // (let ((var code)) <rest>)
    kEffect,  // (begin code <rest>)
    kRec,     // (letrec* ((vars codes) ...) <rest>)
    kMarker,  // an insertion point; prints nothing
  };
  Kind kind;
  Var* var = nullptr;
  Node* code = nullptr;
  gc_vector<Var*>* rec_vars = nullptr;
  gc_vector<Node*>* rec_codes = nullptr;
};

class LetList {
 public:
  using Stmts = std::list<LetStmt, gc_allocator<LetStmt>>;
  using Point = Stmts::iterator;

  // Binds `code` to a fresh variable named `name` (a symbol; `t` when it is not one).
  Var* push(Node* code, Value name);
  // Binds `code` to `var` (made by the caller, e.g. an assigned variable).
  void push_bind(Var* var, Node* code) { stmts_.push_back(LetStmt{LetStmt::kBind, var, code}); }
  // Evaluates `code` for its effects only.
  void push_effect(Node* code) { stmts_.push_back(LetStmt{LetStmt::kEffect, nullptr, code}); }
  // An insertion point at the current end.
  Point mark();
  // Inserts a binding (or a letrec group) just before `at`.
  void insert_bind(Point at, Var* var, Node* code) { stmts_.insert(at, LetStmt{LetStmt::kBind, var, code}); }
  // Inserts code evaluated for its effects just before `at`.
  void insert_effect(Point at, Node* code) { stmts_.insert(at, LetStmt{LetStmt::kEffect, nullptr, code}); }
  void insert_rec(Point at, gc_vector<Var*>* vars, gc_vector<Node*>* codes);
  // Drops every statement after the mark `at` (work that is undone: the partial evaluator
  // abandoning a runaway unfolding). Points past `at` become invalid.
  void truncate(Point at) { stmts_.erase(std::next(at), stmts_.end()); }
  // The code: every statement wrapped around `result`. The list may be used again afterwards.
  Node* get(Node* result) const;
  bool empty() const;

 private:
  Stmts stmts_;
};

}  // namespace quasi
