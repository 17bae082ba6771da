// compiler.cpp — lowers core IR (ir/ir.hpp) to the VM's register bytecode (vm/proto.hpp).
//
// Owner: ir. Two steps: the analysis (a FreeVariables subclass: free variables in closure-layout
// order, captured and boxed variables, assigned variables kept in their one closure's slot,
// letrec groups tied with kFixClosure, self references read as R[0]) and the lowering, the one switch over NodeKind outside lib/ir. Invariants: a
// closure's free slots are in FreeVariables order (the partial evaluator reads Proto::free_vars by
// that order); every register the code uses is below nregs; a call's callee and arguments are
// consecutive registers; calls of builtins with an inline op (PrimFacts::inline_op) become that
// instruction followed by a data word naming the cell or primitive; IR too deep to analyse is
// refused with a clean error. A named let (a letrec-bound lambda only called, in tail position
// of its body) is no closure: its parameters are registers of the frame and its calls jump back
// to its head (loop_letrec).
#include "vm/compiler.hpp"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"
#include "ir/early_reads.hpp"
#include "ir/free_vars.hpp"
#include "ir/functor.hpp"
#include "ir/util.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {
namespace {

constexpr int kMaxRegisters = 65000;
constexpr int kMaxConstants = 65000;

bool only_tail_called(Node* n, Var* v, size_t nargs, bool tail, int depth);

// A letrec compiled as a loop in its procedure's frame (FnCompiler::loop_letrec): one variable,
// not assigned, bound to a one-clause lambda without rest parameter that is only called, in tail
// position of its own body and of the letrec's body. Its lambda makes no closure.
bool loop_shape(LetNode* l) {
  if (l->vars.size() != 1 || l->vars[0]->assigned || l->inits[0]->kind != NodeKind::Lambda) return false;
  auto* lam = static_cast<LambdaNode*>(l->inits[0]);
  if (lam->clauses.size() != 1 || lam->clauses[0]->rest) return false;
  LambdaClause* c = lam->clauses[0];
  return only_tail_called(c->body, l->vars[0], c->params.size(), true, 0) &&
         only_tail_called(l->body, l->vars[0], c->params.size(), true, 0);
}

// ---- analysis: free variables (the toolkit's scan), captured and boxed variables, self references

class Analysis : public FreeVariables {
 public:
  std::unordered_map<LambdaNode*, Var*> self;   // letrec name whose references inside read R[0]
  std::unordered_set<Var*> boxed;
  std::unordered_set<LetNode*> fixable;  // letrec groups tied with kFixClosure
  // The variables of fixable groups: the Proto of each once compiled, and the free slots of
  // Protos compiled before it (inside it) that hold it, to fill in then (Proto::free_protos).
  std::unordered_map<Var*, Proto*> fixed_proto;
  std::unordered_map<Var*, std::vector<std::pair<Proto*, size_t>>> fixed_pending;
  // Assigned variables kept in the free slot of the one closure that uses them and assigned
  // there in place (kSetFree), instead of in a box: two allocations fewer for a memo thunk
  // (let ((done #f) (v #f)) (lambda () ... (set! v ...) (set! done #t) ...)). See finish().
  std::unordered_set<Var*> own;
  // References that may read a letrec variable before its init has run (ir/early_reads.hpp):
  // each is followed by kCheckBound, which raises naming the variable instead of letting the
  // unbound marker flow on ("application: expected a procedure, got #!unbound").
  std::unordered_set<LocalRefNode*> checked;

  // After the walk: picks the `own` variables and takes them out of `boxed`.
  void finish() {
    for (auto& [lam, info] : lambdas)
      for (LambdaClause* c : lam->clauses)
        for (LambdaNode* made : made_first(c->body)) {
          for (Var* p : c->params) own_candidate(p, made);
          if (c->rest) own_candidate(c->rest, made);
        }
    for (auto [v, lam] : candidates_) {
      auto it = ref_lambda_.find(v);
      if (it == ref_lambda_.end() || it->second != lam) continue;
      own.insert(v);
      boxed.erase(v);
    }
  }

  void visit_local_ref(LocalRefNode* n) override { note_ref(n->var); }
  void visit_local_set(LocalSetNode* n) override {
    note_ref(n->var);
    visit(n->value);
  }
  void visit_let(LetNode* l) override {
    FreeVariables::visit_let(l);
    for (LambdaNode* made : made_first(l->body))
      for (Var* v : l->vars) own_candidate(v, made);
  }
  void visit_letrec(LetNode* l) override {
    bool all_lambdas = true;
    for (size_t i = 0; i < l->vars.size(); i++)
      if (l->inits[i]->kind != NodeKind::Lambda || l->vars[i]->assigned) all_lambdas = false;
    for (Var* v : l->vars) bind(v);
    if (all_lambdas) fixable.insert(l);
    // A loop's body is compiled in the frame of the lambda around it (loop_letrec).
    if (loop_shape(l)) in_frame_.insert(static_cast<LambdaNode*>(l->inits[0]));
    for (size_t i = 0; i < l->vars.size(); i++) {
      if (all_lambdas) {
        auto* lam = static_cast<LambdaNode*>(l->inits[i]);
        self[lam] = l->vars[i];
        lambda(lam, l->vars[i]);
      } else {
        visit(l->inits[i]);
      }
    }
    visit(l->body);
    if (!all_lambdas)
      for (Var* v : l->vars)
        if (v->captured && !v->assigned) boxed.insert(v);  // may be captured before its init
  }

 protected:
  void bind(Var* v) override {
    FreeVariables::bind(v);
    v->captured = false;
    // An assigned variable is a location shared by every re-entry of a continuation (which
    // copies the stack), so it lives in a box even when no closure captures it.
    if (v->assigned) boxed.insert(v);
  }

