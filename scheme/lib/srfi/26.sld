;; (srfi 26) — cut and cute: specialize some arguments of a call, leaving slots (<>) and an
;; optional trailing rest slot (<...>) as the parameters of the procedure made.
;; cut evaluates the non-slot expressions (the operator too) each time the procedure is called;
;; cute evaluates them once, when the procedure is made.
(define-library (srfi 26)
  (import (scheme base))
  (export cut cute)
  (begin
    ;; (%cut params call-so-far form ...): walks the forms left to right; each <> adds a fresh
    ;; parameter used in its place.
    (define-syntax %cut
      (syntax-rules (<> <...>)
        ((_ (param ...) (f arg ...))
         (lambda (param ...) (f arg ...)))
        ((_ (param ...) (f arg ...) <...>)
         (lambda (param ... . more) (apply f arg ... more)))
        ((_ (param ...) (call ...) <> form ...)
         (%cut (param ... p) (call ... p) form ...))
        ((_ (param ...) (call ...) expr form ...)
         (%cut (param ...) (call ... expr) form ...))))
    (define-syntax cut
      (syntax-rules ()
        ((_ form1 form ...) (%cut () () form1 form ...))))
    ;; (%cute bindings params call-so-far form ...): as %cut, but each non-slot expression is
    ;; bound to a temporary once, outside the lambda.
    (define-syntax %cute
      (syntax-rules (<> <...>)
        ((_ (binding ...) (param ...) (f arg ...))
         (let (binding ...) (lambda (param ...) (f arg ...))))
        ((_ (binding ...) (param ...) (f arg ...) <...>)
         (let (binding ...) (lambda (param ... . more) (apply f arg ... more))))
        ((_ (binding ...) (param ...) (call ...) <> form ...)
         (%cute (binding ...) (param ... p) (call ... p) form ...))
        ((_ (binding ...) (param ...) (call ...) expr form ...)
         (%cute (binding ... (t expr)) (param ...) (call ... t) form ...))))
    (define-syntax cute
      (syntax-rules ()
        ((_ form1 form ...) (%cute () () () form1 form ...))))))
