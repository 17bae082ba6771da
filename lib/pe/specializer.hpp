// specializer.hpp — one run of the online partial evaluator: the class behind pe::specialize.
//
// The evaluator walks core IR with an environment of partial values (internal.hpp) and emits
// residual code into the current Block by let-insertion: every residual computation is bound to a
// fresh variable at the point the original program would compute it, so effects keep their order
// and their count, and a dynamic value used twice is computed once. The optimizer's passes later move
// the bindings that are used once back into place, so the output reads like ordinary Scheme.
//
// Calls to known procedures (closures with source IR, the evaluator's own closures) are
//   - UNFOLDED (the body is evaluated in place) when not under dynamic control, and
//   - SPECIALIZED under dynamic control (inside a branch of a residual `if` of the procedure being
//     built): the call becomes a call to a helper procedure specialized to the static part of the
//     arguments, memoized on (lambda clause, static skeleton) — so recursion under a dynamic test
//     closes into a residual loop instead of unfolding forever.
// A helper's key is the skeleton of its arguments: static values (compared with equal? when
// frozen, eq? otherwise), holes for dynamic values, the structure of partially static pairs and
// vectors, and closures as (lambda, skeleton of their free variables). Each hole, and each
// partially static object, becomes a parameter of the helper (objects are passed materialized so
// they keep their identity if they escape inside the helper; unused parameters are removed by
// cleanup, and with them the allocations).
#pragma once

#include <exception>
#include <vector>

#include "ir/functor.hpp"
#include "pe/budgets.hpp"
#include "pe/internal.hpp"
#include "pe/static_run.hpp"