 private:
  // An assigned variable whose binder's body makes the closure `lam` before anything else runs
  // (made_first): kept in `lam`'s closure when every reference is in `lam`'s own code (its
  // loops included, not a lambda nested in it). Then nothing else reads or writes the variable,
  // and each binding makes exactly one such closure right away, so the slot is the only copy of
  // the location — also when a continuation is re-entered: no call runs between the binding and
  // the closure, so no continuation is captured there, and one captured later finds the same
  // closure on re-entry. Two closures, a nested lambda, a reference in the binder's body or a
  // variable bound by letrec keep the box.
  void own_candidate(Var* v, LambdaNode* lam) {
    if (v->assigned) candidates_.push_back({v, lam});
  }
  // The closures a binder's body makes before it runs any other code: the body itself when it is
  // a lambda, or the lambdas of a letrec of lambdas that is not a loop (no call runs between
  // its closures; kFixClosure only ties their slots).
  std::vector<LambdaNode*> made_first(Node* body) {
    if (body->kind == NodeKind::Lambda) return {static_cast<LambdaNode*>(body)};
    if (body->kind != NodeKind::Letrec) return {};
    auto* l = static_cast<LetNode*>(body);
    std::vector<LambdaNode*> out;
    for (Node* init : l->inits) {
      if (init->kind != NodeKind::Lambda) return {};
      out.push_back(static_cast<LambdaNode*>(init));
    }
    for (Var* v : l->vars)
      if (v->assigned) return {};
    if (loop_shape(l)) return {};
    return out;
  }
  void note_ref(Var* v) {
    if (ref(v)) v->captured = true;
    // The innermost lambda of all references so far that makes a frame; null once two differ.
    LambdaNode* at = nullptr;
    for (size_t k = stack_.size(); k-- > 0;)
      if (!in_frame_.count(stack_[k])) {
        at = stack_[k];
        break;
      }
    auto [it, fresh] = ref_lambda_.emplace(v, at);
    if (!fresh && it->second != at) it->second = nullptr;
  }
  std::unordered_map<Var*, LambdaNode*> ref_lambda_;
  std::vector<std::pair<Var*, LambdaNode*>> candidates_;
  std::unordered_set<LambdaNode*> in_frame_;  // loops' lambdas (loop_shape)
};

// ---- loops: a named let in tail position compiled in its procedure's frame ------------------

// True when every reference to `v` in `n` is the operator of a call with `nargs` operands in tail
// position of `n` (`tail`), none inside a lambda. Such a `v` bound by a letrec to a one-clause
// lambda is a loop: its calls are jumps (FnCompiler::loop_letrec). The depth guard is the
// passes' (the IR is already known not to be too deep: Analysis ran on it).
bool only_tail_called(Node* n, Var* v, size_t nargs, bool tail, int depth) {
  if (depth > kMaxPassDepth) return false;
  switch (n->kind) {
    case NodeKind::LocalRef:
      return static_cast<LocalRefNode*>(n)->var != v;
    case NodeKind::LocalSet:
      return static_cast<LocalSetNode*>(n)->var != v && only_tail_called(static_cast<LocalSetNode*>(n)->value, v, nargs, false, depth + 1);
    case NodeKind::If: {
      auto* i = static_cast<IfNode*>(n);
      return only_tail_called(i->test, v, nargs, false, depth + 1) && only_tail_called(i->then, v, nargs, tail, depth + 1) &&
             only_tail_called(i->otherwise, v, nargs, tail, depth + 1);
    }
    case NodeKind::Seq: {
      auto* q = static_cast<SeqNode*>(n);
      for (size_t k = 0; k < q->exprs.size(); k++)
        if (!only_tail_called(q->exprs[k], v, nargs, tail && k + 1 == q->exprs.size(), depth + 1)) return false;
      return true;
    }
    case NodeKind::Let:
    case NodeKind::Letrec: {
      auto* l = static_cast<LetNode*>(n);
      for (Node* init : l->inits)
        if (!only_tail_called(init, v, nargs, false, depth + 1)) return false;
      return only_tail_called(l->body, v, nargs, tail, depth + 1);
    }
    case NodeKind::Call: {
      auto* c = static_cast<CallNode*>(n);
      bool ok = true;
      if (c->fn->kind == NodeKind::LocalRef && static_cast<LocalRefNode*>(c->fn)->var == v)
        ok = tail && c->args.size() == nargs;
      else
        ok = only_tail_called(c->fn, v, nargs, false, depth + 1);
      for (Node* a : c->args) ok = ok && only_tail_called(a, v, nargs, false, depth + 1);
      return ok;
    }
    default: {
      // Lambda (a reference inside would capture v), PrimCall, GlobalSet, constants.
      bool ok = true;
      for_each_child(n, [&](Node* child) { ok = ok && only_tail_called(child, v, nargs, false, depth + 1); });
      return ok;
    }
  }
}

// ---- code generation -------------------------------------------------------------------------

enum class Where : uint8_t { Reg, Free, Self };
struct VarLoc {
  Where where;
  int index;
  bool boxed;
};

[[noreturn]] void compile_error(SrcLoc loc, const std::string& msg) {
  throw SchemeError{make_condition(intern("syntax"), kFalse, make_string_utf8(msg), kNil, loc)};
}

class FnCompiler {
 public:
  FnCompiler(VmImpl& vm, Analysis& an, LambdaNode* lam) : vm_(vm), an_(an), lam_(lam), info_(an.lambdas[lam]) {
    auto it = an.self.find(lam);
    self_ = it == an.self.end() ? nullptr : it->second;
  }

  Proto* compile() {
    // Free variables first: their order is the closure's layout.
    for (size_t i = 0; i < info_.free.size(); i++) locs_[info_.free[i]] = {Where::Free, int(i), is_boxed(info_.free[i])};
    if (self_) locs_[self_] = {Where::Self, 0, false};
    Proto* first = nullptr;
    Proto* prev = nullptr;
    for (LambdaClause* c : lam_->clauses) {
      Proto* p = compile_clause(c);
      if (!first) first = p;
      else prev->next_clause = p;
      prev = p;
    }
    return first;
  }

  // Where the closure for this lambda finds each free variable, seen from the frame making it.
  Capture capture_of(Var* v) {
    VarLoc l = lookup(v, lam_->loc);
    if (l.where == Where::Free) return Capture{1, uint32_t(l.index)};
    return Capture{0, uint32_t(l.where == Where::Self ? 0 : l.index)};
  }

