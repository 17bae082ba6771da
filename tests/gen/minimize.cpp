// minimize.cpp — see minimize.hpp.
#include "minimize.hpp"

namespace quasi_gen {

Sexp& body_of(Program& p) {
  // (lambda (a b c d) (let ((out '())) (let ((r (guard (e ...) (list 'value BODY)))) ...)))
  Sexp& inner_let = p.proc.kids[2].kids[2];
  Sexp& guard = inner_let.kids[1].kids[0].kids[1];
  return guard.kids[2].kids[2];
}

namespace {

// Every node of `s` in preorder, as pointers (valid until the tree changes).
void nodes(Sexp& s, std::vector<Sexp*>& out) {
  out.push_back(&s);
  for (Sexp& k : s.kids) nodes(k, out);
}

}  // namespace

Program minimize(const Program& original, const std::function<bool(const Program&)>& still_fails, int budget) {
  Program best = original;
  bool progress = true;
  while (progress && budget > 0) {
    progress = false;
    std::vector<Sexp*> all;
    nodes(body_of(best), all);
    size_t size = body_of(best).size();
    for (size_t n = 0; n < all.size() && !progress && budget > 0; ++n) {
      std::vector<Sexp> candidates;
      const Sexp& node = *all[n];
      if (node.is_list) {
        for (const Sexp& k : node.kids)
          if (k.is_list || (k.atom != "quote" && !k.atom.empty())) candidates.push_back(k);
        for (const char* a : {"0", "#f", "'()", "\"\""}) candidates.push_back(Sexp::a(a));
        if (node.kids.size() >= 3)
          for (size_t i = 1; i < node.kids.size(); ++i) {
            Sexp c = node;
            c.kids.erase(c.kids.begin() + static_cast<long>(i));
            candidates.push_back(c);
          }
      } else if (node.atom != "0") {
        candidates.push_back(Sexp::a("0"));
      }
      for (Sexp& c : candidates) {
        if (c.size() >= node.size() && !(node.size() == 1 && c.size() == 1 && node.atom != c.atom && c.atom == "0"))
          continue;
        Program trial = best;
        std::vector<Sexp*> tn;
        nodes(body_of(trial), tn);
        *tn[n] = c;
        if (body_of(trial).size() > size) continue;
        --budget;
        if (still_fails(trial)) {
          best = std::move(trial);
          progress = true;
          break;
        }
        if (budget <= 0) break;
      }
    }
  }
  return best;
}

}  // namespace quasi_gen
