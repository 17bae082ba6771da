// request.cpp — one `specialize` request end to end: check and plan the residual clauses, run the
// Specializer, clean the residual code up, guard it against redefinition of the globals it
// assumed, compile it, and remember it (the per-engine cache and the watched-cell registry).
#include <algorithm>
#include <mutex>
#include <unordered_set>
#include <string>

#include "core/equality.hpp"
#include "core/error.hpp"
#include "eval/environment.hpp"
#include "vm/vm_impl.hpp"
#include "ir/functor.hpp"
#include "ir/verify.hpp"
#include "jit/jit.hpp"
#include "passes/pass_manager.hpp"
#include "pe/pe.hpp"
#include "pe/specializer.hpp"
#include "vm/compiler.hpp"
#include "vm/vm.hpp"

namespace quasi::pe {

namespace {

uint64_t mix(uint64_t h, uint64_t x) { return h ^ (x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2)); }

// ---- invalidation: GlobalCell -> specializations that assumed its value -----------------------
//
// The VM calls watched_cell_written for cells flagged kWatchedCell. The registry is process-wide
// (the hook is a single function pointer) and guarded by a mutex; each record belongs to the
// engine whose cell it watches, so invalidating it only touches that engine's state.
//
// The registry holds nothing alive: its keys are hidden cell addresses, and each entry is a
// pointer-free block whose two slots are disappearing links to the record and to its validity
// token. The residual code keeps the token as long as the specialized procedure lives (so a
// write still invalidates it); the record lives while it is cached. A strong registry kept every
// specialization ever made (its residual and compiled code, the original procedure) until one
// of its globals was written, even after its engine was destroyed: ~0.3 MB per generated program
// in tests/gen. Entries whose targets both died are pruned as the registry grows.

struct WeakWatch {  // GC_MALLOC_ATOMIC: neither slot is traced
  void* token;      // the record's token (a Box), or null once collected
  void* rec;        // the SpecRecord, or null once collected
};
using WatchList = std::vector<WeakWatch*, traceable_allocator<WeakWatch*>>;
using Registry = std::unordered_map<uint64_t, WatchList, std::hash<uint64_t>, std::equal_to<uint64_t>,
                                    traceable_allocator<std::pair<const uint64_t, WatchList>>>;
std::mutex registry_mutex;
Registry* registry = nullptr;
size_t registry_entries = 0;
size_t registry_prune_at = 4096;
void (*previous_hook)(Value) = nullptr;

uint64_t hidden_key(Value cell) { return ~cell.bits; }

// Copies the live targets of `list` into `tokens` and `recs` (reserved: nothing may allocate
// under the allocation lock), with the lock held so that no target is reclaimed meanwhile.
struct LiveTargets {
  const WatchList* list;
  root_vector<void*>* tokens;
  root_vector<void*>* recs;
};
void* read_targets(void* data) {
  auto* l = static_cast<LiveTargets*>(data);
  for (WeakWatch* w : *l->list) {
    l->tokens->push_back(w->token);
    l->recs->push_back(w->rec);
  }
  return nullptr;
}
void live_targets(const WatchList& list, root_vector<void*>& tokens, root_vector<void*>& recs) {
  tokens.reserve(list.size());
  recs.reserve(list.size());
  LiveTargets l{&list, &tokens, &recs};
  GC_call_with_alloc_lock(read_targets, &l);
}

// With registry_mutex held.
void prune_registry() {
  size_t kept = 0;
  for (auto it = registry->begin(); it != registry->end();) {
    root_vector<void*> tokens, recs;
    live_targets(it->second, tokens, recs);
    WatchList live;
    for (size_t i = 0; i < tokens.size(); i++)
      if (tokens[i] || recs[i]) live.push_back(it->second[i]);
    kept += live.size();
    if (live.empty()) {
      it = registry->erase(it);
    } else {
      it->second = std::move(live);
      ++it;
    }
  }
  registry_entries = kept;
  registry_prune_at = std::max<size_t>(4096, 2 * kept);
}

void drop_from_cache(PeState& st, SpecRecord* rec) {
  auto range = st.cache.equal_range(rec->hash);
  for (auto it = range.first; it != range.second; ++it)
    if (it->second == rec) {
      st.cache.erase(it);
      st.cache_nodes -= std::min(st.cache_nodes, rec->weight);
      return;
    }
}

// Least recently used first, until the cache is within 3/4 of both budgets.
void evict_lru(PeState& st) {
  if (st.cache.size() <= kMaxCachedSpecializations && st.cache_nodes <= kMaxCachedResidualNodes) return;
  std::vector<SpecRecord*, traceable_allocator<SpecRecord*>> recs;
  recs.reserve(st.cache.size());
  for (auto& [h, r] : st.cache) recs.push_back(r);
  std::sort(recs.begin(), recs.end(), [](SpecRecord* a, SpecRecord* b) { return a->last_use < b->last_use; });
  for (SpecRecord* r : recs) {
    if (st.cache.size() <= kMaxCachedSpecializations * 3 / 4 && st.cache_nodes <= kMaxCachedResidualNodes * 3 / 4)
      break;
    drop_from_cache(st, r);
    auto it = st.by_proc.find(r->result.bits);
    if (it != st.by_proc.end() && it->second == r) st.by_proc.erase(it);
  }
}

void invalidate(SpecRecord* rec) {
  if (!rec->valid) return;
  rec->valid = false;
  rec->token.as<Box>()->value = kFalse;
  rec->owner->stats.invalidations++;
  drop_from_cache(*rec->owner, rec);
}

void on_cell_written(Value cell) {
  WatchList hit;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    if (registry) {
      auto it = registry->find(hidden_key(cell));
      if (it != registry->end()) {
        hit = std::move(it->second);
        registry->erase(it);
        registry_entries -= std::min(registry_entries, hit.size());
      }
    }
  }
  root_vector<void*> tokens, recs;
  live_targets(hit, tokens, recs);
  for (size_t i = 0; i < tokens.size(); i++) {
    if (recs[i]) invalidate(static_cast<SpecRecord*>(recs[i]));
    else if (tokens[i]) make_ptr(tokens[i]).as<Box>()->value = kFalse;
  }
  if (previous_hook) previous_hook(cell);
}

