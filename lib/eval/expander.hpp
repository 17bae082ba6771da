// expander.hpp — turns datums into core IR (ir/ir.hpp): special forms, derived forms and
// hygienic syntax-rules macros.
//
// Syntactic environments. A top-level Environment maps symbols to GlobalCells or keywords (Macro
// objects). Inside a form, local bindings live in Scope frames chained to their parent; the root
// of a chain names its top-level Environment. A frame maps an identifier (a symbol, or a renamed
// Identifier compared by identity) to a local Var or a Macro.
//
// Hygiene by renaming. Each use of a syntax-rules macro renames every symbol its template
// introduces to a fresh Identifier {name, scope of the macro definition}; one template symbol maps
// to one Identifier per expansion. An Identifier in binding position binds that very object. A
// reference is looked up first in the frames of the use site (by identity), then, if not found,
// its `name` is looked up in the macro's definition scope. Top-level definitions of renamed
// identifiers bind the plain symbol.
//
// Syntax errors throw SchemeError with a Condition of kind 'syntax, `who` the form's keyword,
// and the location of the offending form (or the nearest enclosing form read from source).
#pragma once

#include <unordered_map>

#include "eval/environment.hpp"
#include "ir/ir.hpp"

namespace quasi {

struct Scope;
struct Expansion;

// A symbol renamed by a macro expansion (Type::Identifier).
struct Identifier : Object {
  Value name;           // the symbol or Identifier it renames
  Scope* scope;         // syntactic environment of the macro that introduced it
  uint64_t mark;        // unique per expansion (for debugging output)
  Expansion* expansion; // the expansion that made it (datum->syntax asks it), or null
};

// One macro expansion's renames: each template identifier gets one fresh Identifier per
// expansion, whichever template, `syntax` form or datum->syntax call asks for it (as R6RS gives
// identifiers introduced by one transformer call the same marks).
struct Expansion {
  struct Rename {
    Value from;
    Value to;
  };
  gc_vector<Rename> renames;
};
// The Identifier `from` renames to in expansion `e` (made, closed over `scope`, on first use).
Value expansion_rename(Expansion* e, Value from, Scope* scope);

// One local binding in a Scope frame.
struct ScopeEntry {
  Value id;      // symbol or Identifier
  Var* var;      // local variable, or null for a keyword
  Value macro;   // Macro when var is null
};

// A local syntactic environment frame. GC-allocated (gc_new): macros capture it.
struct Scope {
  using Index = std::unordered_map<uint64_t, size_t, std::hash<uint64_t>, std::equal_to<uint64_t>,
                                   gc_allocator<std::pair<const uint64_t, size_t>>>;
  Scope* parent;           // null at the root
  Environment* top;        // the top-level environment the chain ends in
  // A transformer expression's outermost frame: local variables beyond it belong to the run time
  // of the code around the macro, which does not exist when the transformer runs.
  bool barrier = false;
  gc_vector<ScopeEntry> entries;
  Index* index = nullptr;  // id bits -> position in entries, built once a frame grows large
  Scope(Scope* p, Environment* t) : parent(p), top(t) {}
};

// Keywords built into the expander. None marks a syntax-rules macro.
enum class SpecialForm : uint8_t {
  None = 0,
  Quote, Quasiquote, Unquote, UnquoteSplicing, Lambda, NamedLambda, CaseLambda, If, Set,
  Define, DefineValues, DefineRecordType, DefineSyntax, LetSyntax, LetrecSyntax, SyntaxRules,
  SyntaxError, Begin, Let, LetStar, Letrec, LetrecStar, LetValues, LetStarValues, Do, Cond, Case,
  And, Or, When, Unless, Parameterize, Guard, Delay, DelayForce, CondExpand, Include, IncludeCi,
  Assert, SyntaxCase, Syntax, Quasisyntax, WithSyntax,
  // auxiliary syntax: only meaningful inside other forms
  Else, Arrow, Ellipsis, Underscore, Unsyntax, UnsyntaxSplicing,
  // Not keywords of the core environment (two of these are equal only when they are one object):
  // procedural transformers (a procedure of one form; explicit and implicit renaming), a pattern
  // variable bound by syntax-case, and the compiled pattern or template a syntax-case clause or
  // `syntax` form passes to its run-time helper.
  Procedural, ErTransformer, IrTransformer, PatternVar, SyntaxPattern, SyntaxTemplate,
};
// A keyword built into the expander (compared by the form it names).
inline bool is_builtin_form(SpecialForm f) {
  return f != SpecialForm::None && f < SpecialForm::Procedural;
}
// A macro a form's head can name and the expander rewrites the form with.
inline bool is_transformer_form(SpecialForm f) {
  return f == SpecialForm::None || f == SpecialForm::Procedural ||
         f == SpecialForm::ErTransformer || f == SpecialForm::IrTransformer;
}

// A syntactic binding (Type::Macro): a special form, a syntax-rules or procedural transformer,
// a pattern variable, or (never bound) a syntax-case pattern or template.
struct Macro : Object {
  SpecialForm form;
  Value name;      // symbol, for error messages
  // syntax-rules, and syntax-case patterns (literals, rules: the pattern) and templates (rules):
  Value ellipsis;  // custom ellipsis identifier; kFalse: the default `...`; kTrue: none
  Value literals;  // list of identifiers
  Value rules;     // list of (pattern template)
  Scope* env;      // where the macro was defined; a pattern or template: where it appears
  Value proc;      // procedural transformers: the procedure
  Value pvars;     // patterns, templates: list of (identifier . ellipsis depth), in value order
  Var* var;        // PatternVar: the variable holding its match
  int depth;       // PatternVar: its ellipsis depth
};

inline bool is_identifier_object(Value v) { return has_type(v, Type::Identifier); }
// A symbol or a renamed Identifier.
inline bool is_identifier(Value v) { return is_symbol(v) || is_identifier_object(v); }
// The symbol an identifier was renamed from (itself for a symbol).
Value identifier_symbol(Value id);
inline bool is_macro(Value v) { return has_type(v, Type::Macro); }

// What the expander needs from the engine above it, which it cannot see (layers): whether a
// library exists (cond-expand's `(library name)`), whether files may be read (`include`), and
// running code at expansion time (procedural macros: the transformer expression of a
// define-syntax, and each call of the transformer).
struct ExpandHost {
  virtual ~ExpandHost() = default;
  virtual bool library_exists(Value name) = 0;
  virtual bool files_allowed() = 0;
  // Compiles and runs `ir`, a top-level expression of `env`, and returns its value.
  virtual Value run(Node* ir, Environment* env) = 0;
  virtual Value apply(Value proc, int argc, const Value* argv) = 0;
  // `cell` is flagged kAutoloadCell (core/object.hpp): loads the prelude file that defines it.
  virtual void autoload(Value cell) {}
};

// Binds every keyword in `core` (quote, lambda, if, define, let, cond, syntax-rules, else, =>, ...).
void install_special_forms(Environment* core);

// Expands one top-level form. Definitions bind in `env` (define-syntax at once, so later forms
// see the macro); derived forms reference runtime procedures in `core`. Without a host, no
// library exists, `include` reads no files and procedural macros are an error.
Node* expand_toplevel(Value form, Environment* env, Environment* core, ExpandHost* host = nullptr);

// Whether a cond-expand feature requirement holds (`(library name)` asks the host). Errors
// (a malformed requirement) are 'syntax conditions located at `form`.
bool feature_requirement_holds(Value requirement, Value form, ExpandHost* host);

// Replaces renamed identifiers by their symbols (copying only what changes; cycles are kept).
Value syntax_to_datum(Value v);

// The feature identifiers cond-expand recognizes (a list of symbols), for `features`.
Value expander_features();

}  // namespace quasi
