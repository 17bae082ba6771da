// syntax_case.cpp — procedural macros on the renaming expander: transformer expressions run at
// expansion time, syntax-case / syntax / quasisyntax / with-syntax expanded into calls of their
// run-time helpers, and those helpers (syntax_case.hpp).
//
// A syntax-case clause compiles to (%syntax-case-match x 'P): P holds the pattern, its literals,
// the scope they mean something in and its pattern variables; the clause body runs with each
// pattern variable bound (as a PatternVar keyword, so that only `syntax` can use it) to a local
// holding its match. `(syntax t)` compiles to (%syntax-template 'T pv ...), T holding t and which
// of its identifiers are pattern variables; every other identifier of t is renamed in the current
// transformer call's Expansion, so a template means what it says where the transformer was
// written (hygiene), and datum->syntax can make identifiers of the same expansion (breaking it on
// purpose).
#include "eval/syntax_case.hpp"

#include "core/alloc_watch.hpp"
#include "core/procedure.hpp"
#include "eval/expander_impl.hpp"

namespace quasi {

namespace {

inline Value cadr(Value x) { return car(cdr(x)); }
inline Value cddr(Value x) { return cdr(cdr(x)); }
inline Value caddr(Value x) { return car(cddr(x)); }
inline Value cdddr(Value x) { return cdr(cddr(x)); }

constexpr int kMaxDepth = 10000;

// The innermost transformer call of this thread (on the C++ stack of Expander::apply_procedural).
struct TransformerCall {
  Expander* ex;
  Scope* use;       // scope of the macro use
  Scope* def;       // scope of the macro definition
  Expansion* exp;   // this call's renames
  Expansion* inject;  // ir-macro-transformer: marks identifiers that stand for input symbols
  SrcLoc loc;       // of the macro use
  TransformerCall* prev;
};
thread_local TransformerCall* t_call = nullptr;

struct CallScope {
  TransformerCall* saved;
  explicit CallScope(TransformerCall* c) : saved(t_call) {
    c->prev = t_call;
    t_call = c;
  }
  ~CallScope() { t_call = saved; }
};

void too_deep(const char* who) { throw_condition("syntax", who, "nesting too deep in syntax"); }

// Copies pairs and vectors of `v`, replacing each leaf by f(leaf) (the leaves f changes).
template <typename F>
Value map_leaves(Value v, F& f, int depth, const char* who) {
  if (depth > kMaxDepth) too_deep(who);
  if (is_pair(v)) {
    gc_vector<Value> items;
    Value p = v;
    for (int64_t n = 0; is_pair(p); p = cdr(p), n++) {
      if (n > 10000000) too_deep(who);  // circular
      items.push_back(map_leaves(car(p), f, depth + 1, who));
    }
    Value out = map_leaves(p, f, depth + 1, who);
    Value q = v;
    gc_vector<Value> cells;
    for (; is_pair(q); q = cdr(q)) cells.push_back(q);
    for (size_t i = items.size(); i-- > 0;) {
      out = cons_at(items[i], out, pair_srcloc(cells[i]));
    }
    return out;
  }
  if (is_vector(v)) {
    Vector* src = v.as<Vector>();
    Value out = make_vector(src->length(), kFalse);
    for (int64_t i = 0; i < src->length(); i++)
      out.as<Vector>()->items()[i] = map_leaves(src->items()[i], f, depth + 1, who);
    return out;
  }
  return f(v);
}

// The identifier `sym` would be had it been written where `ctx` is.
Value identifier_like(Value ctx, Value sym) {
  if (!is_identifier_object(ctx)) return sym;
  Identifier* c = ctx.as<Identifier>();
  Value key = identifier_like(c->name, sym);
  if (!c->expansion) c->expansion = gc_new<Expansion>();
  return expansion_rename(c->expansion, key, c->scope);
}

// A procedure of the core environment, for the renaming transformers' arguments.
Value core_procedure(Environment* core, const char* name) {
  Value b = core->lookup(intern(name));
  return has_type(b, Type::GlobalCell) ? b.as<GlobalCell>()->value : b;
}

Macro* check_holder(Value v, SpecialForm f, const char* who) {
  if (!is_macro(v) || v.as<Macro>()->form != f) type_error(who, "a compiled syntax form", v);
  return v.as<Macro>();
}

}  // namespace

// ---- the expander side ------------------------------------------------------------------------

// Each expansion counts toward the evaluation's step limit: one step, plus one per 64 bytes it
// allocated, so a macro whose expansions grow exponentially stops at the step limit as soon as
// at the time or memory limit (core/alloc_watch.hpp).
Value Expander::apply_macro(Macro* m, Value form, Scope* use) {
  uint64_t before = tl_allocated_bytes;
  Value out = m->form == SpecialForm::None ? apply_syntax_rules(m, form, use) : apply_procedural(m, form, use);
  charge_steps(1 + (tl_allocated_bytes - before) / 64);
  return out;
}

Value Expander::make_procedural(Value spec, Scope* s, Value name, Value who) {
  if (!host_) fail(who, "procedural macros need an engine:", spec, spec);
  Scope* barrier = new_scope(s);
  barrier->barrier = true;
  Node* ir = expand(spec, barrier);
  Value v = host_->run(ir, s->top);
  Value m;
  if (is_macro(v) && (v.as<Macro>()->form == SpecialForm::ErTransformer ||
                      v.as<Macro>()->form == SpecialForm::IrTransformer)) {
    m = make_macro(v.as<Macro>()->form, is_identifier(name) ? identifier_symbol(name) : name);
    m.as<Macro>()->proc = v.as<Macro>()->proc;
  } else if (is_procedure(v)) {
    m = make_macro(SpecialForm::Procedural, is_identifier(name) ? identifier_symbol(name) : name);
    m.as<Macro>()->proc = v;
  } else {
    fail(who, "transformer is not a procedure or syntax-rules:", v, spec);
  }
  m.as<Macro>()->env = s;
  return m;
}

Value Expander::apply_procedural(Macro* m, Value form, Scope* use) {
  if (!host_) fail(m->name, "procedural macros need an engine:", form, form);
  TransformerCall call{this, use, m->env, gc_new<Expansion>(), nullptr, loc_of(form), nullptr};
  CallScope in(&call);
  switch (m->form) {
    case SpecialForm::Procedural:
      return host_->apply(m->proc, 1, &form);
    case SpecialForm::ErTransformer: {
      Value args[3] = {form, core_procedure(core_, "%er-rename"),
                       core_procedure(core_, "free-identifier=?")};
      return host_->apply(m->proc, 3, args);
    }
    case SpecialForm::IrTransformer: {
      call.inject = gc_new<Expansion>();
      Value args[3] = {syntax_ir_inject(form), core_procedure(core_, "%ir-inject"),
                       core_procedure(core_, "free-identifier=?")};
      Value out = host_->apply(m->proc, 3, args);
      // Symbols the transformer made are renamed; injected input symbols are themselves again.
      auto unwrap = [&](Value leaf) -> Value {
        if (is_symbol(leaf)) return expansion_rename(call.exp, leaf, m->env);
        if (is_identifier_object(leaf) && leaf.as<Identifier>()->expansion == call.inject)
          return leaf.as<Identifier>()->name;
        return leaf;
      };
      return map_leaves(out, unwrap, 0, "ir-macro-transformer");
    }
    default:
      bad_syntax(m->name, form);
  }
}

Node* Expander::sf_syntax_case(Value x, Scope* s) {
  // (syntax-case expr (literal ...) (pattern [fender] output) ...)
  Value who = car(x);
  if (list_length(x) < 3) bad_syntax(who, x);
  SrcLoc loc = loc_of(x);
  Value lits = caddr(x);
  if (list_length(lits) < 0) fail(who, "bad literals in", x, x);
  for (Value l = lits; is_pair(l); l = cdr(l)) {
    Value id = car(l);
    if (!is_identifier(id) || identifier_symbol(id) == intern("...") ||
        identifier_symbol(id) == intern("_"))
      fail(who, "bad literal", id, x);
  }
  gc_vector<Value> clauses;
  for (Value p = cdddr(x); is_pair(p); p = cdr(p)) clauses.push_back(car(p));
  Var* xv = make_var(intern("x"));
  Node* rest = call(core_ref("%syntax-case-fail", loc), {gc_new<LocalRefNode>(xv, loc)}, loc);
  for (size_t i = clauses.size(); i-- > 0;) {
    Value c = clauses[i];
    Guard g(this, c);
    int64_t n = list_length(c);
    if (n != 2 && n != 3) fail(who, "bad clause", c, x);
    SrcLoc cloc = loc_of(c);
    Value pm = make_macro(SpecialForm::SyntaxPattern, intern("syntax-case"));
    Macro* pat = pm.as<Macro>();
    pat->rules = car(c);
    pat->literals = lits;
    pat->env = s;
    syntax_pattern_check(*this, pat, c);
    Scope* inner = new_scope(s);
    gc_vector<Var*> params;
    for (Value p = pat->pvars; is_pair(p); p = cdr(p)) {
      Value id = car(car(p));
      Value sym = identifier_symbol(id);
      Var* v = make_var(sym);
      Value pv = make_macro(SpecialForm::PatternVar, sym);
      pv.as<Macro>()->var = v;
      pv.as<Macro>()->depth = static_cast<int>(cdr(car(p)).fixnum());
      bind_macro(inner, id, pv);
      params.push_back(v);
    }
    Var* next = make_var(intern("next"));
    Node* call_next = call(gc_new<LocalRefNode>(next, cloc), {}, cloc);
    Node* out = expand(n == 3 ? caddr(c) : cadr(c), inner);
    if (n == 3) out = gc_new<IfNode>(expand(cadr(c), inner), out, call_next, cloc);
    Var* mv = make_var(intern("match"));
    Node* match = call(core_ref("%syntax-case-match", cloc),
                       {gc_new<LocalRefNode>(xv, cloc), konst(pm, cloc)}, cloc);
    Node* body = params.empty()
                     ? out
                     : call(core_ref("apply", cloc),
                            {make_lambda(params, nullptr, out, kFalse, cloc),
                             gc_new<LocalRefNode>(mv, cloc)},
                            cloc);
    LetNode* let_m = gc_new<LetNode>(NodeKind::Let, cloc);
    let_m->vars.push_back(mv);
    let_m->inits.push_back(match);
    let_m->body = gc_new<IfNode>(gc_new<LocalRefNode>(mv, cloc), body, call_next, cloc);
    LetNode* let_next = gc_new<LetNode>(NodeKind::Let, cloc);
    let_next->vars.push_back(next);
    let_next->inits.push_back(make_lambda({}, nullptr, rest, kFalse, cloc));
    let_next->body = let_m;
    rest = let_next;
  }
  LetNode* let_x = gc_new<LetNode>(NodeKind::Let, loc);
  let_x->vars.push_back(xv);
  let_x->inits.push_back(expand(cadr(x), s));
  let_x->body = rest;
  return let_x;
}

Node* Expander::sf_syntax(Value x, Scope* s) {
  if (list_length(x) != 2) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Value tm = make_macro(SpecialForm::SyntaxTemplate, intern("syntax"));
  Macro* t = tm.as<Macro>();
  t->rules = cadr(x);
  t->env = s;
  syntax_template_check(*this, t, x);
  // Which identifiers of the template are pattern variables (each identifier object once).
  gc_vector<Value> ids;
  gc_vector<Node*> args;
  Value pvars = kNil;
  auto visit = [&](auto& self, Value v, int depth) -> void {
    if (depth > kMaxDepth) fail(car(x), "nesting too deep in", x, x);
    if (is_identifier(v)) {
      for (Value seen : ids)
        if (seen == v) return;
      ids.push_back(v);
      Resolved r = resolve(v, s);
      if (r.kind != Resolved::Keyword || r.macro->form != SpecialForm::PatternVar) return;
      if (r.out_of_phase)
        fail(car(x), "pattern variable of the program used in a macro transformer:", v, x);
      pvars = cons(cons(v, make_fixnum(r.macro->depth)), pvars);
      args.push_back(gc_new<LocalRefNode>(r.macro->var, loc));
      return;
    }
    if (is_vector(v)) {
      Vector* vec = v.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) self(self, vec->items()[i], depth + 1);
      return;
    }
    if (!is_pair(v)) return;
    for (; is_pair(v); v = cdr(v)) self(self, car(v), depth + 1);
    if (v != kNil) self(self, v, depth + 1);
  };
  visit(visit, t->rules, 0);
  t->pvars = reverse_list(pvars);
  CallNode* c = gc_new<CallNode>(core_ref("%syntax-template", loc), loc);
  c->args.push_back(konst(tm, loc));
  for (Node* a : args) c->args.push_back(a);
  return c;
}

