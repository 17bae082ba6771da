;; (srfi 133) — the vector library, every name of the SRFI. R7RS-small's vector procedures are
;; the core's (builtins/vectors.cpp); the rest are defined in 133-body.scm.
(define-library (srfi 133)
  (import (quasi core))
  (export
    ;; constructors
    make-vector vector vector-unfold vector-unfold-right vector-copy vector-reverse-copy
    vector-append vector-concatenate vector-append-subvectors
    ;; predicates
    vector? vector-empty? vector=
    ;; selectors
    vector-ref vector-length
    ;; iteration
    vector-fold vector-fold-right vector-map vector-map! vector-for-each vector-count
    vector-cumulate
    ;; searching
    vector-index vector-index-right vector-skip vector-skip-right vector-binary-search
    vector-any vector-every vector-partition
    ;; mutators
    vector-set! vector-swap! vector-fill! vector-reverse! vector-copy! vector-reverse-copy!
    vector-unfold! vector-unfold-right!
    ;; conversion
    vector->list reverse-vector->list list->vector reverse-list->vector string->vector
    vector->string)
  (include "133-body.scm"))