void watch(SpecRecord* rec) {
  static std::once_flag once;
  std::call_once(once, [] {
    previous_hook = watched_cell_written;
    watched_cell_written = on_cell_written;
  });
  std::lock_guard<std::mutex> lock(registry_mutex);
  if (!registry) registry = new Registry;
  for (Value cell : rec->deps) {
    cell.obj()->header |= kWatchedCell;
    auto* w = static_cast<WeakWatch*>(GC_MALLOC_ATOMIC(sizeof(WeakWatch)));
    w->token = rec->token.obj();
    w->rec = rec;
    GC_general_register_disappearing_link(&w->token, w->token);
    GC_general_register_disappearing_link(&w->rec, w->rec);
    (*registry)[hidden_key(cell)].push_back(w);
    registry_entries++;
  }
  if (registry_entries >= registry_prune_at) prune_registry();
}

// ---- the cache ---------------------------------------------------------------------------------

bool same_static(Value a, Value b) {
  bool fa = is_frozen_deep(a, nullptr), fb = is_frozen_deep(b, nullptr);
  if (fa != fb) return false;
  return fa ? equal(a, b) : eqv(a, b);
}

uint64_t request_hash(Value proc, const std::vector<std::pair<int64_t, Value>>& fixed, const Options& o) {
  uint64_t h = eqv_hash(proc);
  if (!(o == Options{})) {
    h = mix(h, uint64_t(o.effort));
    h = mix(h, uint64_t(o.residual_size));
    h = mix(h, o.static_steps);
    h = mix(h, uint64_t(o.whistle));
  }
  for (auto& [pos, v] : fixed) {
    h = mix(h, uint64_t(pos));
    h = mix(h, is_frozen_deep(v, nullptr) ? equal_hash(v) : eqv_hash(v));
  }
  return h;
}

SpecRecord* cached(PeState& st, uint64_t hash, Value proc, const std::vector<std::pair<int64_t, Value>>& fixed,
                   const Options& options) {
  auto range = st.cache.equal_range(hash);
  for (auto it = range.first; it != range.second; ++it) {
    SpecRecord* r = it->second;
    if (!r->valid || r->proc != proc || list_length(r->fixed) != int64_t(fixed.size())) continue;
    if (!(r->options == options)) continue;
    bool same = true;
    Value l = r->fixed;
    for (auto& [pos, v] : fixed) {
      Value entry = car(l);
      same = same && car(entry).fixnum() == pos && same_static(cdr(entry), v);
      l = cdr(l);
    }
    if (same) return r;
  }
  return nullptr;
}

