;; (scheme lazy) — promises (R7RS 4.2.5).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme lazy)
  (import (quasi core))
  (export
    delay delay-force force make-promise promise?))
