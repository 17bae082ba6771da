// reverse.cpp — reverse-mode AD of core IR, Zygote-style: every procedure becomes one that
// computes its value and returns it with a pullback closure (lib/ad/README.md).
//
// The forward code is the original computation in A-normal form (a LetList): each primitive call
// keeps its operands and result in variables, each call of a procedure f becomes a call of J(f)
// (obtained at run time by %ad-j, or directly for a procedure's own recursion), each `if` becomes
// an `if` whose arms return (value . pullback-of-the-arm). The backward code, inside the pullback,
// walks these steps in reverse and accumulates cotangents symbolically: a variable no derivative
// reaches has no cotangent at all (no code), one reached twice gets %ad-add.
#include "ad/reverse.hpp"

#include <cstring>
#include <map>
#include <string>

#include "core/error.hpp"
#include "core/object.hpp"
#include "core/prim.hpp"
#include "core/procedure.hpp"
#include "eval/environment.hpp"
#include "eval/expander.hpp"
#include "ir/free_vars.hpp"
#include "ir/functor.hpp"
#include "ir/let_list.hpp"
#include "ir/util.hpp"
#include "read/reader.hpp"
#include "vm/vm.hpp"

namespace quasi::ad {

struct RuleCache {
  Environment* core;
  TracedMap<const char*, LambdaNode*> rules;
  std::map<const char*, std::string> over;  // a partial (%ad-recip E) -> "(%ad-over d E)" (over_rule)
};

RuleCache* make_rule_cache(Environment* core) {
  RuleCache* c = gc_new<RuleCache>();
  c->core = core;
  return c;
}

Environment* rules_core(RuleCache& rules) { return rules.core; }

LetNode* named_let_call(CallNode* c) {
  if (c->fn->kind != NodeKind::Letrec) return nullptr;
  auto* l = static_cast<LetNode*>(c->fn);
  if (l->body->kind != NodeKind::LocalRef) return nullptr;
  Var* g = static_cast<LocalRefNode*>(l->body)->var;
  bool bound = false;
  for (Var* v : l->vars) bound = bound || v == g;
  if (!bound) return nullptr;
  auto* l2 = gc_new<LetNode>(NodeKind::Letrec, l->loc);
  l2->vars = l->vars;
  l2->inits = l->inits;
  auto* c2 = gc_new<CallNode>(l->body, c->loc);
  c2->args = c->args;
  l2->body = c2;
  return l2;
}

Var* self_variable(LambdaNode* src, Var** fvs, size_t nfv, bool* too_deep) {
  FreeVariables scan;
  scan.run(src);
  *too_deep = scan.truncated();
  if (*too_deep) return nullptr;
  TracedMap<Var*, bool> slots;
  for (size_t i = 0; i < nfv; i++) slots[fvs[i]] = true;
  Var* self = nullptr;
  for (Var* v : scan.lambdas[src].free)
    if (!slots.count(v)) self = v;
  return self;
}


const char* over_rule_text(RuleCache& rules, const char* text) {
  static constexpr char kPre[] = "(%ad-recip ";
  size_t n = std::strlen(text);
  if (std::strncmp(text, kPre, sizeof kPre - 1) != 0) return nullptr;
  int depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (text[i] == '(') depth++;
    if (text[i] == ')' && --depth == 0 && i != n - 1) return nullptr;
  }
  auto it = rules.over.find(text);
  if (it == rules.over.end()) it = rules.over.emplace(text, "(%ad-over d " + std::string(text + sizeof kPre - 1)).first;
  return it->second.c_str();
}

Node* instantiate_rule(RuleCache& rules, const char* text, Node* const vals[4]) {
  auto it = rules.rules.find(text);
  LambdaNode* lam;
  if (it != rules.rules.end()) {
    lam = it->second;
  } else {
    std::string src = std::string("(lambda (a b r d) ") + text + ")";
    StringSource in(src, intern_source_file("<derivative rule>"));
    Reader reader(in);
    Node* ir = expand_toplevel(reader.read(), rules.core, rules.core);
    if (ir->kind != NodeKind::Lambda) return nullptr;
    lam = static_cast<LambdaNode*>(ir);
    rules.rules[text] = lam;
  }
  auto* copy = static_cast<LambdaNode*>(copy_with_fresh_vars(lam));
  LambdaClause* c = copy->clauses[0];
  // Only the parameters the expression reads are bound: a binding nothing reads would still be a
  // free variable of a pullback closure, which would capture it (`(* a b)`'s partial for b is a
  // alone; particle's loop step captured 14 values where 6 are read).
  std::unordered_set<Var*> read;
  for_each_node(c->body, [&](Node* n) {
    if (n->kind == NodeKind::LocalRef) read.insert(static_cast<LocalRefNode*>(n)->var);
  });
  LetNode* let = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
  for (int i = 0; i < 4; i++) {
    if (!read.count(c->params[i])) continue;
    let->vars.push_back(c->params[i]);
    let->inits.push_back(vals[i]);
  }
  if (let->vars.empty()) return c->body;
  let->body = c->body;
  return let;
}

namespace {

// Renames the free variables of a copied lambda to the transformed code's variables; a variable
// the transformed code keeps in a cell (set! of a local) is read and written through the cell.
class Rename : public ExprMutator {
 public:
  Rename(TracedMap<Var*, Var*>& m, const TracedMap<Var*, bool>& cells, Value cell_ref, Value cell_set)
      : map_(m), cells_(cells), ref_(cell_ref), set_(cell_set) {}
  Node* visit_local_ref(LocalRefNode* n) override {
    auto it = map_.find(n->var);
    if (it == map_.end()) return n;
    if (cells_.count(n->var)) {
      auto* c = gc_new<PrimCallNode>(ref_, n->loc);
      c->args.push_back(gc_new<LocalRefNode>(it->second, n->loc));
      return c;
    }
    return gc_new<LocalRefNode>(it->second, n->loc);
  }
  Node* visit_local_set(LocalSetNode* n) override {
    Node* v = visit(n->value);
    auto it = map_.find(n->var);
    if (it == map_.end() && v == n->value) return n;
    if (it != map_.end() && cells_.count(n->var)) {
      auto* c = gc_new<PrimCallNode>(set_, n->loc);
      c->args.push_back(gc_new<LocalRefNode>(it->second, n->loc));
      c->args.push_back(v);
      return c;
    }
    Var* t = it == map_.end() ? n->var : it->second;
    t->assigned = true;
    return gc_new<LocalSetNode>(t, v, n->loc);
  }

 private:
  TracedMap<Var*, Var*>& map_;
  const TracedMap<Var*, bool>& cells_;
  Value ref_, set_;
};

// An operand in A-normal form: a variable or a constant.
struct Atom {
  Var* v = nullptr;
  Value c = kFalse;
};

struct Step {
  // kWrite: (vector-set! v i e) on a vector this code made (Reverse::vector_write); x is the
  // vector after the write, a version of its own, args are v before it, i and e.
  // kOwn: (%ad-own v), a version of a vector this code owns from here on (a loop's carried
  // vector, a version out of a call or an if): the identity.
  // kGroup: the closures of a letrec group whose procedures are free variables of each other
  // (args: the procedures; lays: per procedure, per slot of its layout, the index in outer of an
  // outer variable, or -1-j for the group's procedure j).
  // kFlag: an if whose arms are quiet and whose backward code reads no value the arm computed
  // (Reverse::branch_join): the forward code is the if itself, and the backward code tests the
  // same test (args[0]) and runs the taken arm's code: no pullback closure, no pair. flag_arms
  // holds, per outer variable k, the two arms' code for its cotangent at 2k and 2k+1, each
  // (let ((d <placeholder>)) ...), copied and given the if's cotangent where written; or, when the arms' code is
  // large, one pair of arms yielding the vector of outer's cotangents (flag_vector).
  enum Kind : uint8_t { kPrim, kCall, kBranch, kClosure, kWrite, kOwn, kGroup, kFlag };
  explicit Step(Kind k) : kind(k) {}
  Kind kind;
  Var* x = nullptr;   // the primal result
  Var* pb = nullptr;  // kCall, kBranch: the pullback
  Primitive* prim = nullptr;
  const DerivativeRule* rule = nullptr;
  Atom fn;            // kCall: the callee (unused for a self call)
  Var* jf = nullptr;  // kCall: J of the callee (unused for a self call)
  bool self_call = false;
  bool apply = false;  // kCall through `apply`: the last argument is the list of the rest
  bool apply_values = false;  // kCall through %apply-values (call-with-values): the one argument
                              // is the producer's values
  gc_vector<Atom> args;
  gc_vector<Var*> outer;  // kBranch: the outer variables of its vector; kClosure: the layout
  std::vector<std::vector<int64_t>> lays;  // kGroup
  // kBranch: whether an arm's backward code may move a cell's adjoint (it has calls, branches or
  // cell operations). A quiet arm's pullback, given the zero, returns zeros and does nothing.
  bool quiet_arms = false;  // both arms are quiet
  Var* effectful = nullptr;  // one arm is: #t when the arm taken is the effectful one
  gc_vector<LetNode*> flag_arms;  // kFlag
  bool flag_vector = false;
};

using Steps = std::vector<Step, scratch_allocator<Step>>;
using Adj = TracedMap<Var*, Var*>;

struct Block {
  LetList fwd;
  Steps steps;
  TracedMap<Var*, bool> bound;
};

// An arm of an if (Reverse::branch): its forward block, value and backward code.
struct BranchArm {
  Block blk;
  Atom result;
  Var* d;
  Adj adj;
  gc_vector<Var*> order;
  LetList bwd;
  TracedMap<Var*, Var*> env;      // env_ at the arm's end
  TracedMap<Var*, Value> escaped;  // escaped_vectors_ at the arm's end
};

// An if in tail position of a procedure's body (Reverse::branch): its arms, whose pullbacks
// pullback_clause makes the procedure's own.
struct TailBranch {
  bool taken = false;
  Atom test;
  SrcLoc loc;
  BranchArm arms[2];
};

// The forward sweep is a functor over the IR (ir/functor.hpp): one visit_* per node kind, each
// returning the atom that holds the node's value in the current block.
class Reverse : private ExprFunctor<Atom(Node*)> {
 public:
  Reverse(Vm& vm, RuleCache& rules, Value name, bool assume_quiet)
      : vm_(vm), rules_(rules), name_(name), assume_quiet_(assume_quiet) {}
  // Whether the procedure is quiet: no cell operation and no call other than its own recursion
  // (and primitives). Its pullback, given the zero, then returns zeros and moves no cell's
  // adjoint, so a caller need not run it for a call no cotangent reaches (%ad-j-quiet?).
  bool quiet() const { return !noisy_; }

  LambdaNode* maker(LambdaNode* src, Var** fvs, const bool* boxed, size_t nfv);
  LambdaNode* carrying(LambdaNode* lam, const std::vector<size_t>& ks, bool returns);

 private:
  Vm& vm_;
  RuleCache& rules_;
  Value name_;
  // A second transformation of a procedure the first one found quiet: its own recursion's and
  // ifs' pullbacks need not run for an unreached value either.
  bool assume_quiet_ = false;
  bool noisy_ = false;  // a call of another procedure or a cell operation was transformed
  // Closures this code makes, by the variable holding them: the source lambda and the variable
  // it reads itself from (a letrec's), for quiet_local.
  TracedMap<Var*, std::pair<LambdaNode*, Var*>> local_lambdas_;
  bool quiet_local(Var* f);
  TracedMap<Var*, Var*> env_;  // source variable -> transformed code's variable
  Var* self_src_ = nullptr;     // the source's name for the closure itself (letrec self)
  Var* self_ = nullptr;         // maker parameter: the closure
  Var* jself_ = nullptr;        // the closure's J, for direct recursion
  Var** fvs_ = nullptr;         // the closure's free variables (source), in its layout
  size_t nfv_ = 0;
  Block* cur_ = nullptr;
  // Variables whose value may depend on the procedure's arguments or free variables (static
  // activity): only they get cotangents, and code that reads none of them is left as it is.
  TracedMap<Var*, bool> active_;
  // Source variables the transformed code keeps in a cell (assigned ones), and the transformed
  // code's variables that hold cells: always active (a closure over one is), never given a
  // cotangent of their own (the cell's adjoint is a cell, lib/ad/README.md "set!").
  TracedMap<Var*, bool> cell_src_;
  TracedMap<Var*, bool> cell_vars_;
  TracedMap<Var*, bool> made_cells_;  // cells this code makes (never a compiler's box)
  // Vectors this code made (make-vector, vector): each write makes a new version of the variable
  // (vector_write), the block it was made in. A vector that escaped (passed to a procedure, stored,
  // captured, returned by an if) may be read by code that does not see the versions: written after
  // that, it is refused. escaped_vectors_ holds how it escaped (a string: "passed to keep!"), which
  // the refusal names: the place to change is where it escaped, not where it is written.
  TracedMap<Var*, Block*> made_vectors_;
  TracedMap<Var*, Value> escaped_vectors_;
  static Value why(const std::string& how) { return make_string_utf8(how); }
  static std::string name_of(Value name, const char* otherwise) {
    return is_symbol(name) ? symbol_name(name) : std::string(otherwise);
  }
  void escape(Var* v, Value how) {
    if (v && made_vectors_.count(v) && !escaped_vectors_.count(v)) escaped_vectors_[v] = how;
  }
  void note_uses(Primitive* p, const gc_vector<Atom>& args) {
    if (made_vectors_.empty()) return;
    for (size_t i = 0; i < args.size(); i++) {
      if (!args[i].v || !made_vectors_.count(args[i].v)) continue;
      const PrimFacts& f = p ? p->facts : PrimFacts{};
      bool reads = p && i == 0 &&
                   (f.structure == Structure::kVectorRef || f.structure == Structure::kVectorLength ||
                    f.inline_op == InlineOp::kVectorSet);
      if (!reads) escape(args[i].v, why(p && p->name ? std::string("given to ") + p->name : std::string("stored")));
    }
  }
  void note_escape(Var* v, const char* how) { escape(v, why(how)); }
  Value escaped_how(Var* v) {
    auto it = v ? escaped_vectors_.find(v) : escaped_vectors_.end();
    return it == escaped_vectors_.end() ? kFalse : it->second;
  }
  Atom vector_write(Primitive* p, const gc_vector<Atom>& args);
  // Blocks enclosing the current one (the body, the arms of the ifs around), innermost last: a
  // vector made in one of them may be written here, each write a version of it (an if whose arm
  // wrote it joins the arms' versions).
  std::vector<Block*> blocks_;
  TailBranch* tail_branch_ = nullptr;  // where the procedure's tail if goes (pullback_clause)
  bool in_scope(Var* v) {
    auto it = made_vectors_.find(v);
    if (it == made_vectors_.end()) return false;
    for (Block* b : blocks_)
      if (b == it->second) return true;
    return false;
  }
  bool owned(Var* v) { return v && in_scope(v) && !escaped_vectors_.count(v); }
  // Whether the node being visited is in tail position of the procedure's body (nothing of the
  // source runs after it: an if there needs no join of its arms' versions).
  bool tail_ = false;
  // Loops that carry vectors (carry_group): a source letrec variable -> the source variables
  // naming the vectors its procedure takes as extra arguments and returns with its value.
  TracedMap<Var*, gc_vector<Var*>*> carry_;
  Atom own(const Atom& a);
  Atom call_step(Node* fn_node, const Atom& fn, const gc_vector<Atom>& args);
  Value core_cell(const char* name) { return rules_.core->cell_for(intern(name)); }
  Atom carry_call(Node* fn, const gc_vector<Node*>& args, const gc_vector<Node*>& carried, bool aliased);
  void rebind(Var* from, Var* to) {
    for (auto& [src, t] : env_)
      if (t == from) t = to;
  }
  void carry_group(LetNode* n, gc_vector<Var*>& vars, gc_vector<Node*>& codes);
  bool carry_uses_ok(Node* e, Var* w, bool tail, bool* returned);
  void note_uncarried(const gc_vector<Node*>& codes, Var* w, Value escaped);
  bool dynamic_carry(CallNode* c, const Atom& fn, const gc_vector<Atom>& args, Atom* out);
  Node* each_loop(CallNode* c);
  // Groups that may return a carried vector as their value: the versions a call of one takes back
  // alias that value, so they count as escaped (a write through them is refused).
  TracedMap<Var*, bool> carry_returns_;
  Node* carry_rewrite(Node* e, bool tail, const std::vector<Var*>& group, const gc_vector<Var*>& vs, bool aliased);
  bool act(const Atom& a) const { return a.v && active_.count(a.v); }
  Value prim_value(const char* name) { return rules_.core->cell_for(intern(name)).as<GlobalCell>()->value; }
  Primitive* prim(const char* name) { return prim_value(name).as<Primitive>(); }
  Node* rename(Node* copy) {
    TracedMap<Var*, Var*> map(env_.begin(), env_.end());
    if (self_src_) map[self_src_] = self_;
    return Rename(map, cell_src_, prim_value("%ad-cell-ref"), prim_value("%ad-cell-set!")).visit(copy);
  }
  // An assigned source variable src whose value is `init`: kept in a cell from here on.
  void make_cell(Var* src, const Atom& init) {
    Atom c = cell_op(prim("%ad-cell"), p_rule("%ad-cell"), gc_vector<Atom>{init}, src->name);
    env_[src] = c.v;
    cell_src_[src] = true;
  }
  const DerivativeRule* p_rule(const char* name) { return prim(name)->facts.derivative; }
  Var* activate(Var* v, bool on) {
    if (on) active_[v] = true;
    return v;
  }

