// syntax_rules.cpp — syntax-rules transformers: parsing, pattern matching, template transcription.
//
// Patterns and templates are interpreted directly from the syntax-rules form. A match binds each
// pattern variable to a MatchNode tree (depth = number of ellipses it sits under). Transcription
// copies the template, substituting pattern variables and renaming every other identifier to a
// fresh Identifier (one per template identifier and expansion) closed over the macro's scope.
#include <unordered_set>

#include "core/equality.hpp"
#include "eval/expander_impl.hpp"

namespace quasi {

namespace {

struct MatchNode {
  Value value = kFalse;  // depth 0
  int depth = 0;
  gc_vector<MatchNode*> items;  // depth > 0
};

struct MBind {
  Value var;
  MatchNode* node;
};
using Bindings = gc_vector<MBind>;

struct VarDepth {
  Value var;
  int depth;
};

Value vector_list(Value v) {
  Vector* vec = v.as<Vector>();
  Value out = kNil;
  for (int64_t i = vec->length(); i-- > 0;) out = cons(vec->items()[i], out);
  return out;
}

class Rules {
 public:
  Rules(Expander& ex, Macro* m, Scope* use, SrcLoc loc, Expansion* exp = nullptr)
      : ex_(ex), m_(m), use_(use), loc_(loc), exp_(exp) {}

  // The default ellipsis is `...` where it means the ellipsis: not where the macro's scope binds
  // `...` itself, as a variable or a keyword of its own (R7RS 4.3.2 and R6RS compare the
  // ellipsis like a literal, as Chez and Guile do: under (let ((... 1)) ...) a syntax-rules'
  // `...` is an ordinary identifier, a pattern variable or a reference). Unbound or global, it
  // is the ellipsis (a library importing only part of (scheme base) still has one).
  bool is_ellipsis(Value v) {
    if (m_->ellipsis == kTrue || !is_identifier(v)) return false;
    if (m_->ellipsis != kFalse) return v == m_->ellipsis;
    if (identifier_symbol(v) != sym_ellipsis_) return false;
    if (v == last_ellipsis_id_) return last_ellipsis_;
    Resolved r = ex_.resolve(v, m_->env);
    last_ellipsis_id_ = v;
    last_ellipsis_ = r.kind == Resolved::Global ||
                     (r.kind == Resolved::Keyword && r.macro->form == SpecialForm::Ellipsis);
    return last_ellipsis_;
  }
  bool is_literal(Value v) const {
    for (Value p = m_->literals; is_pair(p); p = cdr(p))
      if (car(p) == v) return true;
    return false;
  }
  bool is_underscore(Value v) const {
    return identifier_symbol(v) == sym_underscore_ && !is_literal(v);
  }

  // ---- definition-time checks ------------------------------------------------------------------
  void check_pattern(Value pat, gc_vector<Value>& vars, Value form) {
    Expander::Guard g(&ex_, pat);
    if (is_identifier(pat)) {
      if (is_ellipsis(pat)) ex_.fail(m_->name, "misplaced ellipsis in pattern", form, form);
      if (is_literal(pat) || is_underscore(pat)) return;
      for (Value v : vars)
        if (v == pat) ex_.fail(m_->name, "duplicate pattern variable", pat, form);
      vars.push_back(pat);
      return;
    }
    if (is_vector(pat)) return check_pattern(vector_list(pat), vars, form);
    if (!is_pair(pat)) return;
    if (count_pairs(pat) < 0) ex_.fail(m_->name, "circular pattern in", kUnspecified, form);
    bool seen = false, prev_elem = false;
    Value p = pat;
    for (; is_pair(p); p = cdr(p)) {
      Value e = car(p);
      if (is_ellipsis(e)) {
        if (seen || !prev_elem) ex_.fail(m_->name, "misplaced ellipsis in pattern", form, form);
        seen = true;
        prev_elem = false;
        continue;
      }
      check_pattern(e, vars, form);
      prev_elem = true;
    }
    if (p != kNil) check_pattern(p, vars, form);
  }

