// syntax.cpp — the procedures of syntax-case and the renaming transformers (R6RS 12, Chibi and
// Chicken's er/ir-macro-transformer) over eval/syntax_case.hpp, and the run-time helpers the
// expander's syntax-case and `syntax` forms call (%-named).
#include "builtins/registry.hpp"
#include "eval/expander.hpp"
#include "eval/syntax_case.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

QUASI_PRIM(p_syntax_case_match) { return syntax_case_match(argv[0], argv[1], vm.interaction_env); }
QUASI_PRIM(p_syntax_case_fail) { syntax_case_fail(argv[0]); }
QUASI_PRIM(p_syntax_template) {
  return syntax_template_fill(argv[0], argc - 1, argv + 1, vm.interaction_env);
}
QUASI_PRIM(p_identifier_p) { return make_bool(is_identifier(argv[0])); }
QUASI_PRIM(p_syntax_to_datum) { return syntax_to_datum(argv[0]); }
QUASI_PRIM(p_datum_to_syntax) { return syntax_datum_to_syntax(argv[0], argv[1]); }
QUASI_PRIM(p_free_identifier_eq) {
  return make_bool(syntax_free_identifier_eq(argv[0], argv[1], vm.interaction_env));
}
QUASI_PRIM(p_bound_identifier_eq) {
  if (!is_identifier(argv[0])) type_error("bound-identifier=?", "an identifier", argv[0]);
  if (!is_identifier(argv[1])) type_error("bound-identifier=?", "an identifier", argv[1]);
  return make_bool(argv[0] == argv[1]);  // a binding binds one identifier object
}
QUASI_PRIM(p_generate_temporaries) {
  return syntax_generate_temporaries(argv[0], vm.interaction_env);
}
QUASI_PRIM(p_syntax_violation) {
  syntax_violation(argv[0], argv[1], argv[2], argc > 3 ? argv[3] : kFalse);
}
QUASI_PRIM(p_er_macro_transformer) { return make_renaming_transformer(argv[0], false); }
QUASI_PRIM(p_ir_macro_transformer) { return make_renaming_transformer(argv[0], true); }
QUASI_PRIM(p_er_rename) { return syntax_er_rename(argv[0]); }
QUASI_PRIM(p_ir_inject) { return syntax_ir_inject(argv[0]); }

const PrimDef kSyntaxPrims[] = {
    {"%syntax-case-match", p_syntax_case_match, 2, 2, kEffect},
    {"%syntax-case-fail", p_syntax_case_fail, 1, 1, kEffect},
    {"%syntax-template", p_syntax_template, 1, -1, kEffect},
    {"identifier?", p_identifier_p, 1, 1, kPureFold},
    {"syntax->datum", p_syntax_to_datum, 1, 1, kAlloc},
    {"datum->syntax", p_datum_to_syntax, 2, 2, kEffect},
    {"free-identifier=?", p_free_identifier_eq, 2, 2, kEffect},
    {"bound-identifier=?", p_bound_identifier_eq, 2, 2, kPure | kMayRaise},
    {"generate-temporaries", p_generate_temporaries, 1, 1, kEffect},
    {"syntax-violation", p_syntax_violation, 3, 4, kEffect},
    {"er-macro-transformer", p_er_macro_transformer, 1, 1, kEffect},
    {"ir-macro-transformer", p_ir_macro_transformer, 1, 1, kEffect},
    {"%er-rename", p_er_rename, 1, 1, kEffect},
    {"%ir-inject", p_ir_inject, 1, 1, kEffect},
};

}  // namespace

void register_syntax_primitives(Environment* env) { install_primitives(env, kSyntaxPrims); }

}  // namespace quasi