  [[noreturn]] void refuse(const std::string& what) {
    std::string in = is_symbol(name_) ? symbol_name(name_) : std::string("an anonymous procedure");
    throw_error("grad", what + " in " + in);
  }

  // ---- building nodes ----
  static Node* ref(Var* v) { return gc_new<LocalRefNode>(v, SrcLoc{}); }
  static Node* cst(Value v) { return gc_new<ConstNode>(v, SrcLoc{}); }
  static Node* atom(const Atom& a) { return a.v ? ref(a.v) : cst(a.c); }
  // The zero cotangent of every shape (scheme/prelude/70-ad.scm): a symbol, never a number.
  static Node* zero() { return cst(intern("%ad-zero")); }
  // (if (eq? d zero) zero code): a scalar rule's contribution, zero without computing it.
  Node* unless_zero(Var* d, Node* code) {
    return gc_new<IfNode>(gcall("eq?", {ref(d), zero()}), zero(), code, SrcLoc{});
  }
  Node* global(const char* name) {
    return gc_new<GlobalRefNode>(rules_.core->cell_for(intern(name)), SrcLoc{});
  }
  Node* gcall(const char* name, std::initializer_list<Node*> args) {
    CallNode* c = gc_new<CallNode>(global(name), SrcLoc{});
    for (Node* a : args) c->args.push_back(a);
    return c;
  }
  static Node* call(Node* fn, const gc_vector<Node*>& args) {
    CallNode* c = gc_new<CallNode>(fn, SrcLoc{});
    c->args = args;
    return c;
  }
  static Var* fresh(Value name) { return make_var(is_symbol(name) ? name : intern("t")); }
  Var* push(Block& b, Node* code, const char* name) {
    Var* v = b.fwd.push(code, intern(name));
    b.bound[v] = true;
    return v;
  }
  void bind(Block& b, Var* v, Node* code) {
    b.fwd.push_bind(v, code);
    b.bound[v] = true;
  }
  Node* list_of(const gc_vector<Atom>& xs) {
    CallNode* c = gc_new<CallNode>(global("list"), SrcLoc{});
    for (const Atom& a : xs) c->args.push_back(atom(a));
    return c;
  }

  // ---- forward ----
  Atom expr(Node* n, bool tail = false) {
    bool saved = tail_;
    tail_ = tail;
    Atom a = visit(n);
    tail_ = saved;
    return a;
  }
  Atom visit_const(ConstNode* n) override;
  Atom visit_local_ref(LocalRefNode* n) override;
  Atom visit_local_set(LocalSetNode* n) override;
  Atom visit_global_ref(GlobalRefNode* n) override;
  Atom visit_global_set(GlobalSetNode* n) override;
  Atom visit_if(IfNode* n) override { return branch(n); }
  Atom visit_lambda(LambdaNode* n) override;
  Atom visit_call(CallNode* n) override { return call_node(n); }
  Atom visit_prim_call(PrimCallNode* n) override { return call_node(n); }
  Atom visit_let(LetNode* n) override;
  Atom visit_letrec(LetNode* n) override;
  Atom visit_seq(SeqNode* n) override;
  Atom closure(LambdaNode* lam, Var* self_out, Var* x);
  Atom call_node(Node* n);
  Atom prim_call(Primitive* p, gc_vector<Atom> args);
  Atom cell_op(Primitive* p, const DerivativeRule* rule, gc_vector<Atom> args, Value name = kFalse);
  Atom branch(IfNode* n);
  Atom branch_join(IfNode* n, Block& b, const Atom& t, BranchArm* arms);
  bool flag_branch(IfNode* n, Block& b, const Atom& t, BranchArm* arms, const gc_vector<Var*>& outer);
  void letrec(LetNode* n);
  bool split_letrec(LetNode* n);

  // ---- backward ----
  Node* instantiate(const char* text, const gc_vector<Atom>& args, Var* r, Var* d);
  const char* over_rule(const char* text);
  void add(Adj& adj, gc_vector<Var*>& order, LetList& out, Var* v, Var* c);
  // Cotangents built as pairs by the backward code (a c[ad]+r's: (cons zero d)), by the variable
  // holding one: add() of two of them is the pair of the sums, built here, instead of %ad-add
  // walking two lists at run time ((car g) and (cadr g) of a list g gave three pairs and a call of
  // %ad-add, which made two more). The pairs then unused are dropped (drop_dead_pairs).
  TracedMap<Var*, Node*> pair_cots_;
  static bool is_zero(Node* n) { return n->kind == NodeKind::Const && static_cast<ConstNode*>(n)->value == intern("%ad-zero"); }
  CallNode* as_pair(Node* n) {
    if (n->kind != NodeKind::Call) return nullptr;
    auto* c = static_cast<CallNode*>(n);
    bool cons = c->fn->kind == NodeKind::GlobalRef && static_cast<GlobalRefNode*>(c->fn)->cell == core_cell("cons");
    return cons && c->args.size() == 2 ? c : nullptr;
  }
  Node* rebuild(Node* n) {
    if (CallNode* c = as_pair(n)) return gcall("cons", {rebuild(c->args[0]), rebuild(c->args[1])});
    if (n->kind == NodeKind::LocalRef) return ref(static_cast<LocalRefNode*>(n)->var);
    return cst(static_cast<ConstNode*>(n)->value);
  }
  Node* sum_pairs(Node* a, Node* b, LetList& out);

 public:
  Node* drop_dead_pairs(Node* code);

