// sexp.hpp — the program generator's syntax tree: an S-expression (an atom's text, or a list of
// children), printed as Scheme source. The generator builds it, the minimizer shrinks it; the
// tree carries no types, so any subtree may replace any other (the result is still a closed
// program; whether it still shows a mismatch is what the minimizer asks).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace quasi_gen {

struct Sexp {
  std::string atom;       // the text of an atom; empty for a list
  std::vector<Sexp> kids;  // a list's elements
  bool is_list = false;

  static Sexp a(std::string text) {
    Sexp s;
    s.atom = std::move(text);
    return s;
  }
  static Sexp l(std::vector<Sexp> kids) {
    Sexp s;
    s.kids = std::move(kids);
    s.is_list = true;
    return s;
  }
  // Number of nodes: what the minimizer makes smaller.
  size_t size() const {
    size_t n = 1;
    for (const Sexp& k : kids) n += k.size();
    return n;
  }
  void print(std::string& out) const {
    if (!is_list) {
      out += atom;
      return;
    }
    // 'x is (quote x) printed short, so reports stay readable.
    if (kids.size() == 2 && !kids[0].is_list && kids[0].atom == "quote") {
      out += '\'';
      kids[1].print(out);
      return;
    }
    out += '(';
    for (size_t i = 0; i < kids.size(); ++i) {
      if (i) out += ' ';
      kids[i].print(out);
    }
    out += ')';
  }
  std::string str() const {
    std::string s;
    print(s);
    return s;
  }
};

}  // namespace quasi_gen
