;; (scheme box) — the R7RS-large name of SRFI 111.
(define-library (scheme box)
  (import (srfi 111))
  (export box box? unbox set-box!))