 private:
  void backward(Block& b, const Atom& result, Var* d, Adj& adj, gc_vector<Var*>& order, LetList& out);
  Node* pullback_clause(LambdaClause* c, Var* self_out, Var** fvs, size_t nfv, gc_vector<Var*>* params,
                        Var* rest);
  LambdaNode* pullback(Var* d, Adj& adj, LetList& out, Var* self_out, Var** fvs, size_t nfv,
                       gc_vector<Var*>* params, Var* rest);
};

// ---- forward ----------------------------------------------------------------------------------

Atom Reverse::visit_const(ConstNode* n) { return Atom{nullptr, n->value}; }

Atom Reverse::visit_local_ref(LocalRefNode* n) {
  Var* v = n->var;
  if (v == self_src_) return Atom{self_};
  auto it = env_.find(v);
  if (it == env_.end()) refuse("internal error: unbound variable");
  if (cell_src_.count(v)) return cell_op(prim("%ad-cell-ref"), p_rule("%ad-cell-ref"), gc_vector<Atom>{Atom{it->second}});
  return Atom{it->second};
}

Atom Reverse::visit_global_ref(GlobalRefNode* n) {
  return Atom{push(*cur_, gc_new<GlobalRefNode>(n->cell, n->loc), "g")};
}

Atom Reverse::visit_local_set(LocalSetNode* n) {
  Var* v = n->var;
  auto it = env_.find(v);
  if (it != env_.end() && cell_src_.count(v)) {
    Var* cell = it->second;
    Atom val = expr(n->value);
    return cell_op(prim("%ad-cell-set!"), p_rule("%ad-cell-set!"), gc_vector<Atom>{Atom{cell}, val});
  }
  refuse("set! of the local variable " + (is_symbol(v->name) ? symbol_name(v->name) : std::string("?")) +
         " is not supported");
}

Atom Reverse::visit_global_set(GlobalSetNode*) { refuse("define or set! of a global variable is not supported"); }

Atom Reverse::visit_lambda(LambdaNode* n) { return closure(n, nullptr, fresh(n->name)); }

Atom Reverse::visit_let(LetNode* l) {
  Block& b = *cur_;
  gc_vector<Atom> vals;
  for (Node* i : l->inits) vals.push_back(expr(i));
  for (size_t k = 0; k < l->vars.size(); k++) {
    Var* src = l->vars[k];
    if (vals[k].v && !src->assigned) {
      env_[src] = vals[k].v;  // an alias: the same variable
    } else if (src->assigned) {
      make_cell(src, vals[k]);
    } else {
      Var* v = fresh(src->name);
      v->assigned = src->assigned;
      bind(b, v, atom(vals[k]));
      activate(v, act(vals[k]));
      env_[src] = v;
    }
  }
  return expr(l->body, tail_);
}

// A group of values and lambdas, nothing assigned, cut into groups differentiated in turn: each
// value alone, in order, and the lambdas before it that it refers to (or, at the end, all that
// are left) as a group of their own, which may refer to each other and to the values before it.
// Making a closure has no effect, so a lambda may be made later than written as long as no
// value made in between refers to it. (Mutual recursion over a value, (letrec ((k (* 2 x)) (ev
// (lambda ... od ...)) (od (lambda ... ev ...))) ...), and a lambda referring to a later value
// that a later call reads, (letrec* ((h (lambda (y) (* y c))) (c (* x 3)) (d (h x))) d), were
// refused as 'values refer to later ones'; the second one only without the optimizer, which
// inlines h.) False, for the general case, when a lambda a value needs refers to that value or
// a later one, or a value's init has a lambda of its own.
bool Reverse::split_letrec(LetNode* n) {
  std::vector<LetNode*> parts;
  LetNode* pending = nullptr;  // the lambdas not yet made
  auto refers_to = [](Node* init, const gc_vector<Var*>& vars, bool* has_lambda) {
    bool r = false;
    for_each_node(init, [&](Node* m) {
      if (m->kind == NodeKind::Lambda && has_lambda) *has_lambda = true;
      if (m->kind != NodeKind::LocalRef) return;
      for (Var* v : vars) r = r || static_cast<LocalRefNode*>(m)->var == v;
    });
    return r;
  };
  for (size_t i = 0; i < n->vars.size(); i++) {
    if (n->vars[i]->assigned) return false;
    if (n->inits[i]->kind == NodeKind::Lambda) {
      if (!pending) pending = gc_new<LetNode>(n->kind, n->loc);
      pending->vars.push_back(n->vars[i]);
      pending->inits.push_back(n->inits[i]);
      continue;
    }
    bool has_lambda = false;
    gc_vector<Var*> later(n->vars.begin() + i, n->vars.end());  // this value and the ones after
    if (refers_to(n->inits[i], later, &has_lambda)) return false;
    if (pending && refers_to(n->inits[i], pending->vars, &has_lambda)) {
      // the lambdas are made first: none may refer to this value or a later variable
      for (Node* init : pending->inits)
        if (refers_to(init, later, nullptr)) return false;
      parts.push_back(pending);
      pending = nullptr;
    }
    if (has_lambda) return false;  // (not the direct form's values)
    LetNode* value = gc_new<LetNode>(n->kind, n->loc);
    value->vars.push_back(n->vars[i]);
    value->inits.push_back(n->inits[i]);
    parts.push_back(value);
  }
  if (pending) parts.push_back(pending);
  bool lambdas = false, values = false;
  for (LetNode* p : parts) (p->inits[0]->kind == NodeKind::Lambda ? lambdas : values) = true;
  if (!lambdas || !values) return false;
  for (LetNode* p : parts) {
    p->body = n->body;
    letrec(p);
  }
  return true;
}

Atom Reverse::visit_letrec(LetNode* n) {
  letrec(n);
  return expr(n->body, tail_);
}

Atom Reverse::visit_seq(SeqNode* s) {
  Atom last;
  for (size_t i = 0; i < s->exprs.size(); i++) last = expr(s->exprs[i], tail_ && i + 1 == s->exprs.size());
  return last;
}

// A lambda the code evaluates: the same closure (a copy of its code over the transformed code's
// variables), and a step that sends the closure's cotangent to its free variables.
Atom Reverse::closure(LambdaNode* lam, Var* self_out, Var* x) {
  Node* copy = copy_with_fresh_vars(lam);
  if (!copy) refuse("the code is nested too deeply");
  copy = rename(copy);
  auto* l = static_cast<LambdaNode*>(copy);
  if (!self_out) bind(*cur_, x, l);
  if (!self_out) local_lambdas_[x] = {lam, nullptr};
  std::vector<Var*> fv = closure_layout(l, self_out);
  Step s{Step::kClosure};
  s.x = x;
  bool on = false;
  for (Var* v : fv) {
    note_escape(v, "captured by a closure");
    s.outer.push_back(v);
    on = on || active_.count(v);
  }
  activate(x, on);
  if (on) cur_->steps.push_back(s);
  // returned for the letrec case too; the caller binds it there
  (void)copy;
  return Atom{x};
}

void Reverse::letrec(LetNode* n) {
  Block& b = *cur_;
  bool all_lambdas = true;
  for (size_t i = 0; i < n->vars.size(); i++)
    if (n->inits[i]->kind != NodeKind::Lambda || n->vars[i]->assigned) all_lambdas = false;
  if (!all_lambdas && split_letrec(n)) return;
  if (!all_lambdas) {
    // letrec* of other values: evaluated in order; a lambda that refers to a later variable of
    // the group is refused (it would need the compiler's boxes).
    // A letrec's inits-first form (expander.cpp, letrec_inits_first): the first init sets the
    // later variables, whose own inits are references to themselves. Their cells are made
    // before the first init runs (holding the unbound marker), and their own inits are nothing.
    std::vector<bool> set_early(n->vars.size(), false);
    bool inits_first = false;
    for (size_t i = 1; i < n->vars.size(); i++) {
      Node* init = n->inits[i];
      if (n->vars[i]->assigned && init->kind == NodeKind::LocalRef &&
          static_cast<LocalRefNode*>(init)->var == n->vars[i]) {
        make_cell(n->vars[i], Atom{nullptr, kUnbound});
        set_early[i] = inits_first = true;
      }
    }
    auto refers = [&](Node* init, Var* v) {
      bool r = false;
      for_each_node(init, [&](Node* m) {
        if (m->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(m)->var == v) r = true;
      });
      return r;
    };
    // In the inits-first form the first init evaluates all the inits: a lambda among them that
    // refers to the first variable (bound when that init returns) reads it from a cell made
    // before, as the later variables are, set when the init returns. (A read outside a lambda
    // reads it before its initialization: still refused below.)
    auto read_directly = [&](Node* init, Var* v) {
      std::unordered_set<Node*> all, in_lambdas;
      for_each_node(init, [&](Node* m) {
        if (m->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(m)->var == v) all.insert(m);
        if (m->kind == NodeKind::Lambda)
          for_each_node(m, [&](Node* k) {
            if (k->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(k)->var == v) in_lambdas.insert(k);
          });
      });
      return all.size() > in_lambdas.size();
    };
    bool first_cell = inits_first && !n->vars[0]->assigned && refers(n->inits[0], n->vars[0]) &&
                      !read_directly(n->inits[0], n->vars[0]);
    if (first_cell) make_cell(n->vars[0], Atom{nullptr, kUnbound});
    for (size_t i = 0; i < n->vars.size(); i++) {
      if (set_early[i]) continue;
      for (size_t j = i; j < n->vars.size(); j++) {
        if (set_early[j] || (j == 0 && first_cell)) continue;  // in a cell already
        if (refers(n->inits[i], n->vars[j])) refuse("a letrec whose values refer to later ones is not supported");
      }
      Atom a = expr(n->inits[i]);
      if (i == 0 && first_cell) {
        cell_op(prim("%ad-cell-set!"), p_rule("%ad-cell-set!"), gc_vector<Atom>{Atom{env_[n->vars[0]]}, a});
        continue;
      }
      if (n->vars[i]->assigned) {
        make_cell(n->vars[i], a);
        continue;
      }
      // A variable's value is an alias, as in visit_let: a fresh copy would have no backward
      // step, and the cotangent reaching it would stop there (a zero gradient).
      if (a.v) {
        env_[n->vars[i]] = a.v;
        continue;
      }
      Var* v = fresh(n->vars[i]->name);
      bind(b, v, atom(a));
      activate(v, act(a));
      env_[n->vars[i]] = v;
    }
    return;
  }
  auto* vars = gc_new<gc_vector<Var*>>();
  auto* codes = gc_new<gc_vector<Node*>>();
  for (Var* src : n->vars) {
    Var* v = fresh(src->name);
    env_[src] = v;
    vars->push_back(v);
  }
  LetList::Point at = b.fwd.mark();
  bool group_active = false;
  for (size_t i = 0; i < n->vars.size(); i++) {
    auto* lam = static_cast<LambdaNode*>(n->inits[i]);
    Node* copy = copy_with_fresh_vars(lam);
    if (!copy) refuse("the code is nested too deeply");
    codes->push_back(rename(copy));
  }
  carry_group(n, *vars, *codes);
  if (!carry_.count(n->vars[0]))
    for (size_t i = 0; i < n->vars.size(); i++)
      local_lambdas_[(*vars)[i]] = {static_cast<LambdaNode*>(n->inits[i]), n->vars[i]};
  std::vector<std::vector<Var*>> fvs;
  bool cross = false;  // a procedure of the group is a free variable of one of them
  for (size_t i = 0; i < n->vars.size(); i++) {
    Var* v = (*vars)[i];
    b.bound[v] = true;
    fvs.push_back(closure_layout(static_cast<LambdaNode*>((*codes)[i]), v));
    for (Var* w : fvs.back()) {
      note_escape(w, "captured by a local procedure");
      if (active_.count(w)) group_active = true;
      for (Var* g : *vars) cross = cross || w == g;
    }
  }
  if (!cross) {
    for (size_t i = 0; i < n->vars.size(); i++) {
      Step s{Step::kClosure};
      s.x = (*vars)[i];
      for (Var* w : fvs[i]) s.outer.push_back(w);
      b.steps.push_back(s);
    }
  } else {
    // Mutual recursion: a procedure's cotangent holds the cotangents of the group's procedures it
    // calls, whose cotangents hold those of the ones they call, ... One step for the group sends
    // them all to the group's outer variables (%ad-group-cot).
    Step s{Step::kGroup};
    s.x = (*vars)[0];
    TracedMap<Var*, int64_t> outer_index;
    for (size_t i = 0; i < n->vars.size(); i++) {
      s.args.push_back(Atom{(*vars)[i]});
      std::vector<int64_t> lay;
      for (Var* w : fvs[i]) {
        int64_t member = -1;
        for (size_t j = 0; j < vars->size(); j++)
          if ((*vars)[j] == w) member = int64_t(j);
        if (member >= 0) {
          lay.push_back(-1 - member);
          continue;
        }
        if (!outer_index.count(w)) {
          outer_index[w] = int64_t(s.outer.size());
          s.outer.push_back(w);
        }
        lay.push_back(outer_index[w]);
      }
      s.lays.push_back(lay);
    }
    b.steps.push_back(s);
  }
  b.fwd.insert_rec(at, vars, codes);
  // The group's closures are active together (they reach each other's free variables).
  for (Var* v : *vars) activate(v, group_active);
}

// ---- loops that write vectors ----------------------------------------------------------------
//
// A letrec group of procedures (a named let, a do loop) whose code refers to vectors this code
// owns (made_vectors_, not escaped) would capture them: writes inside it would be writes of a
// vector the loop did not make. Instead the group *carries* them: each procedure takes them as
// extra parameters, owns them ((let ((v (%ad-own p))) ...): its writes are versions, as in
// straight-line code) and returns (vector value version ...) from each tail position that is not
// a call of the group; a call of the group in tail position returns what the callee returns, any
// other call is (%ad-unpack (g a ... v ...) k), whose versions the caller owns from then on
// (carry_call). Only when the group cannot let them escape: the group's names are only called
// (not from a lambda nested in the group's procedures), and the vectors are only read, written or
// measured (vector-ref, vector-set!, vector-length), also by loops nested in the group's that
// satisfy the same conditions (they carry them in turn when transformed).

namespace {

bool single_clause(Node* n) {
  if (n->kind != NodeKind::Lambda) return false;
  auto* l = static_cast<LambdaNode*>(n);
  return l->clauses.size() == 1 && !l->clauses[0]->rest;
}

// ((letrec* ((g (lambda ...)) ...) g) a ...): the letrec and g, or null.
LetNode* loop_call(Node* n, Var** g) {
  if (n->kind != NodeKind::Call) return nullptr;
  auto* c = static_cast<CallNode*>(n);
  if (c->fn->kind != NodeKind::Letrec) return nullptr;
  auto* l = static_cast<LetNode*>(c->fn);
  if (l->body->kind != NodeKind::LocalRef) return nullptr;
  *g = static_cast<LocalRefNode*>(l->body)->var;
  for (Var* v : l->vars)
    if (v == *g) return l;
  return nullptr;
}

bool in_set(const std::vector<Var*>& s, Var* v) {
  for (Var* w : s)
    if (w == v) return true;
  return false;
}

// Whether the variables `names` occur in e only as the operator of calls, and not inside a
// lambda of e (when in_lambda: not at all).
bool only_called(Node* e, const std::vector<Var*>& names, bool in_lambda) {
  switch (e->kind) {
    case NodeKind::LocalRef:
      return !in_set(names, static_cast<LocalRefNode*>(e)->var);
    case NodeKind::Call: {
      auto* c = static_cast<CallNode*>(e);
      Var* g = nullptr;
      if (LetNode* l = loop_call(e, &g)) {
        for (Node* i : l->inits)
          if (!only_called(i, names, in_lambda)) return false;
      } else if (c->fn->kind == NodeKind::LocalRef && in_set(names, static_cast<LocalRefNode*>(c->fn)->var)) {
        if (in_lambda) return false;
      } else if (!only_called(c->fn, names, in_lambda)) {
        return false;
      }
      for (Node* a : c->args)
        if (!only_called(a, names, in_lambda)) return false;
      return true;
    }
    case NodeKind::Lambda:
      for (LambdaClause* cl : static_cast<LambdaNode*>(e)->clauses)
        if (!only_called(cl->body, names, true)) return false;
      return true;
    default: {
      bool ok = true;
      for_each_child_slot(e, [&](Node*& ch) { ok = ok && only_called(ch, names, in_lambda); });
      return ok;
    }
  }
}

}  // namespace

namespace {

// (lambda, parameter) pairs whose carrying is being decided: a recursion assumes it can.
using Seen = std::vector<std::pair<LambdaNode*, size_t>>;
bool carryable_value(Environment* core, Value f, const std::vector<size_t>& ks, bool* returns, Seen& seen);

// Whether the owned vector w is only read, written or measured in e, directly or by nested loops
// that could carry it (their names only called, their procedures of one clause), or is e's value
// in tail position of a procedure of the group (*returned: the loop may return the vector).
bool uses_ok(Environment* core, Node* e, Var* w, bool tail, bool* returned, Seen& seen) {
  const gc_vector<Node*>* argn = nullptr;
  Primitive* p = (e->kind == NodeKind::Call || e->kind == NodeKind::PrimCall) ? called_primitive(e, core, &argn) : nullptr;
  if (p && !argn->empty() && (*argn)[0]->kind == NodeKind::LocalRef &&
      static_cast<LocalRefNode*>((*argn)[0])->var == w &&
      (p->facts.structure == Structure::kVectorRef || p->facts.structure == Structure::kVectorLength ||
       p->facts.inline_op == InlineOp::kVectorSet)) {
    for (size_t i = 1; i < argn->size(); i++)
      if (!uses_ok(core, (*argn)[i], w, false, returned, seen)) return false;
    return true;
  }
  // passed to a procedure held by a global that carries it in turn (carryable, below): the call
  // takes the vector's version and returns the one after it (a dynamic carry, Reverse::call_node)
  if (!p && e->kind == NodeKind::Call && static_cast<CallNode*>(e)->fn->kind == NodeKind::GlobalRef) {
    auto* c = static_cast<CallNode*>(e);
    std::vector<size_t> ks;
    for (size_t i = 0; i < c->args.size(); i++) {
      Node* a = c->args[i];
      if (a->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(a)->var == w) ks.push_back(i);
      else if (!uses_ok(core, a, w, false, returned, seen)) return false;
    }
    if (!ks.empty()) {
      if (ks.size() > 1) return false;  // passed twice: two names in the callee
      bool ret = false;
      if (!carryable_value(core, static_cast<GlobalRefNode*>(c->fn)->cell.as<GlobalCell>()->value, ks, &ret, seen))
        return false;
      if (ret && !tail) return false;  // the call's value may be the vector
      if (ret) *returned = true;
      return true;
    }
  }
  Var* g = nullptr;
  LetNode* loop = e->kind == NodeKind::Letrec ? static_cast<LetNode*>(e) : loop_call(e, &g);
  if (loop) {
    std::vector<Var*> names(loop->vars.begin(), loop->vars.end());
    for (Node* i : loop->inits) {
      if (!single_clause(i)) return false;
      Node* body = static_cast<LambdaNode*>(i)->clauses[0]->body;
      if (!only_called(body, names, false) || !uses_ok(core, body, w, false, returned, seen)) return false;
    }
    if (e->kind == NodeKind::Letrec)
      return only_called(loop->body, names, false) && uses_ok(core, loop->body, w, tail, returned, seen);
    for (Node* a : static_cast<CallNode*>(e)->args)
      if (!uses_ok(core, a, w, false, returned, seen)) return false;
    return true;
  }
  switch (e->kind) {
    case NodeKind::LocalRef:
      if (static_cast<LocalRefNode*>(e)->var != w) return true;
      if (tail) *returned = true;
      return tail;
    case NodeKind::Lambda: {
      bool refers = false;
      for_each_node(e, [&](Node* m) {
        if (m->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(m)->var == w) refers = true;
      });
      return !refers;
    }
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(e);
      return uses_ok(core, i->test, w, false, returned, seen) && uses_ok(core, i->then, w, tail, returned, seen) &&
             uses_ok(core, i->otherwise, w, tail, returned, seen);
    }
    case NodeKind::Let: {
      auto* l = static_cast<LetNode*>(e);
      for (Node* i : l->inits)
        if (!uses_ok(core, i, w, false, returned, seen)) return false;
      return uses_ok(core, l->body, w, tail, returned, seen);
    }
    case NodeKind::Seq: {
      auto* q = static_cast<SeqNode*>(e);
      for (size_t k = 0; k < q->exprs.size(); k++)
        if (!uses_ok(core, q->exprs[k], w, tail && k + 1 == q->exprs.size(), returned, seen)) return false;
      return true;
    }
    default: {
      bool ok = true;
      for_each_child_slot(e, [&](Node*& ch) { ok = ok && uses_ok(core, ch, w, false, returned, seen); });
      return ok;
    }
  }
}

// Whether the closure f can take its arguments ks as vectors it owns (carrying_source): one clause,
// those parameters never assigned, only read, written or measured (also by loops in it, or by
// procedures it passes them to that can in turn), or returned in tail position (*returns). Its
// free slots hold no box and its code refers to no variable beyond them (a letrec self).
bool carryable_params(Environment* core, LambdaNode* lam, const std::vector<size_t>& ks, bool* returns, Seen& seen);
bool carryable_value(Environment* core, Value f, const std::vector<size_t>& ks, bool* returns, Seen& seen) {
  if (!is_closure(f)) return false;
  Proto* p = f.as<Closure>()->proto;
  LambdaNode* lam = p->source;
  if (!lam || lam->clauses.size() != 1 || p->next_clause || (p->ncaptures > 0 && !p->free_vars)) return false;
  for (int32_t i = 0; i < p->ncaptures; i++)
    if ((p->free_boxed && p->free_boxed[i]) || p->free_vars[i]->assigned) return false;
  FreeVariables scan;
  scan.run(lam);
  if (scan.truncated()) return false;
  for (Var* v : scan.lambdas[lam].free) {
    bool slot = false;
    for (int32_t i = 0; i < p->ncaptures; i++) slot = slot || p->free_vars[i] == v;
    if (!slot) return false;
  }
  return carryable_params(core, lam, ks, returns, seen);
}

// The same, for a lambda of the differentiated code held by a let variable (a local helper): the
// closure is made from its copy, which %ad-carrying checks again at run time as above. Its free
// variables must not be assigned (they live in cells in the transformed code).
bool carryable_local(Environment* core, LambdaNode* lam, const std::vector<size_t>& ks, bool* returns) {
  if (lam->clauses.size() != 1) return false;
  FreeVariables scan;
  scan.run(lam);
  if (scan.truncated()) return false;
  for (Var* v : scan.lambdas[lam].free)
    if (v->assigned) return false;
  Seen seen;
  return carryable_params(core, lam, ks, returns, seen);
}

// Whether the parameters ks of lam's one clause are only read, written or measured (uses_ok).
bool carryable_params(Environment* core, LambdaNode* lam, const std::vector<size_t>& ks, bool* returns, Seen& seen) {
  LambdaClause* cl = lam->clauses[0];
  for (size_t k : ks) {
    if (k >= cl->params.size() || cl->params[k]->assigned) return false;
    bool visiting = false;
    for (auto& [l, j] : seen) visiting = visiting || (l == lam && j == k);
    if (visiting) continue;
    seen.emplace_back(lam, k);
    bool ok = uses_ok(core, cl->body, cl->params[k], true, returns, seen);
    seen.pop_back();
    if (!ok) return false;
  }
  return true;
}

}  // namespace

