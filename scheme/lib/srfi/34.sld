;; (srfi 34) — exception handling: with-exception-handler, guard, raise. The bindings are the
;; core's R7RS ones, which SRFI 34's semantics are the ancestor of (a handler returning from
;; `raise` is an error; guard re-raises in the dynamic environment of the raise when no clause
;; applies).
(define-library (srfi 34)
  (import (scheme base))
  (export with-exception-handler guard raise))
