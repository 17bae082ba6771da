;; (scheme write) — the writers (R7RS 6.13.3).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme write)
  (import (quasi core))
  (export
    display write write-shared write-simple))
