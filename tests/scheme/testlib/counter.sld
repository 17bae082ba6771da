;; For library-test.scm: a body with an effect, to show it runs once however often it is imported.
(define-library (testlib counter)
  (import (scheme base))
  (export runs bump!)
  (begin
    (define runs 0)
    (define (bump!) (set! runs (+ runs 1)) runs)
    (bump!)))
