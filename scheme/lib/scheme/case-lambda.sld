;; (scheme case-lambda) — case-lambda (R7RS 4.2.9).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme case-lambda)
  (import (quasi core))
  (export
    case-lambda))
