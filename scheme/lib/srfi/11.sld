;; (srfi 11) — let-values and let*-values. The bindings are the core's (the R7RS forms).
(define-library (srfi 11)
  (import (scheme base))
  (export let-values let*-values))
