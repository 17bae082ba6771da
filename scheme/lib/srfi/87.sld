;; (srfi 87) — `=>` in case clauses: the clause's receiver is called with the key. The core's
;; case (R7RS 4.2.1) has it, in ordinary clauses and in else.
(define-library (srfi 87)
  (import (scheme base))
  (export case =>))
