// expander.cpp — datums to core IR: resolution, bodies, special and derived forms.
// syntax-rules matching and transcription live in syntax_rules.cpp.
#include <algorithm>
#include <atomic>
#include <unordered_map>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/equality.hpp"
#include "core/numbers.hpp"
#include "eval/embedded.hpp"
#include "eval/expander_impl.hpp"
#include "ir/util.hpp"
#include "read/reader.hpp"

namespace quasi {

namespace {

constexpr int kMaxDepth = 10000;           // nesting levels of forms being expanded
constexpr int kMaxRewrites = 100000;       // consecutive macro rewrites of one form



struct Keyword {
  const char* name;
  SpecialForm form;
};
const Keyword kKeywords[] = {
    {"quote", SpecialForm::Quote},
    {"quasiquote", SpecialForm::Quasiquote},
    {"unquote", SpecialForm::Unquote},
    {"unquote-splicing", SpecialForm::UnquoteSplicing},
    {"lambda", SpecialForm::Lambda},
    {"named-lambda", SpecialForm::NamedLambda},
    {"case-lambda", SpecialForm::CaseLambda},
    {"if", SpecialForm::If},
    {"set!", SpecialForm::Set},
    {"define", SpecialForm::Define},
    {"define-values", SpecialForm::DefineValues},
    {"define-record-type", SpecialForm::DefineRecordType},
    {"define-syntax", SpecialForm::DefineSyntax},
    {"let-syntax", SpecialForm::LetSyntax},
    {"letrec-syntax", SpecialForm::LetrecSyntax},
    {"syntax-rules", SpecialForm::SyntaxRules},
    {"syntax-error", SpecialForm::SyntaxError},
    {"begin", SpecialForm::Begin},
    {"let", SpecialForm::Let},
    {"let*", SpecialForm::LetStar},
    {"letrec", SpecialForm::Letrec},
    {"letrec*", SpecialForm::LetrecStar},
    {"let-values", SpecialForm::LetValues},
    {"let*-values", SpecialForm::LetStarValues},
    {"do", SpecialForm::Do},
    {"cond", SpecialForm::Cond},
    {"case", SpecialForm::Case},
    {"and", SpecialForm::And},
    {"or", SpecialForm::Or},
    {"when", SpecialForm::When},
    {"unless", SpecialForm::Unless},
    {"parameterize", SpecialForm::Parameterize},
    {"guard", SpecialForm::Guard},
    {"delay", SpecialForm::Delay},
    {"delay-force", SpecialForm::DelayForce},
    {"cond-expand", SpecialForm::CondExpand},
    {"include", SpecialForm::Include},
    {"include-ci", SpecialForm::IncludeCi},
    {"assert", SpecialForm::Assert},
    {"syntax-case", SpecialForm::SyntaxCase},
    {"syntax", SpecialForm::Syntax},
    {"quasisyntax", SpecialForm::Quasisyntax},
    {"with-syntax", SpecialForm::WithSyntax},
    {"unsyntax", SpecialForm::Unsyntax},
    {"unsyntax-splicing", SpecialForm::UnsyntaxSplicing},
    {"else", SpecialForm::Else},
    {"=>", SpecialForm::Arrow},
    {"...", SpecialForm::Ellipsis},
    {"_", SpecialForm::Underscore},
};

// The one table of feature identifiers (`features`, cond-expand); srfi-N ones are added for each
// embedded scheme/lib/srfi/N.sld (all_features).
const char* const kFeatures[] = {
    "r7rs", "exact-closed", "exact-complex", "ratios", "full-unicode", "ieee-float", "quasi",
#if defined(__x86_64__)
    "x86-64",
#elif defined(__aarch64__)
    "aarch64",
#endif
#if defined(__linux__)
    "linux",
#endif
#if defined(__unix__) || defined(__APPLE__)
    "posix",
#endif
};

// kFeatures, then srfi-N for every (srfi N) library built in, in numeric order. Computed once.
const std::vector<std::string>& all_features() {
  static const std::vector<std::string> features = [] {
    std::vector<std::string> out(std::begin(kFeatures), std::end(kFeatures));
    std::vector<int> srfis;
    for (int i = 0; i < kLibraryFileCount; i++) {
      std::string_view name = kLibraryFiles[i].name;
      if (name.substr(0, 5) != "srfi/" || name.size() < 10 || name.substr(name.size() - 4) != ".sld") continue;
      std::string_view number = name.substr(5, name.size() - 9);
      if (number.find_first_not_of("0123456789") != std::string_view::npos) continue;
      srfis.push_back(std::stoi(std::string(number)));
    }
    std::sort(srfis.begin(), srfis.end());
    for (int n : srfis) out.push_back("srfi-" + std::to_string(n));
    return out;
  }();
  return features;
}

inline Value cadr(Value x) { return car(cdr(x)); }
inline Value cddr(Value x) { return cdr(cdr(x)); }
inline Value caddr(Value x) { return car(cddr(x)); }
inline Value cdddr(Value x) { return cdr(cddr(x)); }

std::atomic<uint64_t> g_mark{0};

// ---- stripping and freezing literal data ------------------------------------------------------

// Does v reach a renamed identifier? Iterative; cycle-safe (a visited set once the walk is big).
bool contains_identifier(Value v) {
  gc_vector<Value> stack;
  std::unordered_set<uint64_t> visited;
  bool use_visited = false;
  size_t steps = 0;
  stack.push_back(v);
  while (!stack.empty()) {
    Value x = stack.back();
    stack.pop_back();
    if (!is_object(x)) continue;
    Type t = object_type(x);
    if (t == Type::Identifier) return true;
    if (t != Type::Pair && t != Type::Vector) continue;
    if (++steps > 100000 && !use_visited) {  // maybe cyclic: restart with a visited set
      use_visited = true;
      stack.clear();
      stack.push_back(v);
      continue;
    }
    if (use_visited && !visited.insert(x.bits).second) continue;
    if (t == Type::Pair) {
      stack.push_back(cdr(x));
      stack.push_back(car(x));
    } else {
      Vector* vec = x.as<Vector>();
      for (int64_t i = vec->length(); i-- > 0;) stack.push_back(vec->items()[i]);
    }
  }
  return false;
}

class Stripper {
 public:
  Value strip(Value v, int depth) {
    if (!is_object(v)) return v;
    Type t = object_type(v);
    if (t == Type::Identifier) return identifier_symbol(v);
    if (t != Type::Pair && t != Type::Vector) return v;
    auto it = memo_.find(v.bits);
    if (it != memo_.end()) return it->second;
    if (depth > kMaxDepth || stack_exhausted())
      throw_condition("syntax", nullptr, "nesting too deep in literal");
    if (t == Type::Vector) {
      Vector* src = v.as<Vector>();
      Value out = make_vector(src->length(), kFalse);
      memo_[v.bits] = out;
      for (int64_t i = 0; i < src->length(); i++)
        out.as<Vector>()->items()[i] = strip(src->items()[i], depth + 1);
      return out;
    }
    // A list: copy its spine iteratively, recursing into the cars.
    Value head = cons_at(kFalse, kNil, pair_srcloc(v));
    memo_[v.bits] = head;
    Value last = head;
    Value p = v;
    for (;;) {
      last.as<Pair>()->car = strip(car(p), depth + 1);
      Value next = cdr(p);
      if (!is_pair(next)) {
        last.as<Pair>()->cdr = strip(next, depth + 1);
        break;
      }
      auto m = memo_.find(next.bits);
      if (m != memo_.end()) {
        last.as<Pair>()->cdr = m->second;
        break;
      }
      Value cell = cons_at(kFalse, kNil, pair_srcloc(next));
      memo_[next.bits] = cell;
      last.as<Pair>()->cdr = cell;
      last = cell;
      p = next;
    }
    return head;
  }

 private:
  std::unordered_map<uint64_t, Value, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     traceable_allocator<std::pair<const uint64_t, Value>>>
      memo_;
};

// Makes everything reachable from v immutable and returns v's frozen form. Vectors, strings,
// bytevectors and pairs that are PairInfo cells (read from source) are flagged in place; a plain
// pair has no room for the flag (core/object.hpp), so it is replaced by an immutable copy, one per
// pair, sharing and cycles kept. An immutable object's contents are already frozen.
Value freeze(Value v) {
  std::unordered_map<uint64_t, Value, std::hash<uint64_t>, std::equal_to<uint64_t>,
                     traceable_allocator<std::pair<const uint64_t, Value>>>
      copies;  // plain pair -> its immutable copy
  gc_vector<Value> stack;
  gc_vector<Value> containers;  // flagged or copied: their fields may name copied pairs
  stack.push_back(v);
  while (!stack.empty()) {
    Value x = stack.back();
    stack.pop_back();
    if (!is_object(x)) continue;
    switch (object_type(x)) {
      case Type::Pair:
        if (PairInfo* info = pair_info(x)) {
          if (info->header & kImmutable) break;
          info->header |= kImmutable;
        } else {
          if (copies.count(x.bits)) break;
          copies.emplace(x.bits, cons_immutable(car(x), cdr(x)));
        }
        containers.push_back(x);
        stack.push_back(cdr(x));
        stack.push_back(car(x));
        break;
      case Type::Vector: {
        Object* o = x.obj();
        if (o->immutable()) break;
        o->set_immutable();
        containers.push_back(x);
        Vector* vec = x.as<Vector>();
        for (int64_t i = 0; i < vec->length(); i++) stack.push_back(vec->items()[i]);
        break;
      }
      case Type::String:
      case Type::Bytevector:
        x.obj()->set_immutable();
        break;
      default:
        break;
    }
  }
  if (copies.empty()) return v;
  auto frozen = [&](Value x) {
    auto it = x.is_pair() ? copies.find(x.bits) : copies.end();
    return it == copies.end() ? x : it->second;
  };
  for (Value x : containers) {
    if (x.is_pair()) {
      Pair* c = frozen(x).as<Pair>();  // the copy, or the flagged PairInfo itself
      c->car = frozen(car(x));
      c->cdr = frozen(cdr(x));
    } else {
      Vector* vec = x.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) vec->items()[i] = frozen(vec->items()[i]);
    }
  }
  return frozen(v);
}

Value vector_to_list(Value v) {
  Vector* vec = v.as<Vector>();
  Value out = kNil;
  for (int64_t i = vec->length(); i-- > 0;) out = cons(vec->items()[i], out);
  return out;
}

}  // namespace

