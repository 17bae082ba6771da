;; (srfi 28) — basic format strings: (format format-string obj ...) with ~a ~s ~% ~~. The
;; binding is the core's format (prelude/75-format.scm), which also does SRFI 48's directives
;; and destinations.
(define-library (srfi 28)
  (import (quasi core))
  (export format))