// ---- planning ----------------------------------------------------------------------------------

const char* kPositionalNames[] = {"x", "y", "z", "w"};
Value positional_name(size_t pos) {
  if (pos < 4) return intern(kPositionalNames[pos]);
  return intern("x" + std::to_string(pos + 1));
}

struct Planned {
  ClausePlan* plan;        // null: the clause body is just the fallback (opaque procedure)
  LambdaClause* residual;  // parameters; body filled later
  Node* fallback;          // the original called on the same arguments
  // The same call naming the original by the global of the interaction environment that holds
  // it (so the trivial residual reads back), or null; the cell is then a dependency.
  Node* named = nullptr;
};

// The global of the interaction environment named like `proc` that holds it, or #f.
Value global_holding(Vm& vm, Value proc) {
  if (!vm.interaction_env || !is_closure(proc)) return kFalse;
  Value name = proc.as<Closure>()->proto->name;
  if (!is_symbol(name)) return kFalse;
  Value cell = vm.interaction_env->lookup(name);
  if (!has_type(cell, Type::GlobalCell) || cell.as<GlobalCell>()->value != proc) return kFalse;
  return cell;
}

// A copy of the fallback call with the callee (its first node) replaced.
Node* with_callee(Node* fallback, Node* callee) {
  if (fallback->kind == NodeKind::Call) {
    CallNode* c = static_cast<CallNode*>(fallback);
    CallNode* out = gc_new<CallNode>(callee, SrcLoc{});
    out->args = c->args;
    return out;
  }
  PrimCallNode* ap = static_cast<PrimCallNode*>(fallback);  // (apply proc arg ... rest)
  PrimCallNode* out = gc_new<PrimCallNode>(ap->prim, SrcLoc{});
  out->args = ap->args;
  out->args[0] = callee;
  return out;
}

// The clause of the residual procedure that takes `nreq` positional arguments (some fixed) and,
// when `rest`, a rest list; `name_of` names the dynamic parameters.
template <class NameOf>
Planned plan_clause(PeState& st, Value proc, size_t clause, size_t nreq, bool rest, Value rest_name,
                    const std::vector<std::pair<int64_t, Value>>& fixed, NameOf name_of) {
  Planned out;
  ClausePlan* plan = gc_new<ClausePlan>();
  plan->proc = proc;
  plan->clause = clause;
  LambdaClause* rc = gc_new<LambdaClause>();
  quasi::gc_vector<Node*> call_args;
  size_t fi = 0;
  for (size_t i = 0; i < nreq; i++) {
    ArgSpec a;
    if (fi < fixed.size() && fixed[fi].first == int64_t(i)) {
      a.value = fixed[fi++].second;
      call_args.push_back(const_code(st, a.value));
    } else {
      a.param = make_var(name_of(i));
      rc->params.push_back(a.param);
      call_args.push_back(gc_new<LocalRefNode>(a.param, SrcLoc{}));
    }
    plan->args.push_back(a);
  }
  for (; fi < fixed.size(); fi++) {  // past the required ones: they start the rest list
    plan->rest_prefix.push_back(fixed[fi].second);
    call_args.push_back(const_code(st, fixed[fi].second));
  }
  if (rest) {
    rc->rest = make_var(rest_name);
    plan->rest_param = rc->rest;
    PrimCallNode* ap = gc_new<PrimCallNode>(st.apply_prim, SrcLoc{});
    ap->args.push_back(const_code(st, proc));
    for (Node* a : call_args) ap->args.push_back(a);
    ap->args.push_back(gc_new<LocalRefNode>(rc->rest, SrcLoc{}));
    out.fallback = ap;
  } else {
    CallNode* c = gc_new<CallNode>(const_code(st, proc), SrcLoc{});
    c->args = call_args;
    out.fallback = c;
  }
  out.plan = plan;
  out.residual = rc;
  return out;
}

std::string describe(Value proc) {
  std::string n = procedure_name(proc);
  return n.empty() ? "the procedure" : n;
}