 private:
  VmImpl& vm_;
  Analysis& an_;
  LambdaNode* lam_;
  FreeVariables::Info& info_;
  Var* self_ = nullptr;
  std::unordered_map<Var*, VarLoc> locs_;
  // Loops compiled in this frame (loop_letrec): the name's first parameter register and the
  // index of the loop head, where a call jumps after moving its operands there.
  struct Loop {
    int base;
    size_t head;
  };
  std::unordered_map<Var*, Loop> loops_;
  // The innermost loop being compiled that is not in tail position: its body's tail positions
  // put their value in `dst` and jump past the loop (the jumps are patched there).
  struct Exit {
    int dst;
    std::vector<size_t> jumps;
  };
  Exit* exit_ = nullptr;
  // Inline call/cc (callcc): off in the closure compiled for the slow code and everything in it;
  // the number of inline bodies being compiled around the current point.
  bool no_callcc_inline_ = false;
  int callcc_nesting_ = 0;
  static constexpr int kMaxCallCCNesting = 8;

  // Per-clause state.
  std::vector<Insn> code_;
  std::vector<uint64_t> code_locs_;
  gc_vector<Value> consts_;
  std::unordered_map<uint64_t, int> const_index_;
  int next_reg_ = 0, max_reg_ = 0;
  SrcLoc cur_loc_;

  bool is_boxed(Var* v) const { return an_.boxed.count(v) != 0; }

  VarLoc lookup(Var* v, SrcLoc where) {
    auto it = locs_.find(v);
    if (it == locs_.end()) compile_error(where, "internal error: variable " + std::string(symbol_name(v->name)) + " not in scope");
    return it->second;
  }

  Proto* compile_clause(LambdaClause* c) {
    code_.clear();
    code_locs_.clear();
    consts_.clear();
    const_index_.clear();
    next_reg_ = 1;
    for (Var* p : c->params) bind_reg(p, next_reg_++);
    if (c->rest) bind_reg(c->rest, next_reg_++);
    max_reg_ = next_reg_;
    cur_loc_ = lam_->loc;
    // Captured and assigned parameters move into boxes on entry.
    for (Var* p : c->params)
      if (is_boxed(p)) emit(Op::kBox, uint16_t(locs_[p].index));
    if (c->rest && is_boxed(c->rest)) emit(Op::kBox, uint16_t(locs_[c->rest].index));
    expr(c->body, 0, true);

    Proto* p = gc_alloc_object<Proto>(Type::Proto, sizeof(Proto));
    p->name = lam_->name;
    p->nparams = int32_t(c->params.size());
    p->has_rest = c->rest != nullptr;
    p->nregs = max_reg_ + 1;
    p->ncode = int32_t(code_.size());
    p->code = static_cast<Insn*>(gc_alloc_atomic(sizeof(Insn) * code_.size()));
    std::copy(code_.begin(), code_.end(), p->code);
    p->locs = static_cast<uint64_t*>(gc_alloc_atomic(sizeof(uint64_t) * code_locs_.size()));
    std::copy(code_locs_.begin(), code_locs_.end(), p->locs);
    p->nconsts = int32_t(consts_.size());
    p->consts = static_cast<Value*>(gc_alloc(sizeof(Value) * (consts_.size() + 1)));
    std::copy(consts_.begin(), consts_.end(), p->consts);
    p->ncaptures = 0;
    p->captures = nullptr;
    p->next_clause = nullptr;
    p->loc = lam_->loc.pack();
    p->jit = nullptr;
    p->hotness = 0;
    p->jit_state = 0;
    p->inline_off = false;
    p->source = lam_;
    p->free_vars = nullptr;
    p->free_protos = nullptr;
    p->free_boxed = nullptr;
    p->free_assigned = nullptr;
    return p;
  }

  void bind_reg(Var* v, int reg) { locs_[v] = {Where::Reg, reg, is_boxed(v)}; }

  int alloc(int n = 1) {
    int r = next_reg_;
    next_reg_ += n;
    if (next_reg_ > max_reg_) max_reg_ = next_reg_;
    if (max_reg_ >= kMaxRegisters) compile_error(cur_loc_, "procedure too large to compile");
    return r;
  }

  size_t emit(Op op, uint16_t a = 0, uint16_t b = 0, uint16_t c = 0) {
    code_.push_back(Insn{op, a, b, c});
    code_locs_.push_back(cur_loc_.pack());
    return code_.size() - 1;
  }

  uint16_t konst(Value v) {
    auto it = const_index_.find(v.bits);
    if (it != const_index_.end()) return uint16_t(it->second);
    if (consts_.size() >= size_t(kMaxConstants)) compile_error(cur_loc_, "procedure has too many constants");
    consts_.push_back(v);
    const_index_[v.bits] = int(consts_.size() - 1);
    return uint16_t(consts_.size() - 1);
  }

  // A jump to patch: a plain jump keeps its offset in its own b/c, a fused test-and-branch in
  // the b/c of its data word (offsets count from the instruction after them).
  struct JumpSite {
    size_t at;
    bool fused;
  };

  void patch_jump(size_t at) { patch_jump(JumpSite{at, false}); }
  void patch_jump(JumpSite j) {
    size_t word = j.fused ? j.at + 1 : j.at;
    int32_t off = int32_t(code_.size()) - int32_t(word) - 1;
    code_[word].b = uint16_t(uint32_t(off) & 0xFFFF);
    code_[word].c = uint16_t(uint32_t(off) >> 16);
  }

  static bool small_fixnum(Node* n, int16_t* out) {
    if (n->kind != NodeKind::Const) return false;
    Value v = static_cast<ConstNode*>(n)->value;
    if (!v.is_fixnum() || v.fixnum() < -32768 || v.fixnum() > 32767) return false;
    *out = int16_t(v.fixnum());
    return true;
  }