// ---- public helpers ---------------------------------------------------------------------------

Value identifier_symbol(Value id) {
  while (is_identifier_object(id)) id = id.as<Identifier>()->name;
  return id;
}

Value syntax_to_datum(Value v) {
  if (!is_object(v)) return v;
  if (is_identifier_object(v)) return identifier_symbol(v);
  if (!contains_identifier(v)) return v;
  Stripper s;
  return s.strip(v, 0);
}

Value quote_literal(Value v) {
  return freeze(syntax_to_datum(v));
}

Value make_identifier(Value name, Scope* scope, Expansion* expansion) {
  Identifier* id = gc_alloc_object<Identifier>(Type::Identifier, sizeof(Identifier));
  id->name = name;
  id->scope = scope;
  id->mark = ++g_mark;
  id->expansion = expansion;
  return make_ptr(id);
}

Value expansion_rename(Expansion* e, Value from, Scope* scope) {
  for (const Expansion::Rename& r : e->renames)
    if (r.from == from) return r.to;
  Value fresh = make_identifier(from, scope, e);
  e->renames.push_back(Expansion::Rename{from, fresh});
  return fresh;
}

Value make_macro(SpecialForm form, Value name) {
  Macro* m = gc_alloc_object<Macro>(Type::Macro, sizeof(Macro));
  m->form = form;
  m->name = name;
  m->ellipsis = kFalse;
  m->literals = kNil;
  m->rules = kNil;
  m->env = nullptr;
  m->proc = kFalse;
  m->pvars = kNil;
  m->var = nullptr;
  m->depth = 0;
  return make_ptr(m);
}

void install_special_forms(Environment* core) {
  for (const Keyword& k : kKeywords) core->bind(intern(k.name), make_macro(k.form, intern(k.name)));
}

Value expander_features() {
  Value out = kNil;
  const std::vector<std::string>& features = all_features();
  for (size_t i = features.size(); i-- > 0;) out = cons(intern(features[i]), out);
  return out;
}

Node* expand_toplevel(Value form, Environment* env, Environment* core, ExpandHost* host) {
  Expander ex(env, core, host);
  return ex.toplevel(form);
}

bool feature_requirement_holds(Value requirement, Value form, ExpandHost* host) {
  Expander ex(nullptr, nullptr, host);
  ex.loc_ = pair_srcloc(form);
  return ex.feature_match(requirement, form);
}

// ---- the expander -----------------------------------------------------------------------------

Expander::Expander(Environment* env, Environment* core, ExpandHost* host)
    : env_(env), core_(core), host_(host) {
  root_ = gc_new<Scope>(nullptr, env);
  core_root_ = env == core ? root_ : gc_new<Scope>(nullptr, core);
}

Expander::Guard::Guard(Expander* ex, Value form) : e(ex), saved(ex->loc_) {
  ++e->depth_;
  SrcLoc l = pair_srcloc(form);
  if (l.known()) e->loc_ = l;
  if (e->depth_ > kMaxDepth || stack_exhausted())
    e->fail(kFalse, "nesting too deep", kUnspecified, form);
}

void Expander::fail(Value who, const std::string& msg, Value irritant, Value at) {
  fail_list(who, msg, irritant == kUnspecified ? kNil : list({irritant}), at);
}

void Expander::fail_list(Value who, const std::string& msg, Value irritants, Value at) {
  Value irr = kNil;
  for (Value p = irritants; is_pair(p); p = cdr(p)) irr = cons(syntax_to_datum(car(p)), irr);
  irr = reverse_list(irr);
  Value who_sym = is_identifier(who) ? identifier_symbol(who) : kFalse;
  throw SchemeError{make_condition(intern("syntax"), who_sym, make_string_utf8(msg), irr,
                                   loc_of(at))};
}

// ---- resolution -------------------------------------------------------------------------------

// Frames with more entries than this get a hash index.
constexpr size_t kIndexThreshold = 24;

void Expander::add_entry(Scope* s, const ScopeEntry& e) {
  s->entries.push_back(e);
  if (s->index) (*s->index)[e.id.bits] = s->entries.size() - 1;
}

const ScopeEntry* Expander::find_entry(Scope* f, Value id) {
  auto& es = f->entries;
  if (es.size() > kIndexThreshold) {
    if (!f->index) {
      f->index = gc_new<Scope::Index>();
      for (size_t i = 0; i < es.size(); i++) (*f->index)[es[i].id.bits] = i;
    }
    auto it = f->index->find(id.bits);
    return it == f->index->end() ? nullptr : &es[it->second];
  }
  for (size_t i = es.size(); i-- > 0;)
    if (es[i].id == id) return &es[i];
  return nullptr;
}

Resolved Expander::resolve(Value id, Scope* s) {
  for (;;) {
    bool crossed = false;  // passed a transformer's barrier frame
    for (Scope* f = s; f; f = f->parent) {
      if (f->entries.empty()) {
        crossed |= f->barrier;
        continue;
      }
      if (const ScopeEntry* e = find_entry(f, id)) {
        Resolved r;
        if (e->var) {
          r.kind = Resolved::Local;
          r.var = e->var;
          r.out_of_phase = crossed;
        } else {
          r.kind = Resolved::Keyword;
          r.macro = e->macro.as<Macro>();
          r.out_of_phase = crossed && r.macro->form == SpecialForm::PatternVar;
        }
        return r;
      }
      crossed |= f->barrier;
    }
    if (is_identifier_object(id)) {
      Identifier* i = id.as<Identifier>();
      s = i->scope;
      id = i->name;
      continue;
    }
    Environment* top = s->top;
    Value b = top->lookup(id);
    if (host_ && has_type(b, Type::GlobalCell) && (b.obj()->header & kAutoloadCell)) {
      host_->autoload(b);
      b = top->lookup(id);
    }
    Resolved r;
    if (is_macro(b)) {
      r.kind = Resolved::Keyword;
      r.macro = b.as<Macro>();
      return r;
    }
    r.kind = Resolved::Global;
    r.env = top;
    r.sym = id;
    return r;
  }
}

bool Expander::same_binding(const Resolved& a, const Resolved& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Resolved::Local:
      return a.var == b.var;
    case Resolved::Keyword:
      return a.macro == b.macro ||
             (is_builtin_form(a.macro->form) && a.macro->form == b.macro->form);
    case Resolved::Global: {
      if (a.sym != b.sym) return false;
      if (a.env == b.env) return true;
      Value ca = a.env->lookup(a.sym), cb = b.env->lookup(b.sym);
      return ca == cb;
    }
  }
  return false;
}

bool Expander::free_identifier_eq(Value a, Scope* sa, Value b, Scope* sb) {
  return same_binding(resolve(a, sa), resolve(b, sb));
}

bool Expander::is_keyword(Value id, Scope* s, SpecialForm f) {
  if (!is_identifier(id)) return false;
  Resolved r = resolve(id, s);
  return r.kind == Resolved::Keyword && r.macro->form == f;
}

Macro* Expander::head_macro(Value form, Scope* s) {
  if (!is_pair(form) || !is_identifier(car(form))) return nullptr;
  Resolved r = resolve(car(form), s);
  return r.kind == Resolved::Keyword ? r.macro : nullptr;
}

bool Expander::bound_in_frame(Scope* s, Value id) { return find_entry(s, id) != nullptr; }

// ---- small IR builders ------------------------------------------------------------------------

Value Expander::core_id(const char* name) { return make_identifier(intern(name), core_root_); }

Node* Expander::core_ref(const char* name, SrcLoc loc) {
  Value cell = core_->cell_for(intern(name));
  if (host_ && (cell.obj()->header & kAutoloadCell)) host_->autoload(cell);
  return gc_new<GlobalRefNode>(cell, loc);
}

Node* Expander::call(Node* fn, std::initializer_list<Node*> args, SrcLoc loc) {
  CallNode* c = gc_new<CallNode>(fn, loc);
  for (Node* a : args) c->args.push_back(a);
  return c;
}

Node* Expander::make_lambda(const gc_vector<Var*>& params, Var* rest, Node* body, Value name,
                            SrcLoc loc) {
  LambdaNode* l = gc_new<LambdaNode>(name, loc);
  LambdaClause* c = gc_new<LambdaClause>();
  c->params = params;
  c->rest = rest;
  c->body = body;
  l->clauses.push_back(c);
  return l;
}

Node* Expander::make_seq(gc_vector<Node*>& nodes, SrcLoc loc) {
  if (nodes.empty()) return konst(kUnspecified, loc);
  if (nodes.size() == 1) return nodes[0];
  SeqNode* s = gc_new<SeqNode>(loc);
  for (Node* n : nodes) {
    if (n->kind == NodeKind::Seq) {
      for (Node* m : static_cast<SeqNode*>(n)->exprs) s->exprs.push_back(m);
    } else {
      s->exprs.push_back(n);
    }
  }
  return s;
}

void Expander::check_duplicates(const gc_vector<Value>& ids, Value who, const char* msg,
                                Value form) {
  if (ids.size() <= 16) {
    for (size_t i = 0; i < ids.size(); i++)
      for (size_t j = 0; j < i; j++)
        if (ids[i] == ids[j]) fail(who, msg, ids[i], form);
    return;
  }
  std::unordered_set<uint64_t> seen;
  for (Value id : ids)
    if (!seen.insert(id.bits).second) fail(who, msg, id, form);
}

// ---- top level --------------------------------------------------------------------------------

Node* Expander::toplevel(Value form) {
  loc_ = pair_srcloc(form);
  return toplevel_form(form);
}

