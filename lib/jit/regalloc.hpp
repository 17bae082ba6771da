// regalloc.hpp — architecture-neutral register facts over the lowered steps: liveness of the VM
// registers, loop depth, and the choice of the VM registers whose home while machine code runs
// is a machine register instead of their frame slot ("pinned" registers; the emitter maps the
// homes 0..n-1 onto machine registers). Invariant of a plan: between steps, a pinned register
// that is live holds its current value in its machine register; its frame slot is brought up
// to date only where something else may read the frame (jit/README.md, "Register allocation").
#pragma once

#include <cstdint>
#include <vector>

#include "vm/proto.hpp"

namespace quasi::jit {

struct Step;

// Registers an instruction reads and writes (for liveness); `reads_all` when unknown.
struct RegisterUse {
  std::vector<uint16_t> reads;
  int32_t write = -1;
  bool reads_all = false;
};
RegisterUse register_use(const Proto* p, const Step& s);

// live_in/live_out per step: the registers some path from there reads before writing them.
// Empty (valid() false) when the procedure is too large to analyse.
class Liveness {
 public:
  Liveness() = default;
  Liveness(const Proto* p, const std::vector<Step>& steps);
  bool valid() const { return words_ != 0; }
  bool live_in(size_t k, uint16_t reg) const { return bit(live_in_, k, reg); }
  bool live_out(size_t k, uint16_t reg) const { return bit(live_out_, k, reg); }

 private:
  bool bit(const std::vector<uint64_t>& v, size_t k, uint16_t reg) const {
    return k * words_ < v.size() && (v[k * words_ + reg / 64] >> (reg % 64)) & 1;
  }
  size_t words_ = 0;
  std::vector<uint64_t> live_in_, live_out_;
};

// The step that last wrote R[a] before step k on the straight line back (past labels when
// `across_labels`; stopping at a call that clobbers R[a]), or -1.
int64_t previous_writer(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label,
                        size_t k, bool across_labels);

// Whether the tail call at step k probably calls the running procedure itself: its callee was
// moved from R[0] (a named let's loop closure calls itself that way), or loaded from a global
// (or constant) that holds a closure of this code now. A guess: the emitter guards it.
bool self_tail_hint(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label, size_t k);

// Whether R[r] holds an argument: backtraces show the arguments from the frame slots
// (frame_arguments, vm/call.cpp), so a pinned argument register counts as live everywhere.
inline bool holds_argument(const Proto* p, uint16_t r) { return r >= 1 && r <= p->nparams + (p->has_rest ? 1 : 0); }

// Whether R[0] holds the running closure all along: no step but a (self) tail call writes it.
bool closure_register_fixed(const Proto* p, const std::vector<Step>& steps);

// At most this many pinned registers (the machine registers the emitter has for them).
constexpr int kMaxPinned = 5;

struct RegisterPlan {
  std::vector<int8_t> home;  // per VM register: its machine register number 0..kMaxPinned-1, or -1
  std::vector<uint16_t> pinned;  // the pinned VM registers, by home
};

// Chooses the pinned registers: each read or write a machine register saves counts 8^(loop
// depth) of its step; each store before a call (or a closure's capture) and reload after it,
// and the load at entry, count against. The best kMaxPinned with a balance of 2 or more are taken.
RegisterPlan plan_registers(const Proto* p, const std::vector<Step>& steps, const std::vector<uint8_t>& label,
                            const Liveness& live);

}  // namespace quasi::jit