  // The inline op a call would compile to, with its builtin and cell; Op::kCount if none.
  Op inline_target(Node* n, Value* prim, Value* cell, const gc_vector<Node*>** args) {
    Value callee = kFalse;
    *cell = kFalse;
    if (n->kind == NodeKind::Call) {
      auto* c = static_cast<CallNode*>(n);
      if (c->fn->kind != NodeKind::GlobalRef) return Op::kCount;
      *cell = static_cast<GlobalRefNode*>(c->fn)->cell;
      // Only a builtin's own cell: writing it turns the inline paths off (VmImpl::cell_written).
      // Another global holding a builtin (define op car) may be assigned any time: a call.
      if (!(cell->obj()->header & kInlinedCell)) return Op::kCount;
      callee = cell->as<GlobalCell>()->value;
      *args = &c->args;
    } else if (n->kind == NodeKind::PrimCall) {
      auto* c = static_cast<PrimCallNode*>(n);
      callee = c->prim;
      *args = &c->args;
    } else {
      return Op::kCount;
    }
    if (!is_primitive(callee)) return Op::kCount;
    *prim = callee;
    return inline_op_of(callee.as<Primitive>());
  }

  // Compiles `test` so that control falls through when it is true and jumps when it is false.
  JumpSite branch_if_false(Node* test) {
    SrcLoc saved = cur_loc_;
    if (test->loc.known()) cur_loc_ = test->loc;
    Value prim, cell;
    const gc_vector<Node*>* args = nullptr;
    Op op = inline_target(test, &prim, &cell, &args);
    Op fused = Op::kCount, fused_imm = Op::kCount, swapped_imm = Op::kCount;
    size_t arity = 2;
    switch (op) {
      case Op::kLt: fused = Op::kBrLt; fused_imm = Op::kBrLtI; swapped_imm = Op::kBrGtI; break;
      case Op::kLe: fused = Op::kBrLe; fused_imm = Op::kBrLeI; swapped_imm = Op::kBrGeI; break;
      case Op::kGt: fused = Op::kBrGt; fused_imm = Op::kBrGtI; swapped_imm = Op::kBrLtI; break;
      case Op::kGe: fused = Op::kBrGe; fused_imm = Op::kBrGeI; swapped_imm = Op::kBrLeI; break;
      case Op::kNumEq: fused = Op::kBrNumEq; fused_imm = Op::kBrNumEqI; swapped_imm = Op::kBrNumEqI; break;
      case Op::kEq: fused = Op::kBrEq; break;
      case Op::kNullP: fused = Op::kBrNull; arity = 1; break;
      case Op::kPairP: fused = Op::kBrPair; arity = 1; break;
      case Op::kZeroP: fused = Op::kBrZero; arity = 1; break;
      case Op::kNot: fused = Op::kBrNot; arity = 1; break;
      default: break;
    }
    if (fused == Op::kCount || args->size() != arity) {
      int mark = next_reg_;
      int t = operand(test);
      size_t at = emit(Op::kJumpIfFalse, uint16_t(t));
      next_reg_ = mark;
      cur_loc_ = saved;
      return JumpSite{at, false};
    }
    int mark = next_reg_;
    uint16_t cell_k = konst(cell == kFalse ? prim : cell);
    int16_t imm;
    size_t at;
    if (arity == 1) {
      at = emit(fused, uint16_t(operand((*args)[0])));
    } else if (fused_imm != Op::kCount && small_fixnum((*args)[1], &imm)) {
      at = emit(fused_imm, uint16_t(operand((*args)[0])), uint16_t(imm));
    } else if (swapped_imm != Op::kCount && small_fixnum((*args)[0], &imm)) {
      // c = 1 marks the swap, so a type error still names the procedure the program called.
      at = emit(swapped_imm, uint16_t(operand((*args)[1])), uint16_t(imm), 1);
    } else {
      uint16_t x = uint16_t(operand((*args)[0]));
      uint16_t y = uint16_t(operand((*args)[1]));
      at = emit(fused, x, y);
    }
    emit(Op::kMove, cell_k);  // data word; its b/c get the jump offset
    next_reg_ = mark;
    cur_loc_ = saved;
    return JumpSite{at, true};
  }

  // The value of a tail position: returned, or inside a loop that is not in tail position
  // (loop_letrec) moved to the loop's result register and a jump to the code after the loop.
  void ret(int reg) {
    if (!exit_) {
      emit(Op::kReturn, uint16_t(reg));
      return;
    }
    if (reg != exit_->dst) emit(Op::kMove, uint16_t(exit_->dst), uint16_t(reg));
    exit_->jumps.push_back(emit(Op::kJump));
  }
  void ret_if(bool tail, int reg) {
    if (tail) ret(reg);
  }

