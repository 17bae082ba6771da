;; (srfi 16) — case-lambda. The binding is the core's (R7RS 4.2.9).
(define-library (srfi 16)
  (import (scheme case-lambda))
  (export case-lambda))