Node* Expander::toplevel_form(Value x) {
  Guard g(this, x);
  for (int steps = 0;; steps++) {
    if (steps > kMaxRewrites) fail(kFalse, "macro expansion does not terminate for", x, x);
    Macro* m = head_macro(x, root_);
    if (!m) break;
    if (is_transformer_form(m->form)) {
      x = apply_macro(m, x, root_);
      continue;
    }
    if (is_rewriter(m->form)) {
      x = rewrite(m, x, root_);
      continue;
    }
    switch (m->form) {
      case SpecialForm::Begin: {
        if (list_length(x) < 0) bad_syntax(car(x), x);
        gc_vector<Node*> nodes;
        for (Value p = cdr(x); is_pair(p); p = cdr(p)) nodes.push_back(toplevel_form(car(p)));
        return make_seq(nodes, loc_of(x));
      }
      case SpecialForm::Define:
        return top_define(x);
      case SpecialForm::DefineValues:
        return top_define_values(x);
      case SpecialForm::DefineSyntax: {
        if (list_length(x) != 3 || !is_identifier(cadr(x))) bad_syntax(car(x), x);
        if (!env_->mutable_) fail(car(x), "cannot define in an immutable environment", cadr(x), x);
        Value name = identifier_symbol(cadr(x));
        Value mac = make_transformer(caddr(x), root_, name, car(x));
        env_->bind(name, mac);
        return konst(kUnspecified, loc_of(x));
      }
      default:
        return expand(x, root_);
    }
  }
  return expand(x, root_);
}

void Expander::parse_define(Value x, Value* id, Value* value, bool* has_value) {
  int64_t n = list_length(x);
  if (n < 2) bad_syntax(car(x), x);
  Value target = cadr(x);
  if (is_identifier(target)) {
    if (n > 3) bad_syntax(car(x), x);
    *id = target;
    *has_value = n == 3;
    *value = n == 3 ? caddr(x) : kUnspecified;
    return;
  }
  if (!is_pair(target) || n < 3) bad_syntax(car(x), x);
  // (define (name . formals) body ...) and curried ((name a) b) shapes.
  Value body = cddr(x);
  SrcLoc loc = loc_of(x);
  for (int guard = 0; is_pair(target); guard++) {
    if (guard > kMaxDepth) bad_syntax(car(x), x);
    Value lam = cons_at(core_id("lambda"), cons(cdr(target), body), loc);
    Value head = car(target);
    if (is_identifier(head)) {
      *id = head;
      *value = lam;
      *has_value = true;
      return;
    }
    body = list({lam});
    target = head;
  }
  bad_syntax(car(x), x);
}

Node* Expander::top_define(Value x) {
  Value id, value;
  bool has_value;
  parse_define(x, &id, &value, &has_value);
  if (!env_->mutable_) fail(car(x), "cannot define in an immutable environment", id, x);
  Value sym = identifier_symbol(id);
  Value cell = env_->define_cell(sym);
  Node* v = has_value ? expand_named(value, root_, sym) : konst(kUnspecified, loc_of(x));
  return gc_new<GlobalSetNode>(cell, v, true, loc_of(x));
}

Node* Expander::top_define_values(Value x) {
  if (list_length(x) != 3) bad_syntax(car(x), x);
  if (!env_->mutable_) fail(car(x), "cannot define in an immutable environment", cadr(x), x);
  Formals f;
  parse_formals(cadr(x), f, car(x), x);
  SrcLoc loc = loc_of(x);
  gc_vector<Var*> params;
  gc_vector<Node*> sets;
  Var* rest = nullptr;
  for (Value id : f.ids) {
    Value sym = identifier_symbol(id);
    Var* t = make_var(sym);
    params.push_back(t);
    sets.push_back(
        gc_new<GlobalSetNode>(env_->define_cell(sym), gc_new<LocalRefNode>(t, loc), true, loc));
  }
  if (f.rest != kFalse) {
    Value sym = identifier_symbol(f.rest);
    rest = make_var(sym);
    sets.push_back(
        gc_new<GlobalSetNode>(env_->define_cell(sym), gc_new<LocalRefNode>(rest, loc), true, loc));
  }
  sets.push_back(konst(kUnspecified, loc));
  Node* producer = make_lambda({}, nullptr, expand(caddr(x), root_), kFalse, loc);
  Node* consumer = make_lambda(params, rest, make_seq(sets, loc), kFalse, loc);
  return call(core_ref("call-with-values", loc), {producer, consumer}, loc);
}

Value Expander::make_transformer(Value spec, Scope* s, Value name, Value who) {
  for (int steps = 0;; steps++) {
    if (steps > kMaxRewrites) fail(kFalse, "macro expansion does not terminate for", spec, spec);
    if (is_identifier(spec)) {
      Resolved r = resolve(spec, s);
      if (r.kind == Resolved::Keyword) return make_ptr(r.macro);
      return make_procedural(spec, s, name, who);
    }
    Macro* m = head_macro(spec, s);
    if (m && m->form == SpecialForm::SyntaxRules) return make_syntax_rules(spec, s, name);
    if (m && is_transformer_form(m->form)) {
      spec = apply_macro(m, spec, s);
      continue;
    }
    return make_procedural(spec, s, name, who);
  }
}

// ---- expressions ------------------------------------------------------------------------------

Node* Expander::expand(Value x, Scope* s) {
  Guard g(this, x);
  for (int steps = 0;; steps++) {
    if (is_identifier(x)) return expand_ref(x, s, x);
    if (!is_pair(x)) return expand_literal(x);
    if (steps > kMaxRewrites) fail(kFalse, "macro expansion does not terminate for", x, x);
    Macro* m = head_macro(x, s);
    if (!m) return expand_call(x, s);
    if (is_transformer_form(m->form)) {
      x = apply_macro(m, x, s);
      continue;
    }
    if (is_rewriter(m->form)) {
      x = rewrite(m, x, s);
      continue;
    }
    return special(m, x, s);
  }
}

Node* Expander::expand_named(Value x, Scope* s, Value name) {
  Node* n = expand(x, s);
  if (n->kind == NodeKind::Lambda) {
    auto* l = static_cast<LambdaNode*>(n);
    if (l->name == kFalse) l->name = identifier_symbol(name);
  }
  return n;
}

Node* Expander::expand_ref(Value id, Scope* s, Value form) {
  Resolved r = resolve(id, s);
  SrcLoc loc = loc_;
  if (r.out_of_phase)
    fail(id, "a local variable of the program is not available to a macro transformer:", id, form);
  if (r.kind == Resolved::Keyword && r.macro->form == SpecialForm::PatternVar)
    fail(id, "pattern variable used outside a syntax template:", id, form);
  switch (r.kind) {
    case Resolved::Local:
      return gc_new<LocalRefNode>(r.var, loc);
    case Resolved::Global:
      return gc_new<GlobalRefNode>(r.env->cell_for(r.sym), loc);
    case Resolved::Keyword:
      break;
  }
  fail(id, "bad syntax in", id, form);
}

Node* Expander::expand_literal(Value x) {
  if (x == kNil) fail(kFalse, "bad syntax in", kNil, kNil);
  return konst(quote_literal(x), loc_);
}

Node* Expander::expand_call(Value x, Scope* s) {
  if (list_length(x) < 0) fail(kFalse, "bad syntax in", x, x);
  SrcLoc loc = loc_of(x);
  Node* fn = expand(car(x), s);
  CallNode* c = gc_new<CallNode>(fn, loc);
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) c->args.push_back(expand(car(p), s));
  return c;
}

// A non-empty sequence of expressions (no definitions).
Node* Expander::expand_seq(Value exprs, Scope* s, Value who, Value form) {
  int64_t n = list_length(exprs);
  if (n <= 0) bad_syntax(who, form);
  gc_vector<Node*> nodes;
  for (Value p = exprs; is_pair(p); p = cdr(p)) nodes.push_back(expand(car(p), s));
  return make_seq(nodes, loc_of(form));
}

// ---- bodies -----------------------------------------------------------------------------------

struct Expander::BodyItem {
  enum Kind : uint8_t { Expr, Define, DefineValues } kind;
  Value form;       // expression, or the value of a definition (kUnspecified if none)
  bool has_value = true;
  Var* var = nullptr;  // Define
  Value name = kFalse;
  gc_vector<Var*> vars;  // DefineValues (the rest variable last when rest_var)
  Var* rest_var = nullptr;
  SrcLoc loc;
};