// The loop of `codes` cannot carry the owned vector w, so it captures w, and a write of it there is
// refused in the loop's own J, which does not know why. When the loop writes w, the refusal is to
// name what keeps it from carrying w: the first use that lets it escape (passed to a procedure
// that cannot carry it, given to a primitive that is not a read, write or length, captured by a
// lambda), noted for the vector (%ad-note-escape!) before the loop is made; or, for a vector that
// escaped before the loop (`escaped`, a string), where it escaped. Only for the message.
void Reverse::note_uncarried(const gc_vector<Node*>& codes, Var* w, Value escaped) {
  bool writes = false;
  std::string how = is_string(escaped) ? string_to_utf8(escaped) : std::string();
  auto is_w = [&](Node* a) { return a->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(a)->var == w; };
  for (Node* c : codes)
    for_each_node(c, [&](Node* m) {
      const gc_vector<Node*>* argn = nullptr;
      if (m->kind == NodeKind::Lambda && m != c && how.empty()) {
        bool refers = false;
        for_each_node(m, [&](Node* k) { refers = refers || is_w(k); });
        if (refers) how = "captured by a closure";
      }
      if (m->kind != NodeKind::Call && m->kind != NodeKind::PrimCall) return;
      Primitive* p = called_primitive(m, rules_.core, &argn);
      if (p) {
        if (argn->empty()) return;
        bool reads = p->facts.structure == Structure::kVectorRef || p->facts.structure == Structure::kVectorLength;
        if (is_w((*argn)[0]) && p->facts.inline_op == InlineOp::kVectorSet) writes = true;
        for (size_t i = 0; i < argn->size(); i++)
          if (is_w((*argn)[i]) && !(i == 0 && (reads || p->facts.inline_op == InlineOp::kVectorSet)) && how.empty())
            how = std::string("given to ") + (p->name ? p->name : "a primitive");
        return;
      }
      auto* call = static_cast<CallNode*>(m);
      for (size_t i = 0; i < call->args.size() && how.empty(); i++) {
        if (!is_w(call->args[i])) continue;
        if (call->fn->kind != NodeKind::GlobalRef) {
          how = "passed to a procedure";
          continue;
        }
        Value cell = static_cast<GlobalRefNode*>(call->fn)->cell;
        bool ret = false;
        Seen seen;
        if (!carryable_value(rules_.core, cell.as<GlobalCell>()->value, std::vector<size_t>{i}, &ret, seen))
          how = "passed to " + name_of(cell.as<GlobalCell>()->name, "a procedure");
      }
    });
  if (!writes || how.empty()) return;
  how += std::string(is_string(escaped) ? " in " : " in a loop of ") + name_of(name_, "an anonymous procedure");
  escape(w, why(how));
  cur_->fwd.push_effect(gcall("%ad-note-escape!", {ref(w), cst(why(how))}));
}

bool Reverse::carry_uses_ok(Node* e, Var* w, bool tail, bool* returned) {
  Seen seen;
  return uses_ok(rules_.core, e, w, tail, returned, seen);
}

// The group's code with the vectors carried (vs: the variables bound to them in one procedure):
// tail positions return (vector value v ...), calls of the group pass vs.
Node* Reverse::carry_rewrite(Node* e, bool tail, const std::vector<Var*>& group, const gc_vector<Var*>& vs,
                             bool aliased) {
  if (e->kind == NodeKind::Call) {
    auto* c = static_cast<CallNode*>(e);
    if (c->fn->kind == NodeKind::LocalRef && in_set(group, static_cast<LocalRefNode*>(c->fn)->var)) {
      for (Node*& a : c->args) a = carry_rewrite(a, false, group, vs, aliased);
      for (Var* v : vs) c->args.push_back(ref(v));
      if (tail) return c;
      if (aliased) return gcall("%ad-unpack", {c, cst(make_fixnum(int64_t(vs.size()))), cst(kTrue)});
      return gcall("%ad-unpack", {c, cst(make_fixnum(int64_t(vs.size())))});
    }
  }
  if (e->kind == NodeKind::Lambda) return e;  // the group's names are not called in lambdas
  if (!tail) {
    for_each_child_slot(e, [&](Node*& ch) { ch = carry_rewrite(ch, false, group, vs, aliased); });
    return e;
  }
  switch (e->kind) {
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(e);
      i->test = carry_rewrite(i->test, false, group, vs, aliased);
      i->then = carry_rewrite(i->then, true, group, vs, aliased);
      i->otherwise = carry_rewrite(i->otherwise, true, group, vs, aliased);
      return e;
    }
    case NodeKind::Let:
    case NodeKind::Letrec: {
      auto* l = static_cast<LetNode*>(e);
      for (Node*& i : l->inits) i = carry_rewrite(i, false, group, vs, aliased);
      l->body = carry_rewrite(l->body, true, group, vs, aliased);
      return e;
    }
    case NodeKind::Seq: {
      auto* q = static_cast<SeqNode*>(e);
      for (size_t k = 0; k < q->exprs.size(); k++)
        q->exprs[k] = carry_rewrite(q->exprs[k], k + 1 == q->exprs.size(), group, vs, aliased);
      return e;
    }
    default: {
      Node* v = carry_rewrite(e, false, group, vs, aliased);
      CallNode* t = gc_new<CallNode>(global("vector"), SrcLoc{});
      t->args.push_back(v);
      for (Var* x : vs) t->args.push_back(ref(x));
      return t;
    }
  }
}

void Reverse::carry_group(LetNode* n, gc_vector<Var*>& vars, gc_vector<Node*>& codes) {
  if (made_vectors_.empty()) return;
  for (Node* c : codes)
    if (!single_clause(c)) return;
  std::vector<Var*> group(vars.begin(), vars.end());
  std::vector<Var*> src_group(n->vars.begin(), n->vars.end());
  // the group's names: only called, from the group's procedures and the letrec's body
  for (Node* c : codes)
    if (!only_called(static_cast<LambdaNode*>(c)->clauses[0]->body, group, false)) return;
  if (!only_called(n->body, src_group, false)) return;
  gc_vector<Var*> carried;
  TracedMap<Var*, bool> seen;
  bool returns = false;
  for (Node* c : codes)
    for_each_node(c, [&](Node* m) {
      if (m->kind != NodeKind::LocalRef) return;
      Var* w = static_cast<LocalRefNode*>(m)->var;
      if (seen.count(w)) return;
      if (!owned(w)) {
        // escaped before the loop: the loop's refusal of a write names where
        if (in_scope(w)) note_uncarried(codes, w, escaped_how(w));
        seen[w] = true;
        return;
      }
      seen[w] = true;
      bool ok = true;
      bool ret = false;
      for (Node* c2 : codes) ok = ok && carry_uses_ok(static_cast<LambdaNode*>(c2)->clauses[0]->body, w, true, &ret);
      if (ok) carried.push_back(w);
      else note_uncarried(codes, w, kFalse);
      if (ok && ret) returns = true;
    });
  if (carried.empty()) return;
  // the source variables that name the carried vectors now, for the calls in the letrec's body
  auto* names = gc_new<gc_vector<Var*>>();
  for (Var* w : carried) {
    Var* src = nullptr;
    for (auto& [s2, t] : env_)
      if (t == w && !cell_src_.count(s2)) src = s2;
    if (!src) return;
    names->push_back(src);
  }
  for (Node* c : codes) {
    LambdaClause* cl = static_cast<LambdaNode*>(c)->clauses[0];
    TracedMap<Var*, Var*> sub;
    gc_vector<Var*> vs;
    LetNode* let = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
    for (Var* w : carried) {
      Var* v = make_var(w->name);
      Var* p = make_var(w->name);
      sub[w] = v;
      vs.push_back(v);
      cl->params.push_back(p);
      let->vars.push_back(v);
      let->inits.push_back(gcall("%ad-own", {ref(p)}));
    }
    for_each_node(cl->body, [&](Node* m) {
      if (m->kind != NodeKind::LocalRef) return;
      auto* r = static_cast<LocalRefNode*>(m);
      auto it = sub.find(r->var);
      if (it != sub.end()) r->var = it->second;
    });
    let->body = carry_rewrite(cl->body, true, group, vs, returns);
    cl->body = let;
  }
  for (Var* g : src_group) {
    carry_[g] = names;
    if (returns) carry_returns_[g] = true;
  }
}

// f's source with its parameters ks owned (carryable_value): (let ((w (%ad-own p)) ...) body),
// returning (vector value w ...) from each tail position, as a loop that carries them.
LambdaNode* Reverse::carrying(LambdaNode* lam, const std::vector<size_t>& ks, bool returns) {
  auto* copy = static_cast<LambdaNode*>(copy_with_fresh_vars(lam));
  if (!copy) refuse("the code is nested too deeply");
  LambdaClause* cl = copy->clauses[0];
  LetNode* let = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
  gc_vector<Var*> vs;
  for (size_t k : ks) {
    Var* w = cl->params[k];
    Var* p = make_var(w->name);
    cl->params[k] = p;
    let->vars.push_back(w);
    let->inits.push_back(gcall("%ad-own", {ref(p)}));
    vs.push_back(w);
  }
  let->body = carry_rewrite(cl->body, true, std::vector<Var*>{}, vs, returns);
  cl->body = let;
  return copy;
}

Atom Reverse::call_node(Node* n) {
  const gc_vector<Node*>* argn = nullptr;
  Primitive* p = called_primitive(n, rules_.core, &argn);
  if (p) {
    gc_vector<Atom> args;
    for (Node* a : *argn) args.push_back(expr(a));
    return prim_call(p, args);
  }
  auto* c = static_cast<CallNode*>(n);
  // ((letrec* ((g (lambda ...)) ...) g) a ...), a named let or a do loop: (letrec* (...) (g a ...)),
  // so that its calls are calls of g (carry_group). The arguments cannot see the group's names.
  if (LetNode* l2 = named_let_call(c)) return expr(l2, tail_);
  if (c->fn->kind == NodeKind::GlobalRef) {
    Value cell = static_cast<GlobalRefNode*>(c->fn)->cell;
    if (cell == core_cell("%ad-own") && c->args.size() == 1) return own(expr(c->args[0]));
    if (cell == core_cell("%ad-unpack") && (c->args.size() == 2 || c->args.size() == 3) &&
        c->args[0]->kind == NodeKind::Call &&
        c->args[1]->kind == NodeKind::Const && static_cast<ConstNode*>(c->args[1])->value.is_fixnum()) {
      auto* inner = static_cast<CallNode*>(c->args[0]);
      int64_t k = static_cast<ConstNode*>(c->args[1])->value.fixnum();
      if (k >= 0 && size_t(k) <= inner->args.size()) {
        size_t m = inner->args.size() - size_t(k);
        gc_vector<Node*> head(inner->args.begin(), inner->args.begin() + m);
        gc_vector<Node*> carried(inner->args.begin() + m, inner->args.end());
        return carry_call(inner->fn, head, carried, c->args.size() == 3);
      }
    }
  }
  if (c->fn->kind == NodeKind::LocalRef) {
    auto it = carry_.find(static_cast<LocalRefNode*>(c->fn)->var);
    if (it != carry_.end()) {
      gc_vector<Node*> carried;
      for (Var* v : *it->second) carried.push_back(ref(v));
      return carry_call(c->fn, c->args, carried, carry_returns_.count(static_cast<LocalRefNode*>(c->fn)->var) > 0);
    }
  }
  if (Node* loop = each_loop(c)) return expr(loop, tail_);
  bool self = c->fn->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(c->fn)->var == self_src_ && jself_;
  // The operator where the original reads it (ir/util.hpp, operator_read_last): an unbound
  // global operator raises after an operand that raises, as in every other mode.
  bool operator_last = !self && operator_read_last(c->fn);
  Atom fn = self || operator_last ? Atom{} : expr(c->fn);
  gc_vector<Atom> args;
  for (Node* a : c->args) args.push_back(expr(a));
  if (operator_last) fn = expr(c->fn);
  Atom carried;
  if (!self && dynamic_carry(c, fn, args, &carried)) return carried;
  return call_step(self ? nullptr : c->fn, fn, args);
}