Node* Expander::sf_quasisyntax(Value x, Scope* s) {
  // #`t: each #,e (and #,@e) at level 0 becomes a pattern variable of depth 0 (1, spliced with
  // an ellipsis) bound to e's value; the rest is an ordinary `syntax` template.
  if (list_length(x) != 2) bad_syntax(car(x), x);
  SrcLoc loc = loc_of(x);
  Scope* inner = new_scope(s);
  gc_vector<Var*> vars;
  gc_vector<Node*> inits;
  Value ellipsis = intern("...");
  auto hole = [&](Value e, int depth) {
    Value id = make_identifier(intern(depth ? "unsyntax-splicing" : "unsyntax"), s);
    Var* v = make_var(identifier_symbol(id));
    Value pv = make_macro(SpecialForm::PatternVar, identifier_symbol(id));
    pv.as<Macro>()->var = v;
    pv.as<Macro>()->depth = depth;
    bind_macro(inner, id, pv);
    vars.push_back(v);
    inits.push_back(expand(e, s));
    return id;
  };
  auto tagged = [&](Value v, SpecialForm f) {
    return is_pair(v) && is_keyword(car(v), s, f) && is_pair(cdr(v)) && cddr(v) == kNil;
  };
  auto walk = [&](auto& self, Value t, int level, int depth) -> Value {
    if (depth > kMaxDepth) fail(car(x), "nesting too deep in", x, x);
    if (is_vector(t)) {
      Vector* vec = t.as<Vector>();
      Value l = kNil;
      for (int64_t i = vec->length(); i-- > 0;) l = cons(vec->items()[i], l);
      Value m = self(self, l, level, depth + 1);
      int64_t n = list_length(m);
      Value out = make_vector(n, kFalse);
      int64_t i = 0;
      for (Value p = m; is_pair(p); p = cdr(p)) out.as<Vector>()->items()[i++] = car(p);
      return out;
    }
    if (!is_pair(t)) return t;
    if (tagged(t, SpecialForm::Unsyntax)) {
      if (level == 0) return hole(cadr(t), 0);
      return list({car(t), self(self, cadr(t), level - 1, depth + 1)});
    }
    if (tagged(t, SpecialForm::Quasisyntax)) return list({car(t), self(self, cadr(t), level + 1, depth + 1)});
    gc_vector<Value> out;
    Value p = t;
    for (; is_pair(p); p = cdr(p)) {
      Value e = car(p);
      if (level == 0 && tagged(e, SpecialForm::UnsyntaxSplicing)) {
        out.push_back(hole(cadr(e), 1));
        out.push_back(ellipsis);
        continue;
      }
      if (level > 0 && tagged(e, SpecialForm::UnsyntaxSplicing)) {
        out.push_back(list({car(e), self(self, cadr(e), level - 1, depth + 1)}));
        continue;
      }
      out.push_back(self(self, e, level, depth + 1));
    }
    Value r = p == kNil ? kNil : self(self, p, level, depth + 1);
    // t is a pair (walk returned above otherwise): out holds at least its car.
    for (size_t i = out.size(); i-- > 1;) r = cons(out[i], r);
    return cons_at(out[0], r, loc_of(t));
  };
  Value tmpl = walk(walk, cadr(x), 0, 0);
  Value form = cons_at(core_id("syntax"), list({tmpl}), loc);
  Node* body = sf_syntax(form, inner);
  if (vars.empty()) return body;
  LetNode* let = gc_new<LetNode>(NodeKind::Let, loc);
  let->vars = vars;
  let->inits = inits;
  let->body = body;
  return let;
}

