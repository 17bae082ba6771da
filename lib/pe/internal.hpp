// internal.hpp — the partial evaluator's private data: partial values, environments, residual
// blocks. Only lib/pe/*.cpp include this.
//
// A partial value (PVal) is what the evaluator knows about the value of an expression:
//
//   Static   the value itself (known now). If the object is mutable (a pair, vector or string
//            without kImmutable, a record, ...) only its identity is known: its contents are never
//            read during specialization, because the program may change them before it runs.
//   Dyn      nothing: the value is computed by residual code and held in a residual variable.
//   Box      the location of a set!-ed local (never a value by itself: reading the variable
//            yields the box's content). While the box has not ESCAPED (been captured by a lifted
//            closure or passed to a helper) its content is tracked along the straight-line path
//            the evaluator follows: Static (known: `cur`), Pending (known, but a residual call
//            that may capture a continuation ran since: the cell must hold `cur` from that point
//            on if the box is read again) or Residual (in the cell). A box that must exist at run
//            time is a one-element vector (the cell) bound where the variable was bound; an
//            escaped box stays Residual for good (lib/pe/README.md, "Assigned variables").
//   Pair, Vector
//            an object the program allocates (cons, list, vector) whose fields are partial values:
//            it exists only in the evaluator until it must exist at run time (it is materialized
//            by residual code at the point where it was created). While it has not ESCAPED
//            (reached code the evaluator does not see, been passed to a mutator) its fields are
//            known; once escaped, every read is residual code on the materialized object.
//   Closure  a lambda the program evaluated: code plus the environment it closes over. Called at
//            a known site it is unfolded or specialized; when it escapes it is lifted to a
//            residual lambda (at the point where it was created).
//
// Invariant: a Pair/Vector/Closure never outlives the residual procedure (root, helper or lifted
// lambda) it was created in: values flowing into a specialized helper are rebuilt from the
// helper's key, and the result of a dynamic `if` branch is lifted before the branches join. So
// materializing "at the creation point" always inserts into a block of the procedure being built,
// above every use.
#pragma once

#include <list>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/gc.hpp"
#include "core/object.hpp"
#include "ir/ir.hpp"
#include "ir/let_list.hpp"
#include "ir/util.hpp"
#include "vm/proto.hpp"
#include "pe/budgets.hpp"

namespace quasi {
struct Vm;
struct Environment;
}  // namespace quasi

namespace quasi::pe {

struct PVal;

// A straight-line piece of residual code being built (the body of a residual procedure or of a
// branch of a residual `if`): the toolkit's let-insertion builder.
using Block = LetList;
using StmtList = LetList::Stmts;

// Letrec-bound closures are lifted together (they may refer to each other).
struct LetrecGroup {
  gc_vector<PVal*> members;
  bool lifted = false;
  Block* home = nullptr;
  StmtList::iterator point;
};

enum class PKind : uint8_t { Static, Dyn, Box, Pair, Vector, Closure };

// What the evaluator knows about a Box's content at a point of the residual code.
struct BoxState {
  enum Kind : uint8_t { kStatic, kPending, kResidual };
  Kind kind = kStatic;
  PVal* cur = nullptr;      // kStatic, kPending: the content
  bool synced = false;      // kStatic, kPending: the cell (if made) holds `cur`
  bool stale = false;       // kResidual: the cell was last written before a point that may
                            // have captured a continuation (reading it makes the box captured)
  Block* block = nullptr;   // kPending: where the cell must be given `cur` (just before the
  LetList::Point point{};   // residual call that may capture a continuation)
};

struct PEnv;

struct PVal {
  PKind kind;
  Value value = kFalse;    // Static
  Value cell = kFalse;     // Static read from a user global (a dependency): residual code may
                           // name it by that global, which holds it while the code is valid
  Var* var = nullptr;      // Dyn: the residual variable. Box: its cell, once it exists at run
                           // time. Pair/Vector/Closure: the materialized object once it exists
                           // at run time, else null
  PVal* car = nullptr;     // Pair
  PVal* cdr = nullptr;
  gc_vector<PVal*>* items = nullptr;  // Vector
  LambdaNode* lam = nullptr;          // Closure
  PEnv* env = nullptr;
  LetrecGroup* group = nullptr;
  bool escaped = false;    // Pair/Vector/Closure/Box: residual code may hold or change it
  BoxState box;            // Box: what is known about its content here
  bool captured = false;   // Box: read from a cell written before a point that may have
                           // captured a continuation: its writes also go to the cell (a
                           // re-entry there reads it again)
  uint64_t seq = 0;        // Box: when it was made (Specializer::seq_), to compare with frames
  bool materializing = false;
  size_t key_index = 0;    // objects rebuilt from a helper key: their item's index
  // Which slots (arguments) of the helper being built this value derives from, one bit per slot
  // (slots past 63 are not tracked). A static decision on the value marks them "inspected".
  uint64_t tags = 0;
  // Dyn only: the value of a residual (if c a b) whose arms are static values a and b — a
  // "choice". Operations on it fold per arm, and a test on it becomes a test on c.
  Var* choice_test = nullptr;
  Value choice[2] = {kFalse, kFalse};
  bool known_char = false;  // Dyn only: certainly a character
  // Dyn only: this value is the result of a test of `test_of` against constants (eq?, eqv?,
  // equal?, char=? with one constant: test_list is #f and test_value the constant; memq/memv
  // on a constant list: test_list is that list). A residual `if` on it learns, in each arm,
  // what `test_of` is or is not (facts.cpp).
  Var* test_of = nullptr;
  Value test_value = kFalse;
  Value test_list = kFalse;
  // The test is numeric: (= test_of c) or (zero? test_of), c a small integer (facts.cpp): the
  // arms learn that test_of is, or is not, numerically c (not that it is the fixnum c: 3.0 = 3).
  bool test_numeric = false;
  // A numeric test that orders: test_of `test_order` test_value, the InlineOp kLt, kLe, kGt or
  // kGe with test_of on the left ((< 3 x) is noted as (> x 3)); kNone for = and zero?.
  InlineOp test_order = InlineOp::kNone;
  // Dyn only: what the evaluator knows about the variable (facts.cpp) is not part of this
  // value's helper key: a generalized value.
  bool opaque = false;
  // Dyn only: certainly a number (what arithmetic returned, PrimFacts::num_result; an if whose
  // arms are): type tests on it and eq? with a non-number decide now (the gradient code of
  // lib/ad tests its cotangents against the zero symbol and for pairs and vectors).
  bool known_number = false;
  Block* home = nullptr;   // Pair/Vector/Closure/Box: where it was created
  StmtList::iterator point;