// A procedure held by a global, given vectors this code owns (a helper such as (define (fill! v i
// x) (vector-set! v i x)), called from straight-line code or a loop): when it can carry them
// (carryable_value: it only reads, writes or measures them, or passes them on to procedures that
// can), it is called in its carrying form (%ad-carrying f spec), which owns those parameters and
// returns (vector value version ...), as a loop that carries them does; the versions it returns
// are the vectors' versions from here on. %ad-carrying checks again at run time (the global may
// hold another procedure by then) and refuses one that cannot. Otherwise the vectors escape
// (note_escape), as before.
bool Reverse::dynamic_carry(CallNode* c, const Atom& fn, const gc_vector<Atom>& args, Atom* out) {
  if (made_vectors_.empty()) return false;
  bool global = c->fn->kind == NodeKind::GlobalRef;
  // a helper in a let variable: a lambda this code made (not a letrec's, which reads itself)
  auto local = !global && fn.v ? local_lambdas_.find(fn.v) : local_lambdas_.end();
  if (!global && (local == local_lambdas_.end() || local->second.second)) return false;
  std::vector<size_t> ks;
  for (size_t i = 0; i < args.size(); i++) {
    if (!owned(args[i].v)) continue;
    for (size_t j = 0; j < args.size(); j++)
      if (j != i && args[j].v == args[i].v) return false;  // two names for one vector in the callee
    ks.push_back(i);
  }
  if (ks.empty() || ks.back() >= kCarryAliased) return false;
  bool ret = false;
  Seen seen;
  if (global ? !carryable_value(rules_.core, static_cast<GlobalRefNode*>(c->fn)->cell.as<GlobalCell>()->value, ks, &ret, seen)
             : !carryable_local(rules_.core, local->second.first, ks, &ret))
    return false;
  int64_t spec = ret ? int64_t(1) << kCarryAliased : 0;
  for (size_t k : ks) spec |= int64_t(1) << k;
  Atom fc = prim_call(prim("%ad-carrying"), gc_vector<Atom>{fn, Atom{nullptr, make_fixnum(spec)}});
  Atom t = call_step(c->fn, fc, args);
  for (size_t j = 0; j < ks.size(); j++) {
    Atom x = prim_call(prim("vector-ref"), gc_vector<Atom>{t, Atom{nullptr, make_fixnum(int64_t(j + 1))}});
    Atom v = own(x);
    // a local helper: the let variable holding it (c->fn may be any expression giving it, such as
    // (begin e put!), so the atom's variable, not c->fn's)
    Value callee = global ? static_cast<GlobalRefNode*>(c->fn)->cell.as<GlobalCell>()->name : fn.v->name;
    if (ret) escape(v.v, why("returned by " + name_of(callee, "a procedure")));  // the call's value may be this vector
    rebind(args[ks[j]].v, v.v);
  }
  *out = prim_call(prim("vector-ref"), gc_vector<Atom>{t, Atom{nullptr, make_fixnum(0)}});
  return true;
}

// (for-each (lambda (x) body) l) and (vector-for-each (lambda (x) body) v) of the built-ins, when
// body refers to a vector this code owns: the same iteration as a named let of this code, which
// carries the vector (carry_group) where the lambda would capture it. The checks and the value
// are for-each's (scheme/prelude/10-lists.scm, 20-sequences.scm).
Node* Reverse::each_loop(CallNode* c) {
  if (made_vectors_.empty() || c->fn->kind != NodeKind::GlobalRef || c->args.size() < 2) return nullptr;
  Value cell = static_cast<GlobalRefNode*>(c->fn)->cell;
  bool list_map = cell == core_cell("map"), vector_map = cell == core_cell("vector-map");
  bool is_map = list_map || vector_map;
  bool list = list_map || cell == core_cell("for-each");
  if (!list && !vector_map && cell != core_cell("vector-for-each")) return nullptr;
  // one sequence or two (the built-ins' clauses without apply); more stay calls
  size_t nseq = c->args.size() - 1;
  if (nseq > 2) return nullptr;
  if (c->args[0]->kind != NodeKind::Lambda || !single_clause(c->args[0])) return nullptr;
  auto* lam = static_cast<LambdaNode*>(c->args[0]);
  LambdaClause* cl = lam->clauses[0];
  if (cl->params.size() != nseq || cl->rest) return nullptr;
  for (Var* x : cl->params)
    if (x->assigned) return nullptr;
  bool refers = false;
  for_each_node(cl->body, [&](Node* m) {
    if (m->kind != NodeKind::LocalRef) return;
    auto it = env_.find(static_cast<LocalRefNode*>(m)->var);
    if (it != env_.end() && owned(it->second)) refers = true;
  });
  if (!refers) return nullptr;
  const char* who = list_map ? "map" : vector_map ? "vector-map" : list ? "for-each" : "vector-for-each";
  gc_vector<Var*> seqs, ps;
  for (size_t k = 0; k < nseq; k++) {
    seqs.push_back(make_var(intern(list ? "l" : "v")));
    ps.push_back(make_var(intern(list ? "p" : "i")));
  }
  Var* each = make_var(intern(who));
  Var* acc = make_var(intern("acc"));  // map: the results so far, last first (as the built-in)
  Var* y = make_var(intern("y"));
  Var* n = make_var(intern("n"));
  Node* unspec = cst(kUnspecified);
  auto let1 = [](Var* v, Node* init, Node* body) {
    LetNode* l = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
    l->vars.push_back(v);
    l->inits.push_back(init);
    l->body = body;
    return l;
  };
  auto seq2 = [](Node* a, Node* b) {
    SeqNode* q = gc_new<SeqNode>(SrcLoc{});
    q->exprs.push_back(a);
    q->exprs.push_back(b);
    return q;
  };
  // (let ((x1 (car p1)) ...) body): the lambda's body on this step's elements
  LetNode* apply_body = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
  gc_vector<Node*> next;
  for (size_t k = 0; k < nseq; k++) {
    apply_body->vars.push_back(cl->params[k]);
    apply_body->inits.push_back(list ? gcall("car", {ref(ps[k])}) : gcall("vector-ref", {ref(seqs[k]), ref(ps[k])}));
    next.push_back(list ? gcall("cdr", {ref(ps[k])}) : gcall("+", {ref(ps[k]), cst(make_fixnum(1))}));
  }
  apply_body->body = cl->body;
  Node* step;
  if (is_map) {
    next.push_back(gcall("cons", {ref(y), ref(acc)}));
    step = let1(y, apply_body, call(ref(each), next));
  } else {
    step = seq2(apply_body, call(ref(each), next));
  }
  Node* done = !is_map ? unspec : list ? gcall("reverse", {ref(acc)}) : gcall("list->vector", {gcall("reverse", {ref(acc)})});
  Node* loop_body;
  if (!list) {
    loop_body = gc_new<IfNode>(gcall("<", {ref(ps[0]), ref(n)}), step, done, c->loc);
  } else if (nseq == 1) {
    loop_body = gc_new<IfNode>(gcall("pair?", {ref(ps[0])}), step,
                               gc_new<IfNode>(gcall("null?", {ref(ps[0])}), done,
                                              gcall("%bad-list", {cst(make_string_utf8(who)), ref(seqs[0])}), c->loc),
                               c->loc);
  } else {
    // both pairs: a step; else the built-in's end: each rest () or a pair, then the value
    Node* test = gc_new<IfNode>(gcall("pair?", {ref(ps[0])}), gcall("pair?", {ref(ps[1])}), cst(kFalse), c->loc);
    Node* end = seq2(gcall("%check-end", {cst(make_string_utf8(who)), ref(ps[0])}),
                     seq2(gcall("%check-end", {cst(make_string_utf8(who)), ref(ps[1])}), done));
    loop_body = gc_new<IfNode>(test, step, end, c->loc);
  }
  LambdaNode* el = gc_new<LambdaNode>(each->name, c->loc);
  LambdaClause* ec = gc_new<LambdaClause>();
  for (Var* p : ps) ec->params.push_back(p);
  if (is_map) ec->params.push_back(acc);
  ec->body = loop_body;
  el->clauses.push_back(ec);
  LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, c->loc);
  rec->vars.push_back(each);
  rec->inits.push_back(el);
  gc_vector<Node*> first;
  for (Var* sq : seqs) first.push_back(list ? ref(sq) : cst(make_fixnum(0)));
  if (is_map) first.push_back(cst(kNil));
  rec->body = call(ref(each), first);
  Node* body = rec;
  if (!list) {
    // the shorter length (%min-length, as the built-in's clause for two vectors)
    Node* len = gcall("vector-length", {ref(seqs[0])});
    if (nseq == 2) {
      Var* n1 = make_var(intern("n"));
      Var* n2 = make_var(intern("n"));
      len = let1(n1, len, let1(n2, gcall("vector-length", {ref(seqs[1])}),
                               gc_new<IfNode>(gcall("<", {ref(n2), ref(n1)}), ref(n2), ref(n1), c->loc)));
    }
    body = let1(n, len, body);
    // each checked in order; a vector this code made needs no check (and vector? would count as
    // its escape)
    for (size_t k = nseq; k-- > 0;) {
      bool made = false;
      if (c->args[k + 1]->kind == NodeKind::LocalRef) {
        auto it = env_.find(static_cast<LocalRefNode*>(c->args[k + 1])->var);
        made = it != env_.end() && made_vectors_.count(it->second);
      }
      if (!made)
        body = seq2(gc_new<IfNode>(gcall("vector?", {ref(seqs[k])}), unspec,
                                   gcall("error", {cst(make_string_utf8(std::string(who) + ": expected a vector, got")), ref(seqs[k])}),
                                   c->loc),
                    body);
    }
  }
  for (size_t k = nseq; k-- > 0;) body = let1(seqs[k], c->args[k + 1], body);
  return body;
}

// A call of a procedure (fn_node null: this procedure's call of itself) on atoms.
Atom Reverse::call_step(Node* fn_node, const Atom& fn, const gc_vector<Atom>& argv) {
  Block& b = *cur_;
  Step s{Step::kCall};
  if (!fn_node) s.self_call = true;
  else s.fn = fn;
  s.args = argv;
  note_escape(s.fn.v, "called");
  // A vector that escaped before, passed to a procedure that writes its arguments: the callee's
  // refusal of the write names where the vector escaped, in this code (%ad-note-escape!).
  if (fn_node && fn_node->kind == NodeKind::GlobalRef)
    for (size_t i = 0; i < s.args.size(); i++) {
      Value how = escaped_how(s.args[i].v);
      if (how == kFalse || !in_scope(s.args[i].v)) continue;
      bool ret = false;
      Seen seen;
      Value f = static_cast<GlobalRefNode*>(fn_node)->cell.as<GlobalCell>()->value;
      if (!carryable_value(rules_.core, f, std::vector<size_t>{i}, &ret, seen)) continue;
      b.fwd.push_effect(gcall("%ad-note-escape!", {atom(s.args[i]), cst(why(string_to_utf8(how) + " in " + name_of(name_, "an anonymous procedure")))}));
    }
  Value to = why(fn_node && fn_node->kind == NodeKind::GlobalRef
                     ? "passed to " + name_of(static_cast<GlobalRefNode*>(fn_node)->cell.as<GlobalCell>()->name, "a procedure")
                     : std::string("passed to a procedure"));
  for (const Atom& a : s.args) escape(a.v, to);
  gc_vector<Node*> args;
  for (const Atom& a : s.args) args.push_back(atom(a));
  bool on = s.self_call || act(s.fn);
  for (const Atom& a : s.args) on = on || act(a);
  if (!on) return Atom{push(b, call(atom(s.fn), args), "v")};  // no derivative can flow through it
  if (!s.self_call) {
    if (!quiet_local(s.fn.v)) noisy_ = true;
    s.jf = push(b, gcall("%ad-j", {atom(s.fn)}), "j");
  }
  Var* r = push(b, call(ref(s.self_call ? jself_ : s.jf), args), "r");
  s.x = activate(push(b, gcall("car", {ref(r)}), "v"), true);
  s.pb = push(b, gcall("cdr", {ref(r)}), "pb");
  b.steps.push_back(s);
  return Atom{s.x};
}

// Whether f holds a closure this code made whose transformation will be quiet too (the caller of
// a quiet local procedure, a named let, may then be quiet): its source calls nothing but
// primitives (not apply and the like) and itself, assigns nothing and reads no variable kept in a
// cell. A conservative reading of what make_reverse_maker will find in that closure's code.
bool Reverse::quiet_local(Var* f) {
  auto it = f ? local_lambdas_.find(f) : local_lambdas_.end();
  if (it == local_lambdas_.end()) return false;
  LambdaNode* lam = it->second.first;
  Var* self = it->second.second;
  bool quiet = true;
  for_each_node(lam, [&](Node* m) {
    if (!quiet) return;
    switch (m->kind) {
      case NodeKind::LocalSet:
      case NodeKind::GlobalSet:
        quiet = false;
        break;
      case NodeKind::LocalRef: {
        Var* v = static_cast<LocalRefNode*>(m)->var;
        if (v->assigned || cell_src_.count(v)) quiet = false;
        break;
      }
      case NodeKind::Call:
      case NodeKind::PrimCall: {
        const gc_vector<Node*>* argn = nullptr;
        Primitive* p = called_primitive(m, rules_.core, &argn);
        if (p) {
          if (p->flags & kVmSpecial) quiet = false;
          if (p->facts.derivative && p->facts.derivative->cell != DerivativeRule::CellOp::kNone) quiet = false;
          break;
        }
        Node* fn = static_cast<CallNode*>(m)->fn;
        if (!self || fn->kind != NodeKind::LocalRef || static_cast<LocalRefNode*>(fn)->var != self) quiet = false;
        break;
      }
      default:
        break;
    }
  });
  return quiet;
}

// (%ad-own v): v, a vector this code owns from here on (made_vectors_): the vector a loop carries
// (carry_group), a version out of a loop's call or an if's arms.
Atom Reverse::own(const Atom& a) {
  Block& b = *cur_;
  Var* x = push(b, gcall("%ad-own", {atom(a)}), "v");
  made_vectors_[x] = cur_;
  if (!act(a)) return Atom{x};
  activate(x, true);
  Step s{Step::kOwn};
  s.x = x;
  s.args.push_back(a);
  b.steps.push_back(s);
  return Atom{x};
}