Value Expander::rw_with_syntax(Value x, Scope* s) {
  // (with-syntax ((pattern expr) ...) body ...) =>
  // (syntax-case (list expr ...) () ((pattern ...) (let () body ...)))
  Value who = car(x);
  if (list_length(x) < 3 || list_length(cadr(x)) < 0) bad_syntax(who, x);
  gc_vector<Value> pats, exprs;
  for (Value p = cadr(x); is_pair(p); p = cdr(p)) {
    if (list_length(car(p)) != 2) fail(who, "bad binding", car(p), x);
    pats.push_back(car(car(p)));
    exprs.push_back(cadr(car(p)));
  }
  Value pl = kNil, el = kNil;
  for (size_t i = pats.size(); i-- > 0;) {
    pl = cons(pats[i], pl);
    el = cons(exprs[i], el);
  }
  SrcLoc loc = loc_of(x);
  Value body = cons_at(core_id("let"), cons(kNil, cddr(x)), loc);
  return cons_at(core_id("syntax-case"), list({cons(core_id("list"), el), kNil, list({pl, body})}), loc);
}

// ---- the run-time side ------------------------------------------------------------------------

Value syntax_case_match(Value form, Value pattern, Environment* env) {
  Macro* pat = check_holder(pattern, SpecialForm::SyntaxPattern, "%syntax-case-match");
  gc_vector<Value> values;
  bool ok;
  if (t_call) {
    ok = syntax_match(*t_call->ex, pat, t_call->use, form, values);
  } else {
    Expander ex(pat->env->top, pat->env->top);
    ok = syntax_match(ex, pat, pat->env, form, values);
  }
  if (!ok) return kFalse;
  Value out = kNil;
  for (size_t i = values.size(); i-- > 0;) out = cons(values[i], out);
  return out;
}

