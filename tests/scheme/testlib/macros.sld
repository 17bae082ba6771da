;; For syntax-case-library-test.scm: procedural macros exported from a library, whose templates
;; name the library's private bindings, and one that binds `self` for its user on purpose.
(define-library (testlib macros)
  (import (scheme base) (rnrs syntax-case))
  (export counted-list with-self)
  (begin
    (define private-count 0)
    (define (private-note! n) (set! private-count (+ private-count n)) private-count)
    (define-syntax counted-list
      (lambda (x)
        (syntax-case x ()
          ((_ e ...)
           #`(begin (private-note! #,(length #'(e ...))) (list e ...))))))
    (define-syntax with-self
      (lambda (x)
        (syntax-case x ()
          ((k v body ...)
           (with-syntax ((self (datum->syntax #'k 'self)))
             #'(let ((self v)) body ...))))))))