namespace quasi::pe {


// ---- small helpers shared by the evaluator's files ----------------------------------------------

// Restores the evaluator's position (block and dynamic-control depth) when a scope ends, also
// when a restart or a budget exception unwinds through it.
struct ContextGuard {
  Block*& block;
  int& depth;
  Block* saved_block;
  int saved_depth;
  ContextGuard(Block*& b, int& d) : block(b), depth(d), saved_block(b), saved_depth(d) {}
  ~ContextGuard() {
    block = saved_block;
    depth = saved_depth;
  }
};

inline uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

inline Value sym(const char* s) { return intern(s); }

// A residual variable's partial value.
PVal* make_dyn(Var* v);

// One item of a helper key, in preorder over the arguments.
struct KeyItem {
  // kSameHole: the same dynamic value as an earlier hole (n: its parameter index).
  // kBackRef: the same object as an earlier item (n: its index; -1: the callee itself).
  // kView: a dynamic value (a hole: a parameter) whose car and cdr are known (the two items
  // that follow; kUnknown for a field not known): a pair the residual code read (facts.cpp).
  // kHole: value is what residual tests found the dynamic value is not (facts.cpp): a list of
  // identity constants in a canonical order, or #f for nothing; the helper knows it too, so a
  // restart does not repeat the test that failed (the KMP matcher's mismatched character).
  // A hole with fewer exclusions is more general; the whistle ignores them (a hole is a hole).
  enum Tag : uint8_t { kFrozen, kRef, kHole, kPair, kVector, kClosure, kBackRef, kSameHole, kView, kUnknown };
  Tag tag;
  Value value = kFalse;         // kFrozen, kRef
  LambdaNode* lam = nullptr;    // kClosure
  int64_t n = 0;                // kVector: length; kBackRef, kSameHole: see above
};

// A specialized helper being built or built.
struct Entry {
  uint64_t hash = 0;
  gc_vector<KeyItem> key;
  gc_vector<uint32_t> slot_start;  // key index where each slot (argument) starts
  LambdaNode* lam = nullptr;
  size_t clause = 0;
  Value runtime = kFalse;          // the runtime closure called, or #f for the evaluator's own
  Var* var = nullptr;              // the helper's residual variable
  LambdaNode* code = nullptr;      // its residual lambda, once built
  size_t nparams = 0;
  bool pending = true;
  // Per helper parameter: the partially static argument (pair or vector) passed there escaped
  // inside the helper. Only those escape at a call: an interpreter's environment names passed
  // next to the values the helper returns stay static (escape does not spread to siblings).
  gc_vector<uint8_t> input_escaped;
  // Rebuilt pessimistic: per parameter, the objects that calls made while it is pending treat as
  // escaping (those that escaped in the build before); empty: all of them.
  gc_vector<uint8_t> assumed_escaped;
  bool closures_escaped = false;   // a closure argument (or the callee) escaped inside it: calls
                                   // pass those closures themselves
  // Calls that reach the helper while it is being built cannot know yet whether its arguments
  // escape in it. They assume not (optimistic); if the finished helper says otherwise it is
  // rebuilt pessimistic (such calls then treat the objects as escaping).
  bool pessimistic = false;
  bool hit_while_pending = false;
  uint64_t inspected = 0;          // slots a static decision in the body depended on
  // Per key item: an exact integer that a residual ordering test (<, <=, >, >=) in the body
  // compared with a dynamic number — a loop counter under dynamic control, which no static
  // decision bounds. The whistle compares those by size from 0 on, not from kEmbedIntegerFloor
  // (whistle.hpp). Empty: none.
  std::vector<bool> counted;
  size_t n_counted = 0;
  size_t index = 0;                // position in the run's list of entries
  bool dead = false;               // dropped by a generalization restart
  // Every return path of the finished helper returns this static value: the call's value is known
  // (the call stays, for what it does).
  bool static_result = false;
  Value result_value = kFalse;
  // The finished helper returns a plain dynamic value (nothing known about it): a call with its
  // key that would be unfolded may call it instead and lose nothing (enters_helper).
  bool plain_result = false;
  // The key's rigid atoms (whistle.hpp), listed at the first whistle test: 0 not yet, 1 listed,
  // 2 too large to list.
  uint8_t rigid_state = 0;
  size_t rigid_counted = 0;        // n_counted when the rigid atoms were listed
  gc_vector<uint64_t> rigid;
};

// A generalization restart: rebuild `target` with the slots in `slots` made dynamic.
struct Restart {
  Entry* target;
  std::vector<bool> slots;
  bool pessimistic = false;  // rebuild the same key, pessimistic about escaping arguments
  std::vector<uint8_t> assumed = {};  // ... about these objects (Entry::assumed_escaped)
  // Per slot to generalize: the items (indices into target->key) of the largest parts that
  // differ — only they are made dynamic, the rest of the slot's structure stays (most specific
  // generalization). Empty: the whole slot.
  std::vector<std::vector<uint32_t>> parts = {};
};

using TracedSet = FrozenCache;  // a set of object addresses the collector scans

// The callee of a known call: a runtime closure (Static value) or the evaluator's closure.
struct Callee {
  LambdaNode* lam = nullptr;
  Value runtime = kFalse;     // the closure value, when runtime
  Value cell = kFalse;        // the user global it was read from, if any (residual code names it)
  PVal* closure = nullptr;    // the evaluator's closure, when not runtime
};

// One argument of the original call in a residual clause: a static value or a parameter.
struct ArgSpec {
  Value value = kFalse;
  Var* param = nullptr;  // null: static `value`
};

// One clause of the residual procedure (planned by request.cpp).
struct ClausePlan {
  Value proc;                     // the original procedure: a primitive or an inlinable closure
  size_t clause = 0;              // closures: the original clause this residual clause calls
  gc_vector<ArgSpec> args;        // the original's required arguments, in order
  gc_vector<Value> rest_prefix;   // static arguments that start the rest list
  Var* rest_param = nullptr;      // the residual clause's rest parameter, if any
};

// The evaluator is a functor over the IR (ir/functor.hpp), as TVM Relay's partial evaluator is:
// visiting a node in a partial environment yields its partial value and emits residual code.
class Specializer : public ExprFunctor<PVal*(Node*, PEnv*)> {
 public:
  Specializer(Vm& vm, PeState& st, const Options& options = Options{});

  // The body of one residual clause: the original called on the plan's arguments, specialized.
  // Adds the GlobalCells it assumed to `deps`. Throws Exhausted/Bailout to the caller.
  Node* run_clause(const ClausePlan& plan, gc_vector<Value>& deps);
  // The specialized helpers the clauses call (letrec-bound around them).
  void collect_helpers(gc_vector<Helper>& out);
  int64_t effort() const { return effort_; }
  // What the run generalized or left residual, and where (specialize-explain).
  NoteList& notes() { return notes_; }
  // Records a note about `lam` (or the procedure `where` names, when lam is null).
  void note(const char* action, const char* reason, LambdaNode* lam, std::string detail);
  void note(const char* action, const char* reason, Value proc, std::string detail);

