// pretty.hpp — the pretty-printer: `write` form laid out over lines of a given width, with
// optional limits on list length and nesting depth (what `pretty-print` and the REPL print).
//
// Layout: a datum that fits in the rest of the line is written flat. A list that does not is
// broken: forms with a body (define, lambda, let, when, ...) keep their head and distinguished
// arguments on the first line and indent the body by two; other calls keep the first argument
// beside the operator and align the rest under it; data lists and vectors align every element.
// Past `max_length` elements a list or vector ends in "...", and a list or vector nested deeper
// than `max_depth` prints as "...". Atoms print exactly as `write` prints them.
//
// Termination: a cyclic datum is printed with `write`'s datum labels on one line unless both
// limits are set (then the limits bound the output, as in Chez Scheme). Nesting deeper than the
// recursion bound is written flat by the (non-recursive) printer.
#pragma once

#include <cstdint>
#include <string>

#include "core/value.hpp"

namespace quasi {

struct PrettyOptions {
  int64_t width = 79;       // columns per line
  int64_t max_length = -1;  // elements shown per list or vector; -1: all
  int64_t max_depth = -1;   // nesting levels shown; -1: all
};

// Appends the layout of `v` to `out` (no final newline). `column` is where the first character
// goes (the caller may have printed a prompt or a label).
void pretty_print(std::string& out, Value v, const PrettyOptions& options, int64_t column = 0);

}  // namespace quasi
