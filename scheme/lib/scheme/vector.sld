;; (scheme vector) — R7RS-large's name for SRFI 133 (srfi/133.sld).
(define-library (scheme vector)
  (import (srfi 133))
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
    vector->string))
