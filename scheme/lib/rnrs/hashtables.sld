;; (rnrs hashtables) — R6RS hash tables (also Chez Scheme's weak and extra names), on the
;; engine's one implementation (quasi core; builtins/hashtables.cpp).
(define-library (rnrs hashtables)
  (import (quasi core))
  (export
    make-eq-hashtable make-eqv-hashtable make-hashtable hashtable? hashtable-size hashtable-ref
    hashtable-set! hashtable-delete! hashtable-contains? hashtable-update! hashtable-copy
    hashtable-clear! hashtable-keys hashtable-entries hashtable-equivalence-function
    hashtable-hash-function hashtable-mutable? equal-hash string-hash string-ci-hash symbol-hash
    make-weak-eq-hashtable make-weak-eqv-hashtable make-weak-hashtable hashtable-weak?
    hashtable-values hashtable-cells))