// A call of a loop that carries vectors (carry_group): the versions of the vectors are passed as
// extra arguments; the loop returns (vector value version ...), and the versions it returns are
// the vectors' versions from here on. A vector that escaped meanwhile is refused (the loop's
// writes would not be seen by whoever holds it) when it holds a number.
Atom Reverse::carry_call(Node* fn_node, const gc_vector<Node*>& argn, const gc_vector<Node*>& carried,
                         bool aliased) {
  bool self = fn_node->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(fn_node)->var == self_src_ && jself_;
  bool operator_last = !self && operator_read_last(fn_node);  // as in call_node
  Atom fn = self || operator_last ? Atom{} : expr(fn_node);
  gc_vector<Atom> args;
  for (Node* a : argn) args.push_back(expr(a));
  gc_vector<Atom> passed;
  size_t nargs = args.size();
  for (Node* a : carried) {
    Atom v = expr(a);
    bool alias = false;  // passed as an ordinary argument too: the loop would read it by two names
    for (size_t i = 0; i < nargs; i++) alias = alias || (v.v && args[i].v == v.v);
    if (!owned(v.v) || alias) {
      Block& b = *cur_;
      Value how = alias && owned(v.v) ? why("passed to the loop twice") : escaped_how(v.v);
      b.fwd.push_effect(gcall("%ad-check-escaped-write", {cst(name_), atom(v), cst(how), list_of(gc_vector<Atom>{v})}));
    }
    passed.push_back(v);
    args.push_back(v);
  }
  if (operator_last) fn = expr(fn_node);
  Atom t = call_step(self ? nullptr : fn_node, fn, args);
  for (size_t j = 0; j < passed.size(); j++) {
    Atom x = prim_call(prim("vector-ref"), gc_vector<Atom>{t, Atom{nullptr, make_fixnum(int64_t(j + 1))}});
    Atom v = own(x);
    if (aliased) note_escape(v.v, "returned by a loop");  // the loop's value may be this vector
    if (passed[j].v) rebind(passed[j].v, v.v);
  }
  return prim_call(prim("vector-ref"), gc_vector<Atom>{t, Atom{nullptr, make_fixnum(0)}});
}

Atom Reverse::prim_call(Primitive* p, gc_vector<Atom> args) {
  Block& b = *cur_;
  std::string pname = p->name ? p->name : "?";
  // derivative's forward form (forward.hpp) is for code nothing differentiates: under reverse
  // mode, derivative takes its reverse-mode way, whose nesting is exact (the forward form's free
  // values would be constants to this level)
  if (pname == "%ad-fwd-try" || pname == "%ad-fwd-number?") return Atom{nullptr, kFalse};
  note_uses(p, args);
  bool on = false;
  for (const Atom& a : args) on = on || act(a);
  if (p->facts.inline_op == InlineOp::kVectorSet && args.size() == 3 && args[0].v &&
      made_vectors_.count(args[0].v) && (act(args[0]) || act(args[2])))
    return vector_write(p, args);
  if ((p->flags & kVmSpecial) && on) {
    if (p->vm_op == kVmApply && args.size() >= 2) {
      Step s{Step::kCall};
      s.apply = true;
      s.fn = args[0];
      for (size_t i = 1; i < args.size(); i++) s.args.push_back(args[i]);
      noisy_ = true;
      s.jf = push(b, gcall("%ad-j", {atom(s.fn)}), "j");
      CallNode* c = gc_new<CallNode>(global("apply"), SrcLoc{});
      c->args.push_back(ref(s.jf));
      for (const Atom& a : s.args) c->args.push_back(atom(a));
      Var* r = push(b, c, "r");
      s.x = activate(push(b, gcall("car", {ref(r)}), "v"), true);
      s.pb = push(b, gcall("cdr", {ref(r)}), "pb");
      b.steps.push_back(s);
      return Atom{s.x};
    }
    if (p->vm_op == kVmApplyValues && args.size() == 2) {
      Step s{Step::kCall};
      s.apply_values = true;
      s.fn = args[0];
      s.args.push_back(args[1]);
      noisy_ = true;
      s.jf = push(b, gcall("%ad-j", {atom(s.fn)}), "j");
      CallNode* c = gc_new<CallNode>(global("%apply-values"), SrcLoc{});
      c->args.push_back(ref(s.jf));
      c->args.push_back(atom(args[1]));
      Var* r = push(b, c, "r");
      s.x = activate(push(b, gcall("car", {ref(r)}), "v"), true);
      s.pb = push(b, gcall("cdr", {ref(r)}), "pb");
      b.steps.push_back(s);
      return Atom{s.x};
    }
    refuse("cannot differentiate through " + pname);
  }
  const DerivativeRule* rule = p->facts.derivative;
  if (rule && rule->cell != DerivativeRule::CellOp::kNone) return cell_op(p, rule, args);
  using K = DerivativeRule::Kind;
  // n-ary calls of a folding rule become a chain of binary calls: the same value (left fold).
  if (on && rule && rule->fold && args.size() > 2 && arity_ok(p, 2)) {
    Atom acc = prim_call(p, gc_vector<Atom>{args[0], args[1]});
    for (size_t i = 2; i < args.size(); i++) acc = prim_call(p, gc_vector<Atom>{acc, args[i]});
    return acc;
  }
  if (rule && (rule->kind == K::kScalar || rule->kind == K::kLinear)) {
    bool has_form = (args.size() == 1 && rule->unary[0]) ||
                    (args.size() == 2 && (rule->binary[0] || rule->binary[1]));
    if (!has_form && !(args.size() == 0)) rule = nullptr;
  }
  Value pv = make_ptr(p);
  PrimCallNode* pc = gc_new<PrimCallNode>(pv, SrcLoc{});
  for (const Atom& a : args) pc->args.push_back(atom(a));
  if (on && !rule && ((p->flags & kHasEffects) || !(p->flags & kPure))) {
    gc_vector<Atom> live;
    for (const Atom& a : args)
      if (act(a)) live.push_back(a);
    // the first operand (the vector vector-set! writes) names where the caller let it escape
    b.fwd.push_effect(gcall("%ad-check-effect", {cst(name_), cst(intern(pname)), args.empty() ? cst(kFalse) : atom(args[0]), list_of(live)}));
  }
  Var* x = push(b, pc, "x");
  if (p->facts.makes == Sequence::kVector) made_vectors_[x] = cur_;
  if (!on || (rule && rule->kind == K::kZero)) return Atom{x};
  activate(x, true);
  Step s{Step::kPrim};
  s.x = x;
  s.prim = p;
  s.rule = rule;
  s.args = args;
  b.steps.push_back(s);
  return Atom{x};
}

// An operation on a cell. The forward code runs the %ad-jcell form of it (refused if this code is
// differentiated again: a second level's adjoints would share the cells' adjoint slots); the step
// keeps the operation's rule. Reads, writes and makes are steps even when nothing else is active:
// the cell's content may be.
Atom Reverse::cell_op(Primitive* p, const DerivativeRule* rule, gc_vector<Atom> args, Value name) {
  using C = DerivativeRule::CellOp;
  Block& b = *cur_;
  noisy_ = true;
  note_uses(nullptr, args);
  C op = rule->cell;
  if (op == C::kNested) {
    b.fwd.push_effect(gcall("%ad-fail", {cst(intern("set!")),
                                          cst(make_string_utf8("nested derivatives are not supported through")),
                                          cst(name_)}));
    PrimCallNode* pc = gc_new<PrimCallNode>(make_ptr(p), SrcLoc{});
    for (const Atom& a : args) pc->args.push_back(atom(a));
    return Atom{push(b, pc, "x")};
  }
  const char* run = op == C::kMake ? "%ad-jcell" : op == C::kRef ? "%ad-jcell-ref" : op == C::kSet ? "%ad-jcell-set!" : nullptr;
  PrimCallNode* pc = gc_new<PrimCallNode>(run ? prim_value(run) : make_ptr(p), SrcLoc{});
  for (const Atom& a : args) pc->args.push_back(atom(a));
  if (op != C::kMake && args.size() > 0 && args[0].v) cell_vars_[activate(args[0].v, true)] = true;
  if (op == C::kSet && args.size() == 2 && act(args[1]) && !(args[0].v && made_cells_.count(args[0].v))) {
    // A box of the compiler's (a variable bound outside the differentiated code) has no adjoint:
    // a value being differentiated stored there would lose its derivative.
    Value var = args[0].v && is_symbol(args[0].v->name) ? args[0].v->name : intern("?");
    b.fwd.push_effect(gcall("%ad-check-cell-set", {cst(name_), cst(var), atom(args[0]), atom(args[1])}));
  }
  Var* x = activate(push(b, pc, op == C::kMake ? (is_symbol(name) ? symbol_name(name) : "cell") : "x"), true);
  if (op == C::kMake || op == C::kAdjoint) cell_vars_[x] = true;
  if (op == C::kMake) made_cells_[x] = true;
  if (op == C::kAdjoint) return Atom{x};
  Step s{Step::kPrim};
  s.x = x;
  s.prim = p;
  s.rule = rule;
  s.args = args;
  b.steps.push_back(s);
  return Atom{x};
}

// (vector-set! v i e) on a vector this code made, when v or e may depend on the arguments: the
// write, then v under a new variable, a version of its own that the source's names of v denote
// from here on. Its cotangent (what reads after the write contribute) sends slot i's part to e and
// the rest to v before the write, whose slot i a read after the write never sees. Reads and writes
// follow the code's order, so this holds while only this code's own names reach the vector: a
// vector that escaped before the write (made in another block, or passed on, stored, captured) is
// refused when a value being differentiated reaches the write.
Atom Reverse::vector_write(Primitive* p, const gc_vector<Atom>& args) {
  Block& b = *cur_;
  Var* v = args[0].v;
  PrimCallNode* pc = gc_new<PrimCallNode>(make_ptr(p), SrcLoc{});
  for (const Atom& a : args) pc->args.push_back(atom(a));
  if (!owned(v)) {
    gc_vector<Atom> live;
    for (const Atom& a : args)
      if (act(a)) live.push_back(a);
    b.fwd.push_effect(gcall("%ad-check-escaped-write", {cst(name_), atom(args[0]), cst(escaped_how(v)), list_of(live)}));
    return Atom{push(b, pc, "x")};
  }
  Var* x = push(b, pc, "x");
  Var* v2 = activate(push(b, ref(v), "v"), true);
  made_vectors_[v2] = cur_;
  for (auto& [src, t] : env_)
    if (t == v) t = v2;
  Step s{Step::kWrite};
  s.x = v2;
  s.prim = p;
  s.args = args;
  b.steps.push_back(s);
  return Atom{x};
}

// (if t a b): each arm is a block of its own returning (value . pullback); the pullbacks return a
// vector of cotangents, one per outer variable either arm sends a cotangent to.
Atom Reverse::branch(IfNode* n) {
  Block& b = *cur_;
  Atom t = expr(n->test);
  using Arm = BranchArm;
  // In tail position of the procedure's body, the arms' pullbacks become the procedure's own
  // (pullback_clause): no pullback of the if itself, no vector of outer cotangents and no
  // (value . pullback) pair per arm, which a loop's step paid for at each iteration.
  bool top = tail_ && tail_branch_ && !tail_branch_->taken && blocks_.size() == 1 && cur_ == blocks_[0];
  Arm local[2];
  Arm* arms = top ? tail_branch_->arms : local;
  struct {
    Arm* a;
    Arm* begin() const { return a; }
    Arm* end() const { return a + 2; }
  } both{arms};
  Node* code[2] = {n->then, n->otherwise};
  // Each arm starts from the versions before the if. A vector made before the if and written in
  // an arm (a version of it, vector_write) gets a version of its own after the if: the arms
  // return it with their value (the if's value is (vector value version ...)), unless nothing
  // runs after the if.
  TracedMap<Var*, Var*> env0 = env_;
  TracedMap<Var*, Value> esc0 = escaped_vectors_;
  for (int i = 0; i < 2; i++) {
    env_ = env0;
    escaped_vectors_ = esc0;
    cur_ = &arms[i].blk;
    blocks_.push_back(cur_);
    arms[i].result = expr(code[i], tail_);
    note_escape(arms[i].result.v, "returned by an if");
    blocks_.pop_back();
    cur_ = &b;
    arms[i].env = env_;
    arms[i].escaped = escaped_vectors_;
  }
  env_ = env0;
  escaped_vectors_.clear();
  for (Arm& a : both)
    for (auto& [v, e] : a.escaped) escaped_vectors_[v] = e;
  // the vectors (their versions before the if) an arm wrote
  gc_vector<Var*> written;
  TracedMap<Var*, bool> seen;
  for (Arm& a : both)
    for (auto& [src, w] : env0) {
      auto it = a.env.find(src);
      if (it != a.env.end() && it->second != w && made_vectors_.count(w) && !seen.count(w)) {
        seen[w] = true;
        written.push_back(w);
      }
    }
  bool join = !written.empty() && !tail_;
  gc_vector<Value> join_escaped;  // how a joined vector escaped in an arm, or #f
  if (join) {
    for (Var* w : written) {
      Var* src = nullptr;
      for (auto& [s2, w2] : env0)
        if (w2 == w) src = s2;
      Value esc = kFalse;
      for (Arm& a : both) {
        auto e = a.escaped.find(a.env[src]);
        if (e != a.escaped.end()) esc = e->second;
      }
      join_escaped.push_back(esc);
    }
    for (Arm& a : both) {
      cur_ = &a.blk;
      blocks_.push_back(cur_);
      gc_vector<Atom> parts{a.result};
      for (Var* w : written) {
        Var* src = nullptr;
        for (auto& [s2, w2] : env0)
          if (w2 == w) src = s2;
        parts.push_back(Atom{a.env[src]});
      }
      a.result = prim_call(prim("vector"), parts);
      blocks_.pop_back();
      cur_ = &b;
    }
  }
  for (int i = 0; i < 2; i++) {
    arms[i].d = make_var(intern("d"));
    backward(arms[i].blk, arms[i].result, arms[i].d, arms[i].adj, arms[i].order, arms[i].bwd);
  }
  if (top && !join) {
    tail_branch_->taken = true;
    tail_branch_->test = t;
    tail_branch_->loc = n->loc;
    return Atom{};  // the value is the arms' (pullback_clause)
  }
  Atom r = branch_join(n, b, t, arms);
  if (!join) return r;
  for (size_t j = 0; j < written.size(); j++) {
    Atom x = prim_call(prim("vector-ref"), gc_vector<Atom>{r, Atom{nullptr, make_fixnum(int64_t(j + 1))}});
    Atom v = own(x);
    if (join_escaped[j] != kFalse) escaped_vectors_[v.v] = join_escaped[j];
    rebind(written[j], v.v);
  }
  return prim_call(prim("vector-ref"), gc_vector<Atom>{r, Atom{nullptr, make_fixnum(0)}});
}