  // Computes n into R[dst]; in tail position also returns it (or tail-calls).
  void expr(Node* n, int dst, bool tail) {
    SrcLoc saved = cur_loc_;
    if (n->loc.known()) cur_loc_ = n->loc;
    switch (n->kind) {
      case NodeKind::Const:
        emit(Op::kConst, uint16_t(dst), konst(static_cast<ConstNode*>(n)->value));
        ret_if(tail, dst);
        break;
      case NodeKind::LocalRef: {
        auto* r = static_cast<LocalRefNode*>(n);
        bool check = an_.checked.count(r);
        VarLoc l = lookup(r->var, n->loc);
        if (tail && !check && l.where == Where::Reg && !l.boxed) {
          ret(l.index);
          break;
        }
        local_ref(r->var, dst);
        if (check) emit(Op::kCheckBound, uint16_t(dst), konst(r->var->name));
        ret_if(tail, dst);
        break;
      }
      case NodeKind::LocalSet: {
        auto* s = static_cast<LocalSetNode*>(n);
        int mark = next_reg_;
        int t = alloc();
        expr(s->value, t, false);
        VarLoc l = lookup(s->var, n->loc);
        if (l.where == Where::Reg && l.boxed) emit(Op::kSetBox, uint16_t(l.index), uint16_t(t));
        else if (l.where == Where::Reg) emit(Op::kMove, uint16_t(l.index), uint16_t(t));
        else if (l.where == Where::Free && l.boxed) {
          int b = alloc();
          emit(Op::kFree, uint16_t(b), uint16_t(l.index));
          emit(Op::kSetBox, uint16_t(b), uint16_t(t));
        } else if (l.where == Where::Free && an_.own.count(s->var)) {
          emit(Op::kSetFree, uint16_t(t), uint16_t(l.index));
        } else {
          compile_error(n->loc, "internal error: assignment to an unboxed captured variable");
        }
        next_reg_ = mark;
        emit(Op::kConst, uint16_t(dst), konst(kUnspecified));
        ret_if(tail, dst);
        break;
      }
      case NodeKind::GlobalRef:
        emit(Op::kGlobalRef, uint16_t(dst), konst(static_cast<GlobalRefNode*>(n)->cell));
        ret_if(tail, dst);
        break;
      case NodeKind::GlobalSet: {
        auto* s = static_cast<GlobalSetNode*>(n);
        int mark = next_reg_;
        int t = alloc();
        expr(s->value, t, false);
        emit(s->is_define ? Op::kGlobalDef : Op::kGlobalSet, uint16_t(t), konst(s->cell));
        next_reg_ = mark;
        emit(Op::kConst, uint16_t(dst), konst(kUnspecified));
        ret_if(tail, dst);
        break;
      }
      case NodeKind::If: {
        auto* i = static_cast<IfNode*>(n);
        JumpSite jf = branch_if_false(i->test);
        expr(i->then, dst, tail);
        if (tail) {
          patch_jump(jf);
          expr(i->otherwise, dst, true);
        } else {
          size_t j = emit(Op::kJump);
          patch_jump(jf);
          expr(i->otherwise, dst, false);
          patch_jump(j);
        }
        break;
      }
      case NodeKind::Lambda:
        make_closure(static_cast<LambdaNode*>(n), dst);
        ret_if(tail, dst);
        break;
      case NodeKind::Call: {
        auto* c = static_cast<CallNode*>(n);
        call(c->fn, nullptr, c->args, dst, tail);
        break;
      }
      case NodeKind::PrimCall: {
        auto* c = static_cast<PrimCallNode*>(n);
        call(nullptr, &c->prim, c->args, dst, tail);
        break;
      }
      case NodeKind::Let:
        let(static_cast<LetNode*>(n), dst, tail);
        break;
      case NodeKind::Letrec:
        letrec(static_cast<LetNode*>(n), dst, tail);
        break;
      case NodeKind::Seq: {
        auto* s = static_cast<SeqNode*>(n);
        for (size_t k = 0; k + 1 < s->exprs.size(); k++) {
          int mark = next_reg_;
          int t = alloc();
          expr(s->exprs[k], t, false);
          next_reg_ = mark;
        }
        if (s->exprs.empty()) {
          emit(Op::kConst, uint16_t(dst), konst(kUnspecified));
          ret_if(tail, dst);
        } else {
          expr(s->exprs.back(), dst, tail);
        }
        break;
      }
    }
    cur_loc_ = saved;
  }

  void local_ref(Var* v, int dst) {
    VarLoc l = lookup(v, cur_loc_);
    switch (l.where) {
      case Where::Self:
        emit(Op::kMove, uint16_t(dst), 0);
        break;
      case Where::Reg:
        if (l.boxed) emit(Op::kUnbox, uint16_t(dst), uint16_t(l.index));
        else if (l.index != dst) emit(Op::kMove, uint16_t(dst), uint16_t(l.index));
        break;
      case Where::Free:
        emit(l.boxed ? Op::kFreeUnbox : Op::kFree, uint16_t(dst), uint16_t(l.index));
        break;
    }
  }

  // A register holding n's value: the variable's own register when it has one, else a temp.
  int operand(Node* n) {
    if (n->kind == NodeKind::LocalRef && !an_.checked.count(static_cast<LocalRefNode*>(n))) {
      VarLoc l = lookup(static_cast<LocalRefNode*>(n)->var, n->loc);
      if (l.where == Where::Reg && !l.boxed) return l.index;
      if (l.where == Where::Self) return 0;
    }
    int t = alloc();
    expr(n, t, false);
    return t;
  }

  Proto* make_closure(LambdaNode* l, int dst) {
    FnCompiler child(vm_, an_, l);
    child.no_callcc_inline_ = no_callcc_inline_;
    Proto* p = child.compile();
    FreeVariables::Info& info = an_.lambdas[l];
    p->ncaptures = int32_t(info.free.size());
    p->captures = static_cast<Capture*>(gc_alloc_atomic(sizeof(Capture) * (info.free.size() + 1)));
    for (size_t i = 0; i < info.free.size(); i++) p->captures[i] = capture_of(info.free[i]);
    p->free_vars = static_cast<Var**>(gc_alloc(sizeof(Var*) * (info.free.size() + 1)));
    for (size_t i = 0; i < info.free.size(); i++) p->free_vars[i] = info.free[i];
    p->free_boxed = static_cast<bool*>(gc_alloc_atomic(sizeof(bool) * (info.free.size() + 1)));
    for (size_t i = 0; i < info.free.size(); i++) p->free_boxed[i] = is_boxed(info.free[i]);
    for (size_t i = 0; i < info.free.size(); i++) {
      if (!an_.own.count(info.free[i])) continue;
      if (!p->free_assigned) {
        p->free_assigned = static_cast<bool*>(gc_alloc_atomic(sizeof(bool) * (info.free.size() + 1)));
        for (size_t k = 0; k <= info.free.size(); k++) p->free_assigned[k] = false;
      }
      p->free_assigned[i] = true;
    }
    for (size_t i = 0; i < info.free.size(); i++) {
      Var* v = info.free[i];
      if (!an_.fixed_pending.count(v) && !an_.fixed_proto.count(v)) continue;
      if (!p->free_protos) {
        p->free_protos = static_cast<Proto**>(gc_alloc(sizeof(Proto*) * (info.free.size() + 1)));
        for (size_t k = 0; k <= info.free.size(); k++) p->free_protos[k] = nullptr;
      }
      auto known = an_.fixed_proto.find(v);
      if (known != an_.fixed_proto.end()) p->free_protos[i] = known->second;
      else an_.fixed_pending[v].push_back({p, i});
    }
    for (Proto* c = p->next_clause; c; c = c->next_clause) {
      c->ncaptures = p->ncaptures;
      c->captures = p->captures;
      c->free_vars = p->free_vars;
      c->free_protos = p->free_protos;
      c->free_boxed = p->free_boxed;
      c->free_assigned = p->free_assigned;
    }
    // A lambda without free variables needs no new closure each time: one made now is a
    // constant (procedures are compared by identity only where the program keeps one, R7RS 6.1
    // leaves eqv? on two evaluations of one lambda open, and Chez Scheme shares them too).
    // The Proto stays among the constants too: walks over the code tree (redefinition, the
    // JIT's compile of a tree, disassemble) find child code there.
    uint16_t code_k = konst(make_ptr(p));
    if (info.free.empty()) emit(Op::kConst, uint16_t(dst), konst(::quasi::make_closure(p, 0)));
    else emit(Op::kClosure, uint16_t(dst), code_k);
    return p;
  }

