;; (scheme read) — read (R7RS 6.13.2).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme read)
  (import (quasi core))
  (export
    read))