  // ---- used by structural.cpp ----
  PVal* make_static(Value v);
  PVal* make_pair(PVal* a, PVal* d);
  PVal* make_vector(const gc_vector<PVal*>& items);
  bool frozen(Value v) { return is_frozen_deep(v, &frozen_cache_); }
  Vm& vm() { return vm_; }

 private:
  Vm& vm_;
  PeState& st_;
  Options options_;
  NoteList notes_;
  // The names of slot `s` of a clause's key (its free variables first, for the evaluator's own
  // closures, then its parameters) — for notes.
  std::string slot_names(LambdaNode* lam, size_t clause, bool runtime, const std::vector<bool>& which);
  Environment* core_;
  Block* block_ = nullptr;  // where residual code goes
  int dyn_depth_ = 0;       // > 0: under dynamic control in the procedure being built
  int64_t effort_ = 0;
  int64_t size_ = 0;
  // The part of size_ that is in helper bodies (build_helper): code an undone unfolding drops is
  // its own block's, size_ - helper_size_ since it started; helpers made inside stay.
  int64_t helper_size_ = 0;
  gc_vector<Value>* deps_ = nullptr;
  TracedSet frozen_cache_;
  // equal_hash of frozen objects in keys, by address (the collector scans the keys: an object
  // hashed here stays alive, so its address is not reused while cached).
  std::unordered_map<uint64_t, uint64_t, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     traceable_allocator<std::pair<const uint64_t, uint64_t>>> hash_cache_;
  uint64_t frozen_hash(Value v);
  uint64_t hash_item(uint64_t h, const KeyItem& it);
  uint64_t hash_key(const gc_vector<KeyItem>& items, LambdaNode* lam, size_t clause, Value runtime);
  TracedSet written_cells_;  // globals the residual code assigns: never read statically
  TracedSet read_cells_;     // user globals read statically (dependencies)
  TracedSet transformed_;    // sources whose cells depend_on_transformed recorded
  std::unordered_multimap<uint64_t, Entry*, std::hash<uint64_t>, std::equal_to<uint64_t>,
                          traceable_allocator<std::pair<const uint64_t, Entry*>>> memo_;
  std::vector<Entry*, traceable_allocator<Entry*>> pending_;
  std::vector<Entry*, traceable_allocator<Entry*>> entries_;  // every helper, creation order
  std::unordered_map<uint64_t, int, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     traceable_allocator<std::pair<const uint64_t, int>>> variants_;
  StaticRunner runner_;
  // A call of `values` with other than one argument: its value is a variable bound only when
  // residual code first refers to it (k_ref, escape: Specializer::bind_values), to (values
  // parts...) where the call was made; until then the parts are not escaped, and %apply-values
  // on it calls its consumer on them (apply_values).
  struct PendingValues {
    gc_vector<PVal*>* parts;
    Block* home;
    StmtList::iterator point;
  };
  std::unordered_map<Var*, PendingValues, std::hash<Var*>, std::equal_to<Var*>,
                     traceable_allocator<std::pair<Var* const, PendingValues>>> values_of_;
  int helper_counter_ = 0;
  uint64_t rebuild_tag_ = 0;  // the slot bit rebuilt values get
  void inspect(PVal* v) {
    if (!pending_.empty()) pending_.back()->inspected |= v->tags;
  }
  static uint64_t tags_of(const gc_vector<PVal*>& args) {
    uint64_t t = 0;
    for (PVal* a : args) t |= a->tags;
    return t;
  }