  void call(Node* fn, const Value* prim, const gc_vector<Node*>& args, int dst, bool tail) {
    if (fn && fn->kind == NodeKind::LocalRef) {
      auto it = loops_.find(static_cast<LocalRefNode*>(fn)->var);
      if (it != loops_.end()) {
        if (!tail) compile_error(cur_loc_, "internal error: a loop called outside tail position");
        loop_jump(it->second, args);
        return;
      }
    }
    // In tail position of a loop that is not: a call, then its value is the loop's.
    if (tail && exit_) {
      call(fn, prim, args, exit_->dst, false);
      ret(exit_->dst);
      return;
    }
    // A call through a builtin's global cell becomes an inline instruction with a guard.
    Value cell = kFalse;
    Value callee = prim ? *prim : kFalse;
    if (fn && fn->kind == NodeKind::GlobalRef) {
      cell = static_cast<GlobalRefNode*>(fn)->cell;
      // Inline only through a builtin's own cell (see inline_target).
      if (cell.obj()->header & kInlinedCell) callee = cell.as<GlobalCell>()->value;
    }
    if (is_primitive(callee) && inline_op_of(callee.as<Primitive>()) == Op::kCallCC) {
      if (callcc(callee, cell, args, dst, tail)) return;
    } else if (is_primitive(callee) && inline_call(callee, cell, args, dst, tail)) {
      return;
    }

    if (args.size() > 60000) compile_error(cur_loc_, "too many arguments in one call");
    int mark = next_reg_;
    // A result register that is the newest temporary can be the call's base: no move after.
    bool reuse = !tail && dst > 0 && dst == next_reg_ - 1;
    int base = reuse ? dst : alloc(1);
    alloc(int(args.size()));
    // A global operator is read after the operands (ir/util.hpp).
    bool operator_last = operator_read_last(fn);
    if (!operator_last) {
      if (fn) expr(fn, base, false);
      else emit(Op::kConst, uint16_t(base), konst(*prim));
    }
    for (size_t k = 0; k < args.size(); k++) expr(args[k], base + 1 + int(k), false);
    if (operator_last) expr(fn, base, false);
    if (tail) {
      emit(Op::kTailCall, uint16_t(base), uint16_t(args.size()));
    } else {
      emit(Op::kCall, uint16_t(base), uint16_t(args.size()));
      if (base != dst) emit(Op::kMove, uint16_t(dst), uint16_t(base));
    }
    next_reg_ = mark;
  }

  bool inline_call(Value prim, Value cell, const gc_vector<Node*>& args, int dst, bool tail) {
    Op op = inline_op_of(prim.as<Primitive>());
    if (op == Op::kCount) return false;
    size_t arity = 2;
    switch (op) {
      case Op::kCar: case Op::kCdr: case Op::kNullP: case Op::kPairP: case Op::kNot: case Op::kZeroP:
      case Op::kStringLength: case Op::kVectorLength:
        arity = 1;
        break;
      case Op::kVectorSet:
        arity = 3;
        break;
      default:
        break;
    }
    if (arity == 2 && args.size() > 2 && args.size() <= size_t(kMaxOpChain) && left_fold(prim))
      return op_chain(op, prim, cell, args, dst, tail);
    if (args.size() != arity) return false;
    int mark = next_reg_;
    uint16_t cell_k = konst(is_primitive(cell) || cell == kFalse ? prim : cell);
    int16_t imm;
    if ((op == Op::kAdd || op == Op::kSub) && small_fixnum(args[1], &imm)) {
      emit(op == Op::kAdd ? Op::kAddI : Op::kSubI, uint16_t(dst), uint16_t(operand(args[0])), uint16_t(imm));
      emit(Op::kMove, cell_k);  // data word
      next_reg_ = mark;
      ret_if(tail, dst);
      return true;
    }
    if (op == Op::kAdd && small_fixnum(args[0], &imm)) {
      emit(Op::kAddI, uint16_t(dst), uint16_t(operand(args[1])), uint16_t(imm));
      emit(Op::kMove, cell_k);  // data word
      next_reg_ = mark;
      ret_if(tail, dst);
      return true;
    }
    uint16_t r[3] = {0, 0, 0};
    for (size_t k = 0; k < arity; k++) r[k] = uint16_t(operand(args[k]));
    if (op == Op::kVectorSet) {
      emit(op, r[0], r[1], r[2]);
      emit(Op::kMove, cell_k);  // data word
      next_reg_ = mark;
      emit(Op::kConst, uint16_t(dst), konst(kUnspecified));
    } else {
      emit(op, uint16_t(dst), r[0], r[1]);
      emit(Op::kMove, cell_k);  // data word
      next_reg_ = mark;
    }
    ret_if(tail, dst);
    return true;
  }

