#include "jit/flonum_groups.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace quasi::jit {

bool has_immediate(Op op) { return op == Op::kAddI || op == Op::kSubI || (op >= Op::kBrLtI && op <= Op::kBrNumEqI); }

namespace {

bool is_arith(Op op) { return op == Op::kAdd || op == Op::kSub || op == Op::kMul || op == Op::kAddI || op == Op::kSubI; }
bool is_compare_branch(Op op) {
  return (op >= Op::kBrLt && op <= Op::kBrNumEq) || (op >= Op::kBrLtI && op <= Op::kBrNumEqI);
}
bool is_compare_value(Op op) { return op >= Op::kLt && op <= Op::kNumEq; }
// A comparison ends a group: its result is a boolean, not a flonum.
bool is_terminal(Op op) { return is_compare_branch(op) || is_compare_value(op); }
bool is_flonum_constant(const Proto* p, const Step& s) {
  return s.op == Op::kConst && p->consts[s.b].is_ptr() && has_type(p->consts[s.b], Type::Flonum);
}
bool is_member(const Proto* p, const Step& s) {
  return is_arith(s.op) || is_terminal(s.op) || is_flonum_constant(p, s) || s.op == Op::kFree;
}


// The registers a member step reads are its flonum operands (an immediate is not a register; a
// free-variable load reads the closure, not a flonum).
std::vector<uint16_t> operands(const Proto* p, const Step& s) {
  if (s.op == Op::kFree) return {};
  return register_use(p, s).reads;
}

// Whether steps[first..last] make a worthwhile group; fills live_out.
bool check_group(const Proto* p, const std::vector<Step>& steps, size_t first, size_t last, const Liveness& live,
                 FlonumGroup* g) {
  std::set<uint16_t> written;
  std::set<uint16_t> produced_and_read;  // values made in the group and used in it
  std::map<uint16_t, size_t> writer;
  for (size_t k = first; k <= last; k++) {
    const Step& s = steps[k];
    for (uint16_t r : operands(p, s))
      if (written.count(r) && is_arith(steps[writer[r]].op)) produced_and_read.insert(uint16_t(writer[r]));
    if (!is_compare_branch(s.op)) {
      written.insert(s.a);
      writer[s.a] = k;
    }
  }
  g->first = first;
  g->last = last;
  g->live_out.clear();
  for (uint16_t r : written)
    if (live.live_out(last, r)) g->live_out.push_back(r);
  // Saved: arithmetic results used inside the group whose register is dead after it (or
  // overwritten in it).
  for (uint16_t k : produced_and_read) {
    uint16_t r = steps[k].a;
    if (writer[r] != k || !live.live_out(last, r)) return true;
  }
  return false;
}

}  // namespace

std::vector<FlonumGroup> find_flonum_groups(const Proto* p, const std::vector<Step>& steps,
                                            const std::vector<uint8_t>& label, const Liveness& live) {
  std::vector<FlonumGroup> groups;
  size_t n = steps.size();
  // Cheap test first: no two arithmetic steps in a row, no group.
  bool candidate = false;
  for (size_t k = 0; k + 1 < n && !candidate; k++)
    candidate = is_arith(steps[k].op) && is_member(p, steps[k + 1]);
  if (!candidate || !live.valid()) return groups;

  for (size_t first = 0; first < n;) {
    const Step& head = steps[first];
    if (!(head.op == Op::kAdd || head.op == Op::kSub || head.op == Op::kMul || is_flonum_constant(p, head))) {
      first++;
      continue;
    }
    // Extend while the steps are members, nothing jumps into the middle and registers remain.
    std::set<uint16_t> leaves, written;
    int values = 0;
    size_t last = first;
    for (size_t k = first; k < n; k++) {
      const Step& s = steps[k];
      if (k > first && label[size_t(s.index)]) break;
      if (!is_member(p, s)) break;
      // The fast path reads R[0] as it was before the group (its writes come at the end).
      if (s.op == Op::kFree && written.count(0)) break;
      int more = has_immediate(s.op) ? 1 : 0;
      std::set<uint16_t> new_leaves;
      for (uint16_t r : operands(p, s))
        if (!written.count(r) && !leaves.count(r)) new_leaves.insert(r);
      more += int(new_leaves.size()) + (is_terminal(s.op) ? 0 : 1);
      if (values + more > kMaxFlonumGroupValues) break;
      values += more;
      leaves.insert(new_leaves.begin(), new_leaves.end());
      if (!is_compare_branch(s.op)) written.insert(s.a);
      last = k;
      if (is_terminal(s.op)) break;
    }
    // Trailing steps that neither use nor feed the rest stay out (a loop counter's (+ k 1)).
    while (last > first) {
      const Step& s = steps[last];
      bool uses_group_value = false;
      for (uint16_t r : operands(p, s))
        for (size_t k = first; k < last; k++)
          if (!is_compare_branch(steps[k].op) && steps[k].a == r) uses_group_value = true;
      if (uses_group_value) break;
      last--;
    }
    FlonumGroup g;
    if (last > first && check_group(p, steps, first, last, live, &g)) {
      groups.push_back(std::move(g));
      first = last + 1;
    } else {
      first++;
    }
  }
  return groups;
}

}  // namespace quasi::jit