[[noreturn]] void too_many(const char* who, Value proc, const std::vector<std::pair<int64_t, Value>>& fixed) {
  throw_condition("arity", who,
                  "too many static arguments: " + describe(proc) + " takes no argument at position " +
                      std::to_string(fixed.back().first),
                  list({proc, make_fixnum(fixed.back().first)}));
}

using PlanList = std::vector<Planned, traceable_allocator<Planned>>;

PlanList make_plans(PeState& st, Value proc, const std::vector<std::pair<int64_t, Value>>& fixed,
                                const char* who) {
  PlanList out;
  int64_t maxpos = fixed.empty() ? -1 : fixed.back().first;
  bool leading = true;
  for (size_t i = 0; i < fixed.size(); i++) leading = leading && fixed[i].first == int64_t(i);
  if (is_primitive(proc)) {
    Primitive* p = proc.as<Primitive>();
    if (p->max_args >= 0) {
      if (maxpos >= p->max_args) too_many(who, proc, fixed);
      int64_t lo = std::max<int64_t>(p->min_args, maxpos + 1);
      for (int64_t n = lo; n <= p->max_args && n < lo + 8; n++)
        out.push_back(plan_clause(st, proc, 0, size_t(n), false, kFalse, fixed, positional_name));
    } else {
      int64_t n0 = std::max<int64_t>(p->min_args, maxpos + 1);
      if (n0 == int64_t(fixed.size())) n0++;  // at least one dynamic argument in the first clause
      out.push_back(plan_clause(st, proc, 0, size_t(n0), false, kFalse, fixed, positional_name));
      out.push_back(plan_clause(st, proc, 0, size_t(std::max<int64_t>(p->min_args, maxpos + 1)), true,
                                intern("rest"), fixed, positional_name));
    }
    return out;
  }
  if (inlinable_closure(proc)) {
    LambdaNode* lam = proc.as<Closure>()->proto->source;
    for (size_t ci = 0; ci < lam->clauses.size(); ci++) {
      LambdaClause* c = lam->clauses[ci];
      int64_t nreq = int64_t(c->params.size());
      if (maxpos >= nreq && (!c->rest || !leading)) continue;  // this clause cannot take them
      out.push_back(plan_clause(st, proc, ci, size_t(nreq), c->rest != nullptr, c->rest ? c->rest->name : kFalse,
                                fixed, [c](size_t i) { return c->params[i]->name; }));
    }
    if (out.empty()) too_many(who, proc, fixed);
    return out;
  }
  // A procedure whose code the evaluator cannot see: a wrapper that supplies the static arguments.
  if (!leading)
    throw_error(who, "cannot fix arbitrary positions of a procedure whose parameter list is unknown", list({proc}));
  Planned pl = plan_clause(st, proc, 0, 0, true, intern("rest"), fixed, positional_name);
  pl.plan = nullptr;
  out.push_back(pl);
  return out;
}

// Gives every variable of the residual code its own name (n, n2, n3, ...), different from the
// globals it references, so the printed code needs no name.id suffixes. Every Var here was made by
// the evaluator for this residual code, so renaming it changes nothing else. Two guarded walks
// (the toolkit's visitor): code too deep for them keeps the printer's name.id suffixes.
class Renamer {
 public:
  void run(Node* n) {
    Globals g(used_);
    g.visit(n);
    if (g.truncated()) return;
    Binders b(*this);
    b.visit(n);
  }

 private:
  std::unordered_set<std::string> used_;
  std::unordered_set<Var*> seen_;
  std::unordered_map<std::string, int> next_;  // base name -> next number to try (from 2)

