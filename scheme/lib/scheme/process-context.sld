;; (scheme process-context) — the command line, exit and the environment variables (R7RS 6.14).
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (scheme process-context)
  (import (quasi core))
  (export
    command-line emergency-exit exit get-environment-variable get-environment-variables))
