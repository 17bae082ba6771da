// dump.hpp — the IR of source text as readable Scheme, for `quasi --dump-ir=PASS`, the REPL's
// `,ir` / `,optimize` and Engine::dump_ir.
#pragma once

#include <string>
#include <string_view>

namespace quasi {

struct Vm;
struct Environment;

// Reads every form of `code` and returns, one line per form, its IR after `after_pass` ("expand"
// for the expander's output, a pass name, or "" / "all" for the whole default pipeline), written
// with ir_to_datum. Forms are expanded in a scratch copy of `env`, so definitions and macros met
// on the way stay out of `env`; `import` and `define-library` take effect (in the copy) so later
// forms resolve. Nothing else runs but procedural macros' transformers. Throws SchemeError (bad syntax, unknown pass name).
std::string dump_ir_text(Vm& vm, Environment* env, std::string_view code, std::string_view after_pass);

}  // namespace quasi