  struct Globals : ExprVisitor {
    std::unordered_set<std::string>& used;
    explicit Globals(std::unordered_set<std::string>& u) : used(u) {}
    void visit_global_ref(GlobalRefNode* n) override { used.insert(symbol_name(n->cell.as<GlobalCell>()->name)); }
    void visit_global_set(GlobalSetNode* n) override {
      used.insert(symbol_name(n->cell.as<GlobalCell>()->name));
      ExprVisitor::visit_global_set(n);
    }
    void visit_prim_call(PrimCallNode* n) override {
      used.insert(n->prim.as<Primitive>()->name);
      ExprVisitor::visit_prim_call(n);
    }
  };
  struct Binders : ExprVisitor {
    Renamer& r;
    explicit Binders(Renamer& x) : r(x) {}
    void visit_lambda(LambdaNode* n) override {
      for (LambdaClause* c : n->clauses) {
        for (Var* p : c->params) r.name(p);
        if (c->rest) r.name(c->rest);
      }
      ExprVisitor::visit_lambda(n);
    }
    void visit_let(LetNode* n) override {
      for (Var* v : n->vars) r.name(v);
      ExprVisitor::visit_let(n);
    }
    void visit_letrec(LetNode* n) override {
      for (Var* v : n->vars) r.name(v);
      ExprVisitor::visit_letrec(n);
    }
  };

  void name(Var* v) {
    if (!seen_.insert(v).second) return;
    next_.emplace(symbol_name(v->name), 2);
    std::string base = symbol_name(v->name);
    std::string candidate = base;
    bool digit = !base.empty() && base.back() >= '0' && base.back() <= '9';
    // Numbering continues where the last variable of this name stopped (linear in the count).
    for (int& k = next_[base]; used_.count(candidate); k++) candidate = base + (digit ? "_" : "") + std::to_string(k);
    used_.insert(candidate);
    if (candidate != base) v->name = intern(candidate);
  }
};

// The residual procedure in `top`: the lambda itself, or the body of the letrec of helpers around
// it (case-lambda residuals), or null.
LambdaNode* procedure_of(Node* top) {
  while (top && (top->kind == NodeKind::Let || top->kind == NodeKind::Letrec)) top = static_cast<LetNode*>(top)->body;
  return top && top->kind == NodeKind::Lambda ? static_cast<LambdaNode*>(top) : nullptr;
}

// Cleanup kept the residual procedure's clauses and parameters (the validity guard's fallback
// refers to them).
bool same_clauses(LambdaNode* after, LambdaNode* before) {
  if (!after || after->clauses.size() != before->clauses.size()) return false;
  for (size_t i = 0; i < after->clauses.size(); i++)
    if (after->clauses[i]->params != before->clauses[i]->params || after->clauses[i]->rest != before->clauses[i]->rest)
      return false;
  return true;
}

// The explanation datum: one alist per note.
Value notes_datum(const NoteList& notes) {
  Value out = kNil;
  for (size_t i = notes.size(); i-- > 0;) {
    const Note& n = notes[i];
    std::string where = n.loc.to_string();
    Value entry = list({cons(intern("action"), n.action), cons(intern("reason"), n.reason),
                        cons(intern("procedure"), n.procedure),
                        cons(intern("location"), where.empty() ? kFalse : make_string_utf8(where)),
                        cons(intern("detail"), make_string_utf8(n.detail)),
                        cons(intern("count"), make_fixnum(n.count))});
    out = cons(entry, out);
  }
  return out;
}

// Specialized helpers left in the residual code: the procedures of its letrec groups.
int64_t count_helpers(Node* top) {
  int64_t n = 0;
  for_each_node(top, [&](Node* x) {
    if (x->kind != NodeKind::Letrec) return;
    for (Node* i : static_cast<LetNode*>(x)->inits) n += i->kind == NodeKind::Lambda;
  });
  return n;
}

}  // namespace

PeState* make_state() { return gc_new<PeState>(); }

