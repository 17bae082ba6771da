#include "engine/redefinition.hpp"

#include <gc/gc.h>

#include "core/procedure.hpp"
#include "core/redirections.hpp"
#include "eval/environment.hpp"
#include "ir/functor.hpp"
#include "jit/jit_code.hpp"
#include "vm/jit_policy.hpp"

namespace quasi {

// Weak references to the Protos compiled in one environment: slots in pointer-free (atomic)
// chunks, each registered as a disappearing link, so the collector neither follows them nor
// keeps their targets, and clears a slot when its Proto dies. A chunk's links go away with the
// chunk, so compacting is building new chunks and dropping the old ones.
struct CompiledCode {
  static constexpr size_t kChunk = 256;
  gc_vector<void**> chunks;
  size_t used = 0;           // slots used in chunks.back()
  size_t compact_at = 4;     // number of chunks that triggers the next compaction
};

namespace {

void** new_chunk() {
  return static_cast<void**>(GC_MALLOC_ATOMIC(CompiledCode::kChunk * sizeof(void*)));
}

void add_slot(CompiledCode* c, Proto* p) {
  if (c->chunks.empty() || c->used == CompiledCode::kChunk) {
    c->chunks.push_back(new_chunk());
    c->used = 0;
  }
  void** slot = &c->chunks.back()[c->used++];
  *slot = p;
  GC_general_register_disappearing_link(slot, p);
}

struct Snapshot {
  CompiledCode* code;
  gc_vector<Proto*>* out;
};

// Reads the live slots with the allocation lock held: a slot's target cannot be reclaimed while
// it is copied into a traced vector (gc.h, GC_general_register_disappearing_link). Nothing may
// allocate here: `out` has room for every slot already.
void* read_slots(void* data) {
  auto* s = static_cast<Snapshot*>(data);
  for (void** chunk : s->code->chunks) {
    size_t n = chunk == s->code->chunks.back() ? s->code->used : CompiledCode::kChunk;
    for (size_t i = 0; i < n; i++)
      if (chunk[i]) s->out->push_back(static_cast<Proto*>(chunk[i]));
  }
  return nullptr;
}

gc_vector<Proto*> live_protos(CompiledCode* c) {
  gc_vector<Proto*> out;
  out.reserve(c->chunks.size() * CompiledCode::kChunk);
  Snapshot s{c, &out};
  GC_call_with_alloc_lock(read_slots, &s);
  return out;
}

void compact(CompiledCode* c) {
  gc_vector<Proto*> live = live_protos(c);
  c->chunks.clear();
  c->used = 0;
  for (Proto* p : live) add_slot(c, p);
  c->compact_at = std::max<size_t>(4, 2 * c->chunks.size());
}

bool refers_to_import(Proto* p, Environment* env) {
  for (int32_t i = 0; i < p->nconsts; i++) {
    Value k = p->consts[i];
    if (has_type(k, Type::GlobalCell) && k.as<GlobalCell>()->owner != make_ptr(env)) return true;
  }
  return false;
}

void remember_tree(Environment* env, Proto* p, bool top, int depth) {
  if (depth > 10000) return;  // nesting the compiler refuses long before
  for (Proto* clause = p; clause; clause = clause->next_clause) {
    if (!top && refers_to_import(clause, env)) {
      if (!env->compiled) env->compiled = gc_new<CompiledCode>();
      CompiledCode* c = env->compiled;
      if (c->used == CompiledCode::kChunk && c->chunks.size() >= c->compact_at) compact(c);
      add_slot(c, clause);
    }
    for (int32_t i = 0; i < clause->nconsts; i++)
      if (has_type(clause->consts[i], Type::Proto)) remember_tree(env, clause->consts[i].as<Proto>(), false, depth + 1);
  }
}

// Moves one procedure from `old_cell` to `new_cell`.
void redirect(Proto* p, Value old_cell, Value new_cell) {
  bool refers = false;
  for (int32_t i = 0; i < p->nconsts; i++)
    if (p->consts[i] == old_cell) {
      p->consts[i] = new_cell;
      refers = true;
    }
  if (!refers) return;
  code_redirections++;
  if (old_cell.obj()->header & kInlinedCell) p->inline_off = true;
  // Machine code has the old cell built in. Code still running keeps it until it leaves; callers
  // look at p->jit before every call, so no new activation enters it.
  if (p->jit) p->jit->superseded = true;  // stops its self calls (x64_emit.cpp, check_self_code)
  p->jit = nullptr;
  p->jit_state = p->inline_off ? kJitFailed : kJitNone;
  // The partial evaluator specializes from the IR.
  if (p->source)
    for_each_node(p->source, [&](Node* n) {
      if (n->kind == NodeKind::GlobalRef && static_cast<GlobalRefNode*>(n)->cell == old_cell)
        static_cast<GlobalRefNode*>(n)->cell = new_cell;
      else if (n->kind == NodeKind::GlobalSet && static_cast<GlobalSetNode*>(n)->cell == old_cell)
        static_cast<GlobalSetNode*>(n)->cell = new_cell;
    });
}

}  // namespace

void remember_compiled(Environment* env, Value thunk) {
  if (!env->mutable_ || !has_type(thunk, Type::Closure)) return;
  remember_tree(env, thunk.as<Closure>()->proto, true, 0);
}

size_t remembered_procedures(Environment* env) {
  if (!env->compiled) return 0;
  return (env->compiled->chunks.size() - 1) * CompiledCode::kChunk + env->compiled->used;
}

void apply_redefinitions(Environment* env) {
  Value pending = env->redefined;
  if (pending == kNil) return;
  env->redefined = kNil;
  if (env->compiled) {
    gc_vector<Proto*> protos = live_protos(env->compiled);
    for (Value l = reverse_list(pending); is_pair(l); l = cdr(l))
      for (Proto* p : protos) redirect(p, car(car(l)), cdr(car(l)));
  }
  for (Value l = pending; is_pair(l); l = cdr(l)) {
    Value old_cell = car(car(l));
    if ((old_cell.obj()->header & kWatchedCell) && watched_cell_written) watched_cell_written(old_cell);
  }
}

}  // namespace quasi
