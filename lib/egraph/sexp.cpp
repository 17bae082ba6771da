// sexp.cpp — SymbolTable and the S-expression text reader/writer of sexp.hpp.
#include "egraph/sexp.hpp"

#include <cctype>
#include <functional>
#include <stdexcept>

namespace quasi::egraph {

Op SymbolTable::intern(std::string_view s) {
  auto it = ids_.find(std::string(s));
  if (it != ids_.end()) return it->second;
  Op op = Op(names_.size());
  names_.emplace_back(s);
  ids_.emplace(std::string(s), op);
  return op;
}

namespace {

// Tokens: "(", ")" and atoms.
std::vector<std::string_view> tokenize(std::string_view t) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < t.size()) {
    char c = t[i];
    if (std::isspace(static_cast<unsigned char>(c))) { i++; continue; }
    if (c == '(' || c == ')') { out.push_back(t.substr(i, 1)); i++; continue; }
    size_t j = i;
    while (j < t.size() && !std::isspace(static_cast<unsigned char>(t[j])) && t[j] != '(' && t[j] != ')') j++;
    out.push_back(t.substr(i, j - i));
    i = j;
  }
  return out;
}

// Calls leaf(atom) / app(head, kid indexes) bottom-up; returns the root's index.
template <class Leaf, class App>
uint32_t parse(std::string_view text, Leaf leaf, App app) {
  std::vector<std::string_view> toks = tokenize(text);
  size_t pos = 0;
  std::function<uint32_t()> expr = [&]() -> uint32_t {
    if (pos >= toks.size()) throw std::invalid_argument("unexpected end of term: " + std::string(text));
    std::string_view t = toks[pos++];
    if (t == ")") throw std::invalid_argument("unexpected ) in term: " + std::string(text));
    if (t != "(") return leaf(t);
    if (pos >= toks.size() || toks[pos] == "(" || toks[pos] == ")")
      throw std::invalid_argument("an application needs an operator symbol: " + std::string(text));
    std::string_view head = toks[pos++];
    std::vector<uint32_t> kids;
    while (true) {
      if (pos >= toks.size()) throw std::invalid_argument("missing ) in term: " + std::string(text));
      if (toks[pos] == ")") { pos++; break; }
      kids.push_back(expr());
    }
    return app(head, std::move(kids));
  };
  uint32_t root = expr();
  if (pos != toks.size()) throw std::invalid_argument("text after the term: " + std::string(text));
  return root;
}

}  // namespace

RecExpr parse_term(std::string_view text, SymbolTable& syms) {
  RecExpr e;
  parse(
      text, [&](std::string_view a) { return e.add(ENode(syms.intern(a))); },
      [&](std::string_view h, std::vector<uint32_t> kids) {
        return e.add(ENode(syms.intern(h), kids.begin(), kids.end()));
      });
  return e;
}

Pattern parse_pattern(std::string_view text, SymbolTable& syms) {
  Pattern p;
  parse(
      text,
      [&](std::string_view a) {
        if (a.size() > 1 && a[0] == '?') return p.add_var(std::string(a));
        return p.add_op(syms.intern(a), {});
      },
      [&](std::string_view h, std::vector<uint32_t> kids) { return p.add_op(syms.intern(h), std::move(kids)); });
  return p;
}

std::string print_term(const RecExpr& e, const SymbolTable& syms, Id root) {
  if (e.empty()) return "";
  if (root == kNoId) root = e.root();
  const ENode& n = e.nodes[root];
  if (n.is_leaf()) return syms.name(n.op);
  std::string s = "(" + syms.name(n.op);
  for (Id k : n.children()) s += " " + print_term(e, syms, k);
  return s + ")";
}

}  // namespace quasi::egraph
