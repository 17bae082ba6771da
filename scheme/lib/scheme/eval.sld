;; (scheme eval) — eval and environment (R7RS 6.12).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme eval)
  (import (quasi core))
  (export
    environment eval))