  // Rejects templates with cycles (they would never finish copying).
  void check_acyclic(Value t, std::unordered_set<uint64_t>& path, Value form) {
    Expander::Guard g(&ex_, t);
    if (is_vector(t)) {
      if (!path.insert(t.bits).second) ex_.fail(m_->name, "circular template in", kUnspecified, form);
      Vector* v = t.as<Vector>();
      for (int64_t i = 0; i < v->length(); i++) check_acyclic(v->items()[i], path, form);
      path.erase(t.bits);
      return;
    }
    if (!is_pair(t)) return;
    gc_vector<Value> spine;
    Value p = t;
    for (; is_pair(p); p = cdr(p)) {
      if (!path.insert(p.bits).second) ex_.fail(m_->name, "circular template in", kUnspecified, form);
      spine.push_back(p);
    }
    for (Value s : spine) check_acyclic(car(s), path, form);
    check_acyclic(p, path, form);
    for (Value s : spine) path.erase(s.bits);
  }

  // ---- matching --------------------------------------------------------------------------------
  void pattern_vars(Value pat, int depth, gc_vector<VarDepth>& out) {
    if (is_identifier(pat)) {
      if (!is_ellipsis(pat) && !is_literal(pat) && !is_underscore(pat))
        out.push_back(VarDepth{pat, depth});
      return;
    }
    if (is_vector(pat)) return pattern_vars(vector_list(pat), depth, out);
    Value p = pat;
    for (; is_pair(p); p = cdr(p)) {
      Value next = cdr(p);
      if (is_pair(next) && is_ellipsis(car(next))) {
        pattern_vars(car(p), depth + 1, out);
        p = next;
      } else {
        pattern_vars(car(p), depth, out);
      }
    }
    if (p != kNil && is_identifier(p)) pattern_vars(p, depth, out);
  }

  bool match(Value pat, Value form, Bindings& b) {
    if (is_identifier(pat)) {
      if (is_literal(pat))
        return is_identifier(form) && ex_.free_identifier_eq(form, use_, pat, m_->env);
      if (is_underscore(pat)) return true;
      MatchNode* n = gc_new<MatchNode>();
      n->value = form;
      b.push_back(MBind{pat, n});
      return true;
    }
    if (is_pair(pat)) {
      while (is_pair(pat)) {
        Value next = cdr(pat);
        if (is_pair(next) && is_ellipsis(car(next))) {
          Value sub = car(pat), rest = cdr(next);
          int64_t min_rest = count_pairs(rest);
          int64_t avail = count_pairs(form);
          if (avail < 0 || avail < min_rest) return false;
          int64_t k = avail - min_rest;
          gc_vector<VarDepth> vars;
          pattern_vars(sub, 0, vars);
          gc_vector<MatchNode*> seqs;
          for (const VarDepth& v : vars) {
            MatchNode* n = gc_new<MatchNode>();
            n->depth = v.depth + 1;
            seqs.push_back(n);
          }
          for (int64_t i = 0; i < k; i++) {
            Bindings tmp;
            if (!match(sub, car(form), tmp)) return false;
            for (size_t j = 0; j < vars.size(); j++) {
              MatchNode* found = nullptr;
              for (const MBind& mb : tmp)
                if (mb.var == vars[j].var) found = mb.node;
              seqs[j]->items.push_back(found);
            }
            form = cdr(form);
          }
          for (size_t j = 0; j < vars.size(); j++) b.push_back(MBind{vars[j].var, seqs[j]});
          pat = rest;
          continue;
        }
        if (!is_pair(form)) return false;
        if (!match(car(pat), car(form), b)) return false;
        pat = next;
        form = cdr(form);
      }
      return match(pat, form, b);
    }
    if (pat == kNil) return form == kNil;
    if (is_vector(pat)) return is_vector(form) && match(vector_list(pat), vector_list(form), b);
    return equal(pat, form);
  }

  // ---- transcription ---------------------------------------------------------------------------
  static MatchNode* lookup(const Bindings& b, Value var) {
    for (size_t i = b.size(); i-- > 0;)
      if (b[i].var == var) return b[i].node;
    return nullptr;
  }

  Value rename(Value id) {
    if (!exp_) exp_ = gc_new<Expansion>();
    return expansion_rename(exp_, id, m_->env);
  }

  // Identifiers of the template `t` with their ellipsis depth inside t.
  void template_vars(Value t, int depth, bool ell, gc_vector<VarDepth>& out) {
    if (is_identifier(t)) {
      out.push_back(VarDepth{t, depth});
      return;
    }
    if (is_vector(t)) return template_vars(vector_list(t), depth, ell, out);
    if (!is_pair(t)) return;
    if (ell && is_ellipsis(car(t)) && is_pair(cdr(t))) return template_vars(car(cdr(t)), depth, false, out);
    Value p = t;
    while (is_pair(p)) {
      Value sub = car(p), next = cdr(p);
      int extra = 0;
      while (ell && is_pair(next) && is_ellipsis(car(next))) {
        extra++;
        next = cdr(next);
      }
      template_vars(sub, depth + extra, ell, out);
      p = next;
    }
    if (p != kNil) template_vars(p, depth, ell, out);
  }