  // ---- facts about dynamic values (facts.cpp) ----
  // What a residual test taught about a residual variable: its value (an eq?-comparable
  // constant) or constants it is not, scoped to the arm of the residual `if` (undone by a trail
  // when the arm ends); and the values of (car x) and (cdr x) already read by residual code,
  // valid while no residual code that may mutate a pair ran since (the epoch).
 public:
  struct Fact {
    bool has_value = false;
    Value value = kFalse;
    gc_vector<Value>* excluded = nullptr;  // shared copy-on-write (the trail keeps old ones)
    PVal* field[2] = {nullptr, nullptr};   // car, cdr, read at `epoch`
    uint64_t epoch = 0;
    bool is_pair = false;                  // a car or cdr was read: a pair (types never change)
    // Numeric: a number equal (=) to `num`, a small integer, or not equal to any of
    // `num_excluded` (learned from (= x c) and (zero? x); facts.cpp).
    bool has_num = false;
    Value num = kFalse;
    gc_vector<Value>* num_excluded = nullptr;  // shared copy-on-write
    // Range: learned from (< x c), (<= x c), (> x c), (>= x c) with a small integer c. Where the
    // test held, x is a real number, not NaN, on that side of c (`real`); where it failed, x is
    // on the other side or NaN — every ordering test on NaN is false, so a test the bounds
    // refute is #f either way, while one they imply is #t only when `real` (facts.cpp).
    bool has_lo = false, has_hi = false;
    bool lo_open = false, hi_open = false;  // x > lo (open) or x >= lo; x < hi or x <= hi
    int64_t lo = 0, hi = 0;
    bool real = false;
    // Elements read by residual (vector-ref x i) / (string-ref x i) at `elems_epoch`.
    struct Element {
      uint8_t op;       // InlineOp of the read
      bool var_index;   // the index is a residual variable (index: its address), else a fixnum
      uint64_t index;
      PVal* value;
    };
    gc_vector<Element>* elems = nullptr;  // shared copy-on-write
    uint64_t elems_epoch = 0;
  };
 private:
  std::unordered_map<Var*, Fact, std::hash<Var*>, std::equal_to<Var*>,
                     traceable_allocator<std::pair<Var* const, Fact>>> facts_;
  struct TrailEntry {
    Var* var;
    bool had;
    Fact old;
  };
  std::vector<TrailEntry, traceable_allocator<TrailEntry>> trail_;
  // The epoch of the code being built: a fresh one after residual code that may mutate; each
  // arm of a residual `if` starts from the epoch before it, and after the join it continues if
  // neither arm mutated, else a fresh one. Epochs are never reused (next_epoch_).
  uint64_t epoch_ = 1;
  uint64_t next_epoch_ = 1;
  struct FactScope {  // undoes the facts learned in a scope, also when an exception unwinds it
    Specializer* s;
    size_t mark;
    explicit FactScope(Specializer* sp) : s(sp), mark(sp->trail_.size()) {}
    ~FactScope() { s->fact_undo(mark); }
  };
  struct FactWorld {  // a helper's body: a closed world, none of the caller's facts
    Specializer* s;
    decltype(facts_) saved_facts;
    decltype(trail_) saved_trail;
    uint64_t saved_epoch;
    explicit FactWorld(Specializer* sp);
    ~FactWorld();
  };
  Fact* fact_of(Var* v);
  Fact& fact_for_update(Var* v);
  void fact_undo(size_t mark);
  // Residual code that may mutate a pair (or a string, a vector) ran: read fields are stale.
  void mutation() { epoch_ = ++next_epoch_; }
  // v with what is known about it: a dynamic value known to be a constant is that constant.
  PVal* known(PVal* v);
  // The known field (0 car, 1 cdr) of a dynamic pair, or null.
  PVal* known_field(PVal* v, int which);
  void learn_field(Var* v, int which, PVal* value);
  void learn_test(PVal* test, bool outcome);
  bool excluded(PVal* v, Value c);
  Value exclusions_of(Var* x);  // memo.cpp: a hole's key value
  // Fact-based answers for structural primitives on dynamic values; null when they do not apply.
  PVal* fact_structural(const PrimFacts& f, gc_vector<PVal*>& args);
  // Numeric comparisons decided by numeric facts, and element reads already made; null when
  // they do not apply.
  PVal* fact_numeric(Primitive* p, const PrimFacts& f, gc_vector<PVal*>& args);
  PVal* known_element(const PrimFacts& f, gc_vector<PVal*>& args);
  // After a residual primitive call: what its result says (a read field, a test to learn from).
  void note_result(const PrimFacts& f, gc_vector<PVal*>& args, PVal* r);
  // The integer items of e's key, in the slots v derives from, equal to v (Entry::counted).
  void mark_counted(Entry* e, PVal* v);

