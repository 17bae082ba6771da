;; (srfi 39) — parameter objects: make-parameter (with an optional converter) and parameterize,
;; which converts the new values. The bindings are the core's (R7RS 4.2.6).
(define-library (srfi 39)
  (import (scheme base))
  (export make-parameter parameterize))
