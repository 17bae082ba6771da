// runner.hpp — rewrite rules and the Runner that applies them to saturation (egg's Runner).
//
// A Rewrite is `lhs => rhs` over patterns sharing variable numbers (every variable of rhs is
// bound by lhs: Rewrite::make checks it), optionally guarded by a condition that sees the e-graph
// and the match, or with a custom applier instead of rhs (what the rhs of a rule cannot say as a
// pattern, e.g. "add the folded constant").
//
// One iteration: check the limits; search every rule against the same, unchanged graph; then apply
// all the matches (each instance added and unioned with the matched class); then rebuild once.
// The run ends at the first of: saturation (an iteration applied nothing, changed neither the
// node nor the class count, and no rule is banned), the iteration limit, the node limit (checked
// after each rule's search and apply, and every kTimeCheckInterval matches), the time limit
// (likewise), or the caller's stop hook (StopReason::Other). The graph is rebuilt in every case.
//
// Backoff scheduling (egg's BackoffScheduler, the default): a rule whose matches in one iteration
// exceed match_limit << times_banned is not applied and is banned for ban_length << times_banned
// iterations. When nothing else happened in an iteration, the bans are shortened so the earliest
// banned rule runs next: a run is never reported saturated while a rule is banned.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "egraph/limits.hpp"
#include "egraph/pattern.hpp"

namespace quasi::egraph {

template <class A>
struct Rewrite {
  std::string name;
  Pattern lhs;
  Pattern rhs;  // unused when applier is set
  // Applied only where this returns true (empty: always). Sees the matched class and the subst.
  std::function<bool(EGraph<A>&, Id, const Subst&)> condition;
  // Custom right-hand side: returns the class to union with the match (kNoId: nothing).
  std::function<Id(EGraph<A>&, Id, const Subst&)> applier;

  // lhs and rhs were built separately: renumbers rhs's variables by name into lhs's numbering.
  // Throws std::invalid_argument naming a variable of rhs that lhs does not bind. A bare variable
  // on the left matches every class (egg's math rules have `?a => (+ ?a 0)`).
  static Rewrite make(std::string name, Pattern lhs, const Pattern& rhs,
                      std::function<bool(EGraph<A>&, Id, const Subst&)> condition = {}) {
    if (lhs.nodes.empty() || rhs.nodes.empty())
      throw std::invalid_argument("rule " + name + ": an empty pattern");
    Pattern r;
    r.var_names = lhs.var_names;
    for (const PatNode& pn : rhs.nodes) {
      PatNode n = pn;
      if (pn.is_var) {
        const std::string& v = rhs.var_names[pn.var];
        int i = lhs.find_var(v);
        if (i < 0)
          throw std::invalid_argument("rule " + name + ": " + v +
                                      " is used on the right-hand side but not bound on the left");
        n.var = uint32_t(i);
      }
      r.nodes.push_back(std::move(n));
    }
    Rewrite rw;
    rw.name = std::move(name);
    rw.lhs = std::move(lhs);
    rw.rhs = std::move(r);
    rw.condition = std::move(condition);
    return rw;
  }
};

enum class StopReason { kNone, kSaturated, kIterationLimit, kNodeLimit, kTimeLimit, kOther };

inline const char* stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::kSaturated: return "saturated";
    case StopReason::kIterationLimit: return "iteration-limit";
    case StopReason::kNodeLimit: return "node-limit";
    case StopReason::kTimeLimit: return "time-limit";
    case StopReason::kOther: return "other";
    case StopReason::kNone: break;
  }
  return "none";
}

struct RunnerLimits {
  size_t iter_limit = kDefaultIterLimit;
  size_t node_limit = kDefaultNodeLimit;
  double time_limit = kDefaultTimeLimitSeconds;
  bool backoff = true;  // false: every rule every iteration (egg's SimpleScheduler)
  size_t match_limit = kDefaultMatchLimit;
  size_t ban_length = kDefaultBanLength;
};

struct IterationStats {
  size_t egraph_nodes = 0;    // total_size() before the iteration
  size_t egraph_classes = 0;  // number_of_classes() before the iteration
  size_t matches = 0;         // substitutions found (rules not banned)
  size_t applied = 0;         // applications that merged two classes
  size_t rebuild_unions = 0;  // unions made by rebuild (congruence)
  double search_time = 0, apply_time = 0, rebuild_time = 0;
};

template <class A>
class Runner {
 public:
  using Rule = Rewrite<A>;
  using Clock = std::chrono::steady_clock;

  Runner(EGraph<A>& eg, RunnerLimits limits = {}) : eg_(eg), limits_(limits) {}

  // Called after every iteration's rebuild; returning true stops the run (StopReason::kOther).
  std::function<bool(EGraph<A>&)> stop_hook;

