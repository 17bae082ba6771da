;; For library-test.scm: exports x, and re-exports (scheme base)'s car (a shared binding).
(define-library (testlib x)
  (import (scheme base))
  (export x car (rename cdr tail))
  (begin (define x 'mine)))
