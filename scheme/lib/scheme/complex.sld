;; (scheme complex) — the complex-number procedures (R7RS 6.2.6).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme complex)
  (import (quasi core))
  (export
    angle imag-part magnitude make-polar make-rectangular real-part))
