;; For library-test.scm: exports an x of its own, which conflicts with another library's x.
(define-library (testlib other-x)
  (import (scheme base))
  (export x car)
  (begin (define x 'other)))
