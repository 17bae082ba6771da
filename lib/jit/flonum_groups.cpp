#include "jit/flonum_groups.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace quasi::jit {

bool has_immediate(Op op) { return op == Op::kAddI || op == Op::kSubI || (op >= Op::kBrLtI && op <= Op::kBrNumEqI); }

RegisterUse register_use(const Proto* p, const Step& s) {
  RegisterUse u;
  auto read = [&](int r) { u.reads.push_back(uint16_t(r)); };
  switch (s.op) {
    case Op::kMove: case Op::kUnbox:
    case Op::kCar: case Op::kCdr: case Op::kNullP: case Op::kPairP: case Op::kNot: case Op::kZeroP:
    case Op::kStringLength: case Op::kVectorLength: case Op::kAddI: case Op::kSubI:
      read(s.b);
      u.write = s.a;
      break;
    case Op::kConst: case Op::kGlobalRef:
      u.write = s.a;
      break;
    case Op::kGlobalSet: case Op::kGlobalDef: case Op::kJumpIfFalse: case Op::kReturn:
    case Op::kCheckBound:
    case Op::kBrLtI: case Op::kBrLeI: case Op::kBrGtI: case Op::kBrGeI: case Op::kBrNumEqI:
    case Op::kBrNull: case Op::kBrPair: case Op::kBrZero: case Op::kBrNot:
      read(s.a);
      break;
    case Op::kFree: case Op::kFreeUnbox:
      read(0);
      u.write = s.a;
      break;
    case Op::kBox:
      read(s.a);
      u.write = s.a;
      break;
    case Op::kSetBox:
    case Op::kBrLt: case Op::kBrLe: case Op::kBrGt: case Op::kBrGe: case Op::kBrNumEq: case Op::kBrEq:
      read(s.a);
      read(s.b);
      break;
    case Op::kFixClosure:
      read(s.a);
      read(s.c);
      break;
    case Op::kVectorSet:
      read(s.a);
      read(s.b);
      read(s.c);
      break;
    case Op::kClosure: {
      Value v = p->consts[s.b];
      if (!has_type(v, Type::Proto)) {
        u.reads_all = true;
        break;
      }
      const Proto* child = v.as<Proto>();
      read(0);
      for (int32_t k = 0; k < child->ncaptures; k++)
        if (!child->captures[k].from_free) read(int(child->captures[k].index));
      u.write = s.a;
      break;
    }
    case Op::kJump:
      break;
    case Op::kCall:
      for (int k = 0; k <= s.b; k++) read(s.a + k);
      u.write = s.a;
      break;
    case Op::kTailCall:
      for (int k = 0; k <= s.b; k++) read(s.a + k);
      break;
    case Op::kAdd: case Op::kSub: case Op::kMul:
    case Op::kLt: case Op::kLe: case Op::kGt: case Op::kGe: case Op::kNumEq: case Op::kEq:
    case Op::kCons: case Op::kVectorRef: case Op::kStringRef:
      read(s.b);
      read(s.c);
      u.write = s.a;
      break;
    case Op::kCount:
      u.reads_all = true;
      break;
  }
  return u;
}

namespace {

// Liveness needs a bit per register per step; beyond this the groups are not looked for.
constexpr size_t kMaxLivenessBits = size_t(1) << 23;

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
  return is_arith(s.op) || is_terminal(s.op) || is_flonum_constant(p, s);
}

// live_out[k]: the registers some path from step k reads before writing them.
class Liveness {
 public:
  Liveness(const Proto* p, const std::vector<Step>& steps) : words_((size_t(p->nregs) + 63) / 64) {
    size_t n = steps.size();
    live_in_.assign(n * words_, 0);
    live_out_.assign(n * words_, 0);
    std::map<int32_t, size_t> position;
    for (size_t k = 0; k < n; k++) position[steps[k].index] = k;
    std::vector<RegisterUse> uses;
    uses.reserve(n);
    for (const Step& s : steps) uses.push_back(register_use(p, s));
    auto successors = [&](size_t k, size_t* out) {
      const Step& s = steps[k];
      int m = 0;
      bool falls_through = s.op != Op::kJump && s.op != Op::kReturn && s.op != Op::kTailCall;
      if (falls_through && k + 1 < n) out[m++] = k + 1;
      if (s.target >= 0) {
        auto it = position.find(s.target);
        if (it != position.end()) out[m++] = it->second;
      }
      return m;
    };
    std::vector<uint64_t> next(words_);
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t k = n; k-- > 0;) {
        size_t succ[2];
        int m = successors(k, succ);
        uint64_t* out = &live_out_[k * words_];
        for (int j = 0; j < m; j++)
          for (size_t w = 0; w < words_; w++) out[w] |= live_in_[succ[j] * words_ + w];
        const RegisterUse& u = uses[k];
        std::copy(out, out + words_, next.begin());
        if (u.write >= 0) next[size_t(u.write) / 64] &= ~(uint64_t(1) << (u.write % 64));
        if (u.reads_all) std::fill(next.begin(), next.end(), ~uint64_t(0));
        for (uint16_t r : u.reads) next[r / 64] |= uint64_t(1) << (r % 64);
        uint64_t* in = &live_in_[k * words_];
        for (size_t w = 0; w < words_; w++) {
          if ((in[w] | next[w]) != in[w]) {
            in[w] |= next[w];
            changed = true;
          }
        }
      }
    }
  }

  bool live_after(size_t k, uint16_t reg) const {
    return (live_out_[k * words_ + reg / 64] >> (reg % 64)) & 1;
  }

 private:
  size_t words_;
  std::vector<uint64_t> live_in_, live_out_;
};

// The registers a member step reads are its flonum operands (an immediate is not a register).
std::vector<uint16_t> operands(const Proto* p, const Step& s) { return register_use(p, s).reads; }

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
    if (live.live_after(last, r)) g->live_out.push_back(r);
  // Saved: arithmetic results used inside the group whose register is dead after it (or
  // overwritten in it).
  for (uint16_t k : produced_and_read) {
    uint16_t r = steps[k].a;
    if (writer[r] != k || !live.live_after(last, r)) return true;
  }
  return false;
}

}  // namespace

std::vector<FlonumGroup> find_flonum_groups(const Proto* p, const std::vector<Step>& steps,
                                            const std::vector<uint8_t>& label) {
  std::vector<FlonumGroup> groups;
  size_t n = steps.size();
  // Cheap test first: no two arithmetic steps in a row, no group.
  bool candidate = false;
  for (size_t k = 0; k + 1 < n && !candidate; k++)
    candidate = is_arith(steps[k].op) && is_member(p, steps[k + 1]);
  if (!candidate || size_t(p->nregs) * n > kMaxLivenessBits) return groups;
  Liveness live(p, steps);

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