  // (call/cc (lambda (k) body)) through call/cc's own cell (or the optimizer's constant): no
  // closure and no call. kCallCC captures a continuation that resumes after the body, k is a
  // register of this frame, and the body is compiled here (vm/proto.hpp has the layout). The
  // lambda is also compiled as a closure for the slow code, the ordinary call taken when the
  // inline paths are off (a redefined call/cc must get a procedure); that copy and the closures
  // in it do not inline call/cc again, so nested call/cc's compile in quadratic, not exponential,
  // size, and at most kMaxCallCCNesting deep. What changes is only what a backtrace shows: an
  // error in the body is in this procedure's frame, at its own location, as in an inlined let.
  // The analysis saw the lambda as a lambda: its boxing decisions hold for both copies.
  bool callcc(Value prim, Value cell, const gc_vector<Node*>& args, int dst, bool tail) {
    if (args.size() != 1 || args[0]->kind != NodeKind::Lambda || no_callcc_inline_ ||
        callcc_nesting_ >= kMaxCallCCNesting)
      return false;
    auto* lam = static_cast<LambdaNode*>(args[0]);
    if (lam->clauses.size() != 1 || lam->clauses[0]->params.size() != 1 || lam->clauses[0]->rest) return false;
    LambdaClause* c = lam->clauses[0];
    int mark = next_reg_;
    int base = alloc(2);  // the slow code calls R[base] with R[base + 1]; k lives in R[base + 1]
    uint16_t cell_k = konst(is_primitive(cell) || cell == kFalse ? prim : cell);
    size_t at = emit(Op::kCallCC, uint16_t(base + 1));
    emit(Op::kMove, cell_k, tail ? kCallCCTail : uint16_t(dst));  // data word
    bind_reg(c->params[0], base + 1);
    if (is_boxed(c->params[0])) emit(Op::kBox, uint16_t(base + 1));
    callcc_nesting_++;
    expr(c->body, dst, tail);
    callcc_nesting_--;
    size_t over = tail ? 0 : emit(Op::kJump);
    size_t slow = code_.size();
    bool saved = no_callcc_inline_;
    no_callcc_inline_ = true;
    make_closure(lam, base + 1);
    no_callcc_inline_ = saved;
    emit(has_type(cell, Type::GlobalCell) ? Op::kGlobalRef : Op::kConst, uint16_t(base), cell_k);
    if (tail) {
      emit(Op::kTailCall, uint16_t(base), 1);
    } else {
      emit(Op::kCall, uint16_t(base), 1);
      if (base != dst) emit(Op::kMove, uint16_t(dst), uint16_t(base));
      patch_jump(over);
    }
    int32_t off = int32_t(slow) - int32_t(at) - 2;
    code_[at].b = uint16_t(uint32_t(off) & 0xFFFF);
    code_[at].c = uint16_t(uint32_t(off) >> 16);
    code_[at + 1].c = uint16_t(code_.size() - slow);
    next_reg_ = mark;
    return true;
  }

  static bool left_fold(Value prim) {
    const DerivativeRule* d = prim.as<Primitive>()->facts.derivative;
    return d && d->fold;
  }

  // (+ a b c ...) of a builtin that is the left fold of its binary op (PrimFacts: derivative's
  // `fold`, p_add and friends): the operands are evaluated first, in order, then combined by a
  // chain of the inline op, `(op dst a b) (op acc acc c) ... (op dst acc z)`. The head's data
  // word holds the operand count in b: after a redefinition the VM calls the new procedure once
  // with every operand (read back from the chain, VmImpl::call_redefined_chain) and skips the
  // rest. gcbig's (+ 1 (count-nodes l) (count-nodes r)) was a call of p_add.
  bool op_chain(Op op, Value prim, Value cell, const gc_vector<Node*>& args, int dst, bool tail) {
    int mark = next_reg_;
    uint16_t cell_k = konst(is_primitive(cell) || cell == kFalse ? prim : cell);
    size_t n = args.size();
    std::vector<uint16_t> r(n);
    for (size_t k = 0; k < n; k++) r[k] = uint16_t(operand(args[k]));
    // The running value must not overwrite an operand still to be read.
    bool clash = false;
    for (size_t k = 2; k < n; k++) clash = clash || r[k] == dst;
    uint16_t acc = clash ? uint16_t(alloc()) : uint16_t(dst);
    for (size_t k = 1; k < n; k++) {
      uint16_t to = k + 1 == n ? uint16_t(dst) : acc;
      emit(op, to, k == 1 ? r[0] : acc, r[k]);
      emit(Op::kMove, cell_k, k == 1 ? uint16_t(n) : uint16_t(0));  // data word
    }
    next_reg_ = mark;
    ret_if(tail, dst);
    return true;
  }

  void let(LetNode* l, int dst, bool tail) {
    int mark = next_reg_;
    int base = alloc(int(l->vars.size()));
    for (size_t k = 0; k < l->vars.size(); k++) {
      expr(l->inits[k], base + int(k), false);
    }
    for (size_t k = 0; k < l->vars.size(); k++) {
      bind_reg(l->vars[k], base + int(k));
      if (is_boxed(l->vars[k])) emit(Op::kBox, uint16_t(base + k));
    }
    expr(l->body, dst, tail);
    next_reg_ = mark;
  }

  // A call of a loop (always in tail position): the operands are computed into temporaries
  // (each may read any parameter), moved to the parameters, and the code jumps back to the head.
  void loop_jump(const Loop& loop, const gc_vector<Node*>& args) {
    int mark = next_reg_;
    int t = alloc(int(args.size()));
    std::vector<bool> same(args.size(), false);
    for (size_t k = 0; k < args.size(); k++) {
      Node* a = args[k];
      // An operand that is its own parameter's current value needs no move.
      if (a->kind == NodeKind::LocalRef && !an_.checked.count(static_cast<LocalRefNode*>(a))) {
        VarLoc l = lookup(static_cast<LocalRefNode*>(a)->var, a->loc);
        if (l.where == Where::Reg && !l.boxed && l.index == loop.base + int(k)) {
          same[k] = true;
          continue;
        }
      }
      expr(a, t + int(k), false);
    }
    for (size_t k = 0; k < args.size(); k++)
      if (!same[k]) emit(Op::kMove, uint16_t(loop.base + int(k)), uint16_t(t + int(k)));
    size_t j = emit(Op::kJump);
    int32_t off = int32_t(loop.head) - int32_t(j) - 1;
    code_[j].b = uint16_t(uint32_t(off) & 0xFFFF);
    code_[j].c = uint16_t(uint32_t(off) >> 16);
    next_reg_ = mark;
  }