  // ---- assigned variables (boxes.cpp) ----
  // A set!-ed local is a Box (internal.hpp). Its content is tracked statically while the box
  // has not escaped; every change of a box's state is recorded on a trail, so that the arms of
  // a residual `if` and an unfolding whose code is dropped start from the state before them.
  // Escaping is for good (not undone): the cell is then given the box's content at the start
  // of every enclosing frame (an `if` arm, an unfolding) opened since the box was made, so the
  // paths the evaluator has not built yet, or will rebuild, find it there.
  struct BoxTrailEntry {
    PVal* box;
    BoxState old;
  };
  struct BoxFrame {
    Block* block;
    StmtList::iterator point;  // where the frame's code starts, in `block`
    size_t trail_mark;
    uint64_t seq;              // boxes made after this were made inside the frame
    size_t nboxes;             // boxes_ at the start
  };
  std::vector<BoxTrailEntry, traceable_allocator<BoxTrailEntry>> btrail_;
  std::vector<BoxFrame, traceable_allocator<BoxFrame>> frames_;
  std::vector<PVal*, traceable_allocator<PVal*>> boxes_;  // the boxes of the procedure being built
  uint64_t seq_ = 0;
  struct BoxWorld {  // a residual procedure's body: its own boxes, trail and frames
    Specializer* s;
    decltype(btrail_) trail;
    decltype(frames_) frames;
    decltype(boxes_) boxes;
    explicit BoxWorld(Specializer* sp);
    ~BoxWorld();
  };
  struct FramePush {  // a frame for the extent of a scope, also when an exception unwinds it
    Specializer* s;
    explicit FramePush(Specializer* sp, Block* b, StmtList::iterator at);
    ~FramePush() { s->frames_.pop_back(); }
    const BoxFrame& frame() const { return s->frames_.back(); }
  };
  PVal* make_box(PVal* init, Value name);
  // A box for a set!-ed variable whose content lives in a cell the helper received (escaped).
  PVal* residual_box(Var* cell, Value name);
  Var* box_cell(PVal* b);  // the cell, bound where the box was made (made on first use)
  PVal* box_read(PVal* b, Value name);
  void box_write(PVal* b, PVal* v);
  void box_set(PVal* b, const BoxState& s);  // recorded on the trail
  void box_undo(size_t mark, uint64_t frame_seq);
  // Residual code that may capture a continuation (an unknown call, a helper call) is about to
  // be emitted: a re-entry runs the code after it again, with the boxes' contents of then.
  void capture_point();
  // Gives the cell the content `s` describes, where it describes it (Static: here; Pending: its
  // point).
  void sync_box(PVal* b, const BoxState& s);
  Node* box_value_code(PVal* v);
  void escape_box(PVal* b);
  // The residual `if`'s arms end with the boxes in agreement: where they know different contents,
  // the contents go to the cells at the ends of the arms (deferred: the arms are still open).
  void merge_boxes(const BoxFrame& f, Block* arms[2], const std::vector<PVal*>& boxes,
                   std::vector<BoxState> states[2]);
  void touched_boxes(size_t mark, uint64_t frame_seq, std::vector<PVal*>& out);

  // ---- budgets ----
  void spend(int64_t units = 1);
  // The exception for a budget that ran out, naming the runaway unfolding if there is one.
  Exhausted exhausted(const char* which);
  // Unfoldings in progress in the procedure being built, per lambda, and the lambdas whose
  // unfolding ran away (a static recursion too deep or too long): their calls are specialized
  // from then on, so the runaway call becomes a memoized helper instead of the request giving up.
  std::unordered_map<LambdaNode*, int> unfold_depth_;
  std::unordered_set<LambdaNode*> no_unfold_;
  // Lambdas whose static run returned data with an identity: not run statically again.
  std::unordered_set<LambdaNode*> builds_data_;
  int recoveries_ = 0;
  // Recursion through procedures (static_run-like scan of globals and captures), per closure.
  std::unordered_map<uint64_t, bool> recursive_;
  gc_vector<Value> pinned_;  // keeps the closures keyed above alive
  bool may_recurse(const Callee& c);
  bool unfold_under_control(const Callee& c);
  Node* counted(Node* n) {
    if (++size_ > options_.residual_size) throw exhausted("residual size");
    return n;
  }

  // ---- residual code ----
  Node* k_const(Value v);
  Node* k_ref(Var* v);
  Var* fresh(Value name);
  Var* emit_bind(Node* code, Value name);
  void emit_effect(Node* code);
  StmtList::iterator mark();
  PVal* emit_dyn(Node* code);
  Node* finish(Block* b, Node* result);
  // Trivial code for a partial value (escapes objects).
  Node* lift(PVal* v);
  // Makes an object exist at run time (at its creation point) without marking it escaped.
  Var* materialize(PVal* v);
  // Materializes an object and everything reachable from it and marks them escaped.
  void escape(PVal* v);
  void lift_group(LetrecGroup* g);
  void bind(PEnv* frame, Var* v, PVal* val);
  // A residual lambda for an evaluator closure (body specialized with dynamic parameters).
  LambdaNode* residual_lambda(LambdaNode* lam, PEnv* env, int dyn_depth);

