// boxes.cpp — assigned variables (set!-ed locals) in the partial evaluator: a Box's content is
// known along the path the evaluator follows until the box escapes; then, or where the paths of a
// residual `if` disagree on it, or where a continuation may have been captured since it was last
// written, the content lives in a run-time cell (a one-element vector). The design is described
// in lib/pe/README.md ("Assigned variables") and specializer.hpp.
#include "pe/specializer.hpp"

#include <algorithm>

#include "core/equality.hpp"

namespace quasi::pe {

Specializer::BoxWorld::BoxWorld(Specializer* sp)
    : s(sp), trail(std::move(sp->btrail_)), frames(std::move(sp->frames_)), boxes(std::move(sp->boxes_)) {
  s->btrail_.clear();
  s->frames_.clear();
  s->boxes_.clear();
}

Specializer::BoxWorld::~BoxWorld() {
  s->btrail_ = std::move(trail);
  s->frames_ = std::move(frames);
  s->boxes_ = std::move(boxes);
}

Specializer::FramePush::FramePush(Specializer* sp, Block* b, StmtList::iterator at) : s(sp) {
  sp->frames_.push_back(BoxFrame{b, at, sp->btrail_.size(), ++sp->seq_, sp->boxes_.size()});
}

PVal* Specializer::make_box(PVal* init, Value name) {
  PVal* b = gc_new<PVal>();
  b->kind = PKind::Box;
  b->value = name;
  b->box.kind = BoxState::kStatic;
  b->box.cur = init;
  // The cell, when it is made, is made holding the initial content if that is a constant or a
  // residual variable (bound before the box).
  b->box.synced = init->kind == PKind::Static || init->kind == PKind::Dyn;
  b->car = init;  // the initial content, for box_cell
  b->home = block_;
  b->point = mark();
  b->seq = ++seq_;
  boxes_.push_back(b);
  return b;
}

PVal* Specializer::residual_box(Var* cell, Value name) {
  PVal* b = gc_new<PVal>();
  b->kind = PKind::Box;
  b->value = name;
  b->var = cell;
  b->escaped = true;
  b->box.kind = BoxState::kResidual;
  b->seq = ++seq_;
  return b;
}

Var* Specializer::box_cell(PVal* b) {
  if (b->var) return b->var;
  PrimCallNode* c = gc_new<PrimCallNode>(st_.vector_prim, SrcLoc{});
  PVal* init = b->car;
  c->args.push_back(init && (init->kind == PKind::Static || init->kind == PKind::Dyn) ? lift(init) : k_const(kFalse));
  b->var = fresh(b->value);
  b->home->insert_bind(b->point, b->var, counted(c));
  return b->var;
}

static Node* cell_ref(PeState& st, Var* cell) {
  PrimCallNode* c = gc_new<PrimCallNode>(st.vector_ref_prim, SrcLoc{});
  c->args.push_back(gc_new<LocalRefNode>(cell, SrcLoc{}));
  c->args.push_back(gc_new<ConstNode>(make_fixnum(0), SrcLoc{}));
  return c;
}

static Node* cell_set(PeState& st, Var* cell, Node* value) {
  PrimCallNode* c = gc_new<PrimCallNode>(st.vector_set_prim, SrcLoc{});
  c->args.push_back(gc_new<LocalRefNode>(cell, SrcLoc{}));
  c->args.push_back(gc_new<ConstNode>(make_fixnum(0), SrcLoc{}));
  c->args.push_back(value);
  return c;
}

void Specializer::box_set(PVal* b, const BoxState& s) {
  btrail_.push_back(BoxTrailEntry{b, b->box});
  b->box = s;
}

void Specializer::box_undo(size_t mark, uint64_t frame_seq) {
  while (btrail_.size() > mark) {
    BoxTrailEntry e = btrail_.back();
    btrail_.pop_back();
    // An escaped box stays escaped (its cell is right on every path: escape_box); a box made
    // inside the frame does not exist before it.
    if (!e.box->escaped && e.box->seq < frame_seq) e.box->box = e.old;
  }
}

PVal* Specializer::box_read(PVal* b, Value name) {
  if (!b->escaped && b->box.kind == BoxState::kStatic) return known(b->box.cur);
  if (!b->escaped && b->box.kind == BoxState::kPending) {
    sync_box(b, b->box);
    BoxState r{BoxState::kResidual};
    r.stale = true;
    box_set(b, r);
  }
  // Read from a cell written before a point that may capture a continuation: a re-entry there
  // reads the cell again, so from now on writes go to the cell too.
  if (!b->escaped && b->box.stale) b->captured = true;
  return make_dyn(emit_bind(counted(cell_ref(st_, box_cell(b))), name));
}

void Specializer::box_write(PVal* b, PVal* v) {
  if (b->escaped) {
    emit_effect(counted(cell_set(st_, box_cell(b), lift(v))));
    return;
  }
  // Whatever the cell held, the content is now known again (no one else can reach the box). After
  // a capture point the cell is written too: a re-entry of the continuation reads it.
  if (b->captured) {
    emit_effect(counted(cell_set(st_, box_cell(b), lift(v))));
    box_set(b, BoxState{BoxState::kStatic, v, true});
    return;
  }
  box_set(b, BoxState{BoxState::kStatic, v, false});
}

void Specializer::capture_point() {
  bool marked = false;
  StmtList::iterator at{};
  for (PVal* b : boxes_) {
    if (b->escaped) continue;
    if (b->box.kind == BoxState::kResidual && !b->box.stale) {
      BoxState r{BoxState::kResidual};
      r.stale = true;
      box_set(b, r);
    }
    if (b->box.kind != BoxState::kStatic) continue;
    // A read before the next write comes from the cell (a re-entry must see the last write);
    // a write first makes the content known again, and the cell is not needed.
    if (!marked) {
      at = mark();
      marked = true;
    }
    BoxState pending{BoxState::kPending, b->box.cur, b->box.synced};
    pending.block = block_;
    pending.point = at;
    box_set(b, pending);
  }
}

Node* Specializer::box_value_code(PVal* v) {
  if (v->is_object()) {  // it goes where residual code can reach it
    escape(v);
    return k_ref(materialize(v));
  }
  return lift(v);
}

void Specializer::sync_box(PVal* b, const BoxState& s) {
  if (s.kind == BoxState::kResidual || s.synced) return;
  Var* cell = box_cell(b);
  Node* value = box_value_code(s.cur);
  if (s.kind == BoxState::kStatic) emit_effect(counted(cell_set(st_, cell, value)));
  else s.block->insert_effect(s.point, counted(cell_set(st_, cell, value)));
}

void Specializer::escape_box(PVal* b) {
  if (b->escaped) return;
  box_cell(b);
  BoxState now = b->box;
  b->escaped = true;  // first: the content may be a closure over this very box
  b->box = BoxState{BoxState::kResidual};
  // The box's state at the start of each frame opened since it was made: the first trail entry
  // for it recorded in the frame, or its state now when it did not change there.
  constexpr size_t kNow = SIZE_MAX;
  std::vector<size_t> mine;
  for (size_t k = 0; k < btrail_.size(); k++)
    if (btrail_[k].box == b) mine.push_back(k);
  // (Collected first: syncing may escape other boxes, which grows the trail.)
  std::vector<std::pair<BoxFrame, BoxState>, traceable_allocator<std::pair<BoxFrame, BoxState>>> todo;
  size_t last = kNow - 1;
  for (const BoxFrame& f : frames_) {
    if (b->seq > f.seq) continue;
    auto it = std::lower_bound(mine.begin(), mine.end(), f.trail_mark);
    size_t k = it == mine.end() ? kNow : *it;
    if (k == last) continue;  // the same state as at the outer frame: the cell holds it already
    last = k;
    todo.emplace_back(f, k == kNow ? now : btrail_[k].old);
  }
  for (auto& [f, s] : todo) {
    if (s.synced) continue;
    if (s.kind == BoxState::kStatic) {
      Node* value = box_value_code(s.cur);
      f.block->insert_effect(f.point, counted(cell_set(st_, b->var, value)));
    } else if (s.kind == BoxState::kPending) {
      sync_box(b, s);
    }
  }
  if (last != kNow) sync_box(b, now);
}

void Specializer::touched_boxes(size_t mark, uint64_t frame_seq, std::vector<PVal*>& out) {
  for (size_t k = mark; k < btrail_.size(); k++) {
    PVal* b = btrail_[k].box;
    if (b->seq < frame_seq && std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
  }
}

static bool same_content(PVal* a, PVal* b) {
  if (a == b) return true;
  if (a->kind == PKind::Static && b->kind == PKind::Static) return eqv(a->value, b->value);
  if (a->kind == PKind::Dyn && b->kind == PKind::Dyn) return a->var == b->var;
  return false;
}

static bool same_state(const BoxState& a, const BoxState& b) {
  if (a.kind != b.kind) return false;
  if (a.kind == BoxState::kResidual) return true;
  if (a.kind == BoxState::kPending && (a.block != b.block || a.point != b.point)) return false;
  return same_content(a.cur, b.cur);
}

void Specializer::merge_boxes(const BoxFrame& f, Block* arms[2], const std::vector<PVal*>& boxes,
                              std::vector<BoxState> states[2]) {
  if (boxes.empty()) return;
  Block* saved = block_;
  // A box that escapes while one arm's content goes to its cell needs the other arm's content in
  // its cell too: repeat until no box escapes any more (each round makes some state Residual).
  for (bool again = true; again;) {
    again = false;
    for (int a = 0; a < 2; a++) {
      box_undo(f.trail_mark, f.seq);
      for (size_t i = 0; i < boxes.size(); i++)
        if (!boxes[i]->escaped) box_set(boxes[i], states[a][i]);
      block_ = arms[a];
      for (size_t i = 0; i < boxes.size(); i++) {
        PVal* b = boxes[i];
        BoxState& s = states[a][i];
        if (s.kind == BoxState::kResidual) continue;
        // A pending point inside the arm is gone once the arm is closed.
        bool need = b->escaped || !same_state(states[0][i], states[1][i]) ||
                    (s.kind == BoxState::kPending && s.block == arms[a]);
        if (!need) continue;
        std::vector<bool> was(boxes.size());
        for (size_t j = 0; j < boxes.size(); j++) was[j] = boxes[j]->escaped;
        sync_box(b, s);
        bool stale = s.kind == BoxState::kPending;  // the cell holds what it held at the point
        s = BoxState{BoxState::kResidual};
        s.stale = stale;
        if (!b->escaped) box_set(b, s);
        for (size_t j = 0; j < boxes.size(); j++)
          if (!was[j] && boxes[j]->escaped) {
            states[a][j] = BoxState{BoxState::kResidual};  // escape_box gave it this arm's content
            again = true;
          }
      }
    }
  }
  box_undo(f.trail_mark, f.seq);
  block_ = saved;
  for (size_t i = 0; i < boxes.size(); i++) {
    if (boxes[i]->escaped) continue;
    BoxState m = states[0][i];
    m.synced = m.synced && states[1][i].synced;
    m.stale = m.stale || states[1][i].stale;
    box_set(boxes[i], m);
  }
}

}  // namespace quasi::pe