Node* Expander::expand_body(Value body, Scope* outer, Value who, Value form) {
  int64_t n = list_length(body);
  if (n < 0) bad_syntax(who, form);
  if (n == 0) fail(who, "empty body in", form, form);
  Scope* s = new_scope(outer);
  gc_vector<BodyItem*> items;
  gc_vector<Value> pending;  // stack of remaining lists (begin splices push onto it)
  pending.push_back(body);
  bool any_def = false;
  SrcLoc body_loc = loc_of(form);
  while (!pending.empty()) {
    Value rest = pending.back();
    if (!is_pair(rest)) {
      pending.pop_back();
      continue;
    }
    pending.back() = cdr(rest);
    Value x = car(rest);
    Guard g(this, x);
    for (int steps = 0;; steps++) {
      if (steps > kMaxRewrites) fail(kFalse, "macro expansion does not terminate for", x, x);
      Macro* m = head_macro(x, s);
      SpecialForm f = m ? m->form : SpecialForm::Quote;  // Quote: "an expression"
      if (m && is_transformer_form(f)) {
        x = apply_macro(m, x, s);
        continue;
      }
      if (m && is_rewriter(f)) {
        x = rewrite(m, x, s);
        continue;
      }
      if (m && f == SpecialForm::Begin) {
        if (list_length(x) < 0) bad_syntax(car(x), x);
        pending.push_back(cdr(x));
        break;
      }
      if (m && f == SpecialForm::Define) {
        BodyItem* it = gc_new<BodyItem>();
        it->kind = BodyItem::Define;
        Value id;
        parse_define(x, &id, &it->form, &it->has_value);
        if (bound_in_frame(s, id)) fail(car(x), "duplicate definition of", id, x);
        it->name = identifier_symbol(id);
        it->var = make_var(it->name);
        it->loc = loc_of(x);
        bind_var(s, id, it->var);
        items.push_back(it);
        any_def = true;
        break;
      }
      if (m && f == SpecialForm::DefineValues) {
        if (list_length(x) != 3) bad_syntax(car(x), x);
        Formals fm;
        parse_formals(cadr(x), fm, car(x), x);
        BodyItem* it = gc_new<BodyItem>();
        it->kind = BodyItem::DefineValues;
        it->form = caddr(x);
        it->loc = loc_of(x);
        for (Value id : fm.ids) {
          if (bound_in_frame(s, id)) fail(car(x), "duplicate definition of", id, x);
          Var* v = make_var(identifier_symbol(id));
          bind_var(s, id, v);
          it->vars.push_back(v);
        }
        if (fm.rest != kFalse) {
          if (bound_in_frame(s, fm.rest)) fail(car(x), "duplicate definition of", fm.rest, x);
          it->rest_var = make_var(identifier_symbol(fm.rest));
          bind_var(s, fm.rest, it->rest_var);
        }
        items.push_back(it);
        any_def = true;
        break;
      }
      if (m && f == SpecialForm::DefineSyntax) {
        if (list_length(x) != 3 || !is_identifier(cadr(x))) bad_syntax(car(x), x);
        Value id = cadr(x);
        if (bound_in_frame(s, id)) fail(car(x), "duplicate definition of", id, x);
        Value mac = make_transformer(caddr(x), s, identifier_symbol(id), car(x));
        bind_macro(s, id, mac);
        break;
      }
      BodyItem* it = gc_new<BodyItem>();
      it->kind = BodyItem::Expr;
      it->form = x;
      it->loc = loc_of(x);
      items.push_back(it);
      break;
    }
  }
  if (items.empty() || items.back()->kind != BodyItem::Expr)
    fail(who, any_def ? "no expression after definitions in body of" : "no expression in body of",
         form, form);

  auto expand_item = [&](BodyItem* it) {
    SrcLoc saved = loc_;
    if (it->loc.known()) loc_ = it->loc;
    Node* n = it->kind == BodyItem::Define && !it->has_value ? konst(kUnspecified, it->loc)
              : it->kind == BodyItem::Define ? expand_named(it->form, s, it->name)
                                             : expand(it->form, s);
    loc_ = saved;
    return n;
  };

  gc_vector<Node*> effects;  // expressions waiting to run before the next initializer
  if (!any_def) {
    for (BodyItem* it : items) effects.push_back(expand_item(it));
    return make_seq(effects, body_loc);
  }
  LetNode* let = gc_new<LetNode>(NodeKind::Letrec, body_loc);
  auto add_binding = [&](Var* v, Node* init) {
    if (!effects.empty()) {
      effects.push_back(init);
      init = make_seq(effects, init->loc);
      effects.clear();
    }
    let->vars.push_back(v);
    let->inits.push_back(init);
  };
  for (BodyItem* it : items) {
    switch (it->kind) {
      case BodyItem::Expr:
        effects.push_back(expand_item(it));
        break;
      case BodyItem::Define:
        add_binding(it->var, expand_item(it));
        break;
      case BodyItem::DefineValues: {
        // Bind the variables, then set them from the values the expression returns.
        gc_vector<Var*> params;
        gc_vector<Node*> sets;
        auto bind_one = [&](Var* v) {
          add_binding(v, konst(kUnspecified, it->loc));
          Var* t = make_var(v->name);
          v->assigned = true;
          sets.push_back(gc_new<LocalSetNode>(v, gc_new<LocalRefNode>(t, it->loc), it->loc));
          return t;
        };
        for (Var* v : it->vars) params.push_back(bind_one(v));
        Var* rest = it->rest_var ? bind_one(it->rest_var) : nullptr;
        sets.push_back(konst(kUnspecified, it->loc));
        SrcLoc saved = loc_;
        if (it->loc.known()) loc_ = it->loc;
        Node* producer = make_lambda({}, nullptr, expand(it->form, s), kFalse, it->loc);
        loc_ = saved;
        Node* consumer = make_lambda(params, rest, make_seq(sets, it->loc), kFalse, it->loc);
        effects.push_back(
            call(core_ref("call-with-values", it->loc), {producer, consumer}, it->loc));
        break;
      }
    }
  }
  let->body = make_seq(effects, body_loc);
  return let;
}

// ---- special forms ----------------------------------------------------------------------------

Node* Expander::special(Macro* m, Value x, Scope* s) {
  switch (m->form) {
    case SpecialForm::Quote: return sf_quote(x, s);
    case SpecialForm::Quasiquote: return sf_quasiquote(x, s);
    case SpecialForm::Lambda: return sf_lambda(x, s);
    case SpecialForm::NamedLambda: return sf_named_lambda(x, s);
    case SpecialForm::CaseLambda: return sf_case_lambda(x, s);
    case SpecialForm::If: return sf_if(x, s);
    case SpecialForm::Set: return sf_set(x, s);
    case SpecialForm::Begin: return sf_begin(x, s);
    case SpecialForm::Let: return sf_let(x, s);
    case SpecialForm::LetStar: return sf_let_star(x, s);
    case SpecialForm::Letrec: return sf_letrec(x, s, false);
    case SpecialForm::LetrecStar: return sf_letrec(x, s, true);
    case SpecialForm::LetValues: return sf_let_values(x, s, false);
    case SpecialForm::LetStarValues: return sf_let_values(x, s, true);
    case SpecialForm::LetSyntax: return sf_let_syntax(x, s, false);
    case SpecialForm::LetrecSyntax: return sf_let_syntax(x, s, true);
    case SpecialForm::Do: return sf_do(x, s);
    case SpecialForm::Cond: return sf_cond(x, s);
    case SpecialForm::Case: return sf_case(x, s);
    case SpecialForm::And: return sf_and(x, s);
    case SpecialForm::Or: return sf_or(x, s);
    case SpecialForm::When: return sf_when(x, s, true);
    case SpecialForm::Unless: return sf_when(x, s, false);
    case SpecialForm::Parameterize: return sf_parameterize(x, s);
    case SpecialForm::Guard: return sf_guard(x, s);
    case SpecialForm::Delay: return sf_delay(x, s, false);
    case SpecialForm::DelayForce: return sf_delay(x, s, true);
    case SpecialForm::Assert: return sf_assert(x, s);
    case SpecialForm::SyntaxError: return sf_syntax_error(x, s);
    case SpecialForm::SyntaxCase: return sf_syntax_case(x, s);
    case SpecialForm::Syntax: return sf_syntax(x, s);
    case SpecialForm::Quasisyntax: return sf_quasisyntax(x, s);
    case SpecialForm::PatternVar:
      fail(car(x), "pattern variable used outside a syntax template:", car(x), x);
    case SpecialForm::Define:
    case SpecialForm::DefineValues:
    case SpecialForm::DefineSyntax:
    case SpecialForm::DefineRecordType:
      fail(car(x), "definition not allowed in expression context:", x, x);
    default:
      bad_syntax(car(x), x);
  }
}

Value Expander::rewrite(Macro* m, Value x, Scope* s) {
  switch (m->form) {
    case SpecialForm::CondExpand: return rw_cond_expand(x, s);
    case SpecialForm::Include: return rw_include(x, false);
    case SpecialForm::IncludeCi: return rw_include(x, true);
    case SpecialForm::DefineRecordType: return rw_define_record_type(x, s);
    case SpecialForm::WithSyntax: return rw_with_syntax(x, s);
    default: bad_syntax(car(x), x);
  }
}

Node* Expander::sf_quote(Value x, Scope* s) {
  if (list_length(x) != 2) bad_syntax(car(x), x);
  return konst(quote_literal(cadr(x)), loc_of(x));
}

Node* Expander::sf_if(Value x, Scope* s) {
  int64_t n = list_length(x);
  if (n != 3 && n != 4) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Node* test = expand(cadr(x), s);
  Node* then = expand(caddr(x), s);
  Node* otherwise = n == 4 ? expand(car(cdddr(x)), s) : konst(kUnspecified, loc);
  return gc_new<IfNode>(test, then, otherwise, loc);
}

Node* Expander::sf_set(Value x, Scope* s) {
  if (list_length(x) != 3 || !is_identifier(cadr(x))) bad_syntax(car(x), x);
  Value id = cadr(x);
  Resolved r = resolve(id, s);
  SrcLoc loc = loc_of(x);
  if (r.kind == Resolved::Keyword) fail(car(x), "cannot assign a syntactic keyword:", id, x);
  if (r.out_of_phase)
    fail(id, "a local variable of the program is not available to a macro transformer:", id, x);
  Node* v = expand(caddr(x), s);
  if (r.kind == Resolved::Local) {
    r.var->assigned = true;
    return gc_new<LocalSetNode>(r.var, v, loc);
  }
  Value cell = r.env->cell_for(r.sym);
  // Imported bindings are immutable (R7RS 5.6.1): the optimizer may rely on builtins' values.
  Value owner = cell.as<GlobalCell>()->owner;
  if (owner != make_ptr(r.env) && owner != kFalse)
    fail(car(x), "cannot assign an imported variable:", identifier_symbol(id), x);
  return gc_new<GlobalSetNode>(cell, v, false, loc);
}

Node* Expander::sf_begin(Value x, Scope* s) {
  int64_t n = list_length(x);
  if (n < 0) bad_syntax(car(x), x);
  if (n == 1) return konst(kUnspecified, loc_of(x));
  return expand_seq(cdr(x), s, car(x), x);
}

void Expander::parse_formals(Value f, Formals& out, Value who, Value form) {
  int64_t n = count_pairs(f);
  if (n < 0) bad_syntax(who, form);
  Value p = f;
  for (; is_pair(p); p = cdr(p)) {
    if (!is_identifier(car(p))) fail(who, "bad parameter", car(p), form);
    out.ids.push_back(car(p));
  }
  if (p != kNil) {
    if (!is_identifier(p)) fail(who, "bad parameter", p, form);
    out.rest = p;
    out.ids.push_back(p);
    check_duplicates(out.ids, who, "duplicate parameter", form);
    out.ids.pop_back();
  } else {
    check_duplicates(out.ids, who, "duplicate parameter", form);
  }
}

