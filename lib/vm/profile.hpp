// profile.hpp — the statistical profiler behind (profile thunk): while a Profiler lives, a thread
// asks the VM for a sample every interval, and the VM's next poll point (a call or backward jump
// of the running Scheme code) records which procedure was running (self) and every distinct
// procedure with a frame on the stack above the call of the profiled thunk (total).
//
// Invariant: at most one Profiler per Vm at a time (a nested one is refused by its caller); the
// profiled procedures stay alive while it does, so the counts never name a collected Proto.
// Time spent inside one long primitive is charged to the Scheme procedure that polls next.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/gc.hpp"
#include "core/procedure.hpp"

namespace quasi {

struct Vm;
struct VmImpl;

struct ProfileCounts {
  uint64_t self = 0;   // samples taken while the procedure itself ran
  uint64_t total = 0;  // samples taken while it had a frame anywhere on the stack
};

class Profiler {
 public:
  Profiler(Vm& vm, std::chrono::microseconds interval);
  ~Profiler();  // stops the sampling thread and detaches from the VM
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Called by the VM's poll point when a sample was asked for.
  void sample(const VmImpl& vm);
  uint64_t samples() const { return samples_; }
  // Every procedure sampled, most self samples first.
  std::vector<std::pair<Proto*, ProfileCounts>> results() const;

 private:
  Vm& vm_;
  std::chrono::microseconds interval_;
  int64_t base_frames_;  // frames below the profiled thunk: not counted
  uint64_t samples_ = 0;
  std::unordered_map<Proto*, ProfileCounts> counts_;
  gc_vector<Proto*> alive_;   // every key of counts_, visible to the collector
  std::vector<Proto*> seen_;  // the distinct procedures of one sample
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread ticker_;
};

}  // namespace quasi
