;; (srfi 98) — get-environment-variable, get-environment-variables. The bindings are the
;; core's, so an engine made without environment access (Options::allow_environment false, as in
;; a sandbox) gives this library's importers the same refusing procedures as everyone else.
(define-library (srfi 98)
  (import (scheme process-context))
  (export get-environment-variable get-environment-variables))