void syntax_case_fail(Value form) {
  syntax_violation(intern("syntax-case"), make_string_utf8("no clause matches"), form, kFalse);
}

Value syntax_template_fill(Value tmpl, int argc, const Value* argv, Environment* env) {
  Macro* t = check_holder(tmpl, SpecialForm::SyntaxTemplate, "%syntax-template");
  if (t_call) return syntax_transcribe(*t_call->ex, t, t_call->exp, t_call->loc, argv);
  Expander ex(t->env->top, t->env->top);
  return syntax_transcribe(ex, t, gc_new<Expansion>(), SrcLoc{}, argv);
}

bool syntax_free_identifier_eq(Value a, Value b, Environment* env) {
  if (!is_identifier(a)) type_error("free-identifier=?", "an identifier", a);
  if (!is_identifier(b)) type_error("free-identifier=?", "an identifier", b);
  if (t_call) return t_call->ex->free_identifier_eq(a, t_call->use, b, t_call->use);
  Expander ex(env, env);
  Scope* root = gc_new<Scope>(nullptr, env);
  return ex.free_identifier_eq(a, root, b, root);
}

Value syntax_datum_to_syntax(Value ctx, Value datum) {
  if (!is_identifier(ctx)) type_error("datum->syntax", "an identifier", ctx);
  auto f = [&](Value leaf) -> Value { return is_symbol(leaf) ? identifier_like(ctx, leaf) : leaf; };
  return map_leaves(datum, f, 0, "datum->syntax");
}

