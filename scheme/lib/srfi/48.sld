;; (srfi 48) — intermediate format strings: (format [destination] format-string obj ...), the
;; destination #f (a string), #t (the current output port) or a port. The binding is the core's
;; format (prelude/75-format.scm), which lists the directives.
(define-library (srfi 48)
  (import (quasi core))
  (export format))
