;;; letrec-test.scm — letrec and letrec*: which groups take the inits-first form (R7RS 4.2.2,
;;; eval/expander.cpp letrec_inits_first), reads before initialization (vm/compiler.cpp: a
;;; check-bound where a read may come early, naming the variable), in every mode and under
;;; specialize and grad.
(include "harness.scm")
(import (quasi))

;; ---- reads before initialization raise, naming the variable --------------------------------
(define (calls-sibling-early)
  (letrec* ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
            (x (ev? 4))
            (od? (lambda (n) (if (= n 0) #f (ev? (- n 1))))))
    x))
(test-error-message "letrec*: a lambda called before a later variable's init" "letrec: od? used before its initialization"
                    (calls-sibling-early))
;; letrec evaluates every init before assigning: ev? is not yet assigned at (ev? 4).
(test-error-message "letrec: an init calls a sibling" "letrec: ev? used before its initialization"
                    (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
                             (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))
                             (x (ev? 4)))
                      x))
(test-error-message "letrec*: a direct read of a later variable" "letrec: b used before its initialization"
                    (letrec* ((a (+ b 1)) (b 1)) a))
(test-error-message "a read in a branch taken" "letrec: b used before its initialization"
                    (let ((x #t)) (letrec* ((a (if x b 1)) (b 2)) a)))
(test "a read in a branch not taken" 1 (let ((x #f)) (letrec* ((a (if x b 1)) (b 2)) a)))
(define (internal-define-early)
  (define (f) x)
  (define y (f))
  (define x 1)
  y)
(test-error-message "internal define read through a procedure" "letrec: x used before its initialization"
                    (internal-define-early))
(define (internal-define-in-order)
  (define x 1)
  (define (f) x)
  (define y (f))
  y)
(test "internal define read after its init" 1 (internal-define-in-order))
(test "a procedure made early, called in the body" 2 (letrec ((a (lambda () b)) (b 2)) (a)))
(test "a self-recursive helper after a computed value" 200
      (let ()
        (define k (* 10 2))
        (define (loop i acc) (if (= i 0) acc (loop (- i 1) (+ acc k))))
        (loop 10 0)))
;; The error is an ordinary error object: a handler sees it, guard catches it.
(test "guard catches it" 'caught (guard (e ((error-object? e) 'caught)) (letrec* ((a b) (b 1)) a)))
;; Under specialize: the residual (or the original it falls back to) raises the same error.
(define (early k x) (letrec* ((g (lambda (n) (if (= n 0) y (g (- n 1))))) (y (g x))) (+ k y)))
(test-error-message "specialized: read before initialization" "letrec: y used before its initialization"
                    ((specialize early 3) 2))
(define (in-order k x) (letrec* ((g (lambda (n) (if (= n 0) k (g (- n 1))))) (y (g x))) (+ k y)))
(test "specialized: the same group read in order" 6 ((specialize in-order 3) 2))

;; ---- which letrecs take the inits-first form ----------------------------------------------
;; An init that may capture a continuation: every init runs before any variable is assigned,
;; so a re-entry assigns them all afresh (pitfall 1.1 is in callcc-test.scm).
(test "inits-first: a later pure init still waits for the call/cc init" '(0 5)
      (let ((cont #f) (n 0))
        (letrec ((x (call/cc (lambda (c) (set! cont c) 0)))
                 (y 5))
          (set! n (+ n 1))
          (if (= n 1)
              (begin (set! y 7) (cont 0))
              (list x y)))))
;; Inits of lambdas, constants and pure primitive calls keep the direct form: nothing they run
;; can capture a continuation, and grad (nested too) differentiates it without assignments.
(define (product x) (letrec ((a (* x x)) (b (+ x 1))) (* a b)))
(test-approx "grad through a letrec of values" 33.0 ((grad product) 3.0))
(test-approx "nested grad through a letrec of values" 20.0 ((grad (grad product)) 3.0))
(define (closure-on-value x) (letrec ((a (* x x)) (f (lambda (y) (* a y))) (c (* 3 x))) (f c)))
(test-approx "grad: a lambda among the inits reads a value" 36.0 ((grad closure-on-value) 2.0))
(test-approx "nested grad: a lambda among the inits reads a value" 36.0 ((grad (grad closure-on-value)) 2.0))
(test "a pure init that raises still raises" 'raised
      (guard (e (#t 'raised)) (letrec ((a (car '())) (b 1)) b)))

(test-end)