Value syntax_generate_temporaries(Value list, Environment* env) {
  if (list_length(list) < 0) type_error("generate-temporaries", "a list", list);
  Scope* scope = t_call ? t_call->def : gc_new<Scope>(nullptr, env);
  Value out = kNil;
  for (Value p = list; is_pair(p); p = cdr(p)) {
    Value base = is_identifier(car(p)) ? identifier_symbol(car(p)) : intern("t");
    out = cons(make_identifier(base, scope), out);
  }
  return reverse_list(out);
}

Value syntax_er_rename(Value sym) {
  if (!is_identifier(sym)) type_error("rename", "an identifier", sym);
  if (!t_call) throw_error("rename", "called outside a macro transformer", list({sym}));
  return expansion_rename(t_call->exp, sym, t_call->def);
}

Value syntax_ir_inject(Value x) {
  if (!t_call || !t_call->inject) throw_error("inject", "called outside an ir-macro-transformer", list({x}));
  auto f = [&](Value leaf) -> Value {
    return is_symbol(leaf) ? expansion_rename(t_call->inject, leaf, t_call->use) : leaf;
  };
  return map_leaves(x, f, 0, "inject");
}

Value make_renaming_transformer(Value proc, bool implicit) {
  const char* who = implicit ? "ir-macro-transformer" : "er-macro-transformer";
  if (!is_procedure(proc)) type_error(who, "a procedure", proc);
  Value m = make_macro(implicit ? SpecialForm::IrTransformer : SpecialForm::ErTransformer, intern(who));
  m.as<Macro>()->proc = proc;
  return m;
}

void syntax_violation(Value who, Value message, Value form, Value subform) {
  Value who_sym = is_identifier(who) ? identifier_symbol(who)
                  : is_string(who)   ? intern(string_to_utf8(who))
                                     : kFalse;
  if (who == kFalse && is_pair(form) && is_identifier(car(form))) who_sym = identifier_symbol(car(form));
  if (who == kFalse && is_identifier(form)) who_sym = identifier_symbol(form);
  Value irritants = list({syntax_to_datum(form)});
  if (subform != kFalse) irritants = list({syntax_to_datum(form), syntax_to_datum(subform)});
  SrcLoc loc;
  if (is_pair(subform)) loc = pair_srcloc(subform);
  if (!loc.known() && is_pair(form)) loc = pair_srcloc(form);
  if (!loc.known() && t_call) loc = t_call->loc;
  Value msg = is_string(message) ? message : make_string_utf8("bad syntax");
  throw SchemeError{make_condition(intern("syntax"), who_sym, msg, irritants, loc)};
}

}  // namespace quasi
