// ir.hpp — the core IR: what the expander produces and every later layer consumes.
//
// Twelve node kinds. After expansion there are no macros, no derived forms and no names left to
// look up: a local variable is a Var object (one per binding), a global is its GlobalCell.
// Nodes are GC-allocated (they hold Values) and carry the source location of the form they came
// from. Letrec has letrec* semantics (inits run left to right, each sees the earlier ones).
//
// Invariants the expander guarantees and the compiler relies on:
//  - every Var is bound by exactly one Lambda clause, Let or Letrec;
//  - Var::assigned is true iff some LocalSet targets it (set by the expander);
//  - Var::captured is computed by the compiler's analysis, never trusted from elsewhere.
#pragma once

#include "core/gc.hpp"
#include "core/object.hpp"
#include "core/srcloc.hpp"

namespace quasi {

enum class NodeKind : uint8_t {
  Const,
  LocalRef,
  LocalSet,
  GlobalRef,
  GlobalSet,  // also `define` at top level (is_define)
  If,
  Lambda,     // one clause, or several for case-lambda
  Call,
  PrimCall,   // a call to a known primitive (made by passes; the compiler also accepts Call)
  Let,
  Letrec,
  Seq,
};

struct Var {
  Value name;  // symbol, for printing and error messages
  uint32_t id;
  bool assigned = false;
  bool captured = false;
};

struct Node {
  NodeKind kind;
  SrcLoc loc;
  explicit Node(NodeKind k, SrcLoc l) : kind(k), loc(l) {}
};

struct ConstNode : Node {
  Value value;
  ConstNode(Value v, SrcLoc l) : Node(NodeKind::Const, l), value(v) {}
};
struct LocalRefNode : Node {
  Var* var;
  LocalRefNode(Var* v, SrcLoc l) : Node(NodeKind::LocalRef, l), var(v) {}
};
struct LocalSetNode : Node {
  Var* var;
  Node* value;
  LocalSetNode(Var* v, Node* e, SrcLoc l) : Node(NodeKind::LocalSet, l), var(v), value(e) {}
};
struct GlobalRefNode : Node {
  Value cell;  // GlobalCell
  GlobalRefNode(Value c, SrcLoc l) : Node(NodeKind::GlobalRef, l), cell(c) {}
};
struct GlobalSetNode : Node {
  Value cell;  // GlobalCell
  Node* value;
  bool is_define;  // `define` creates the binding; `set!` requires it to exist
  GlobalSetNode(Value c, Node* e, bool def, SrcLoc l)
      : Node(NodeKind::GlobalSet, l), cell(c), value(e), is_define(def) {}
};
struct IfNode : Node {
  Node* test;
  Node* then;
  Node* otherwise;  // a Const kUnspecified when absent
  IfNode(Node* t, Node* c, Node* a, SrcLoc l) : Node(NodeKind::If, l), test(t), then(c), otherwise(a) {}
};
struct LambdaClause {
  gc_vector<Var*> params;  // required parameters
  Var* rest = nullptr;     // rest parameter or null
  Node* body = nullptr;
};
struct LambdaNode : Node {
  Value name;  // symbol when known (define, let-bound), else #f
  gc_vector<LambdaClause*> clauses;
  LambdaNode(Value n, SrcLoc l) : Node(NodeKind::Lambda, l), name(n) {}
};
struct CallNode : Node {
  Node* fn;
  gc_vector<Node*> args;
  CallNode(Node* f, SrcLoc l) : Node(NodeKind::Call, l), fn(f) {}
};
struct PrimCallNode : Node {
  Value prim;  // Primitive
  gc_vector<Node*> args;
  PrimCallNode(Value p, SrcLoc l) : Node(NodeKind::PrimCall, l), prim(p) {}
};
struct LetNode : Node {  // NodeKind::Let or NodeKind::Letrec
  gc_vector<Var*> vars;
  gc_vector<Node*> inits;
  Node* body;
  LetNode(NodeKind k, SrcLoc l) : Node(k, l), body(nullptr) {}
};
struct SeqNode : Node {
  gc_vector<Node*> exprs;  // at least one
  explicit SeqNode(SrcLoc l) : Node(NodeKind::Seq, l) {}
};

Var* make_var(Value name);
// The IR as readable Scheme, e.g. (lambda (x) (+ x 1)): globals by name, locals by name, or
// name.id where two different variables (or a variable and a global) share a name.
Value ir_to_datum(Node* n);

}  // namespace quasi