  // (letrec ((f (lambda (x ...) body))) e), where f is only called, in tail position of body
  // and of e (a named let, as the forward pass leaves it): no closure is made; x ... are
  // registers of this frame, the loop head computes body, and every call of f moves its operands
  // to x ... and jumps to the head (a backward jump: a poll point and a loop head for the JIT).
  // Not in tail position, the value of body's (and e's) tail positions goes to dst and a jump
  // leaves the loop (Exit). Values and effects are the same: the closure could not escape, and
  // a call in tail position of body gives what body gives. What changes is only what a
  // backtrace shows: the loop runs in its procedure's frame, as after a tail call in any case.
  bool loop_letrec(LetNode* l, int dst, bool tail) {
    if (!loop_shape(l)) return false;
    auto* lam = static_cast<LambdaNode*>(l->inits[0]);
    LambdaClause* c = lam->clauses[0];
    Var* f = l->vars[0];
    int base = alloc(int(c->params.size()));
    for (size_t k = 0; k < c->params.size(); k++) bind_reg(c->params[k], base + int(k));
    Exit exit{dst, {}};
    Exit* outer = exit_;
    if (!tail) exit_ = &exit;
    bool direct = l->body->kind == NodeKind::Call && static_cast<CallNode*>(l->body)->fn->kind == NodeKind::LocalRef &&
                  static_cast<LocalRefNode*>(static_cast<CallNode*>(l->body)->fn)->var == f;
    size_t skip = 0;
    if (direct) {
      // The usual shape: the entry is the first call, falling into the head.
      auto* entry = static_cast<CallNode*>(l->body);
      int mark = next_reg_;
      for (size_t k = 0; k < entry->args.size(); k++) {
        int t = alloc();
        expr(entry->args[k], t, false);
      }
      for (size_t k = 0; k < entry->args.size(); k++) emit(Op::kMove, uint16_t(base + int(k)), uint16_t(mark + int(k)));
      next_reg_ = mark;
    } else {
      skip = emit(Op::kJump);
    }
    SrcLoc saved = cur_loc_;
    if (lam->loc.known()) cur_loc_ = lam->loc;
    loops_[f] = Loop{base, code_.size()};
    // A boxed parameter gets a new box on every iteration, as a new activation would.
    for (size_t k = 0; k < c->params.size(); k++)
      if (is_boxed(c->params[k])) emit(Op::kBox, uint16_t(base + int(k)));
    expr(c->body, dst, true);
    cur_loc_ = saved;
    if (!direct) {
      patch_jump(skip);
      expr(l->body, dst, true);
    }
    loops_.erase(f);
    exit_ = outer;
    for (size_t j : exit.jumps) patch_jump(j);
    return true;
  }

  void letrec(LetNode* l, int dst, bool tail) {
    int mark = next_reg_;
    if (loop_letrec(l, dst, tail)) {
      next_reg_ = mark;
      return;
    }
    int base = alloc(int(l->vars.size()));
    for (size_t k = 0; k < l->vars.size(); k++) {
      bind_reg(l->vars[k], base + int(k));
      emit(Op::kConst, uint16_t(base + k), konst(kUnbound));
      if (is_boxed(l->vars[k])) emit(Op::kBox, uint16_t(base + k));
    }
    if (an_.fixable.count(l)) {
      // A body compiled twice (an inline call/cc's) must not see the other copy's Protos.
      for (Var* v : l->vars) an_.fixed_proto.erase(v);
      for (Var* v : l->vars) an_.fixed_pending[v];
      for (size_t k = 0; k < l->vars.size(); k++) {
        Proto* made = make_closure(static_cast<LambdaNode*>(l->inits[k]), base + int(k));
        an_.fixed_proto[l->vars[k]] = made;
        for (auto [q, slot] : an_.fixed_pending[l->vars[k]]) q->free_protos[slot] = made;
        an_.fixed_pending.erase(l->vars[k]);
      }
      // Tie the knot: closures made before their siblings captured the unbound marker.
      for (size_t k = 0; k < l->vars.size(); k++) {
        FreeVariables::Info& info = an_.lambdas[static_cast<LambdaNode*>(l->inits[k])];
        for (size_t f = 0; f < info.free.size(); f++) {
          for (size_t j = 0; j < l->vars.size(); j++) {
            if (info.free[f] == l->vars[j])
              emit(Op::kFixClosure, uint16_t(base + k), uint16_t(f), uint16_t(base + j));
          }
        }
      }
    } else {
      for (size_t k = 0; k < l->vars.size(); k++) {
        VarLoc loc = locs_[l->vars[k]];
        if (loc.boxed) {
          int m2 = next_reg_;
          int t = alloc();
          expr(l->inits[k], t, false);
          emit(Op::kSetBox, uint16_t(base + k), uint16_t(t));
          next_reg_ = m2;
        } else {
          expr(l->inits[k], base + int(k), false);
        }
      }
    }
    expr(l->body, dst, tail);
    next_reg_ = mark;
  }
};

}  // namespace

Value compile_toplevel(Vm& vm, Node* form) {
  LambdaNode* thunk = gc_new<LambdaNode>(intern("toplevel"), form->loc);
  LambdaClause* clause = gc_new<LambdaClause>();
  clause->body = form;
  thunk->clauses.push_back(clause);
  Analysis an;
  an.run(thunk);
  EarlyReads early(vm.core_env);
  early.visit(form);
  an.checked = std::move(early.reads);
  an.finish();
  // Too deep to analyse: refuse cleanly (the walk's guard stopped before the C stack ran out).
  if (an.truncated()) compile_error(form->loc, "expression too deeply nested to compile");
  // A variable referenced but bound nowhere in the form: malformed IR.
  if (!an.lambdas[thunk].free.empty())
    compile_error(form->loc, "internal error: variable " + std::string(symbol_name(an.lambdas[thunk].free[0]->name)) +
                                 " not in scope");
  FnCompiler fc(*vm.impl, an, thunk);
  Proto* p = fc.compile();
  p->ncaptures = 0;
  return make_closure(p, 0);
}

Value close_over(Proto* p, const Value* R) {
  Value cv = make_closure(p, p->ncaptures);
  Closure* c = cv.as<Closure>();
  Value* self_free = p->ncaptures ? R[0].as<Closure>()->free() : nullptr;
  for (int32_t k = 0; k < p->ncaptures; k++) {
    Capture cap = p->captures[k];
    c->free()[k] = cap.from_free ? self_free[cap.index] : R[cap.index];
  }
  return cv;
}

Value make_closure(Proto* proto, int64_t nfree) {
  Closure* c = gc_alloc_object<Closure>(Type::Closure, sizeof(Closure) + sizeof(Value) * nfree, nfree);
  c->proto = proto;
  return make_ptr(c);
}

}  // namespace quasi
