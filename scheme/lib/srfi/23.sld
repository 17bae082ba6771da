;; (srfi 23) — error. The binding is the core's: R7RS `error`, whose error objects carry the
;; message and the irritants (error-object-message, error-object-irritants).
(define-library (srfi 23)
  (import (scheme base))
  (export error))