  Value transcribe(Value t, const Bindings& b, bool ell) {
    Expander::Guard g(&ex_, t);
    if (is_identifier(t)) {
      MatchNode* n = lookup(b, t);
      if (n) {
        if (n->depth > 0)
          ex_.fail(m_->name, "pattern variable used without ellipsis in template:", t, kFalse);
        return n->value;
      }
      return rename(t);
    }
    if (is_vector(t)) return list_vector(transcribe(vector_list(t), b, ell));
    if (!is_pair(t)) return t;
    if (ell && is_ellipsis(car(t))) {
      if (!is_pair(cdr(t)) || cdr(cdr(t)) != kNil)
        ex_.fail(m_->name, "misplaced ellipsis in template", kUnspecified, kFalse);
      return transcribe(car(cdr(t)), b, false);
    }
    gc_vector<Value> out;
    Value p = t;
    while (is_pair(p)) {
      Value sub = car(p), next = cdr(p);
      int extra = 0;
      while (ell && is_pair(next) && is_ellipsis(car(next))) {
        extra++;
        next = cdr(next);
      }
      if (extra > 0) expand_ellipsis(sub, b, extra, out);
      else out.push_back(transcribe(sub, b, ell));
      p = next;
    }
    Value r = p == kNil ? kNil : transcribe(p, b, ell);
    for (size_t i = out.size(); i-- > 0;) {
      r = cons_at(out[i], r, loc_);
    }
    return r;
  }

  void expand_ellipsis(Value sub, const Bindings& b, int extra, gc_vector<Value>& out) {
    gc_vector<VarDepth> occ;
    template_vars(sub, 0, true, occ);
    gc_vector<VarDepth> controlling;  // var, and its index in occ is irrelevant
    gc_vector<MatchNode*> nodes;
    for (const VarDepth& o : occ) {
      MatchNode* n = lookup(b, o.var);
      if (!n || n->depth <= o.depth) continue;
      bool dup = false;
      for (const VarDepth& c : controlling)
        if (c.var == o.var) dup = true;
      if (dup) continue;
      controlling.push_back(o);
      nodes.push_back(n);
    }
    if (controlling.empty())
      ex_.fail(m_->name, "no pattern variable before ellipsis in template", kUnspecified, kFalse);
    size_t len = nodes[0]->items.size();
    for (MatchNode* n : nodes)
      if (n->items.size() != len)
        ex_.fail(m_->name, "pattern variables of different lengths under one ellipsis",
                 kUnspecified, kFalse);
    for (size_t i = 0; i < len; i++) {
      Bindings inner = b;
      for (size_t j = 0; j < nodes.size(); j++)
        inner.push_back(MBind{controlling[j].var, nodes[j]->items[i]});
      if (extra > 1) expand_ellipsis(sub, inner, extra - 1, out);
      else out.push_back(transcribe(sub, inner, true));
    }
  }

 private:
  Expander& ex_;
  Macro* m_;
  Scope* use_;
  SrcLoc loc_;
  Expansion* exp_;
  Value sym_ellipsis_ = intern("...");
  Value last_ellipsis_id_ = kFalse;  // is_ellipsis's answer for the identifier it last resolved
  bool last_ellipsis_ = false;
  Value sym_underscore_ = intern("_");

