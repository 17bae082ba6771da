// static_run.cpp — runs fully static calls on the real evaluator (static_run.hpp has the
// invariant): the pure-code check over procedures and their IR, the plain-data check, and one run
// under a step budget with the caller's exception handlers out of reach.
#include "pe/static_run.hpp"

#include <functional>
#include <new>
#include <utility>

#include "core/error.hpp"
#include "eval/environment.hpp"
#include "ir/functor.hpp"
#include "pe/budgets.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi::pe {

namespace {

// A primitive whose call only computes: kPure (no effect, the result depends only on the
// arguments), or one that only raises. `apply` only calls (what it calls is checked where it
// comes from). A primitive with neither flag (command-line, an environment variable) reads state.
bool pure_primitive(const Primitive* p) {
  if (p->flags & kVmSpecial) return p->facts.vm_op == kVmApply;
  if (p->facts.only_raises) return true;
  return (p->flags & kPure) && !(p->flags & kHasEffects);
}

// Whether code may run statically: its constants and the globals it reads pass the caller's
// checks, its primitives only compute, and it defines or assigns no global. `ok` turns false at
// the first thing that fails, and the walk stops there.
class RunnableCode : public ExprVisitor {
 public:
  RunnableCode(std::function<bool(Value)> value_ok, std::function<bool(GlobalRefNode*)> global_ok)
      : value_ok_(std::move(value_ok)), global_ok_(std::move(global_ok)) {}
  bool ok = true;

  using ExprVisitor::visit;
  void visit(Node* n) override {
    if (ok) ExprVisitor::visit(n);
  }
  void visit_const(ConstNode* n) override { ok = value_ok_(n->value); }
  void visit_global_ref(GlobalRefNode* n) override { ok = global_ok_(n); }
  void visit_global_set(GlobalSetNode*) override { ok = false; }
  void visit_prim_call(PrimCallNode* n) override {
    ok = pure_primitive(n->prim.as<Primitive>());
    if (ok) ExprVisitor::visit_prim_call(n);
  }

 private:
  std::function<bool(Value)> value_ok_;
  std::function<bool(GlobalRefNode*)> global_ok_;
};

}  // namespace

bool StaticRunner::plain_data(Value v) {
  if (!is_object(v)) return true;
  // Frozen data cannot change: a verdict of plain holds for the request (a flowchart
  // interpreter passes its program to every static run: ~2,000 walks of it before this cache).
  if (plain_.count(v.bits)) return true;
  if (!is_frozen_deep(v, &frozen_)) return false;
  // is_frozen_deep counts procedures as frozen (their identity): not plain data. Uninterned
  // symbols have an identity too.
  std::vector<Value> stack{v};
  std::vector<uint64_t> containers;
  int64_t budget = kStaticDataItems;
  while (!stack.empty()) {
    Value x = stack.back();
    stack.pop_back();
    if (!is_object(x)) continue;
    if (--budget < 0) return false;
    switch (object_type(x)) {
      case Type::Symbol:
        if (!x.as<Symbol>()->interned) return false;
        break;
      case Type::Flonum:
      case Type::Bignum:
      case Type::Ratnum:
      case Type::String:
      case Type::Bytevector:
        break;
      case Type::Pair:
        if (plain_.count(x.bits)) break;
        containers.push_back(x.bits);
        stack.push_back(car(x));
        stack.push_back(cdr(x));
        break;
      case Type::Vector: {
        if (plain_.count(x.bits)) break;
        containers.push_back(x.bits);
        Vector* vec = x.as<Vector>();
        for (int64_t i = 0; i < vec->length(); i++) stack.push_back(vec->items()[i]);
        break;
      }
      default:
        return false;
    }
  }
  for (uint64_t b : containers) plain_.insert(b);
  return true;
}

bool StaticRunner::scan(Node* tree, Value proc, const FrozenCache& written, std::vector<uint64_t>& assumed) {
  // Depth-first over the closures the code can reach. A closure met again while being checked
  // is assumed pure (recursion); verdicts are kept only for roots, whose check covered the
  // whole component.
  std::vector<Value> todo;
  FrozenCache seen;
  bool ok = true;
  auto value_ok = [&](Value v) {
    if (is_primitive(v)) return pure_primitive(v.as<Primitive>());
    if (is_closure(v)) {
      auto k = verdict_.find(v.bits);
      if (k != verdict_.end()) {
        if (k->second != 1) return false;
        for (uint64_t b : cells_of_[v.bits]) assumed.push_back(b);
        return true;
      }
      if (seen.insert(v.bits).second) todo.push_back(v);
      return true;
    }
    return plain_data(v);
  };
  auto global_ok = [&](GlobalRefNode* n) {
    Value cell = n->cell;
    GlobalCell* g = cell.as<GlobalCell>();
    // Only procedures are assumed (as the specializer does): data in a global may change.
    if (g->value == kUnbound || !is_procedure(g->value) || written.count(cell.bits)) return false;
    if (!value_ok(g->value)) return false;
    assumed.push_back(cell.bits);  // core cells too: a redefinition invalidates (pe/README.md)
    return true;
  };
  auto tree_ok = [&](Node* root) {
    RunnableCode check(value_ok, global_ok);
    check.visit(root);
    ok = ok && check.ok && !check.truncated();
  };
  if (tree) tree_ok(tree);
  if (is_object(proc) && ok) {
    seen.insert(proc.bits);
    todo.push_back(proc);
  }
  while (ok && !todo.empty()) {
    Value c = todo.back();
    todo.pop_back();
    Closure* cl = c.as<Closure>();
    Proto* p = cl->proto;
    // A slot its code assigns in place (Proto::free_assigned) is state, as a box would be.
    if (!p->source || (p->ncaptures > 0 && !p->free_vars) || p->free_assigned) return false;
    for (int32_t i = 0; i < p->ncaptures && ok; i++) ok = value_ok(cl->free()[i]);
    if (ok) tree_ok(p->source);
  }
  return ok;
}

