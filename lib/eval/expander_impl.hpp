// expander_impl.hpp — internals shared by expander.cpp and syntax_rules.cpp. Not a public header.
#pragma once

#include <string>

#include "core/cstack.hpp"
#include "core/error.hpp"
#include "eval/expander.hpp"

namespace quasi {

// What an identifier means at one point of the program.
struct Resolved {
  enum Kind : uint8_t { Local, Keyword, Global } kind = Global;
  Var* var = nullptr;        // Local
  Macro* macro = nullptr;    // Keyword
  Environment* env = nullptr;  // Global: the top-level environment and the symbol
  Value sym = kFalse;
  bool out_of_phase = false;   // a local variable or pattern variable seen across a barrier
};


class Expander {
 public:
  Expander(Environment* env, Environment* core, ExpandHost* host = nullptr);

  Node* toplevel(Value form);

  // ---- identifiers -----------------------------------------------------------------------------
  Resolved resolve(Value id, Scope* s);
  bool same_binding(const Resolved& a, const Resolved& b);
  bool free_identifier_eq(Value a, Scope* sa, Value b, Scope* sb);
  // `id` is an identifier bound (in s) to the special form f.
  bool is_keyword(Value id, Scope* s, SpecialForm f);
  // The keyword binding of a form's head, or null.
  Macro* head_macro(Value form, Scope* s);

  // ---- syntax-rules (syntax_rules.cpp) ---------------------------------------------------------
  Value make_syntax_rules(Value spec, Scope* s, Value name);
  Value apply_syntax_rules(Macro* m, Value form, Scope* use);
  // Any transformer (is_transformer_form): syntax-rules here, procedural in syntax_case.cpp.
  Value apply_macro(Macro* m, Value form, Scope* use);
  Value apply_procedural(Macro* m, Value form, Scope* use);

  // ---- syntax-case (syntax_case.cpp) -----------------------------------------------------------
  Node* sf_syntax_case(Value x, Scope* s);
  Node* sf_syntax(Value x, Scope* s);
  Node* sf_quasisyntax(Value x, Scope* s);
  Value rw_with_syntax(Value x, Scope* s);
  // The Macro a non-syntax-rules transformer expression evaluates to.
  Value make_procedural(Value spec, Scope* s, Value name, Value who);

  // ---- errors ----------------------------------------------------------------------------------
  // Throws a 'syntax condition "who: msg irritant" located at `at` (or the enclosing form).
  [[noreturn]] void fail(Value who, const std::string& msg, Value irritant, Value at);
  [[noreturn]] void fail_list(Value who, const std::string& msg, Value irritants, Value at);
  [[noreturn]] void bad_syntax(Value who, Value form) { fail(who, "bad syntax in", form, form); }
  SrcLoc loc_of(Value form) const {
    SrcLoc l = pair_srcloc(form);
    return l.known() ? l : loc_;
  }

  SrcLoc loc_;  // of the nearest enclosing form with a known location
  int depth_ = 0;
  Environment* env_;
  Environment* core_;
  ExpandHost* host_;
  Scope* root_;       // root scope of env_
  Scope* core_root_;  // root scope of core_

  // ---- nesting guard ---------------------------------------------------------------------------
  struct Guard {
    Expander* e;
    SrcLoc saved;
    Guard(Expander* ex, Value form);
    ~Guard() {
      e->depth_--;
      e->loc_ = saved;
    }
  };

 private:
  struct BodyItem;

  // expressions
  Node* expand(Value x, Scope* s);
  Node* expand_named(Value x, Scope* s, Value name);
  Node* expand_ref(Value id, Scope* s, Value form);
  Node* expand_literal(Value x);
  Node* expand_call(Value x, Scope* s);
  Node* expand_seq(Value exprs, Scope* s, Value who, Value form);
  Node* expand_body(Value body, Scope* s, Value who, Value form);
  Node* special(Macro* m, Value x, Scope* s);
  Value rewrite(Macro* m, Value x, Scope* s);
  static bool is_rewriter(SpecialForm f) {
    return f == SpecialForm::CondExpand || f == SpecialForm::Include ||
           f == SpecialForm::IncludeCi || f == SpecialForm::DefineRecordType ||
           f == SpecialForm::WithSyntax;
  }

  // toplevel
  Node* toplevel_form(Value x);
  Node* top_define(Value x);
  Node* top_define_values(Value x);