Value specialize(Vm& vm, PeState& st, Value proc, const std::vector<std::pair<int64_t, Value>>& fixed,
                 const char* who, const Options& options) {
  if (!is_procedure(proc)) type_error(who, "a procedure", proc);
  if (!st.tables_ready) build_fact_table(st, vm.core_env);
  uint64_t hash = request_hash(proc, fixed, options);
  st.cache_clock++;
  if (SpecRecord* r = cached(st, hash, proc, fixed, options)) {
    st.stats.cache_hits++;
    r->last_use = st.cache_clock;
    return r->result;
  }
  // References into these maps live only during a request: forget them between outermost ones.
  if (st.depth == 0 && st.free_vars.size() + st.control_lambdas.size() > kMaxLambdaFacts) {
    st.free_vars.clear();
    st.control_lambdas.clear();
  }
  struct Depth {
    int& d;
    explicit Depth(int& x) : d(x) { d++; }
    ~Depth() { d--; }
  } depth(st.depth);
  PlanList plans = make_plans(st, proc, fixed, who);

  Value name = kFalse;
  if (is_primitive(proc)) name = intern(proc.as<Primitive>()->name);
  else if (is_closure(proc) && is_symbol(proc.as<Closure>()->proto->name)) name = proc.as<Closure>()->proto->name;
  LambdaNode* root = gc_new<LambdaNode>(name, SrcLoc{});
  for (Planned& p : plans) root->clauses.push_back(p.residual);

  // The fallbacks as the residual shows them: by the global that holds the procedure.
  Value own_cell = global_holding(vm, proc);
  if (own_cell.is_true())
    for (Planned& p : plans) p.named = with_callee(p.fallback, gc_new<GlobalRefNode>(own_cell, SrcLoc{}));
  auto shown_fallback = [&](Planned& p, gc_vector<Value>& deps) {
    if (!p.named) return p.fallback;
    if (std::find(deps.begin(), deps.end(), own_cell) == deps.end()) deps.push_back(own_cell);
    return p.named;
  };

  gc_vector<Value> deps;
  gc_vector<Helper> helpers;
  bool trivial = false;
  NoteList notes;
  auto gave_up = [&](const char* reason, std::string detail) {
    Note n;
    n.action = intern("gave-up");
    n.reason = intern(reason);
    n.procedure = name;
    if (is_closure(proc) && proc.as<Closure>()->proto->source) n.loc = proc.as<Closure>()->proto->source->loc;
    n.detail = std::move(detail);
    add_note(notes, std::move(n));
  };
  {
    Specializer sp(vm, st, options);
    try {
      for (Planned& p : plans) p.residual->body = p.plan ? sp.run_clause(*p.plan, deps) : shown_fallback(p, deps);
      sp.collect_helpers(helpers);
    } catch (Exhausted& ex) {
      trivial = true;
      st.stats.budget_exhaustions++;
      notes = sp.notes();
      gave_up(ex.which == std::string("effort")          ? "effort"
              : ex.which == std::string("residual size") ? "residual-size"
              : ex.which == std::string("stack depth")   ? "stack-depth"
                                                         : "unfold-depth",
              std::string("out of ") + ex.which + ": the residual calls the procedure itself");
    } catch (Bailout& b) {
      trivial = true;
      st.stats.fallbacks++;
      notes = sp.notes();
      gave_up("not-modelled", std::string(b.why) + ": the residual calls the procedure itself");
    } catch (Restart&) {
      trivial = true;  // cannot happen: every restart has a target on the stack
      st.stats.fallbacks++;
      notes = sp.notes();
      gave_up("not-modelled", "internal: a restart without a target");
    }
    if (!trivial) notes = sp.notes();
  }
  // The compiler walks the residual code recursively: code nested deeper than the toolkit's walks
  // go (kMaxPassDepth, or what is left of the C stack) is not made.
  if (!trivial) {
    bool shallow = for_each_node(root, [](Node*) {});
    for (Helper& h : helpers) shallow = shallow && for_each_node(h.code, [](Node*) {});
    if (!shallow) {
      trivial = true;
      st.stats.budget_exhaustions++;
      gave_up("depth", "the residual code is nested too deeply to compile: the residual calls the procedure itself");
    }
  }
  Node* top = root;
  if (!trivial && !helpers.empty()) {
    LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, SrcLoc{});
    for (Helper& h : helpers) {
      rec->vars.push_back(h.var);
      rec->inits.push_back(h.code);
    }
    if (root->clauses.size() == 1) {
      rec->body = root->clauses[0]->body;
      root->clauses[0]->body = rec;
    } else {
      rec->body = root;
      top = rec;
    }
  }
  // The residual code must keep the IR's invariants (ir/verify.hpp); if it does not, that is a bug
  // of the evaluator, and the trivial residual is what the request gets.
  if (!trivial && !verify_ir(top).empty()) {
    trivial = true;
    st.stats.fallbacks++;
    gave_up("not-modelled", "internal: the residual code broke an IR invariant");
  }
  if (trivial) {
    deps.clear();
    for (Planned& p : plans) p.residual->body = shown_fallback(p, deps);
    top = root;
  }
  // Residual code is ordinary code: the optimizer's passes (fold-constants, inline-small, params,
  // forward, ...) turn the let-inserted code into what a person would write, to a fixpoint. What
  // they produce is what (residual p) shows and what is compiled (checked again; cleanup that left
  // the code nested too deep to compile, or broke an invariant, falls back to the code before it).
  Node* cleaned = run_residual_pipeline(vm, top);
  if (cleaned != top && for_each_node(cleaned, [](Node*) {}) && verify_ir(cleaned).empty() &&
      same_clauses(procedure_of(cleaned), root))
    top = cleaned;
  if (!trivial) st.stats.helpers += count_helpers(top);
  Renamer().run(top);
  Value display = ir_to_datum(top);

  SpecRecord* rec = gc_new<SpecRecord>();
  rec->owner = &st;
  rec->hash = hash;
  rec->proc = proc;
  Value fl = kNil;
  for (size_t i = fixed.size(); i-- > 0;) fl = cons(cons(make_fixnum(fixed[i].first), fixed[i].second), fl);
  rec->fixed = fl;
  rec->residual = display;
  rec->token = make_box(kTrue);
  rec->deps = deps;
  rec->options = options;
  rec->explanation = notes_datum(notes);
  if (!deps.empty()) {
    // (if (%specialization-valid? token) body (f static ... dyn ...)): after a global this code
    // assumed changes, the procedure behaves as the original (which sees the new definition).
    LambdaNode* lam = procedure_of(top);
    for (size_t i = 0; i < plans.size(); i++) {
      LambdaClause* c = lam->clauses[i];
      PrimCallNode* test = gc_new<PrimCallNode>(st.guard_prim, SrcLoc{});
      test->args.push_back(gc_new<ConstNode>(rec->token, SrcLoc{}));
      c->body = gc_new<IfNode>(test, c->body, plans[i].fallback, SrcLoc{});
    }
  }
  Value thunk = compile_toplevel(vm, top);
  rec->result = vm.apply(thunk, 0, nullptr);
  // The JIT policy decides whether residual procedures get machine code at once (the thunk
  // itself runs only once).
  if (vm.impl->jit.compile_residual_at_once()) {
    Proto* tp = thunk.as<Closure>()->proto;
    for (int32_t i = 0; i < tp->nconsts; i++)
      if (has_type(tp->consts[i], Type::Proto)) jit_compile_tree(*vm.impl, tp->consts[i].as<Proto>(), "residual");
  }
  if (!deps.empty()) watch(rec);
  size_t nodes = 0;
  for_each_node(top, [&](Node*) { nodes++; });
  rec->weight = nodes + kCachedEntryNodes;
  rec->last_use = st.cache_clock;
  st.cache.emplace(hash, rec);
  st.cache_nodes += rec->weight;
  st.by_proc[rec->result.bits] = rec;
  evict_lru(st);
  st.stats.specializations++;
  return rec->result;
}

