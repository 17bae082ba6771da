;; (srfi 31) — rec: a recursive procedure or value, named inside its own definition only.
(define-library (srfi 31)
  (import (scheme base))
  (export rec)
  (begin
    (define-syntax rec
      (syntax-rules ()
        ((_ (name . formals) body1 body ...)
         (letrec ((name (lambda formals body1 body ...))) name))
        ((_ name expr)
         (letrec ((name expr)) name))))))
