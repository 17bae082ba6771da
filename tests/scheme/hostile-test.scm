;;; hostile-test.scm — what a hostile or careless script must not be able to do (issue 8):
;;; reach the engine's %-internals, crash the process, or get around a limit.
(include "harness.scm")

;; The %-internals trust their arguments; no environment user code runs in binds them.
(define (bound-in? name env)
  (guard (e (#t #f)) (eval name env) #t))
(for-each
 (lambda (name)
   (test-assert (string-append "unbound here: " (symbol->string name))
                (not (bound-in? name (interaction-environment))))
   (test-assert (string-append "not in (quasi core): " (symbol->string name))
                (not (bound-in? name (environment '(quasi core)))))
   (test-assert (string-append "not in (quasi): " (symbol->string name))
                (not (bound-in? name (environment '(quasi))))))
 '(%condition-text %make-condition %rewind-to %with-handlers %handlers %winders %raise
   %uncaught %wind-and-continue %continuation-winders %continuation-handlers %guard-handle %apply-values %record-constructor
   %parameter-set! %promise-update!))
(test-error "importing an internal by name" (eval '(import (only (quasi core) %condition-text))
                                                  (environment '(scheme base))))
;; A script's own %-names are its own.
(define %mine 7)
(test "a script may define %-names" 7 %mine)
;; The public procedures built on them check their arguments.
(test-error "with-exception-handler checks its handler" (with-exception-handler 1 (lambda () 2)))
(test-error "a non-procedure thunk is an ordinary error"
            (with-exception-handler (lambda (e) 0) 2))
(test "guard catches a raise from a handler" 'caught
      (guard (e (#t 'caught))
        (with-exception-handler (lambda (e) (raise 'again)) (lambda () (car 1)))))

;; Listings do not give away addresses.
(define (listing-has-big-number? s)
  ;; a run of 11 or more digits in an instruction (not in its bytes, after ";") is an
  ;; address-sized immediate
  (let loop ((cs (string->list s)) (run 0) (comment #f))
    (cond ((>= run 11) #t)
          ((null? cs) #f)
          ((char=? (car cs) #\newline) (loop (cdr cs) 0 #f))
          ((or comment (char=? (car cs) #\;)) (loop (cdr cs) 0 #t))
          ((char-numeric? (car cs)) (loop (cdr cs) (+ run 1) #f))
          (else (loop (cdr cs) 0 #f)))))
(test-assert "the check sees an address" (listing-has-big-number? "mov rax, 140528121020208 ; 48B8"))
(define (uses-constants x) (if (pair? x) (car x) (list 'foo "bar" x)))
(jit-compile! uses-constants)
(test-assert "jit-disassemble prints no absolute addresses"
             (not (listing-has-big-number? (jit-disassemble uses-constants))))
(test-assert "disassemble is public and checks its argument"
             (string? (disassemble uses-constants)))
(test-error "disassemble of a primitive" (disassemble car))

(test-end)
