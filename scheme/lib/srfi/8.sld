;; (srfi 8) — receive: bind the values an expression returns to a lambda list.
(define-library (srfi 8)
  (import (scheme base))
  (export receive)
  (begin
    (define-syntax receive
      (syntax-rules ()
        ((_ formals producer body1 body ...)
         (call-with-values (lambda () producer) (lambda formals body1 body ...)))))))