Value residual_of(PeState& st, Value proc, const char* who) {
  auto it = st.by_proc.find(proc.bits);
  if (it == st.by_proc.end())
    throw_error(who, "not a procedure made by specialize (or no longer cached)", list({proc}));
  return it->second->residual;
}

Value explanation_of(PeState& st, Value proc, const char* who) {
  auto it = st.by_proc.find(proc.bits);
  if (it == st.by_proc.end())
    throw_error(who, "not a procedure made by specialize (or no longer cached)", list({proc}));
  return it->second->explanation;
}

Value stats_alist(PeState& st) {
  const Stats& s = st.stats;
  return list({cons(intern("specializations"), make_fixnum(s.specializations)),
               cons(intern("cache-hits"), make_fixnum(s.cache_hits)),
               cons(intern("budget-exhaustions"), make_fixnum(s.budget_exhaustions)),
               cons(intern("invalidations"), make_fixnum(s.invalidations)),
               cons(intern("fallbacks"), make_fixnum(s.fallbacks)),
               cons(intern("helpers"), make_fixnum(s.helpers)),
               cons(intern("static-runs"), make_fixnum(s.static_runs)),
               cons(intern("residualized-calls"), make_fixnum(s.residualized_calls)),
               cons(intern("cached"), make_fixnum(int64_t(st.cache.size()))),
               cons(intern("cached-nodes"), make_fixnum(int64_t(st.cache_nodes)))});
}

}  // namespace quasi::pe