  bool is_object() const { return kind == PKind::Pair || kind == PKind::Vector || kind == PKind::Closure; }
  // Known fields: a Pair/Vector not escaped.
  bool known_fields() const { return (kind == PKind::Pair || kind == PKind::Vector) && !escaped; }
};

// A frame of the evaluator's environment: Var -> PVal. Frames are immutable once filled (closures
// capture them), except letrec frames, which are filled one init at a time.
struct PEnv {
  PEnv* parent;
  gc_vector<Var*> vars;
  gc_vector<PVal*> vals;  // null: a letrec variable before its init (reading it bails out)
  explicit PEnv(PEnv* p) : parent(p) {}
  PVal** find(Var* v) {
    for (PEnv* e = this; e; e = e->parent)
      for (size_t i = 0; i < e->vars.size(); i++)
        if (e->vars[i] == v) return &e->vals[i];
    return nullptr;
  }
};

// Internal control flow of a run (never leaves pe::specialize).
struct Exhausted {  // a budget ran out: the runaway unfolding is residualized, else the request
  const char* which;
  LambdaNode* runaway = nullptr;  // the lambda unfolded deepest when it ran out (>= 4 deep)
};
struct Bailout {  // something the evaluator does not model: same outcome, counted apart
  const char* why;
};

// Per-engine state (one per install_builtins), reached from the `data` of the API primitives.
struct Stats {
  int64_t specializations = 0;   // requests that built a new procedure
  int64_t cache_hits = 0;        // requests answered from the cache
  int64_t budget_exhaustions = 0;
  int64_t fallbacks = 0;         // requests that bailed out on something not modelled
  int64_t invalidations = 0;     // specializations dropped because a global they used changed
  int64_t helpers = 0;           // specialized helper procedures emitted (after cleanup)
  int64_t static_runs = 0;       // fully static calls run by the real evaluator (static_run.hpp)
  // Calls left residual (a static run out of steps) or specialized instead of unfolded (a
  // runaway unfolding undone) because a budget ran out there, the rest of the request going on.
  int64_t residualized_calls = 0;
};

struct SpecRecord;

struct PeState {
  Stats stats;
  bool tables_ready = false;
  Value guard_prim = kFalse;  // %specialization-valid?
  Value dynamic_prim = kFalse;  // (dynamic x): the annotation that makes x's value dynamic
  Value apply_prim = kFalse;  // apply (for fallbacks with rest arguments)
  Value cons_prim = kFalse;   // cons and vector: how partially static objects are materialized
  Value vector_prim = kFalse;
  Value list_prim = kFalse;   // (cons a (list b ...)) reads better as (list a b ...)
  Value eq_prim = kFalse;
  // values: the evaluator keeps what a call of it received, so that %apply-values (behind
  // call-with-values, let-values, receive) calls its consumer on them (Specializer::apply_values)
  Value values_prim = kFalse;
  Value vector_ref_prim = kFalse;  // the cells of boxes that exist at run time (Box)
  Value vector_set_prim = kFalse;
  // %ad-j (lib/ad): folds for a known procedure (the evaluator unfolds the transformed code); for
  // a closure the evaluator made, J is made from its lambda (Specializer::ad_j_closure); a
  // residual %ad-j of anything else bails out. The transformation indexes a closure's cotangent
  // by the compiler's layout of the closure the transformed code makes, which a closure the
  // evaluator materializes need not keep: its J, made at run time, would misroute cotangents.
  Value ad_j_prim = kFalse;
  Value ad_arity_prim = kFalse;  // %ad-arity: known for a closure the evaluator made (its lambda)
  // %ad-j-layout (the derivative rule of %ad-j, for nested derivatives): which of J's free slots
  // hold f and f's free values. For a J the evaluator made from a maker (ad_j_closure), known
  // from the maker's parameters (J's lambda -> the maker's lambda); of any other J that is not a
  // static value, the request bails out (the run-time table does not know it: cotangents would
  // be dropped).
  Value ad_j_layout_prim = kFalse;
  Value ad_j_quiet_prim = kFalse;  // %ad-j-quiet?: known for a J the evaluator made (lam -> lib/ad)
  std::unordered_map<LambdaNode*, LambdaNode*, std::hash<LambdaNode*>, std::equal_to<LambdaNode*>,
                     gc_allocator<std::pair<LambdaNode* const, LambdaNode*>>> ad_j_makers;
  Environment* core = nullptr;
  // Lambdas that manipulate the control state (call/cc, the dynamic-wind stack, eval): the
  // evaluator calls closures of these as opaque procedures (lambda -> true/false, cached).
  std::unordered_map<LambdaNode*, bool, std::hash<LambdaNode*>, std::equal_to<LambdaNode*>,
                     gc_allocator<std::pair<LambdaNode* const, bool>>> control_lambdas;
  // Free variables of each lambda, in first-reference order (computed once per LambdaNode).
  std::unordered_map<LambdaNode*, quasi::gc_vector<Var*>*, std::hash<LambdaNode*>, std::equal_to<LambdaNode*>,
                     gc_allocator<std::pair<LambdaNode* const, quasi::gc_vector<Var*>*>>> free_vars;
  // Cache of specialized procedures: hash of (procedure, fixed positions, static values).
  std::unordered_multimap<uint64_t, SpecRecord*, std::hash<uint64_t>, std::equal_to<uint64_t>,
                          gc_allocator<std::pair<const uint64_t, SpecRecord*>>> cache;
  size_t cache_nodes = 0;    // sum of the weights of the cached records (budgets.hpp)
  uint64_t cache_clock = 0;  // ticks at each request; a record's last_use is the tick it was used
  int depth = 0;             // nested requests (a static run may call specialize)
  // Specialized procedure (closure bits) -> its record, for `residual`.
  std::unordered_map<uint64_t, SpecRecord*, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     gc_allocator<std::pair<const uint64_t, SpecRecord*>>> by_proc;
};

// One specialized procedure handed out by `specialize`.
struct SpecRecord {
  PeState* owner;
  uint64_t hash;
  Value proc;            // the original procedure
  Value fixed;           // list of (position . value), positions ascending
  Value result;          // the specialized procedure
  Value residual;        // the residual code as a datum (without the validity guard)
  Value token;           // Box: #t while valid
  Value explanation = kNil;  // (specialize-explain p): a list of alists, one per Note
  Options options;       // the request's options (budgets.hpp)
  gc_vector<Value> deps; // GlobalCells the residual code assumed
  bool valid = true;
  size_t weight = 0;     // residual IR nodes + kCachedEntryNodes: its share of the cache budget
  uint64_t last_use = 0; // PeState::cache_clock when last made or returned from the cache
};

// ---- shared helpers ----------------------------------------------------------------------------

// A runtime closure the evaluator may look into: compiled from IR, and no free variable in a Box
// (a set! variable, or a letrec variable captured before its init): those are locations the
// evaluator cannot name in residual code.
bool inlinable_closure(Value v);

// Free variables of `lam` (referenced inside, bound outside), cached in `st`.
const quasi::gc_vector<Var*>& lambda_free_vars(PeState& st, LambdaNode* lam);

// Finds the primitives the evaluator emits (cons, vector, list, eq?, apply) by their facts.
void build_fact_table(PeState& st, Environment* core);

// Residual code for a constant: a procedure of the core environment by the name of its core
// cell (imported cells cannot be assigned, so the name always means it), so it prints as `+`
// and compiles to the inlined builtin; any other value as itself.
Node* const_code(PeState& st, Value v);

// One thing a request generalized, left residual or gave up, for (specialize-explain p)
// (lib/pe/README.md, "Explaining a request"). Notes with the same action, reason, procedure and
// detail are counted, not repeated.
struct Note {
  Value action = kFalse;     // generalized | residualized | gave-up
  Value reason = kFalse;     // whistle, accumulator, variants, depth, key-size, ...
  Value procedure = kFalse;  // the procedure's name (a symbol) or #f
  SrcLoc loc;                // where that procedure is defined, when known
  std::string detail;
  int64_t count = 1;
};
using NoteList = std::vector<Note, traceable_allocator<Note>>;
// At most this many distinct notes per request (the rest are counted in the last one).
constexpr size_t kMaxNotes = 64;
void add_note(NoteList& notes, Note n);

// A specialized helper procedure: letrec-bound around the residual procedure's clauses.
struct Helper {
  Var* var;
  LambdaNode* code;
};

}  // namespace quasi::pe