  std::vector<IterationStats> iterations;
  StopReason stop_reason = StopReason::kNone;
  double seconds = 0;

  StopReason run(const std::vector<const Rule*>& rules) {
    start_ = Clock::now();
    bans_.assign(rules.size(), Ban{});
    eg_.rebuild();
    for (size_t i = 0;; i++) {
      stop_reason = step(rules, i);
      if (stop_reason != StopReason::kNone) break;
    }
    seconds = elapsed();
    return stop_reason;
  }

 private:
  struct Ban {
    size_t times_banned = 0;
    size_t banned_until = 0;
  };
  EGraph<A>& eg_;
  RunnerLimits limits_;
  Clock::time_point start_;
  std::vector<Ban> bans_;

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  StopReason check_limits(size_t iteration) const {
    if (iteration >= limits_.iter_limit) return StopReason::kIterationLimit;
    if (eg_.total_size() > limits_.node_limit) return StopReason::kNodeLimit;
    if (elapsed() > limits_.time_limit) return StopReason::kTimeLimit;
    return StopReason::kNone;
  }
  StopReason check_size_time() const {
    if (eg_.total_size() > limits_.node_limit) return StopReason::kNodeLimit;
    if (elapsed() > limits_.time_limit) return StopReason::kTimeLimit;
    return StopReason::kNone;
  }

  std::vector<SearchMatches> search_rule(size_t r, const Rule& rule, size_t iteration) {
    if (!limits_.backoff) return search(eg_, rule.lhs);
    Ban& b = bans_[r];
    if (iteration < b.banned_until) return {};
    size_t threshold = limits_.match_limit << b.times_banned;
    std::vector<SearchMatches> ms = search(eg_, rule.lhs, threshold);
    size_t total = 0;
    for (auto& m : ms) total += m.substs.size();
    if (total > threshold) {
      size_t len = limits_.ban_length << b.times_banned;
      b.times_banned++;
      b.banned_until = iteration + len;
      return {};
    }
    return ms;
  }

  // egg's can_stop: true when no rule is banned; else moves every ban earlier so the first
  // banned rule runs in the next iteration.
  bool can_stop(size_t iteration) {
    size_t min_ban = SIZE_MAX;
    for (const Ban& b : bans_) if (b.banned_until > iteration) min_ban = std::min(min_ban, b.banned_until);
    if (min_ban == SIZE_MAX) return true;
    size_t delta = min_ban - (iteration + 1);
    for (Ban& b : bans_) if (b.banned_until > iteration) b.banned_until -= delta;
    return false;
  }

  StopReason step(const std::vector<const Rule*>& rules, size_t iteration) {
    StopReason r = check_limits(iteration);
    if (r != StopReason::kNone) return r;
    IterationStats st;
    st.egraph_nodes = eg_.total_size();
    st.egraph_classes = eg_.number_of_classes();

    auto t0 = Clock::now();
    std::vector<std::vector<SearchMatches>> found(rules.size());
    for (size_t k = 0; k < rules.size() && r == StopReason::kNone; k++) {
      found[k] = search_rule(k, *rules[k], iteration);
      for (auto& m : found[k]) st.matches += m.substs.size();
      r = check_size_time();
    }
    auto t1 = Clock::now();
    st.search_time = std::chrono::duration<double>(t1 - t0).count();

    size_t ticks = 0;
    for (size_t k = 0; k < rules.size() && r == StopReason::kNone; k++) {
      const Rule& rule = *rules[k];
      for (const SearchMatches& m : found[k]) {
        for (const Subst& s : m.substs) {
          if (++ticks % kTimeCheckInterval == 0 && (r = check_size_time()) != StopReason::kNone) break;
          if (rule.condition && !rule.condition(eg_, m.eclass, s)) continue;
          Id id = rule.applier ? rule.applier(eg_, m.eclass, s) : instantiate(eg_, rule.rhs, s);
          if (id != kNoId && eg_.merge(m.eclass, id)) st.applied++;
        }
        if (r != StopReason::kNone) break;
      }
      if (r == StopReason::kNone) r = check_size_time();
    }
    auto t2 = Clock::now();
    st.apply_time = std::chrono::duration<double>(t2 - t1).count();

    st.rebuild_unions = eg_.rebuild();
    st.rebuild_time = std::chrono::duration<double>(Clock::now() - t2).count();
    iterations.push_back(st);
    if (r != StopReason::kNone) return r;

    if (stop_hook && stop_hook(eg_)) return StopReason::kOther;
    // egg's order: the bans are shortened whenever nothing was applied.
    bool saturated = st.applied == 0 && can_stop(iteration) && eg_.total_size() == st.egraph_nodes &&
                     eg_.number_of_classes() == st.egraph_classes;
    if (saturated) return StopReason::kSaturated;
    return StopReason::kNone;
  }
};

}  // namespace quasi::egraph