  static Value list_vector(Value l) {
    int64_t n = 0;
    for (Value p = l; is_pair(p); p = cdr(p)) n++;
    Value v = make_vector(n, kFalse);
    int64_t i = 0;
    for (Value p = l; is_pair(p); p = cdr(p)) v.as<Vector>()->items()[i++] = car(p);
    return v;
  }
};

}  // namespace

Value Expander::make_syntax_rules(Value spec, Scope* s, Value name) {
  Value who = car(spec);
  if (list_length(spec) < 2) bad_syntax(who, spec);
  Value p = cdr(spec);
  Value ellipsis = kFalse;
  if (is_identifier(car(p))) {
    ellipsis = car(p);
    p = cdr(p);
    if (!is_pair(p)) bad_syntax(who, spec);
  }
  Value lits = car(p);
  if (list_length(lits) < 0) fail(who, "bad literals in", spec, spec);
  bool ellipsis_literal = false;
  for (Value l = lits; is_pair(l); l = cdr(l)) {
    if (!is_identifier(car(l))) fail(who, "bad literal", car(l), spec);
    if (ellipsis == kFalse ? identifier_symbol(car(l)) == intern("...") : car(l) == ellipsis)
      ellipsis_literal = true;
  }
  Value rules = cdr(p);
  Value m = make_macro(SpecialForm::None, is_identifier(name) ? identifier_symbol(name) : name);
  Macro* mac = m.as<Macro>();
  mac->ellipsis = ellipsis_literal ? kTrue : ellipsis;
  mac->literals = lits;
  mac->rules = rules;
  mac->env = s;
  Rules r(*this, mac, s, loc_of(spec));
  for (Value q = rules; is_pair(q); q = cdr(q)) {
    Value rule = car(q);
    if (list_length(rule) != 2 || !is_pair(car(rule))) fail(who, "bad rule", rule, spec);
    gc_vector<Value> vars;
    r.check_pattern(cdr(car(rule)), vars, rule);
    std::unordered_set<uint64_t> path;
    r.check_acyclic(car(cdr(rule)), path, rule);
  }
  return m;
}

// ---- syntax-case's patterns and templates ---------------------------------------------------

namespace {

Value match_value(MatchNode* n) {
  if (!n) return kNil;
  if (n->depth == 0) return n->value;
  Value out = kNil;
  for (size_t i = n->items.size(); i-- > 0;) out = cons(match_value(n->items[i]), out);
  return out;
}

MatchNode* match_node(Expander& ex, Macro* tmpl, Value v, int depth) {
  MatchNode* n = gc_new<MatchNode>();
  n->depth = depth;
  if (depth == 0) {
    n->value = v;
    return n;
  }
  if (list_length(v) < 0)
    ex.fail(intern("syntax"), "value of a pattern variable under ellipsis is not a list:", v,
            tmpl->rules);
  for (Value p = v; is_pair(p); p = cdr(p)) n->items.push_back(match_node(ex, tmpl, car(p), depth - 1));
  return n;
}

}  // namespace

void syntax_pattern_check(Expander& ex, Macro* pat, Value form) {
  Rules r(ex, pat, pat->env, ex.loc_of(form));
  gc_vector<Value> vars;
  r.check_pattern(pat->rules, vars, form);
  gc_vector<VarDepth> vd;
  r.pattern_vars(pat->rules, 0, vd);
  Value out = kNil;
  for (size_t i = vd.size(); i-- > 0;) out = cons(cons(vd[i].var, make_fixnum(vd[i].depth)), out);
  pat->pvars = out;
}

void syntax_template_check(Expander& ex, Macro* tmpl, Value form) {
  Rules r(ex, tmpl, tmpl->env, ex.loc_of(form));
  std::unordered_set<uint64_t> path;
  r.check_acyclic(tmpl->rules, path, form);
}

bool syntax_match(Expander& ex, Macro* pat, Scope* use, Value form, gc_vector<Value>& values) {
  Rules r(ex, pat, use, ex.loc_of(form));
  Bindings b;
  if (!r.match(pat->rules, form, b)) return false;
  for (Value p = pat->pvars; is_pair(p); p = cdr(p)) values.push_back(match_value(Rules::lookup(b, car(car(p)))));
  return true;
}

Value syntax_transcribe(Expander& ex, Macro* tmpl, Expansion* exp, SrcLoc loc, const Value* values) {
  Rules r(ex, tmpl, tmpl->env, loc, exp);
  Bindings b;
  size_t i = 0;
  for (Value p = tmpl->pvars; is_pair(p); p = cdr(p), i++)
    b.push_back(MBind{car(car(p)), match_node(ex, tmpl, values[i], cdr(car(p)).fixnum())});
  return r.transcribe(tmpl->rules, b, true);
}

Value Expander::apply_syntax_rules(Macro* m, Value form, Scope* use) {
  Rules r(*this, m, use, loc_of(form));
  for (Value q = m->rules; is_pair(q); q = cdr(q)) {
    Value rule = car(q);
    Bindings b;
    if (r.match(cdr(car(rule)), cdr(form), b)) return r.transcribe(car(cdr(rule)), b, true);
  }
  fail(m->name, "no matching syntax-rules clause for", form, form);
}

}  // namespace quasi