  // special forms
  Node* sf_quote(Value x, Scope* s);
  Node* sf_quasiquote(Value x, Scope* s);
  struct QQ;
  QQ qq(Value t, int depth, Scope* s, SrcLoc loc, Value who);
  Node* qq_node(const QQ& q, SrcLoc loc);
  QQ qq_cons(const QQ& a, const QQ& d, SrcLoc loc);
  QQ qq_tag(const char* name, const QQ& inner, SrcLoc loc);
  bool qq_form(Value v, Scope* s, SpecialForm f);
  bool qq_form_n(Value v, Scope* s, SpecialForm f);
  Node* sf_lambda(Value x, Scope* s);
  Node* sf_named_lambda(Value x, Scope* s);
  Node* sf_case_lambda(Value x, Scope* s);
  Node* sf_if(Value x, Scope* s);
  Node* sf_set(Value x, Scope* s);
  Node* sf_begin(Value x, Scope* s);
  Node* sf_let(Value x, Scope* s);
  Node* sf_let_star(Value x, Scope* s);
  Node* sf_letrec(Value x, Scope* s, bool star);
  void letrec_inits_first(LetNode* let);
  Node* sf_let_values(Value x, Scope* s, bool sequential);
  Node* sf_let_syntax(Value x, Scope* s, bool rec);
  Node* sf_do(Value x, Scope* s);
  Node* sf_cond(Value x, Scope* s);
  Node* sf_case(Value x, Scope* s);
  Node* sf_and(Value x, Scope* s);
  Node* sf_or(Value x, Scope* s);
  Node* sf_when(Value x, Scope* s, bool when);
  Node* sf_parameterize(Value x, Scope* s);
  Node* sf_guard(Value x, Scope* s);
  Node* sf_delay(Value x, Scope* s, bool force);
  Node* sf_assert(Value x, Scope* s);
  Node* sf_syntax_error(Value x, Scope* s);

  // rewriters: produce a (begin ...) form
  Value rw_cond_expand(Value x, Scope* s);
  Value rw_include(Value x, bool fold_case);
  Value rw_define_record_type(Value x, Scope* s);

 public:
  bool feature_match(Value req, Value form);

 private:

  // helpers
  struct Formals {
    gc_vector<Value> ids;
    Value rest = kFalse;
  };
  void parse_formals(Value f, Formals& out, Value who, Value form);
  LambdaClause* make_clause(Value formals, Value body, Scope* s, Value who, Value form);
  void check_duplicates(const gc_vector<Value>& ids, Value who, const char* msg, Value form);
  void parse_define(Value x, Value* id, Value* value, bool* has_value);
  Value make_transformer(Value spec, Scope* s, Value name, Value who);
  Node* cond_clauses(Value clauses, Scope* s, Value who, Value form, Node* fallback,
                     bool thunks = false);
  Node* make_lambda(const gc_vector<Var*>& params, Var* rest, Node* body, Value name, SrcLoc loc);
  Node* make_seq(gc_vector<Node*>& nodes, SrcLoc loc);
  Node* core_ref(const char* name, SrcLoc loc);
  Node* konst(Value v, SrcLoc loc) { return gc_new<ConstNode>(v, loc); }
  Node* call(Node* fn, std::initializer_list<Node*> args, SrcLoc loc);
  Value core_id(const char* name);  // an identifier naming core's binding of `name`
  Scope* new_scope(Scope* parent) { return gc_new<Scope>(parent, parent->top); }
  void bind_var(Scope* s, Value id, Var* v) { add_entry(s, ScopeEntry{id, v, kFalse}); }
  void bind_macro(Scope* s, Value id, Value m) { add_entry(s, ScopeEntry{id, nullptr, m}); }
  static void add_entry(Scope* s, const ScopeEntry& e);
  static const ScopeEntry* find_entry(Scope* s, Value id);
  bool bound_in_frame(Scope* s, Value id);
};

// Literal constant: identifiers stripped, pairs/vectors/strings/bytevectors made immutable.
Value quote_literal(Value v);
Value make_identifier(Value name, Scope* scope, Expansion* expansion = nullptr);
Value make_macro(SpecialForm form, Value name);

// Pattern matching and template transcription (syntax_rules.cpp) for syntax-case. `pat` is a
// SyntaxPattern (rules: the whole pattern, literals, env) and `tmpl` a SyntaxTemplate (rules: the
// template, env), each with its pvars. A match gives each pattern variable's value in pvars
// order: the matched form at depth 0, a list of the values one level down at depth d > 0.
void syntax_pattern_check(Expander& ex, Macro* pat, Value form);  // fills pat->pvars
void syntax_template_check(Expander& ex, Macro* tmpl, Value form);  // no cycles
bool syntax_match(Expander& ex, Macro* pat, Scope* use, Value form, gc_vector<Value>& values);
Value syntax_transcribe(Expander& ex, Macro* tmpl, Expansion* exp, SrcLoc loc,
                        const Value* values);

}  // namespace quasi
