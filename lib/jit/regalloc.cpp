#include "jit/regalloc.hpp"

#include <algorithm>
#include <map>

#include "jit/lower.hpp"

namespace quasi::jit {

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
    case Op::kConst: case Op::kGlobalRef: case Op::kCallCC:
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
    case Op::kSetFree:
      read(0);
      read(s.a);
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
// Liveness needs a bit per register per step; beyond this it is not computed.
constexpr size_t kMaxLivenessBits = size_t(1) << 23;
// A pinned register costs code in every slow path that calls the runtime (it is saved around
// the call): one memory access saved in straight-line code is not worth it.
constexpr int64_t kMinBalance = 2;
}  // namespace

Liveness::Liveness(const Proto* p, const std::vector<Step>& steps) {
  size_t n = steps.size();
  if (n == 0 || size_t(p->nregs) * n > kMaxLivenessBits) return;
  words_ = (size_t(p->nregs) + 63) / 64;
  if (words_ == 0) words_ = 1;
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

int64_t previous_writer(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label,
                        size_t k, bool across_labels) {
  uint16_t a = steps[k].a;
  for (size_t j = k; j-- > 0;) {
    if (!across_labels && label[size_t(steps[j + 1].index)]) return -1;
    const Step& before = steps[j];
    if ((before.op == Op::kCall || before.op == Op::kTailCall) && before.a < a) return -1;  // clobbers R[a]
    if (register_use(p, before).write == a) return int64_t(j);
  }
  return -1;
}

bool self_tail_hint(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label, size_t k) {
  const Step& s = steps[k];
  if (s.op != Op::kTailCall || int32_t(s.b) != p->nparams || p->has_rest) return false;
  int64_t w = previous_writer(p, steps, label, k, true);
  if (w < 0) return false;
  const Step& writer = steps[size_t(w)];
  if (writer.op == Op::kMove) return writer.b == 0;
  if (writer.op != Op::kGlobalRef && writer.op != Op::kConst) return false;
  // A global (or the optimizer's constant) holding a closure of this very code now.
  Value v = p->consts[writer.b];
  if (writer.op == Op::kGlobalRef) {
    if (!has_type(v, Type::GlobalCell)) return false;
    v = v.as<GlobalCell>()->value;
  }
  return is_closure(v) && v.as<Closure>()->proto == p;
}

bool closure_register_fixed(const Proto* p, const std::vector<Step>& steps) {
  for (const Step& s : steps)
    if (s.op != Op::kTailCall && register_use(p, s).write == 0) return false;
  return true;
}

RegisterPlan plan_registers(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label,
                            const Liveness& live) {
  RegisterPlan plan;
  plan.home.assign(size_t(p->nregs), -1);
  size_t n = steps.size();
  if (!live.valid() || p->nregs == 0) return plan;
  std::map<int32_t, size_t> position;
  for (size_t k = 0; k < n; k++) position[steps[k].index] = k;
  // Loop depth: a loop of a back-edge j -> t (a self tail call's t is the start) is the steps
  // between t and j from which j can be reached without leaving them (so not the exits that
  // return from inside the range).
  std::vector<std::vector<size_t>> preds(n);
  for (size_t k = 0; k < n; k++) {
    const Step& s = steps[k];
    bool falls_through = s.op != Op::kJump && s.op != Op::kReturn && s.op != Op::kTailCall;
    if (falls_through && k + 1 < n) preds[k + 1].push_back(k);
    if (s.target >= 0) {
      auto it = position.find(s.target);
      if (it != position.end()) preds[it->second].push_back(k);
    }
  }
  std::vector<int> depth(n, 0);
  std::vector<uint8_t> self_tail(n, 0);
  std::vector<size_t> mark(n, n), work;
  for (size_t j = 0; j < n; j++) {
    const Step& s = steps[j];
    size_t t = n;
    if (s.target >= 0 && s.backward) {
      auto it = position.find(s.target);
      if (it != position.end()) t = it->second;
    } else if (self_tail_hint(p, steps, label, j)) {
      self_tail[j] = 1;
      t = 0;
    }
    if (t > j) continue;
    work.assign(1, j);
    mark[j] = j;
    while (!work.empty()) {
      size_t k = work.back();
      work.pop_back();
      depth[k]++;
      if (k == t) continue;
      for (size_t q : preds[k])
        if (q >= t && q <= j && mark[q] != j) {
          mark[q] = j;
          work.push_back(q);
        }
    }
  }
  std::vector<int64_t> weight(n);
  for (size_t k = 0; k < n; k++) weight[k] = int64_t(1) << (3 * std::min(depth[k], 5));
  auto live_in = [&](size_t k, uint16_t r) { return live.live_in(k, r) || holds_argument(p, r); };
  auto live_out = [&](size_t k, uint16_t r) { return live.live_out(k, r) || holds_argument(p, r); };
  std::vector<int64_t> balance(size_t(p->nregs), 0);
  for (uint16_t r = 0; r < p->nregs; r++)
    if (live_in(0, r)) balance[r] -= 1;  // loaded at entry
  for (size_t k = 0; k < n; k++) {
    const Step& s = steps[k];
    int64_t w = weight[k];
    RegisterUse u = register_use(p, s);
    if (u.reads_all) continue;
    switch (s.op) {
      case Op::kCall:
        for (uint16_t r = 0; r < p->nregs; r++) {
          if (live_in(k, r)) balance[r] -= w;                // stored before
          if (r != s.a && live_out(k, r)) balance[r] -= w;  // reloaded after
        }
        break;
      case Op::kTailCall:
        if (self_tail[k]) {
          // Only the parameters live at the start are copied (the jump skips the others).
          for (int r = 0; r <= s.b; r++) {
            if (!live_in(0, uint16_t(r))) continue;
            balance[size_t(r)] += w;
            balance[size_t(s.a + r)] += w;
          }
        } else {
          for (uint16_t r = 0; r < p->nregs; r++)
            if (live_in(k, r)) balance[r] -= w;
        }
        break;
      case Op::kCallCC:  // the capture stores what is live (and saves the homes around the routine)
        for (uint16_t r = 0; r < p->nregs; r++)
          if (live_in(k, r)) balance[r] -= w;
        balance[s.a] += w;
        break;
      case Op::kClosure: case Op::kReturn:
        if (u.write >= 0) balance[size_t(u.write)] += w;
        break;
      default:
        for (uint16_t r : u.reads) balance[r] += w;
        if (u.write >= 0) balance[size_t(u.write)] += w;
        break;
    }
  }
  std::vector<uint16_t> order;
  for (uint16_t r = 0; r < p->nregs; r++)
    if (balance[r] >= kMinBalance) order.push_back(r);
  std::stable_sort(order.begin(), order.end(), [&](uint16_t x, uint16_t y) { return balance[x] > balance[y]; });
  if (order.size() > size_t(kMaxPinned)) order.resize(size_t(kMaxPinned));
  for (uint16_t r : order) {
    plan.home[r] = int8_t(plan.pinned.size());
    plan.pinned.push_back(r);
  }
  return plan;
}

}  // namespace quasi::jit