bool StaticRunner::pure_code(Value proc, const FrozenCache& written, gc_vector<Value>& cells) {
  if (is_primitive(proc)) return pure_primitive(proc.as<Primitive>());
  if (!is_closure(proc)) return false;  // continuations, parameter objects, records, ...
  auto known = verdict_.find(proc.bits);
  if (known == verdict_.end()) {
    std::vector<uint64_t> assumed;
    bool ok = scan(nullptr, proc, written, assumed);
    known = verdict_.emplace(proc.bits, ok ? 1 : 2).first;
    if (ok) cells_of_[proc.bits] = assumed;
  }
  if (known->second != 1) return false;
  for (uint64_t b : cells_of_[proc.bits]) cells.push_back(Value{b});
  return true;
}

bool StaticRunner::pure_tree(Node* tree, const FrozenCache& written, gc_vector<Value>& cells) {
  std::vector<uint64_t> assumed;
  if (!scan(tree, kFalse, written, assumed)) return false;
  for (uint64_t b : assumed) cells.push_back(Value{b});
  return true;
}

RunOutcome StaticRunner::run(Value proc, const std::vector<Value>& args, Value* out) {
  if (used_ >= kStaticRunStepsPerRequest) return RunOutcome::kBudget;
  Vm& vm = vm_;
  VmImpl& impl = *vm.impl;
  uint64_t budget = std::min<uint64_t>(steps_per_run_, kStaticRunStepsPerRequest - used_);
  // The run counts its own steps against its own limit; the evaluation around it keeps its
  // count and its limits (a smaller outer step limit, a deadline or an allocation limit that
  // fires inside the run stops the outer evaluation as it would have).
  uint64_t outer_limit = vm.step_limit;
  uint64_t outer_steps = vm.steps + uint64_t(impl.poll_period - impl.poll_countdown.load(std::memory_order_relaxed));
  uint64_t outer_left = outer_limit ? (outer_limit > outer_steps ? outer_limit - outer_steps : 1) : 0;
  bool ours = !outer_limit || outer_left > budget;
  vm.steps = 0;
  vm.step_limit = ours ? budget : outer_left;
  impl.rearm_poll();
  // Raises inside the run must not reach the handlers of the code that called specialize:
  // with no handler, a raise leaves the run as UncaughtRaise.
  Value handlers_cell = st_.core ? st_.core->lookup(intern("%handlers")) : kUnbound;
  GlobalCell* hc = has_type(handlers_cell, Type::GlobalCell) ? handlers_cell.as<GlobalCell>() : nullptr;
  struct Restore {
    Vm& vm;
    VmImpl& impl;
    GlobalCell* hc;
    Value handlers;
    uint64_t outer_limit, outer_steps;
    uint64_t* used;
    ~Restore() {
      uint64_t mine = vm.steps + uint64_t(impl.poll_period - impl.poll_countdown.load(std::memory_order_relaxed));
      *used += mine;
      vm.steps = outer_steps + mine;
      vm.step_limit = outer_limit;
      impl.rearm_poll();
      if (hc) hc->value = handlers;
    }
  } restore{vm, impl, hc, hc ? hc->value : kNil, outer_limit, outer_steps, &used_};
  if (hc) hc->value = kNil;
  try {
    *out = vm.apply(proc, int(args.size()), args.data());
  } catch (UncaughtRaise& u) {
    Value p = u.payload;
    if (vm.limit_error.get() != kFalse) {
      if (!ours) throw;  // the outer evaluation's limit
      Value kind = is_condition(p) ? p.as<Condition>()->kind : kFalse;
      if (kind != intern("limit") || vm.steps < vm.step_limit) throw;  // a deadline, memory
      vm.limit_error.set(kFalse);
      return RunOutcome::kBudget;
    }
    if (is_condition(p) && p.as<Condition>()->kind == intern("interrupt")) throw;
    return RunOutcome::kRaised;
  } catch (std::bad_alloc&) {  // the VM's frame stack is full
    return RunOutcome::kBudget;
  }
  return plain_data(*out) ? RunOutcome::kValue : RunOutcome::kUnusable;
}

}  // namespace quasi::pe