  // ---- evaluation (the functor's cases) ----
  PVal* pe(Node* n, PEnv* env) { return visit(n, env); }
  PVal* visit(Node* n, PEnv* env) override;
  PVal* visit_const(ConstNode* n, PEnv* env) override;
  PVal* visit_local_ref(LocalRefNode* n, PEnv* env) override;
  PVal* visit_local_set(LocalSetNode* n, PEnv* env) override;
  PVal* visit_global_ref(GlobalRefNode* n, PEnv* env) override;
  PVal* visit_global_set(GlobalSetNode* n, PEnv* env) override;
  PVal* visit_if(IfNode* n, PEnv* env) override;
  PVal* visit_lambda(LambdaNode* n, PEnv* env) override;
  PVal* visit_call(CallNode* n, PEnv* env) override;
  PVal* visit_prim_call(PrimCallNode* n, PEnv* env) override;
  PVal* visit_let(LetNode* n, PEnv* env) override;
  PVal* visit_letrec(LetNode* n, PEnv* env) override;
  PVal* visit_seq(SeqNode* n, PEnv* env) override;
  PVal* pe_local_ref(Var* v, PEnv* env);
  PVal* pe_global_ref(Value cell);
  PVal* pe_if(IfNode* n, PEnv* env);
  PVal* pe_let(LetNode* n, PEnv* env);
  PVal* pe_letrec(LetNode* n, PEnv* env);
  PVal* pe_lambda(LambdaNode* n, PEnv* env);

  // ---- calls ----
 public:
  PVal* call(PVal* fn, gc_vector<PVal*>& args, bool tail = false);
  PVal* residual_call(Node* fn, gc_vector<PVal*>& args);
  PVal* prim_call(Value prim, gc_vector<PVal*>& args);
  PVal* residual_prim(Value prim, gc_vector<PVal*>& args);

