;; (scheme load) — load (R7RS 6.14).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme load)
  (import (quasi core))
  (export
    load))
