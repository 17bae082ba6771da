;; (scheme repl) — interaction-environment (R7RS 6.12).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme repl)
  (import (quasi core))
  (export
    interaction-environment))