LambdaClause* Expander::make_clause(Value formals, Value body, Scope* s, Value who, Value form) {
  Formals f;
  parse_formals(formals, f, who, form);
  Scope* inner = new_scope(s);
  LambdaClause* c = gc_new<LambdaClause>();
  for (Value id : f.ids) {
    Var* v = make_var(identifier_symbol(id));
    bind_var(inner, id, v);
    c->params.push_back(v);
  }
  if (f.rest != kFalse) {
    c->rest = make_var(identifier_symbol(f.rest));
    bind_var(inner, f.rest, c->rest);
  }
  c->body = expand_body(body, inner, who, form);
  return c;
}

Node* Expander::sf_lambda(Value x, Scope* s) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  LambdaNode* l = gc_new<LambdaNode>(kFalse, loc_of(x));
  l->clauses.push_back(make_clause(cadr(x), cddr(x), s, car(x), x));
  return l;
}

Node* Expander::sf_named_lambda(Value x, Scope* s) {
  if (list_length(x) < 3 || !is_pair(cadr(x)) || !is_identifier(car(cadr(x))))
    bad_syntax(car(x), x);
  LambdaNode* l = gc_new<LambdaNode>(identifier_symbol(car(cadr(x))), loc_of(x));
  l->clauses.push_back(make_clause(cdr(cadr(x)), cddr(x), s, car(x), x));
  return l;
}

Node* Expander::sf_case_lambda(Value x, Scope* s) {
  if (list_length(x) < 1) bad_syntax(car(x), x);
  LambdaNode* l = gc_new<LambdaNode>(kFalse, loc_of(x));
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) {
    Value c = car(p);
    if (list_length(c) < 2) fail(car(x), "bad clause", c, x);
    l->clauses.push_back(make_clause(car(c), cdr(c), s, car(x), c));
  }
  // (case-lambda) with no clause is valid R7RS: a procedure no call fits. It gets one rest
  // clause that raises the arity error, because the compiler, the partial evaluator, AD and the
  // JIT all take a lambda to have at least one clause.
  if (l->clauses.empty()) {
    SrcLoc loc = loc_of(x);
    Var* args = make_var(intern("args"));
    Node* raise = call(core_ref("apply", loc), {core_ref("%no-clause-accepts", loc), gc_new<LocalRefNode>(args, loc)}, loc);
    return make_lambda({}, args, raise, kFalse, loc);
  }
  return l;
}

namespace {
// Parses ((id init) ...) into ids and inits; errors name `who`.
void parse_bindings(Expander& ex, Value bs, gc_vector<Value>& ids, gc_vector<Value>& inits,
                    Value who, Value form) {
  if (list_length(bs) < 0) ex.bad_syntax(who, form);
  for (Value p = bs; is_pair(p); p = cdr(p)) {
    Value b = car(p);
    if (list_length(b) != 2 || !is_identifier(car(b))) ex.fail(who, "bad binding", b, form);
    ids.push_back(car(b));
    inits.push_back(cadr(b));
  }
}
}  // namespace

Node* Expander::sf_let(Value x, Scope* s) {
  int64_t n = list_length(x);
  if (n < 3) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Value name = kFalse, bindings = cadr(x), body = cddr(x);
  if (is_identifier(bindings)) {
    if (n < 4) bad_syntax(who, x);
    name = bindings;
    bindings = caddr(x);
    body = cdddr(x);
  }
  gc_vector<Value> ids, inits;
  parse_bindings(*this, bindings, ids, inits, who, x);
  check_duplicates(ids, who, "duplicate binding", x);
  gc_vector<Node*> init_nodes;
  for (size_t i = 0; i < ids.size(); i++) init_nodes.push_back(expand_named(inits[i], s, ids[i]));
  if (name != kFalse) {
    // ((letrec ((name (lambda (id ...) body ...))) name) init ...)
    Scope* loop_scope = new_scope(s);
    Var* loop = make_var(identifier_symbol(name));
    bind_var(loop_scope, name, loop);
    Scope* inner = new_scope(loop_scope);
    gc_vector<Var*> params;
    for (Value id : ids) {
      Var* v = make_var(identifier_symbol(id));
      bind_var(inner, id, v);
      params.push_back(v);
    }
    Node* lam =
        make_lambda(params, nullptr, expand_body(body, inner, who, x), identifier_symbol(name), loc);
    LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, loc);
    rec->vars.push_back(loop);
    rec->inits.push_back(lam);
    rec->body = gc_new<LocalRefNode>(loop, loc);
    CallNode* c = gc_new<CallNode>(rec, loc);
    c->args = init_nodes;
    return c;
  }
  Scope* inner = new_scope(s);
  if (ids.empty()) return expand_body(body, inner, who, x);
  LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
  for (Value id : ids) {
    Var* v = make_var(identifier_symbol(id));
    bind_var(inner, id, v);
    let->vars.push_back(v);
  }
  let->inits = init_nodes;
  let->body = expand_body(body, inner, who, x);
  return let;
}

Node* Expander::sf_let_star(Value x, Scope* s) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  gc_vector<Value> ids, inits;
  parse_bindings(*this, cadr(x), ids, inits, who, x);
  gc_vector<LetNode*> lets;
  Scope* cur = s;
  for (size_t i = 0; i < ids.size(); i++) {
    Node* init = expand_named(inits[i], cur, ids[i]);
    cur = new_scope(cur);
    Var* v = make_var(identifier_symbol(ids[i]));
    bind_var(cur, ids[i], v);
    LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
    let->vars.push_back(v);
    let->inits.push_back(init);
    lets.push_back(let);
  }
  Node* body = expand_body(cddr(x), new_scope(cur), who, x);
  for (size_t i = lets.size(); i-- > 0;) {
    lets[i]->body = body;
    body = lets[i];
  }
  return body;
}

Node* Expander::sf_letrec(Value x, Scope* s, bool star) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  gc_vector<Value> ids, inits;
  parse_bindings(*this, cadr(x), ids, inits, who, x);
  check_duplicates(ids, who, "duplicate binding", x);
  Scope* inner = new_scope(s);
  if (ids.empty()) return expand_body(cddr(x), inner, who, x);
  LetNode* let = gc_new<LetNode>(NodeKind::Letrec, loc_of(x));
  for (Value id : ids) {
    Var* v = make_var(identifier_symbol(id));
    bind_var(inner, id, v);
    let->vars.push_back(v);
  }
  for (size_t i = 0; i < ids.size(); i++) let->inits.push_back(expand_named(inits[i], inner, ids[i]));
  let->body = expand_body(cddr(x), inner, who, x);
  if (!star) letrec_inits_first(let);
  return let;
}

// R7RS letrec evaluates every init before it assigns any variable; the IR's Letrec assigns each
// as its init returns (letrec*). The difference shows when a continuation captured in an init
// is re-entered after the variables changed (R5RS pitfall 1.1): each re-entry must assign all
// the variables afresh from the inits' values of that run. So when an init could capture one
// (it may call something other than a pure primitive: only_pure_primitive_calls) and there is
// more than one variable, the first variable's init evaluates all the inits into temporaries,
// with every variable still unbound as before, and sets the others; their own inits then keep
// the value they were set to:
//   (letrec ((v (call/cc f)) (w e)) body)
//   => (letrec* ((v (let ((t (call/cc f)) (u e)) (set! w u) t)) (w w)) body)
// Letrecs of lambdas (named let, mutual recursion), constants and primitive arithmetic, the
// common cases, keep the direct form: the compiler makes closures and loops of it, and grad
// differentiates it without the assignments (nested grad refuses a set!).
void Expander::letrec_inits_first(LetNode* let) {
  if (let->vars.size() < 2) return;
  bool may_capture = false;
  for (Node* init : let->inits)
    if (!only_pure_primitive_calls(init, core_)) may_capture = true;
  if (!may_capture) return;
  LetNode* temps = gc_new<LetNode>(NodeKind::Let, let->loc);
  gc_vector<Node*> sets;
  for (size_t i = 0; i < let->vars.size(); i++) {
    Var* v = let->vars[i];
    Var* t = make_var(v->name);
    Node* init = let->inits[i];
    temps->vars.push_back(t);
    temps->inits.push_back(init);
    if (i == 0) continue;
    v->assigned = true;
    sets.push_back(gc_new<LocalSetNode>(v, gc_new<LocalRefNode>(t, init->loc), init->loc));
    let->inits[i] = gc_new<LocalRefNode>(v, init->loc);
  }
  sets.push_back(gc_new<LocalRefNode>(temps->vars[0], let->loc));
  temps->body = make_seq(sets, let->loc);
  let->inits[0] = temps;
}

Node* Expander::sf_let_values(Value x, Scope* s, bool sequential) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Value bs = cadr(x);
  if (list_length(bs) < 0) bad_syntax(who, x);
  struct Clause {
    Node* init;
    gc_vector<Var*> params;
    Var* rest = nullptr;
  };
  gc_vector<Clause*> clauses;
  gc_vector<Value> all_ids;
  Scope* inner = new_scope(s);  // let-values: one scope for all; let*-values: one per clause
  Scope* cur = s;
  for (Value p = bs; is_pair(p); p = cdr(p)) {
    Value b = car(p);
    if (list_length(b) != 2) fail(who, "bad binding", b, x);
    Formals f;
    parse_formals(car(b), f, who, x);
    Clause* c = gc_new<Clause>();
    c->init = expand(cadr(b), sequential ? cur : s);
    Scope* target = inner;
    if (sequential) {
      cur = new_scope(cur);
      target = cur;
    }
    for (Value id : f.ids) {
      Var* v = make_var(identifier_symbol(id));
      bind_var(target, id, v);
      c->params.push_back(v);
      all_ids.push_back(id);
    }
    if (f.rest != kFalse) {
      c->rest = make_var(identifier_symbol(f.rest));
      bind_var(target, f.rest, c->rest);
      all_ids.push_back(f.rest);
    }
    clauses.push_back(c);
  }
  if (!sequential) check_duplicates(all_ids, who, "duplicate binding", x);
  Node* body = expand_body(cddr(x), sequential ? new_scope(cur) : inner, who, x);
  for (size_t i = clauses.size(); i-- > 0;) {
    Clause* c = clauses[i];
    Node* producer = make_lambda({}, nullptr, c->init, kFalse, loc);
    Node* consumer = make_lambda(c->params, c->rest, body, kFalse, loc);
    body = call(core_ref("call-with-values", loc), {producer, consumer}, loc);
  }
  return body;
}

