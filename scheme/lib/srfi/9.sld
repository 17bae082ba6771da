;; (srfi 9) — define-record-type. The binding is the core's (R7RS 5.5, which is SRFI 9's form).
(define-library (srfi 9)
  (import (scheme base))
  (export define-record-type))