 private:
  bool known_callee(PVal* fn, Callee* out);
  PEnv* callee_env(const Callee& c);
  LambdaClause* pick_clause(LambdaNode* lam, size_t nargs, size_t* index);
  PVal* known_call(const Callee& c, gc_vector<PVal*>& args, bool force_specialize, bool tail = false);
  PVal* unfold(const Callee& c, size_t clause, gc_vector<PVal*>& args);
  // ---- tail calls of unfoldings (unfold.cpp) ----
  // One unfolding in progress: the call, and the state its undoing (loop_helper, EnterLoop, a
  // runaway) goes back to. unfold() keeps a chain of them: a call in tail position of an
  // unfolded body that is unfolded too is the chain's next level, run by the same loop instead
  // of a nested unfold() (the KMP matcher's restart cascade, m^2/2 decided tail calls, needs no
  // C stack and no depth budget); each level is still finished, innermost first, exactly as a
  // nested unfolding would be.
  struct UnfoldLevel {
    Callee c;
    size_t clause = 0;
    gc_vector<PVal*> args;
    uint64_t id = 0, epoch0 = 0;
    bool views0 = false, outermost = false;
    Block* saved_block = nullptr;
    int saved_dyn = 0;
    StmtList::iterator start;
    int64_t effort0 = 0, size0 = 0, helper_size0 = 0;
    size_t entries0 = 0;
    BoxFrame f0{};
  };
  // The tail position an unfolded body's evaluation has reached: set just before pe() of the
  // node in tail position (unfold, a decided if, a let's body, a sequence's last expression),
  // cleared by every visit, so only a node reached through those alone is in tail position.
  Node* tail_node_ = nullptr;
  bool in_tail_ = false;  // the node being visited is in tail position (read first by its case)
  // known_call's answer to an unfoldable call in tail position: the next level (tail_next_).
  PVal tail_call_{};
  UnfoldLevel* tail_next_ = nullptr;
  // Pushes the level's unfolding (depth, unfoldings_, its box frame) and records its start.
  // A tail level does not count toward kMaxUnfoldDepth (it nests nothing).
  void open_level(UnfoldLevel* L, bool tail);
  void close_level(UnfoldLevel* L);  // pops what open_level pushed
  void undo_level(UnfoldLevel* L);   // drops the level's residual code and box changes
  // The level's body, done with r or the exception ex: it stays, or is undone and its call
  // specialized (a loop it made, EnterLoop for it, a runaway it is the outermost unfolding of).
  PVal* finish_level(UnfoldLevel* L, PVal* r, std::exception_ptr& ex);
  // A finished helper of the same clause made since entry `from` whose key is this call's or
  // more general: the loop an outermost unfolding entered (its first iteration need not stay
  // unfolded), or null.
  Entry* loop_helper(const Callee& c, size_t clause, gc_vector<PVal*>& args, size_t from);
  // Whether a call about to be unfolded has the key of a pending helper, or of a finished one
  // whose result is a plain dynamic value (or static) and that takes only dynamic values:
  // unfolding would build that helper's body again (the KMP matcher's restart cascade), so the
  // call enters it.
  bool enters_helper(const Callee& c, size_t clause, gc_vector<PVal*>& args);
  std::unordered_map<uint64_t, int> finished_;  // finished helpers per (lambda, clause)
  // Unfoldings in progress, per lambda, outermost first, each with the helper depth
  // (pending_.size()) it runs at. A helper's body that is about to unfold a call repeating one
  // of them from an outer world (an interpreter's loop helper, keyed on the call expression,
  // unfolding the callee's body that the outer world is unfolding) makes that call a helper
  // instead: the outer unfolding then finds it as its loop (loop_helper) and enters it, so its
  // first iteration is not peeled.
  struct Unfolding {
    Callee c;
    size_t clause;
    gc_vector<PVal*>* args;
    size_t world;
    bool views;  // an argument held fields read by residual code when it started (has_views)
    // Its key as an inner world sees it (built at the first comparison; 0 not yet, 1 built,
    // 2 not keyable). The outer world's facts are invisible in every inner world, so it does
    // not change with the world; an object escaping since only makes the real key more
    // general, and the key only decides whether a call becomes a helper — always sound.
    uint8_t keyed = 0;
    gc_vector<KeyItem>* key = nullptr;
    gc_vector<uint32_t>* slot_start = nullptr;
    uint64_t id = 0;  // EnterLoop's target
  };
  // Thrown by a helper's body whose call repeats an outer unfolding: that unfolding is undone
  // and becomes the loop's helper (unfold), which the repeating call then enters.
  struct EnterLoop {
    uint64_t id;
  };
  uint64_t unfolding_ids_ = 0;
  int loop_entries_ = 0;  // EnterLoops thrown (bounded: each undoes work)
  std::unordered_map<LambdaNode*, root_vector<Unfolding>> unfoldings_;  // scanned: keys are GC data
  // The id of the outer unfolding the call repeats with the same key, kMoreGeneral when the
  // call is more general than one (its helper, made here, is the outer call's loop too:
  // loop_helper), or 0.
  static constexpr uint64_t kMoreGeneral = ~uint64_t(0);
  uint64_t repeats_outer_unfolding(const Callee& c, size_t clause, gc_vector<PVal*>& args);
  // Whether `v` holds a dynamic pair whose fields residual code read in this epoch (a key would
  // encode it as a view). Such knowledge lasts until the epoch changes: a key made at the end
  // of an unfolding may have lost it, so loop_helper does not compare it with the start.
  bool has_views(PVal* v, int depth = 0);
  // The slots of a call to `c` (the evaluator closure's free variables, then the arguments);
  // false when a free variable is not initialized yet.
  bool call_slots(const Callee& c, gc_vector<PVal*>& args, gc_vector<PVal*>& slots);
  Entry* cover_ = nullptr;  // the helper the next specialize_call is generalized to, if it can be
  // A call whose callee and arguments are all static, run by the real evaluator
  // (static_run.hpp): its value, or the call left residual; null when it does not apply.
  PVal* static_call(const Callee& c, gc_vector<PVal*>& args);
  // The same for one of the evaluator's closures whose free variables are all static (a named
  // let over static values): compiled, with the closures it reaches, as a procedure of those
  // values.
  PVal* static_closure_call(PVal* fn, gc_vector<PVal*>& args);
  // A runtime closure equivalent to `fn` (compiled with the closures it reaches, its free
  // variables' static values as arguments), or #f when one of them is not static and pure.
  Value static_closure_value(PVal* fn, gc_vector<Value>& cells);
  PVal* static_result(Value proc, PVal* fn, gc_vector<PVal*>& args, const std::vector<Value>& argv,
                      gc_vector<Value>& cells, Value cell = kFalse);
  bool static_args(gc_vector<PVal*>& args, std::vector<Value>& argv, gc_vector<Value>& cells);
  PVal* specialize_call(const Callee& c, size_t clause, gc_vector<PVal*>& args);
  PVal* apply_call(gc_vector<PVal*>& args);
  PVal* apply_values(Value prim, gc_vector<PVal*>& args);  // (%apply-values consumer vals)
  PVal* make_values(gc_vector<PVal*>& args);  // (values a b ...), bound lazily
  void bind_values(Var* v);  // the binding of a pending (values ...) (values_of_), once
  PVal* ad_j_closure(PVal* c);  // (%ad-j c) of an evaluator-made closure
  PVal* ad_j_layout(PVal* j);   // (%ad-j-layout j) of a J made by ad_j_closure
  void depend_on_transformed(LambdaNode* src);  // the cells J's code read from src (ad rules)
  PVal* fold(Primitive* p, Value prim, gc_vector<PVal*>& args);
  PVal* structural(const PrimFacts& f, Value prim, gc_vector<PVal*>& args);  // structural.cpp