Node* Expander::sf_let_syntax(Value x, Scope* s, bool rec) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  gc_vector<Value> ids, specs;
  parse_bindings(*this, cadr(x), ids, specs, who, x);
  check_duplicates(ids, who, "duplicate binding", x);
  Scope* inner = new_scope(s);
  gc_vector<Value> macros;
  for (size_t i = 0; i < ids.size(); i++) {
    Value m = make_transformer(specs[i], rec ? inner : s, identifier_symbol(ids[i]), who);
    if (rec) bind_macro(inner, ids[i], m);
    else macros.push_back(m);
  }
  if (!rec)
    for (size_t i = 0; i < ids.size(); i++) bind_macro(inner, ids[i], macros[i]);
  return expand_body(cddr(x), inner, who, x);
}

Node* Expander::sf_do(Value x, Scope* s) {
  // (do ((var init step) ...) (test expr ...) command ...)
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Value specs = cadr(x), exit = caddr(x);
  if (list_length(specs) < 0 || list_length(exit) < 1) bad_syntax(who, x);
  gc_vector<Value> ids, steps;
  gc_vector<Node*> inits;
  for (Value p = specs; is_pair(p); p = cdr(p)) {
    Value b = car(p);
    int64_t n = list_length(b);
    if ((n != 2 && n != 3) || !is_identifier(car(b))) fail(who, "bad binding", b, x);
    ids.push_back(car(b));
    inits.push_back(expand_named(cadr(b), s, car(b)));
    steps.push_back(n == 3 ? caddr(b) : car(b));
  }
  check_duplicates(ids, who, "duplicate binding", x);
  Var* loop = make_var(intern("do-loop"));
  Scope* inner = new_scope(s);
  gc_vector<Var*> params;
  for (Value id : ids) {
    Var* v = make_var(identifier_symbol(id));
    bind_var(inner, id, v);
    params.push_back(v);
  }
  Node* test = expand(car(exit), inner);
  Node* result = cdr(exit) == kNil ? konst(kUnspecified, loc) : expand_seq(cdr(exit), inner, who, x);
  gc_vector<Node*> commands;
  for (Value p = cdddr(x); is_pair(p); p = cdr(p)) commands.push_back(expand(car(p), inner));
  CallNode* again = gc_new<CallNode>(gc_new<LocalRefNode>(loop, loc), loc);
  for (Value st : steps) again->args.push_back(expand(st, inner));
  commands.push_back(again);
  Node* body = gc_new<IfNode>(test, result, make_seq(commands, loc), loc);
  LetNode* rec = gc_new<LetNode>(NodeKind::Letrec, loc);
  rec->vars.push_back(loop);
  rec->inits.push_back(make_lambda(params, nullptr, body, loop->name, loc));
  rec->body = gc_new<LocalRefNode>(loop, loc);
  CallNode* c = gc_new<CallNode>(rec, loc);
  c->args = inits;
  return c;
}

// cond clauses (also guard's), in order; `fallback` is the value when none applies. With `thunks`
// (guard's), a matching clause's value is a thunk that evaluates its body: only the tests run.
Node* Expander::cond_clauses(Value clauses, Scope* s, Value who, Value form, Node* fallback,
                             bool thunks) {
  if (list_length(clauses) < 0) bad_syntax(who, form);
  struct Clause {
    int kind;  // 0 test+body, 1 test alone, 2 test => receiver, 3 else
    Node* test = nullptr;
    Node* body = nullptr;
    SrcLoc loc;
  };
  gc_vector<Clause*> cs;
  for (Value p = clauses; is_pair(p); p = cdr(p)) {
    Value c = car(p);
    int64_t n = list_length(c);
    if (n < 1) fail(who, "bad clause", c, form);
    Clause* cl = gc_new<Clause>();
    cl->loc = loc_of(c);
    if (is_keyword(car(c), s, SpecialForm::Else)) {
      if (cdr(p) != kNil) fail(who, "else clause must be last:", c, form);
      if (n < 2) fail(who, "bad clause", c, form);
      cl->kind = 3;
      cl->body = expand_seq(cdr(c), s, who, c);
    } else if (n >= 2 && is_keyword(cadr(c), s, SpecialForm::Arrow)) {
      if (n != 3) fail(who, "bad clause", c, form);
      cl->kind = 2;
      cl->test = expand(car(c), s);
      cl->body = expand(caddr(c), s);
    } else if (n == 1) {
      cl->kind = 1;
      cl->test = expand(car(c), s);
    } else {
      cl->kind = 0;
      cl->test = expand(car(c), s);
      cl->body = expand_seq(cdr(c), s, who, c);
    }
    cs.push_back(cl);
  }
  Node* result = fallback;
  auto value = [&](Node* n, SrcLoc loc) { return thunks ? make_lambda({}, nullptr, n, kFalse, loc) : n; };
  for (size_t i = cs.size(); i-- > 0;) {
    Clause* cl = cs[i];
    SrcLoc loc = cl->loc;
    switch (cl->kind) {
      case 3:
        result = value(cl->body, loc);
        break;
      case 0:
        result = gc_new<IfNode>(cl->test, value(cl->body, loc), result, loc);
        break;
      case 1:
      case 2: {
        Var* t = make_var(intern("t"));
        LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
        let->vars.push_back(t);
        let->inits.push_back(cl->test);
        Node* then = cl->kind == 1 ? gc_new<LocalRefNode>(t, loc)
                                   : call(cl->body, {gc_new<LocalRefNode>(t, loc)}, loc);
        then = value(then, loc);
        let->body = gc_new<IfNode>(gc_new<LocalRefNode>(t, loc), then, result, loc);
        result = let;
        break;
      }
    }
  }
  return result;
}

Node* Expander::sf_cond(Value x, Scope* s) {
  if (list_length(x) < 1) bad_syntax(car(x), x);
  return cond_clauses(cdr(x), s, car(x), x, konst(kUnspecified, loc_of(x)));
}

Node* Expander::sf_case(Value x, Scope* s) {
  if (list_length(x) < 2) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Node* key = expand(cadr(x), s);
  Var* k = make_var(intern("key"));
  struct Clause {
    Value data;   // list of data, or kTrue for else
    bool arrow;
    Node* body;
    SrcLoc loc;
  };
  gc_vector<Clause*> cs;
  for (Value p = cddr(x); is_pair(p); p = cdr(p)) {
    Value c = car(p);
    int64_t n = list_length(c);
    if (n < 2) fail(who, "bad clause", c, x);
    Clause* cl = gc_new<Clause>();
    cl->loc = loc_of(c);
    if (is_keyword(car(c), s, SpecialForm::Else)) {
      if (cdr(p) != kNil) fail(who, "else clause must be last:", c, x);
      cl->data = kTrue;
    } else {
      if (list_length(car(c)) < 0) fail(who, "bad clause", c, x);
      cl->data = quote_literal(car(c));
    }
    cl->arrow = is_keyword(cadr(c), s, SpecialForm::Arrow);
    if (cl->arrow) {
      if (n != 3) fail(who, "bad clause", c, x);
      cl->body = call(expand(caddr(c), s), {gc_new<LocalRefNode>(k, cl->loc)}, cl->loc);
    } else {
      cl->body = expand_seq(cdr(c), s, who, c);
    }
    cs.push_back(cl);
  }
  Node* result = konst(kUnspecified, loc);
  for (size_t i = cs.size(); i-- > 0;) {
    Clause* cl = cs[i];
    if (cl->data == kTrue) {
      result = cl->body;
      continue;
    }
    Node* test;
    // eqv? is eq? unless both operands are heap numbers (core/equality.cpp), so data that are
    // not numbers, or are fixnums, compare with eq? (inlined by the JIT) and memq instead of
    // out-of-line eqv?/memv (a third of lattice's time, r7rs-benchmarks sweep, notes/issue14.md).
    // One memq test, not a chain of eq? tests: the specializer learns "none of these" from it.
    bool eq_data = true;
    for (Value d = cl->data; eq_data && is_pair(d); d = cdr(d))
      eq_data = !is_number(car(d)) || car(d).is_fixnum();
    if (cl->data == kNil) {
      test = konst(kFalse, cl->loc);
    } else if (eq_data) {
      bool one = cdr(cl->data) == kNil;
      test = call(core_ref(one ? "eq?" : "memq", cl->loc),
                  {gc_new<LocalRefNode>(k, cl->loc), konst(one ? car(cl->data) : cl->data, cl->loc)},
                  cl->loc);
    } else if (cdr(cl->data) == kNil) {
      test = call(core_ref("eqv?", cl->loc),
                  {gc_new<LocalRefNode>(k, cl->loc), konst(car(cl->data), cl->loc)}, cl->loc);
    } else {
      test = call(core_ref("memv", cl->loc),
                  {gc_new<LocalRefNode>(k, cl->loc), konst(cl->data, cl->loc)}, cl->loc);
    }
    result = gc_new<IfNode>(test, cl->body, result, cl->loc);
  }
  LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
  let->vars.push_back(k);
  let->inits.push_back(key);
  let->body = result;
  return let;
}

Node* Expander::sf_and(Value x, Scope* s) {
  if (list_length(x) < 0) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  gc_vector<Node*> ns;
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) ns.push_back(expand(car(p), s));
  if (ns.empty()) return konst(kTrue, loc);
  Node* result = ns.back();
  for (size_t i = ns.size() - 1; i-- > 0;)
    result = gc_new<IfNode>(ns[i], result, konst(kFalse, loc), loc);
  return result;
}

