;; (srfi 2) — and-let*: an `and` whose steps may bind variables for the later steps and the body.
;; A clause is (var expr) — bind, then stop with #f if the value is #f; (expr) — test only; or a
;; bound variable — test it. With no body the result is the last clause's value (#t for none).
(define-library (srfi 2)
  (import (scheme base))
  (export and-let*)
  (begin
    (define-syntax and-let*
      (syntax-rules ()
        ((_ ()) #t)
        ((_ () body1 body ...) (let () body1 body ...))
        ;; The last clause with no body: its value is the result.
        ((_ ((var expr))) (let ((var expr)) var))
        ((_ ((expr))) expr)
        ((_ (var)) var)
        ((_ ((var expr) clause ...) body ...)
         (let ((var expr)) (if var (and-let* (clause ...) body ...) #f)))
        ((_ ((expr) clause ...) body ...)
         (if expr (and-let* (clause ...) body ...) #f))
        ((_ (var clause ...) body ...)
         (if var (and-let* (clause ...) body ...) #f))))))
