;; (srfi 111) — boxes: a mutable cell. (box x), (box? x), (unbox b), (set-box! b x).
(define-library (srfi 111)
  (import (scheme base))
  (export box box? unbox set-box!)
  (begin
    (define-record-type <box> (box value) box? (value unbox set-box!))))
