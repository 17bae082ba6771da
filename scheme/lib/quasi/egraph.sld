;; (quasi egraph) — e-graphs and equality saturation (lib/egraph/README.md): terms are
;; S-expressions, rules are (rewrite name lhs rhs [condition]) with ?variables, egraph-run!
;; saturates under limits, extraction picks the cheapest term. Also in the default environment.
(define-library (quasi egraph)
  (import (quasi core))
  (export make-egraph egraph-add! egraph-union! egraph-rebuild! egraph-find egraph-equal?
          egraph-constant egraph-nodes egraph-node-count egraph-class-count egraph-extract
          egraph->dot egraph-run! rewrite birewrite rewrite-name subst-ref simplify prove-equal?))
