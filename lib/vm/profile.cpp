#include "vm/profile.hpp"

#include <algorithm>

#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

Profiler::Profiler(Vm& vm, std::chrono::microseconds interval)
    : vm_(vm), interval_(interval), base_frames_(vm.impl ? vm.impl->nframes : 0) {
  vm_.profiler = this;
  ticker_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!wake_.wait_for(lock, interval_, [this] { return stop_; })) vm_.request_profile_sample();
  });
}

Profiler::~Profiler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  ticker_.join();
  vm_.profiler = nullptr;
  vm_.profile_sample_requested.store(false);
}

void Profiler::sample(const VmImpl& vm) {
  constexpr int64_t kMaxFramesWalked = 4096;  // deep recursion: the innermost frames decide
  samples_++;
  auto count = [&](Proto* p) -> ProfileCounts& {
    auto [it, added] = counts_.try_emplace(p);
    if (added) alive_.push_back(p);
    return it->second;
  };
  if (!vm.cur_proto) return;
  seen_.assign(1, vm.cur_proto);
  ProfileCounts& here = count(vm.cur_proto);
  here.self++;
  here.total++;
  for (int64_t i = vm.nframes - 1; i >= base_frames_ && vm.nframes - i <= kMaxFramesWalked; i--) {
    Proto* p = vm.frames[i].proto;
    if (!p || !vm.frames[i].pc || std::find(seen_.begin(), seen_.end(), p) != seen_.end()) continue;
    seen_.push_back(p);
    count(p).total++;
  }
}

std::vector<std::pair<Proto*, ProfileCounts>> Profiler::results() const {
  std::vector<std::pair<Proto*, ProfileCounts>> out(counts_.begin(), counts_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second.self != b.second.self ? a.second.self > b.second.self : a.second.total > b.second.total;
  });
  return out;
}

}  // namespace quasi
