;; (scheme inexact) — the procedures of inexact numbers (R7RS 6.2.6).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme inexact)
  (import (quasi core))
  (export
    acos asin atan cos exp finite? infinite? log nan? sin sqrt tan))