Node* Expander::sf_or(Value x, Scope* s) {
  if (list_length(x) < 0) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  gc_vector<Node*> ns;
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) ns.push_back(expand(car(p), s));
  if (ns.empty()) return konst(kFalse, loc);
  Node* result = ns.back();
  for (size_t i = ns.size() - 1; i-- > 0;) {
    Var* t = make_var(intern("t"));
    LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
    let->vars.push_back(t);
    let->inits.push_back(ns[i]);
    let->body = gc_new<IfNode>(gc_new<LocalRefNode>(t, loc), gc_new<LocalRefNode>(t, loc), result, loc);
    result = let;
  }
  return result;
}

Node* Expander::sf_when(Value x, Scope* s, bool when) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Node* test = expand(cadr(x), s);
  Node* body = expand_seq(cddr(x), s, car(x), x);
  Node* none = konst(kUnspecified, loc);
  return when ? gc_new<IfNode>(test, body, none, loc) : gc_new<IfNode>(test, none, body, loc);
}

Node* Expander::sf_parameterize(Value x, Scope* s) {
  if (list_length(x) < 3) bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Value bs = cadr(x);
  if (list_length(bs) < 0) bad_syntax(who, x);
  CallNode* params = gc_new<CallNode>(core_ref("list", loc), loc);
  CallNode* values = gc_new<CallNode>(core_ref("list", loc), loc);
  for (Value p = bs; is_pair(p); p = cdr(p)) {
    Value b = car(p);
    if (list_length(b) != 2) fail(who, "bad binding", b, x);
    params->args.push_back(expand(car(b), s));
    values->args.push_back(expand(cadr(b), s));
  }
  Node* thunk = make_lambda({}, nullptr, expand_body(cddr(x), s, who, x), kFalse, loc);
  return call(core_ref("%parameterize", loc), {params, values, thunk}, loc);
}

Node* Expander::sf_guard(Value x, Scope* s) {
  // R7RS's reference guard re-enters the raise's full continuation (a copy of the whole stack)
  // at each non-matching guard, O(depth) each. This expansion has the same meaning without
  // copying a stack:
  // ((%call/ec
  //    (lambda (guard-k)
  //      (with-exception-handler
  //        (lambda (condition)
  //          (%guard-handle guard-k condition
  //            (lambda (var) (cond (test (lambda () body ...)) ... (else #f)))))
  //        (lambda ()
  //          (call-with-values (lambda () body ...)
  //            (lambda args (guard-k (lambda () (apply values args))))))))))
  // %guard-handle (prelude/00-core.scm) runs the clause tests in the guard's dynamic environment,
  // escapes to guard-k with the matching clause's body thunk, or re-raises in the raise's.
  if (list_length(x) < 3 || list_length(cadr(x)) < 1 || !is_identifier(car(cadr(x))))
    bad_syntax(car(x), x);
  Value who = car(x);
  SrcLoc loc = loc_of(x);
  Value var_id = car(cadr(x));
  Var* guard_k = make_var(intern("guard-k"));
  Var* condition = make_var(intern("condition"));
  Var* args = make_var(intern("args"));
  auto ref = [&](Var* v) { return gc_new<LocalRefNode>(v, loc); };

  Scope* clause_scope = new_scope(s);
  Var* var = make_var(identifier_symbol(var_id));
  bind_var(clause_scope, var_id, var);
  Node* clauses = cond_clauses(cdr(cadr(x)), clause_scope, who, x, konst(kFalse, loc), true);
  Node* select = make_lambda({var}, nullptr, clauses, kFalse, loc);
  Node* handler =
      make_lambda({condition}, nullptr,
                  call(core_ref("%guard-handle", loc), {ref(guard_k), ref(condition), select}, loc),
                  kFalse, loc);
  Node* body = expand_body(cddr(x), s, who, x);
  Node* deliver = make_lambda(
      {}, nullptr,
      call(ref(guard_k),
           {make_lambda({}, nullptr,
                        call(core_ref("apply", loc), {core_ref("values", loc), ref(args)}, loc),
                        kFalse, loc)},
           loc),
      kFalse, loc);
  static_cast<LambdaNode*>(deliver)->clauses[0]->rest = args;
  Node* thunk = make_lambda(
      {}, nullptr,
      call(core_ref("call-with-values", loc), {make_lambda({}, nullptr, body, kFalse, loc), deliver},
           loc),
      kFalse, loc);
  Node* outer = make_lambda(
      {guard_k}, nullptr, call(core_ref("with-exception-handler", loc), {handler, thunk}, loc),
      kFalse, loc);
  // guard-k only ever returns to the guard's own frames (from the handler, which runs deeper, or
  // after the body), so it is escape-only: a full call/cc per guard copies the whole stack and
  // made nested guards cost O(depth^2).
  return call(call(core_ref("%call/ec", loc), {outer}, loc), {}, loc);
}

Node* Expander::sf_delay(Value x, Scope* s, bool force) {
  if (list_length(x) != 2) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Node* e = expand(cadr(x), s);
  if (!force) e = call(core_ref("%make-ready-promise", loc), {e}, loc);
  return call(core_ref("%make-lazy-promise", loc), {make_lambda({}, nullptr, e, kFalse, loc)}, loc);
}

Node* Expander::sf_assert(Value x, Scope* s) {
  if (list_length(x) != 2) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Node* test = expand(cadr(x), s);
  Value msg = make_string_utf8("assertion failed");
  msg.obj()->set_immutable();
  Node* err = call(core_ref("error", loc), {konst(msg, loc), konst(quote_literal(cadr(x)), loc)}, loc);
  return gc_new<IfNode>(test, konst(kUnspecified, loc), err, loc);
}

Node* Expander::sf_syntax_error(Value x, Scope* s) {
  if (list_length(x) < 2 || !is_string(cadr(x))) bad_syntax(car(x), x);
  fail_list(kFalse, string_to_utf8(cadr(x)), cddr(x), x);
}

// ---- quasiquote -------------------------------------------------------------------------------

// A partly built quasiquote result: a constant datum, or code.
struct Expander::QQ {
  bool is_const;
  Value datum;
  Node* node;
  bool own_list = false;  // node is a (list ...) call made here, which may be extended
};

Node* Expander::qq_node(const QQ& q, SrcLoc loc) {
  return q.is_const ? konst(quote_literal(q.datum), loc) : q.node;
}

bool Expander::qq_form(Value v, Scope* s, SpecialForm f) {
  return is_pair(v) && is_keyword(car(v), s, f) && list_length(v) == 2;
}

// (unquote e ...) or (unquote-splicing e ...) with any number of operands: R6RS 11.17 gives them
// meaning as elements of a list or vector (each operand inserted, or spliced), which Chez and
// Larceny's R7RS tests use; (unquote e) is the one-operand case.
bool Expander::qq_form_n(Value v, Scope* s, SpecialForm f) {
  return is_pair(v) && is_keyword(car(v), s, f) && list_length(v) >= 1;
}

Expander::QQ Expander::qq_cons(const QQ& a, const QQ& d, SrcLoc loc) {
  if (a.is_const && d.is_const) return QQ{true, cons(a.datum, d.datum), nullptr};
  if (d.is_const && d.datum == kNil) {
    CallNode* c = gc_new<CallNode>(core_ref("list", loc), loc);
    c->args.push_back(qq_node(a, loc));
    return QQ{false, kFalse, c, true};
  }
  return QQ{false, kFalse, call(core_ref("cons", loc), {qq_node(a, loc), qq_node(d, loc)}, loc)};
}

Expander::QQ Expander::qq_tag(const char* name, const QQ& inner, SrcLoc loc) {
  return qq_cons(QQ{true, intern(name), nullptr}, qq_cons(inner, QQ{true, kNil, nullptr}, loc),
                 loc);
}

// Lists are walked iteratively along their spine; recursion only into elements.
Expander::QQ Expander::qq(Value t, int depth, Scope* s, SrcLoc loc, Value who) {
  Guard g(this, t);
  if (qq_form(t, s, SpecialForm::Unquote) && depth == 0) return QQ{false, kFalse, expand(cadr(t), s)};
  if (qq_form_n(t, s, SpecialForm::Unquote)) {
    if (depth == 0) fail(who, "unquote with other than one operand outside a list in", t, t);
    // The operands as a list one level down: ,,@x there splices x's elements as operands.
    return qq_cons(QQ{true, intern("unquote"), nullptr}, qq(cdr(t), depth - 1, s, loc, who), loc);
  }
  if (qq_form(t, s, SpecialForm::Quasiquote))
    return qq_tag("quasiquote", qq(cadr(t), depth + 1, s, loc, who), loc);
  if (is_vector(t)) {
    QQ l = qq(vector_to_list(t), depth, s, loc, who);
    if (l.is_const) return QQ{true, t, nullptr};
    return QQ{false, kFalse, call(core_ref("list->vector", loc), {l.node}, loc)};
  }
  if (!is_pair(t)) return QQ{true, t, nullptr};
  if (count_pairs(t) < 0) fail(who, "circular list in", kUnspecified, t);
  struct Item {
    bool splice;
    QQ q;
  };
  gc_vector<Item> items;
  Value p = t;
  while (is_pair(p)) {
    if (p != t && (qq_form(p, s, SpecialForm::Unquote) || qq_form(p, s, SpecialForm::Quasiquote)))
      break;  // dotted tail: (a . ,b) is (a unquote b)
    Value e = car(p);
    bool splicing = qq_form_n(e, s, SpecialForm::UnquoteSplicing);
    if (depth == 0 && (splicing || (qq_form_n(e, s, SpecialForm::Unquote) && !qq_form(e, s, SpecialForm::Unquote)))) {
      for (Value o = cdr(e); is_pair(o); o = cdr(o)) items.push_back(Item{splicing, QQ{false, kFalse, expand(car(o), s)}});
    } else if (splicing) {
      items.push_back(Item{false, qq_cons(QQ{true, intern("unquote-splicing"), nullptr}, qq(cdr(e), depth - 1, s, loc, who), loc)});
    } else {
      items.push_back(Item{false, qq(e, depth, s, loc, who)});
    }
    p = cdr(p);
  }
  QQ r = p == kNil ? QQ{true, kNil, nullptr} : qq(p, depth, s, loc, who);
  for (size_t i = items.size(); i-- > 0;) {
    if (items[i].splice) {
      if (r.is_const && r.datum == kNil) {
        r = items[i].q;
      } else {
        r = QQ{false, kFalse, call(core_ref("append", loc), {items[i].q.node, qq_node(r, loc)}, loc)};
      }
      continue;
    }
    // Extend our own (list ...) call with the whole run of plain elements before it.
    if (r.own_list) {
      CallNode* c = static_cast<CallNode*>(r.node);
      size_t j = i;
      while (j > 0 && !items[j - 1].splice) j--;
      gc_vector<Node*> args;
      for (size_t k = j; k <= i; k++) args.push_back(qq_node(items[k].q, loc));
      for (Node* a : c->args) args.push_back(a);
      c->args = args;
      i = j;
      continue;
    }
    r = qq_cons(items[i].q, r, loc);
  }
  return r;
}

