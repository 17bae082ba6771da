;; (testlib ordered) — declarations spliced in place: a begin after an
;; include-library-declarations or a cond-expand sees what they define (library-test.scm).
(define-library (testlib ordered)
  (import (scheme base))
  (include-library-declarations "decls.scm")
  (export after-decls after-cond-expand)
  (begin (define after-decls (+ from-decls 1)))
  (cond-expand
    ((library (scheme base)) (begin (define from-cond-expand 10)))
    (else (begin (define from-cond-expand 0))))
  (begin (define after-cond-expand (+ from-cond-expand 1))))