  // ---- keys ----
  struct KeyBuild;
  // The key a probe builds (enters_helper, loop_helper, repeats_outer_unfolding): one KeyBuild
  // reused, so a probe allocates nothing once its vectors have grown — a probe is made for
  // nearly every call unfolded near a helper, and most find none (KMP-64: 127 hits in 6,767).
  class ProbeKey;
  KeyBuild* probe_kb_ = nullptr;
  bool probe_busy_ = false;
  // `probe`: only to compare (Specializer::loop_helper): an argument too large to key fails it
  // instead of being generalized.
  bool build_key(const Callee& c, size_t clause, gc_vector<PVal*>& slots, KeyBuild& kb, bool probe = false);
  void encode(PVal* v, KeyBuild& kb);
  void push_item(KeyBuild& kb, const KeyItem& it);  // the next item of the key (or of its hash)
  Entry* lookup(const KeyBuild& kb, LambdaNode* lam, size_t clause, Value runtime);
  PVal* rebuild(const gc_vector<KeyItem>& key, size_t& i, quasi::gc_vector<Var*>& params, size_t& pi,
                gc_vector<PVal*>& objects, LetrecGroup* group, Block* home, StmtList::iterator point,
                PVal* callee);
  PVal* rebuild_var(Var* x, const gc_vector<KeyItem>& key, size_t& i, quasi::gc_vector<Var*>& params, size_t& pi,
                    gc_vector<PVal*>& objects, LetrecGroup* group, Block* home, StmtList::iterator point,
                    PVal* callee);
  PVal* generalize(PVal* v);
  // Slot `s` made dynamic as a whole (a hole of its own, also where it was the same hole as an
  // earlier slot); false when that changes nothing.
  bool generalize_slot(gc_vector<PVal*>& slots, const KeyBuild& kb, size_t s);
  PVal* unalias(PVal* v, PVal* holder = nullptr);
  // Whether helper `v`'s key is more general than the call keyed in `kb` (it has holes in every
  // part where they differ), and generalizing the call to it (its differing parts made holes,
  // marked in `at`); false when it is not, or nothing changed.
  bool covers(Entry* v, const KeyBuild& kb) { return covers(v->key, v->slot_start, kb); }
  bool covers(const gc_vector<KeyItem>& key, const gc_vector<uint32_t>& slot_start, const KeyBuild& kb);
  bool generalize_call_to(Entry* v, gc_vector<PVal*>& slots, const KeyBuild& kb, std::vector<bool>& at);
  // Makes the parts of slot `s` at the given key items dynamic, in place (static leaves of a
  // partially static object become variables bound where the object was made, objects escape).
  // False when that changes nothing or a part is not a field of an object.
  bool generalize_parts(gc_vector<PVal*>& slots, const KeyBuild& kb, const std::vector<uint32_t>& items);
  void kill(Entry* e);
  Entry* build_helper(const Callee& c, size_t clause, KeyBuild& kb, Entry** created, bool pessimistic,
                      const gc_vector<uint8_t>& assumed_escaped);
  PVal* choice_fold(Primitive* p, gc_vector<PVal*>& args);
};

}  // namespace quasi::pe