// Both arms quiet: when neither arm's backward code reads a value the arm computed, the backward
// sweep can run it after the fact, knowing the test (Step::kFlag): a loop step's if of two atoms
// (the (if (exact? e) (if (zero? e) ...) ...) of %ad-over in a residual) made a (value .
// pullback) pair and a closure per step. Small arms are written once per outer variable, so that
// no vector of cotangents is made either. False (nothing pushed) when an arm's code reads its own
// values.
bool Reverse::flag_branch(IfNode* n, Block& b, const Atom& t, BranchArm* arms, const gc_vector<Var*>& outer) {
  constexpr size_t kSmallArm = 48;  // nodes of an arm's backward code written once per variable
  auto result_of = [&](BranchArm& a, Var* v) -> Node* {
    auto it = a.adj.find(v);
    return it == a.adj.end() ? zero() : ref(it->second);
  };
  auto arm_let = [&](BranchArm& a, Node* result) {
    LetNode* let = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
    let->vars.push_back(a.d);
    let->inits.push_back(zero());  // the if's cotangent, set by backward
    let->body = a.bwd.get(result);
    return let;
  };
  LetNode* whole[2];
  bool small = outer.size() == 1;
  for (int i = 0; i < 2; i++) {
    BranchArm& a = arms[i];
    CallNode* vec = gc_new<CallNode>(global("vector"), SrcLoc{});
    for (Var* v : outer) vec->args.push_back(result_of(a, v));
    whole[i] = arm_let(a, outer.size() == 1 ? result_of(a, outer[0]) : vec);
    bool local = false;
    for_each_node(whole[i], [&](Node* m) {
      if (m->kind == NodeKind::LocalRef && a.blk.bound.count(static_cast<LocalRefNode*>(m)->var)) local = true;
    });
    if (local) return false;
    small = small || node_size(whole[i], kSmallArm) < kSmallArm;
  }
  Step s{Step::kFlag};
  s.flag_vector = !small;
  if (outer.size() == 1 || !small) {
    s.flag_arms = {whole[0], whole[1]};
  } else {
    for (Var* v : outer)
      for (int i = 0; i < 2; i++) s.flag_arms.push_back(arm_let(arms[i], result_of(arms[i], v)));
  }
  Node* fwd[2];
  for (int i = 0; i < 2; i++) fwd[i] = arms[i].blk.fwd.get(atom(arms[i].result));
  s.x = activate(push(b, gc_new<IfNode>(atom(t), fwd[0], fwd[1], n->loc), "v"), true);
  s.args.push_back(t);
  s.outer = outer;
  b.steps.push_back(s);
  return true;
}

Atom Reverse::branch_join(IfNode* n, Block& b, const Atom& t, BranchArm* arms) {
  using Arm = BranchArm;
  gc_vector<Var*> outer;
  TracedMap<Var*, size_t> index;
  for (int i = 0; i < 2; i++)
    for (Var* v : arms[i].order)
      if (!arms[i].blk.bound.count(v) && !index.count(v) && arms[i].adj.count(v)) {
        index[v] = outer.size();
        outer.push_back(v);
      }
  bool on = act(arms[0].result) || act(arms[1].result);
  // An arm whose backward code may move a cell's adjoint keeps its pullback even when it sends
  // no cotangent out.
  bool arm_effects[2] = {false, false};
  for (int i = 0; i < 2 && !assume_quiet_; i++)
    for (const Step& st : arms[i].blk.steps)
      if (st.kind == Step::kCall || st.kind == Step::kBranch ||
          (st.rule && st.rule->cell != DerivativeRule::CellOp::kNone))
        arm_effects[i] = true;
  bool effects = arm_effects[0] || arm_effects[1];
  if (outer.empty() && !effects) {
    Node* arm_code[2];
    for (int i = 0; i < 2; i++) arm_code[i] = arms[i].blk.fwd.get(atom(arms[i].result));
    return Atom{activate(push(b, gc_new<IfNode>(atom(t), arm_code[0], arm_code[1], n->loc), "v"), on)};
  }
  if (!effects && flag_branch(n, b, t, arms, outer)) return Atom{b.steps.back().x};
  Node* arm_code[2];
  for (int i = 0; i < 2; i++) {
    Arm& a = arms[i];
    CallNode* vec = gc_new<CallNode>(global("vector"), SrcLoc{});
    for (Var* v : outer) {
      auto it = a.adj.find(v);
      vec->args.push_back(it == a.adj.end() ? zero() : ref(it->second));
    }
    LambdaNode* pb = gc_new<LambdaNode>(intern("pullback"), SrcLoc{});
    LambdaClause* cl = gc_new<LambdaClause>();
    cl->params.push_back(a.d);
    cl->body = a.bwd.get(vec);
    pb->clauses.push_back(cl);
    arm_code[i] = a.blk.fwd.get(gcall("cons", {atom(a.result), pb}));
  }
  Var* pair = push(b, gc_new<IfNode>(atom(t), arm_code[0], arm_code[1], n->loc), "r");
  Step s{Step::kBranch};
  s.x = activate(push(b, gcall("car", {ref(pair)}), "v"), true);
  s.pb = push(b, gcall("cdr", {ref(pair)}), "pb");
  s.outer = outer;
  s.quiet_arms = !effects;
  // Which arm ran, for a backward sweep that reaches no cotangent to this value: a quiet arm's
  // pullback need not run, which the partial evaluator sees when it knows the test.
  if (arm_effects[0] != arm_effects[1])
    s.effectful = push(b, gc_new<IfNode>(atom(t), cst(make_bool(arm_effects[0])), cst(make_bool(arm_effects[1])), n->loc), "e");
  b.steps.push_back(s);
  return Atom{s.x};
}

// ---- backward ---------------------------------------------------------------------------------

// A scalar rule's partial (%ad-recip E) (sqrt, log, asin: 1/E, +inf.0 at an exact 0) multiplied
// by the cotangent d is (%ad-over d E): d/E, one division of two flonums where the product of d
// and (/ 1 E) was an exact 1 meeting a flonum (generic mixed arithmetic) and a product. Null when
// the partial is not that form as a whole.
const char* Reverse::over_rule(const char* text) { return over_rule_text(rules_, text); }

// A rule's expression with a, b, r, d bound to the operands, the result and its cotangent.
Node* Reverse::instantiate(const char* text, const gc_vector<Atom>& args, Var* r, Var* d) {
  Node* vals[4] = {args.size() > 0 ? atom(args[0]) : cst(kFalse), args.size() > 1 ? atom(args[1]) : cst(kFalse),
                   ref(r), ref(d)};
  Node* n = instantiate_rule(rules_, text, vals);
  if (!n) refuse("internal error: bad derivative rule");
  return n;
}

void Reverse::add(Adj& adj, gc_vector<Var*>& order, LetList& out, Var* v, Var* c) {
  if (!active_.count(v) || cell_vars_.count(v)) return;
  auto it = adj.find(v);
  if (it == adj.end()) {
    adj[v] = c;
    order.push_back(v);
    return;
  }
  auto a = pair_cots_.find(it->second), b = pair_cots_.find(c);
  if (a != pair_cots_.end() && b != pair_cots_.end()) {
    Node* sum = sum_pairs(a->second, b->second, out);
    Var* r = out.push(sum, intern("d"));
    pair_cots_[r] = sum;
    it->second = r;
    return;
  }
  it->second = out.push(gcall("%ad-add", {ref(it->second), ref(c)}), intern("d"));
}

// The sum of two cotangents built as pairs (pair_cots_), as %ad-add computes it: zero plus x is
// x, the sum of two pairs the pair of the sums, anything else %ad-add of the two.
Node* Reverse::sum_pairs(Node* a, Node* b, LetList& out) {
  if (is_zero(a)) return rebuild(b);
  if (is_zero(b)) return rebuild(a);
  CallNode* pa = as_pair(a);
  CallNode* pb = as_pair(b);
  if (pa && pb) {
    Node* car = sum_pairs(pa->args[0], pb->args[0], out);
    Node* cdr = sum_pairs(pa->args[1], pb->args[1], out);
    return gcall("cons", {car, cdr});
  }
  auto atom_of = [&](Node* n) -> Node* { return as_pair(n) ? ref(out.push(rebuild(n), intern("d"))) : rebuild(n); };
  Node* x = atom_of(a);
  Node* y = atom_of(b);
  return ref(out.push(gcall("%ad-add", {x, y}), intern("d")));
}

// Drops the bindings of pair cotangents (pair_cots_) that nothing reads: the parts of a sum that
// sum_pairs rebuilt. Only these: they are backward code, so no closure's predicted layout changes.
Node* Reverse::drop_dead_pairs(Node* code) {
  if (pair_cots_.empty()) return code;
  std::unordered_map<Var*, size_t> reads;
  for_each_node(code, [&](Node* m) {
    if (m->kind == NodeKind::LocalRef) reads[static_cast<LocalRefNode*>(m)->var]++;
  });
  struct Drop : ExprMutator {
    TracedMap<Var*, Node*>& pairs;
    std::unordered_map<Var*, size_t>& reads;
    Drop(TracedMap<Var*, Node*>& p, std::unordered_map<Var*, size_t>& r) : pairs(p), reads(r) {}
    Node* visit_let(LetNode* n) override {
      if (n->kind == NodeKind::Let && n->vars.size() == 1 && pairs.count(n->vars[0]) && !reads[n->vars[0]]) {
        // its parts are read one time fewer
        for_each_node(n->inits[0], [&](Node* m) {
          if (m->kind == NodeKind::LocalRef) reads[static_cast<LocalRefNode*>(m)->var]--;
        });
        return visit(n->body);
      }
      return ExprMutator::visit_let(n);
    }
  };
  return Drop(pair_cots_, reads).visit(code);
}

void Reverse::backward(Block& b, const Atom& result, Var* d, Adj& adj, gc_vector<Var*>& order, LetList& out) {
  using K = DerivativeRule::Kind;
  if (result.v) add(adj, order, out, result.v, d);
  for (auto st = b.steps.rbegin(); st != b.steps.rend(); ++st) {
    Step& s = *st;
    if (s.kind == Step::kGroup) {
      bool any = false;
      for (const Atom& m : s.args) any = any || adj.count(m.v);
      if (!any) continue;
      CallNode* cs = gc_new<CallNode>(global("vector"), SrcLoc{});
      for (const Atom& m : s.args) {
        auto it = adj.find(m.v);
        cs->args.push_back(it == adj.end() ? zero() : ref(it->second));
      }
      Value lays = make_vector(int64_t(s.lays.size()), kFalse);
      Node* lays_node = cst(lays);
      for (size_t k = 0; k < s.lays.size(); k++) {
        Value lay = make_vector(int64_t(s.lays[k].size()), kFalse);
        lays.as<Vector>()->items()[k] = lay;
        for (size_t i = 0; i < s.lays[k].size(); i++) lay.as<Vector>()->items()[i] = make_fixnum(s.lays[k][i]);
      }
      Var* r = out.push(gcall("%ad-group-cot", {cs, lays_node, cst(make_fixnum(int64_t(s.outer.size())))}), intern("d"));
      for (size_t i = 0; i < s.outer.size(); i++)
        add(adj, order, out, s.outer[i], out.push(gcall("vector-ref", {ref(r), cst(make_fixnum(int64_t(i)))}), intern("d")));
      continue;
    }
    auto found = adj.find(s.x);
    // No derivative reaches this value: nothing to do, unless the step's backward code moves a
    // cell's adjoint (a write, a make), or may (a call, an if), when some adjoint is pending.
    bool reached = found != adj.end();
    bool always = s.kind == Step::kPrim && s.rule && s.rule->always();
    // (Nothing in a quiet procedure can: assume_quiet_.)
    bool maybe = !reached && !assume_quiet_ && (s.kind == Step::kCall || (s.kind == Step::kBranch && !s.quiet_arms));
    if (!reached && !always && !maybe) continue;
    Var* dx = reached ? found->second : out.push(zero(), intern("d"));
    // the pullback of an unreached call: run only while some adjoint is pending, and not for a
    // quiet callee (which the partial evaluator knows for a J it knows)
    auto run_pb = [&]() -> Node* {
      Node* c = call(ref(s.pb), gc_vector<Node*>{ref(dx)});
      if (!maybe) return c;
      Node* guarded = gc_new<IfNode>(gcall("%ad-adjoints-pending?", {}), c, zero(), SrcLoc{});
      if (s.jf) guarded = gc_new<IfNode>(gcall("%ad-j-quiet?", {ref(s.jf)}), zero(), guarded, SrcLoc{});
      return s.effectful ? gc_new<IfNode>(ref(s.effectful), guarded, zero(), SrcLoc{}) : guarded;
    };
    switch (s.kind) {
      case Step::kPrim: {
        const DerivativeRule* r = s.rule;
        if (!r) {
          out.push_effect(gcall("%ad-no-derivative",
                                {cst(name_), cst(intern(s.prim->name)), ref(dx), list_of(s.args)}));
          break;
        }
        for (size_t i = 0; i < s.args.size(); i++) {
          Var* a = s.args[i].v;
          if (!a && !r->always()) continue;
          // an operand no derivative flows to (a global vector indexed by an active index): no
          // code for its contribution (a cell's rule is run for its effect on the adjoint)
          if (a && !active_.count(a) && r->cell == DerivativeRule::CellOp::kNone) continue;
          Node* contrib = nullptr;
          switch (r->kind) {
            case K::kScalar: {
              const char* text = s.args.size() == 1 ? r->unary[0] : r->binary[i];
              if (!text) break;
              std::string t = text;
              if (t == "1") contrib = ref(dx);
              else if (t == "-1") contrib = unless_zero(dx, gcall("-", {ref(dx)}));
              // d * (/ 1 b) is (/ d b): one division instead of a division by an exact 1 (generic
              // mixed arithmetic for flonums) and a product; the same value for exact numbers
              else if (t == "(/ 1 b)" && s.args.size() == 2)
                contrib = unless_zero(dx, gcall("/", {ref(dx), atom(s.args[1])}));
              else if (const char* over = over_rule(text))
                contrib = unless_zero(dx, instantiate(over, s.args, s.x, dx));
              else contrib = unless_zero(dx, gcall("*", {ref(dx), instantiate(text, s.args, s.x, dx)}));
              break;
            }
            case K::kLinear: {
              const char* text = s.args.size() == 1 ? r->unary[0] : r->binary[i];
              if (text) contrib = instantiate(text, s.args, s.x, dx);
              break;
            }
            case K::kCxr: {
              Node* c = ref(dx);
              uint8_t len = s.prim->facts.cxr_len, bits = s.prim->facts.cxr_bits;
              for (int k = len - 1; k >= 0; k--)
                c = (bits >> k) & 1 ? gcall("cons", {zero(), c}) : gcall("cons", {c, zero()});
              contrib = c;
              break;
            }
            case K::kList:
              contrib = gcall("%ad-nth", {ref(dx), cst(make_fixnum(int64_t(i)))});
              break;
            case K::kValues:
              contrib = s.args.size() == 1 ? ref(dx) : gcall("%ad-nth", {ref(dx), cst(make_fixnum(int64_t(i)))});
              break;
            case K::kVector:
              contrib = gcall("%ad-vector-ref", {ref(dx), cst(make_fixnum(int64_t(i)))});
              break;
            case K::kZero:
              break;
          }
          if (contrib && !a) {
            out.push_effect(contrib);  // a cell's adjoint taken for a constant
          } else if (contrib) {
            Var* c = out.push(contrib, intern("d"));
            if (r->kind == K::kCxr) pair_cots_[c] = contrib;
            add(adj, order, out, a, c);
          }
        }
        break;
      }
      case Step::kCall: {
        Var* g = out.push(run_pb(), intern("g"));
        const char* car = maybe ? "%ad-car" : "car";
        Var* ga = out.push(gcall(maybe ? "%ad-cdr" : "cdr", {ref(g)}), intern("ga"));
        if (s.self_call) {
          // The closure called is this one, so its cotangent (a vector in this closure's layout)
          // goes to this closure's free variables slot by slot: what adding it to dself would
          // give, without a sum of vectors per call (a named let's loop).
          Var* gs = out.push(gcall(car, {ref(g)}), intern("d"));
          for (size_t k = 0; k < nfv_; k++) {
            Var* fv = env_[fvs_[k]];
            if (!active_.count(fv) || cell_vars_.count(fv)) continue;
            add(adj, order, out, fv,
                out.push(gcall("%ad-vector-ref", {ref(gs), cst(make_fixnum(int64_t(k)))}), intern("d")));
          }
        } else if (s.fn.v) {
          add(adj, order, out, s.fn.v, out.push(gcall(car, {ref(g)}), intern("d")));
        }
        size_t n = s.args.size();
        // the arguments' cotangents: one walk down the list (%ad-car and %ad-cdr: a callee with a
        // rest parameter may return the zero for its tail)
        auto wants = [&](Var* a) { return a && active_.count(a) && !cell_vars_.count(a); };
        Var* rest = ga;
        for (size_t i = 0; i < n; i++) {
          Var* a = s.args[i].v;
          if (s.apply_values) {
            if (wants(a)) add(adj, order, out, a, out.push(gcall("%ad-values-cot", {ref(a), ref(ga)}), intern("d")));
            continue;
          }
          if (s.apply && i + 1 == n) {
            if (wants(a)) add(adj, order, out, a, rest);
            break;
          }
          if (wants(a)) add(adj, order, out, a, out.push(gcall("%ad-car", {ref(rest)}), intern("d")));
          bool later = false;
          for (size_t j = i + 1; j < n; j++) later = later || wants(s.args[j].v);
          if (!later) break;
          rest = out.push(gcall("%ad-cdr", {ref(rest)}), intern("ga"));
        }
        break;
      }
      case Step::kBranch: {
        Var* g = out.push(run_pb(), intern("g"));
        for (size_t i = 0; i < s.outer.size(); i++)
          add(adj, order, out, s.outer[i],
              out.push(gcall(maybe ? "%ad-vector-ref" : "vector-ref", {ref(g), cst(make_fixnum(int64_t(i)))}),
                       intern("d")));
        break;
      }
      case Step::kFlag: {
        // a copy each time: the backward code of the steps before a tail if is written once per
        // arm (pullback_clause), and each variable is bound once
        auto arm = [&](size_t k) -> Node* {
          auto* let = static_cast<LetNode*>(copy_with_fresh_vars(s.flag_arms[k]));
          let->inits[0] = ref(dx);
          return let;
        };
        if (s.flag_vector) {
          Var* g = out.push(gc_new<IfNode>(atom(s.args[0]), arm(0), arm(1), SrcLoc{}), intern("g"));
          for (size_t i = 0; i < s.outer.size(); i++)
            add(adj, order, out, s.outer[i], out.push(gcall("vector-ref", {ref(g), cst(make_fixnum(int64_t(i)))}), intern("d")));
          break;
        }
        for (size_t i = 0; i < s.outer.size(); i++)
          add(adj, order, out, s.outer[i],
              out.push(gc_new<IfNode>(atom(s.args[0]), arm(2 * i), arm(2 * i + 1), SrcLoc{}), intern("d")));
        break;
      }
      case Step::kWrite: {
        Node* i = atom(s.args[1]);
        if (act(s.args[2]))
          add(adj, order, out, s.args[2].v, out.push(gcall("%ad-vector-ref", {ref(dx), i}), intern("d")));
        add(adj, order, out, s.args[0].v, out.push(gcall("%ad-vector-clear", {ref(dx), atom(s.args[1])}), intern("d")));
        break;
      }
      case Step::kGroup:
        break;
      case Step::kOwn:
        if (s.args[0].v) add(adj, order, out, s.args[0].v, dx);
        break;
      case Step::kClosure:
        for (size_t i = 0; i < s.outer.size(); i++)
          add(adj, order, out, s.outer[i],
              out.push(gcall("%ad-vector-ref", {ref(dx), cst(make_fixnum(int64_t(i)))}), intern("d")));
        break;
    }
  }
}

