// sexp.hpp — a plain-text front end for the engine: interned symbols, and terms and patterns
// read from and written as S-expression text. It exists for C++ users of the engine, its unit
// tests and its benchmark; Scheme code goes through lib/builtins/egraph.cpp, which interns real
// datums instead. An atom is any run of characters other than whitespace and parentheses; in a
// pattern, an atom starting with `?` is a variable.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "egraph/egraph.hpp"
#include "egraph/pattern.hpp"

namespace quasi::egraph {

class SymbolTable {
 public:
  Op intern(std::string_view s);
  const std::string& name(Op op) const { return names_[op]; }
  size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, Op> ids_;
  std::vector<std::string> names_;
};

// Throw std::invalid_argument on malformed text (unbalanced parentheses, empty input, trailing
// text, an empty application `()`).
RecExpr parse_term(std::string_view text, SymbolTable& syms);
Pattern parse_pattern(std::string_view text, SymbolTable& syms);
// The term rooted at `root` (default: the last node) as text.
std::string print_term(const RecExpr& e, const SymbolTable& syms, Id root = kNoId);

}  // namespace quasi::egraph
