;; For library-test.scm: a library that imports only (scheme base) does not see display.
(define-library (testlib narrow)
  (import (scheme base))
  (export try-display twice)
  (begin
    (define (try-display) (display "leaked"))
    (define (twice x) (* 2 x))))
