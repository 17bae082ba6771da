// syntax_case.hpp — the run-time half of procedural macros: what syntax-case, `syntax`,
// datum->syntax, free-identifier=? and explicit/implicit renaming do while a transformer runs.
//
// Syntax objects are plain data: pairs, vectors and atoms whose identifiers are symbols (as the
// user wrote them, meaning what they mean at the macro use) or renamed Identifiers (introduced by
// a macro, expander.hpp). A transformer runs inside the expander's call of it; that call is the
// innermost "transformer call" of the thread, and gives `syntax` its renames (one fresh
// identifier per template identifier per call), free-identifier=? the scope of the macro use,
// and errors the use's location. Outside any transformer call, each `syntax` renames afresh and
// identifiers are compared in `env` (the interaction environment).
#pragma once

#include "core/object.hpp"

namespace quasi {

struct Environment;

// A syntax-case clause's pattern (a SyntaxPattern Macro) against `form`: the values of its pattern
// variables as a list, or #f.
Value syntax_case_match(Value form, Value pattern, Environment* env);
// Raises the error of a syntax-case with no matching clause.
[[noreturn]] void syntax_case_fail(Value form);
// A `syntax` template (a SyntaxTemplate Macro) filled with its pattern variables' values.
Value syntax_template_fill(Value tmpl, int argc, const Value* argv, Environment* env);
bool syntax_free_identifier_eq(Value a, Value b, Environment* env);
// `datum` with its symbols made identifiers that mean what they would mean had they been where
// `ctx` (an identifier) is.
Value syntax_datum_to_syntax(Value ctx, Value datum);
Value syntax_generate_temporaries(Value list, Environment* env);
// er-macro-transformer's `rename`: `sym` as the macro's definition sees it, one identifier per
// symbol and transformer call.
Value syntax_er_rename(Value sym);
// ir-macro-transformer's `inject`: `x` with its symbols meaning what they mean at the macro use.
Value syntax_ir_inject(Value x);
// The transformer er-macro-transformer (implicit: ir-macro-transformer) makes of `proc`.
Value make_renaming_transformer(Value proc, bool implicit);
// (syntax-violation who message form [subform]): a 'syntax condition located at the form.
[[noreturn]] void syntax_violation(Value who, Value message, Value form, Value subform);

}  // namespace quasi
