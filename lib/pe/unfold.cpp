// unfold.cpp — unfolding a call: the callee's body evaluated in the caller's world, and the
// ways an unfolding is undone and its call specialized instead (its own loop found inside, a
// helper inside that repeats it, a runaway). Invariant: a chain of tail calls is unfolded by
// one loop, level after level, and its levels are finished innermost first with the same
// outcome a nest of unfold() calls would have; only the C stack and kMaxUnfoldDepth differ
// (a tail level nests no evaluation, so it does not count toward that budget).
#include "pe/specializer.hpp"

namespace quasi::pe {

void Specializer::open_level(UnfoldLevel* L, bool tail) {
  spend(4);
  int& depth = unfold_depth_[L->c.lam];
  if (!tail && depth >= kMaxUnfoldDepth) {
    Exhausted ex{"unfold depth"};
    ex.runaway = L->c.lam;
    throw ex;
  }
  L->epoch0 = epoch_;
  for (PVal* a : L->args) L->views0 = L->views0 || has_views(a);
  if (!L->c.runtime.is_true()) L->views0 = L->views0 || has_views(L->c.closure);
  L->id = ++unfolding_ids_;
  root_vector<Unfolding>& stack = unfoldings_[L->c.lam];
  stack.push_back(Unfolding{L->c, L->clause, &L->args, pending_.size(), L->views0});
  stack.back().id = L->id;
  depth++;
  // Outermost among the unfoldings of this lambda in progress (tail levels of a chain count:
  // the chain's first level is the one a runaway tail loop undoes).
  L->outermost = depth == 1;
  L->saved_block = block_;
  L->saved_dyn = dyn_depth_;
  L->start = mark();
  L->effort0 = effort_;
  L->size0 = size_;
  L->helper_size0 = helper_size_;
  L->entries0 = entries_.size();
  // The unfolding's code may be dropped (undo_level): boxes go back to their states at its start.
  frames_.push_back(BoxFrame{block_, L->start, btrail_.size(), ++seq_, boxes_.size()});
  L->f0 = frames_.back();
}

void Specializer::close_level(UnfoldLevel* L) {
  frames_.pop_back();
  unfold_depth_[L->c.lam]--;
  unfoldings_[L->c.lam].pop_back();
}

void Specializer::undo_level(UnfoldLevel* L) {
  block_ = L->saved_block;
  dyn_depth_ = L->saved_dyn;
  block_->truncate(L->start);
  // The residual-size budget counts the residual that exists: the unfolding's own dropped code is
  // given back (before, only a runaway gave it back); helpers made inside stay, and so does their
  // count (they are memoized and may be called from elsewhere).
  int64_t own = (size_ - L->size0) - (helper_size_ - L->helper_size0);
  if (own > 0) size_ -= own;
  box_undo(L->f0.trail_mark, L->f0.seq);
  boxes_.resize(L->f0.nboxes);
  mutation();  // fields read by the dropped code name variables that no longer exist
}

PVal* Specializer::finish_level(UnfoldLevel* L, PVal* r, std::exception_ptr& ex) {
  if (!ex) {
    // No peeled first iteration: when the unfolding made a loop of the same procedure (a helper
    // made inside it, whose key is this call's or more general), the unfolded copy of the first
    // iteration is dropped and the call enters the loop.
    // (A key made now has lost the fields read at the start if the epoch changed since.)
    Entry* loop = nullptr;
    try {
      loop = L->views0 && epoch_ != L->epoch0 ? nullptr : loop_helper(L->c, L->clause, L->args, L->entries0);
    } catch (...) {
      ex = std::current_exception();
    }
    if (!ex && !loop) return r;
    if (loop) {
      undo_level(L);
      cover_ = loop;
    }
  }
  if (ex) {
    try {
      std::rethrow_exception(ex);
    } catch (EnterLoop& el) {
      // A helper made inside repeats this call: it is a loop, whose helper this call is, built
      // before what is inside it (a matcher's restart helpers then find the loop pending).
      if (el.id != L->id) return nullptr;
      undo_level(L);
    } catch (Exhausted& e) {
      // The outermost unfolding of the runaway lambda undoes its work and specializes the call.
      if (!L->outermost || e.runaway != L->c.lam || recoveries_ >= kMaxRecoveries) return nullptr;
      note("residualized", e.which, L->c.lam,
           std::string("a runaway unfolding (out of ") + e.which + ") was undone: the call is a specialized helper");
      recoveries_++;
      st_.stats.residualized_calls++;
      undo_level(L);
      effort_ = L->effort0;
      size_ = L->size0;
      helper_size_ = L->helper_size0;
      no_unfold_.insert(L->c.lam);
    } catch (...) {
      return nullptr;
    }
    ex = nullptr;
  }
  unfoldings_[L->c.lam].back().id = 0;  // undone: no longer an unfolding a call can repeat
  // Nor one the helper's own unfoldings of this lambda are nested in: they count their depth from
  // 0, so the outermost of them can recover from a runaway (before, a first state that became a
  // loop helper left every later unfolding "inner", and a runaway gave up the whole request: the
  // KMP matcher on a^91b).
  int& depth = unfold_depth_[L->c.lam];
  depth--;
  try {
    r = specialize_call(L->c, L->clause, L->args);
  } catch (...) {
    ex = std::current_exception();
    r = nullptr;
  }
  depth++;
  return r;
}

PVal* Specializer::unfold(const Callee& c, size_t clause, gc_vector<PVal*>& args) {
  gc_vector<UnfoldLevel*> levels;  // levels[i + 1] is the tail call of levels[i]'s body
  UnfoldLevel* first = gc_new<UnfoldLevel>();
  first->c = c;
  first->clause = clause;
  first->args.assign(args.begin(), args.end());
  open_level(first, false);  // a budget that runs out here is the caller's
  levels.push_back(first);
  PVal* r = nullptr;
  std::exception_ptr ex;
  bool run_body = true;
  for (;;) {
    UnfoldLevel* L = levels.back();
    if (run_body) {
      run_body = false;
      try {
        LambdaClause* cl = L->c.lam->clauses[L->clause];
        PEnv* frame = gc_new<PEnv>(callee_env(L->c));
        for (size_t i = 0; i < cl->params.size(); i++) bind(frame, cl->params[i], L->args[i]);
        if (cl->rest) bind(frame, cl->rest, L->args.back());
        tail_node_ = cl->body;
        r = pe(cl->body, frame);
        if (r == &tail_call_) {  // known_call left the tail call to this loop: the next level
          UnfoldLevel* next = tail_next_;
          tail_next_ = nullptr;
          open_level(next, true);
          levels.push_back(next);
          run_body = true;
          continue;
        }
      } catch (...) {
        ex = std::current_exception();
      }
    }
    r = finish_level(L, r, ex);
    close_level(L);
    levels.pop_back();
    if (levels.empty()) break;
  }
  if (ex) std::rethrow_exception(ex);
  return r;
}

}  // namespace quasi::pe
