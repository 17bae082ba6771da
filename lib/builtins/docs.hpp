// docs.hpp — the documentation of the built-ins: one entry per procedure and syntactic keyword of
// the default environment (C++ primitives, procedures the prelude defines in Scheme, special
// forms and macros), kept as data in ONE table, doc_table.cpp, keyed by name. The REPL's ,doc and
// ,describe and the procedures `documentation` and `procedure-information` read it.
//
// Invariant (tests/unit/docs_test.cpp): every name bound in a fresh engine's interaction
// environment, except '%' internals, has an entry, and every entry names such a binding. A new
// built-in therefore needs its line in doc_table.cpp.
#pragma once

#include <span>
#include <string_view>

#include "core/value.hpp"

namespace quasi {

struct DocEntry {
  const char* name;
  const char* signature;  // "(make-vector k [fill])": [x] optional, x ... any number
  const char* summary;    // one line, a sentence
};

std::span<const DocEntry> doc_table();
const DocEntry* find_doc(std::string_view name);
// The parameter names of the signature as a list: (k fill) for "(make-vector k [fill])", and
// a rest parameter after a dot for "x ...": (a . rest) — or just `rest`.
Value doc_parameters(const DocEntry& d);

}  // namespace quasi
