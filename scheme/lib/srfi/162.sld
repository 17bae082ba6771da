;; (srfi 162) — the comparator sublibrary: comparator-max/min, and comparators for the common
;; types. The bindings are the engine's own (quasi core; prelude/65-comparators.scm).
(define-library (srfi 162)
  (import (quasi core))
  (export
    comparator-max comparator-min comparator-max-in-list comparator-min-in-list
    default-comparator boolean-comparator real-comparator char-comparator char-ci-comparator
    string-comparator string-ci-comparator pair-comparator list-comparator vector-comparator
    eq-comparator eqv-comparator equal-comparator))