Node* Expander::sf_quasiquote(Value x, Scope* s) {
  if (list_length(x) != 2) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  return qq_node(qq(cadr(x), 0, s, loc, car(x)), loc);
}

// ---- rewriters --------------------------------------------------------------------------------

bool Expander::feature_match(Value req, Value form) {
  Guard g(this, req);
  if (is_identifier(req)) {
    Value sym = identifier_symbol(req);
    for (const std::string& f : all_features())
      if (sym == intern(f)) return true;
    return false;
  }
  if (!is_pair(req) || !is_identifier(car(req)) || list_length(req) < 0)
    fail(intern("cond-expand"), "bad feature requirement", req, form);
  std::string op = symbol_name(identifier_symbol(car(req)));
  if (op == "and") {
    for (Value p = cdr(req); is_pair(p); p = cdr(p))
      if (!feature_match(car(p), form)) return false;
    return true;
  }
  if (op == "or") {
    for (Value p = cdr(req); is_pair(p); p = cdr(p))
      if (feature_match(car(p), form)) return true;
    return false;
  }
  if (op == "not" && list_length(req) == 2) return !feature_match(cadr(req), form);
  if (op == "library" && list_length(req) == 2) {
    Value name = cadr(req);
    if (!is_pair(name) || list_length(name) < 1) fail(intern("cond-expand"), "bad library name", name, form);
    return host_ && host_->library_exists(syntax_to_datum(name));
  }
  fail(intern("cond-expand"), "bad feature requirement", req, form);
}

Value Expander::rw_cond_expand(Value x, Scope* s) {
  if (list_length(x) < 1) bad_syntax(car(x), x);
  Value begin = core_id("begin");
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) {
    Value c = car(p);
    if (list_length(c) < 1) fail(car(x), "bad clause", c, x);
    Value req = car(c);
    bool take = (is_identifier(req) && identifier_symbol(req) == intern("else"))
                    ? true
                    : feature_match(req, x);
    if (take) {
      return cons_at(begin, cdr(c), loc_of(x));
    }
  }
  Value out = cons_at(begin, kNil, loc_of(x));
  return out;
}

Value Expander::rw_include(Value x, bool fold_case) {
  if (list_length(x) < 2) bad_syntax(car(x), x);
  std::string dir;
  SrcLoc here = loc_of(x);
  if (here.known()) dir = directory_of(source_file_name(here.file));
  gc_vector<Value> forms;
  for (Value p = cdr(x); is_pair(p); p = cdr(p)) {
    if (!is_string(car(p))) fail(car(x), "file name must be a string:", car(p), x);
    std::string name = string_to_utf8(car(p));
    bool absolute = !name.empty() && name[0] == '/';
    bool disk = host_ && host_->files_allowed();
    std::string path = absolute ? name : dir + name;
    std::string text;
    // Beside the including file first (R7RS 4.1.7 encourages it), then as given: relative to
    // the current directory, where Chez and Larceny's R7RS tests look.
    if (!read_source_text(path, disk, &text)) {
      path = name;
      if (absolute || dir.empty() || is_embedded_name(dir) || !read_source_text(path, disk, &text))
        fail(car(x), "cannot open file", car(p), x);
    }
    StringSource src(text, intern_source_file(path));
    Reader reader(src);
    if (fold_case) reader.set_fold_case(true);
    for (;;) {
      Value d = reader.read();
      if (d == kEof) break;
      forms.push_back(d);
    }
  }
  Value out = kNil;
  for (size_t i = forms.size(); i-- > 0;) out = cons(forms[i], out);
  out = cons_at(core_id("begin"), out, here);
  return out;
}

Value Expander::rw_define_record_type(Value x, Scope* s) {
  // (define-record-type name (ctor field ...) pred (field accessor [modifier]) ...)
  Value who = car(x);
  if (list_length(x) < 3) bad_syntax(who, x);
  SrcLoc loc = loc_of(x);
  Value type_name = cadr(x);
  Value ctor = caddr(x);
  Value pred = list_length(x) >= 4 ? car(cdddr(x)) : kFalse;
  Value fields = list_length(x) >= 4 ? cdr(cdddr(x)) : kNil;
  if (!is_identifier(type_name)) fail(who, "bad record type name", type_name, x);
  if (pred != kFalse && !is_identifier(pred)) fail(who, "bad predicate name", pred, x);

  gc_vector<Value> field_ids, accessors, modifiers;
  for (Value p = fields; is_pair(p); p = cdr(p)) {
    Value f = car(p);
    if (is_identifier(f)) {
      field_ids.push_back(f);
      accessors.push_back(kFalse);
      modifiers.push_back(kFalse);
      continue;
    }
    int64_t n = list_length(f);
    if (n < 1 || n > 3 || !is_identifier(car(f))) fail(who, "bad field spec", f, x);
    for (Value q = cdr(f); is_pair(q); q = cdr(q))
      if (!is_identifier(car(q))) fail(who, "bad field spec", f, x);
    field_ids.push_back(car(f));
    accessors.push_back(n >= 2 ? cadr(f) : kFalse);
    modifiers.push_back(n == 3 ? caddr(f) : kFalse);
  }
  // Field names are identifiers: two made by different macro expansions are different fields
  // even when they are spelled the same (a macro adding one `tmp` field per step of a recursion,
  // from the R7RS working group's hygiene discussion; Chibi and Sagittarius accept it). A
  // constructor's field is the field that is the same identifier, or else the one field spelled
  // the same.
  gc_vector<Value> field_syms;
  for (Value f : field_ids) field_syms.push_back(identifier_symbol(f));
  for (size_t i = 0; i < field_ids.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (field_ids[i] == field_ids[j]) fail(who, "duplicate field", field_syms[i], x);
  auto field_index = [&](Value id) -> int64_t {
    for (size_t i = 0; i < field_ids.size(); i++)
      if (field_ids[i] == id) return static_cast<int64_t>(i);
    Value sym = identifier_symbol(id);
    int64_t found = -1;
    for (size_t i = 0; i < field_syms.size(); i++)
      if (field_syms[i] == sym) {
        if (found >= 0) fail(who, "ambiguous field", id, x);
        found = static_cast<int64_t>(i);
      }
    if (found < 0) fail(who, "unknown field", id, x);
    return found;
  };

  Value q = core_id("quote"), def = core_id("define");
  auto quoted = [&](Value d) { return list({q, d}); };
  auto mkdef = [&](Value name, Value expr) {
    Value d = cons_at(def, list({name, expr}), loc);
    return d;
  };
  gc_vector<Value> defs;
  Value names_vec = make_vector(static_cast<int64_t>(field_syms.size()), kFalse);
  for (size_t i = 0; i < field_syms.size(); i++) names_vec.as<Vector>()->items()[i] = field_syms[i];
  defs.push_back(mkdef(type_name, list({core_id("%make-record-type"),
                                        quoted(identifier_symbol(type_name)), quoted(names_vec)})));
  if (ctor != kFalse) {
    Value cname;
    gc_vector<int64_t> idx;
    if (is_identifier(ctor)) {
      cname = ctor;
      for (size_t i = 0; i < field_syms.size(); i++) idx.push_back(static_cast<int64_t>(i));
    } else {
      if (list_length(ctor) < 1 || !is_identifier(car(ctor))) fail(who, "bad constructor spec", ctor, x);
      cname = car(ctor);
      for (Value p = cdr(ctor); is_pair(p); p = cdr(p)) {
        if (!is_identifier(car(p))) fail(who, "bad constructor spec", ctor, x);
        int64_t i = field_index(car(p));
        for (int64_t j : idx)
          if (j == i) fail(who, "duplicate constructor field", car(p), x);
        idx.push_back(i);
      }
    }
    Value iv = make_vector(static_cast<int64_t>(idx.size()), kFalse);
    for (size_t i = 0; i < idx.size(); i++) iv.as<Vector>()->items()[i] = make_fixnum(idx[i]);
    defs.push_back(mkdef(cname, list({core_id("%record-constructor"), type_name, quoted(iv)})));
  }
  if (pred != kFalse) defs.push_back(mkdef(pred, list({core_id("%record-predicate"), type_name})));
  for (size_t i = 0; i < field_ids.size(); i++) {
    Value idx = make_fixnum(static_cast<int64_t>(i));
    if (accessors[i] != kFalse)
      defs.push_back(mkdef(accessors[i], list({core_id("%record-accessor"), type_name, idx,
                                               quoted(identifier_symbol(accessors[i]))})));
    if (modifiers[i] != kFalse)
      defs.push_back(mkdef(modifiers[i], list({core_id("%record-modifier"), type_name, idx,
                                               quoted(identifier_symbol(modifiers[i]))})));
  }
  Value out = kNil;
  for (size_t i = defs.size(); i-- > 0;) out = cons(defs[i], out);
  out = cons_at(core_id("begin"), out, loc);
  return out;
}

}  // namespace quasi