// One clause of J: the forward code, then (cons value (lambda (d) backward (cons dself dargs))).
// With an if in tail position: (if t (cons value1 pullback1) (cons value2 pullback2)), each arm's
// pullback its own backward code, then that of the code before the if.
Node* Reverse::pullback_clause(LambdaClause* c, Var* self_out, Var** fvs, size_t nfv, gc_vector<Var*>* params,
                               Var* rest) {
  Block body;
  cur_ = &body;
  blocks_.assign(1, &body);
  // assigned parameters live in cells, made from the arguments
  for (size_t i = 0; i < c->params.size(); i++)
    if (c->params[i]->assigned) make_cell(c->params[i], Atom{(*params)[i]});
  if (c->rest && c->rest->assigned) make_cell(c->rest, Atom{rest});
  TailBranch tail;
  tail_branch_ = &tail;
  Atom result = expr(c->body, true);
  tail_branch_ = nullptr;
  cur_ = nullptr;
  blocks_.clear();
  if (tail.taken) {
    Node* arm_code[2];
    for (int i = 0; i < 2; i++) {
      BranchArm& a = tail.arms[i];
      backward(body, Atom{}, nullptr, a.adj, a.order, a.bwd);
      arm_code[i] = a.blk.fwd.get(gcall("cons", {atom(a.result), pullback(a.d, a.adj, a.bwd, self_out, fvs, nfv, params, rest)}));
    }
    return body.fwd.get(gc_new<IfNode>(atom(tail.test), arm_code[0], arm_code[1], tail.loc));
  }
  Var* d = make_var(intern("d"));
  Adj adj;
  gc_vector<Var*> order;
  LetList out;
  backward(body, result, d, adj, order, out);
  return body.fwd.get(gcall("cons", {atom(result), pullback(d, adj, out, self_out, fvs, nfv, params, rest)}));
}

// (lambda (d) out... (cons dself dargs)) from the cotangents the backward code `out` left in adj.
LambdaNode* Reverse::pullback(Var* d, Adj& adj, LetList& out, Var* self_out, Var** fvs, size_t nfv,
                              gc_vector<Var*>* params, Var* rest) {
  auto cot = [&](Var* v) -> Node* {
    auto it = adj.find(v);
    return it == adj.end() ? zero() : ref(it->second);
  };
  Node* dself;
  bool any = false;
  for (size_t i = 0; i < nfv; i++) any = any || adj.count(env_[fvs[i]]);
  if (any) {
    CallNode* vec = gc_new<CallNode>(global("vector"), SrcLoc{});
    for (size_t i = 0; i < nfv; i++) vec->args.push_back(cot(env_[fvs[i]]));
    dself = vec;
  } else {
    dself = zero();
  }
  if (adj.count(self_out)) dself = gcall("%ad-add", {dself, cot(self_out)});
  Node* dargs = rest ? cot(rest) : cst(kNil);
  for (size_t i = params->size(); i-- > 0;) dargs = gcall("cons", {cot((*params)[i]), dargs});
  LambdaNode* pb = gc_new<LambdaNode>(intern("pullback"), SrcLoc{});
  LambdaClause* pc = gc_new<LambdaClause>();
  pc->params.push_back(d);
  pc->body = out.get(gcall("cons", {dself, dargs}));
  pb->clauses.push_back(pc);
  return pb;
}

LambdaNode* Reverse::maker(LambdaNode* src, Var** fvs, const bool* boxed, size_t nfv) {
  bool deep = false;
  self_src_ = self_variable(src, fvs, nfv, &deep);
  if (deep) refuse("the code is nested too deeply");
  LambdaNode* mk = gc_new<LambdaNode>(intern("ad-maker"), SrcLoc{});
  LambdaClause* mc = gc_new<LambdaClause>();
  self_ = activate(make_var(intern("self")), true);
  mc->params.push_back(self_);
  for (size_t i = 0; i < nfv; i++) {
    Var* v = fresh(fvs[i]->name);
    env_[fvs[i]] = v;
    activate(v, true);
    // the slot holds the compiler's box (an assigned variable, or a letrec variable captured
    // before its init ran): read and written as a cell
    if (fvs[i]->assigned || (boxed && boxed[i])) {
      cell_src_[fvs[i]] = true;
      cell_vars_[v] = true;
    }
    mc->params.push_back(v);
  }
  jself_ = make_var(intern("jself"));
  fvs_ = fvs;
  nfv_ = nfv;
  LambdaNode* j = gc_new<LambdaNode>(src->name, src->loc);
  for (LambdaClause* c : src->clauses) {
    LambdaClause* jc = gc_new<LambdaClause>();
    auto* params = gc_new<gc_vector<Var*>>();
    for (Var* p : c->params) {
      Var* v = activate(fresh(p->name), true);
      env_[p] = v;
      params->push_back(v);
      jc->params.push_back(v);
    }
    if (c->rest) {
      Var* v = activate(fresh(c->rest->name), true);
      env_[c->rest] = v;
      jc->rest = v;
    }
    jc->body = pullback_clause(c, self_, fvs, nfv, params, jc->rest);
    j->clauses.push_back(jc);
  }
  LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, SrcLoc{});
  rec->vars.push_back(jself_);
  rec->inits.push_back(j);
  rec->body = ref(jself_);
  mc->body = rec;
  mk->clauses.push_back(mc);
  return mk;
}

// The cotangent helpers the backward code calls most, written inline where their operands are
// variables or constants (the transformed code is compiled without the optimizer's passes, and a
// call of a Scheme procedure per cotangent operation is most of a pullback's work): (%ad-car d)
// is (if (pair? d) (car d) '%ad-zero), likewise %ad-cdr and %ad-vector-ref; (%ad-nth d k) walks
// k such cdrs; (%ad-add a b) adds two numbers in place and calls %ad-add otherwise. The same
// values; the partial evaluator folds the tests as it did the helpers' bodies.
class InlineHelpers : public ExprMutator {
 public:
  explicit InlineHelpers(Environment* core) : core_(core) {
    car_ = cell("%ad-car");
    cdr_ = cell("%ad-cdr");
    vref_ = cell("%ad-vector-ref");
    nth_ = cell("%ad-nth");
    add_ = cell("%ad-add");
  }
  Node* visit_call(CallNode* n) override {
    Node* r = ExprMutator::visit_call(n);
    if (r->kind != NodeKind::Call) return r;
    auto* c = static_cast<CallNode*>(r);
    if (c->fn->kind != NodeKind::GlobalRef) return r;
    Value f = static_cast<GlobalRefNode*>(c->fn)->cell;
    for (Node* a : c->args)
      if (a->kind != NodeKind::LocalRef && a->kind != NodeKind::Const) return r;
    if ((f == car_ || f == cdr_) && c->args.size() == 1) return take(c->args[0], f == car_ ? "car" : "cdr");
    if (f == vref_ && c->args.size() == 2)
      return gc_new<IfNode>(call("vector?", {cp(c->args[0])}), call("vector-ref", {cp(c->args[0]), cp(c->args[1])}),
                            zero(), SrcLoc{});
    if (f == nth_ && c->args.size() == 2 && c->args[1]->kind == NodeKind::Const &&
        static_cast<ConstNode*>(c->args[1])->value.is_fixnum()) {
      int64_t k = static_cast<ConstNode*>(c->args[1])->value.fixnum();
      if (k < 0 || k > 8) return r;
      return nth(c->args[0], k);
    }
    if (f == add_ && c->args.size() == 2) {
      Node* a = c->args[0];
      Node* b = c->args[1];
      return gc_new<IfNode>(call("number?", {cp(a)}),
                            gc_new<IfNode>(call("number?", {cp(b)}), call("+", {cp(a), cp(b)}),
                                           call("%ad-add", {cp(a), cp(b)}), SrcLoc{}),
                            call("%ad-add", {cp(a), cp(b)}), SrcLoc{});
    }
    return r;
  }

 private:
  Environment* core_;
  Value car_, cdr_, vref_, nth_, add_;
  Value cell(const char* name) { return core_->cell_for(intern(name)); }
  Node* call(const char* name, std::initializer_list<Node*> args) {
    CallNode* c = gc_new<CallNode>(gc_new<GlobalRefNode>(cell(name), SrcLoc{}), SrcLoc{});
    for (Node* a : args) c->args.push_back(a);
    return c;
  }
  static Node* zero() { return gc_new<ConstNode>(intern("%ad-zero"), SrcLoc{}); }
  // a fresh node for an operand used more than once (the tree stays a tree)
  static Node* cp(Node* a) {
    if (a->kind == NodeKind::LocalRef) return gc_new<LocalRefNode>(static_cast<LocalRefNode*>(a)->var, a->loc);
    return gc_new<ConstNode>(static_cast<ConstNode*>(a)->value, a->loc);
  }
  Node* take(Node* d, const char* which) {
    return gc_new<IfNode>(call("pair?", {cp(d)}), call(which, {cp(d)}), zero(), SrcLoc{});
  }
  // (%ad-nth d k): (let ((t (%ad-cdr d))) ... (%ad-car t))
  Node* nth(Node* d, int64_t k) {
    if (k == 0) return take(d, "car");
    Var* t = make_var(intern("d"));
    LetNode* l = gc_new<LetNode>(NodeKind::Let, SrcLoc{});
    l->vars.push_back(t);
    l->inits.push_back(take(d, "cdr"));
    l->body = nth(gc_new<LocalRefNode>(t, SrcLoc{}), k - 1);
    return l;
  }
};

}  // namespace

bool carryable(RuleCache& rules, Value f, const std::vector<size_t>& ks, bool* returns) {
  Seen seen;
  return carryable_value(rules.core, f, ks, returns, seen);
}

LambdaNode* carrying_source(Vm& vm, RuleCache& rules, LambdaNode* src, const std::vector<size_t>& ks, bool returns) {
  Reverse r(vm, rules, src->name, false);
  return r.carrying(src, ks, returns);
}

LambdaNode* make_reverse_maker(Vm& vm, RuleCache& rules, LambdaNode* src, Var** fvs, const bool* boxed,
                               size_t nfv, Value name, bool* quiet) {
  Reverse r(vm, rules, name, false);
  LambdaNode* m = r.maker(src, fvs, boxed, nfv);
  Node* code = r.drop_dead_pairs(m);
  *quiet = r.quiet();
  if (*quiet) {
    // again, knowing it: its own recursion's pullbacks need not run for an unreached value
    Reverse again(vm, rules, name, true);
    code = again.drop_dead_pairs(again.maker(src, fvs, boxed, nfv));
  }
  return static_cast<LambdaNode*>(InlineHelpers(rules.core).visit(code));
}

}  // namespace quasi::ad
