;; (scheme time) — time (R7RS 6.14).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme time)
  (import (quasi core))
  (export
    current-jiffy current-second jiffies-per-second))
