;;; ad-redefine-test.scm — a later define of a built-in reaches code compiled before it
;;; (engine/redefinition.hpp), and so must its gradient: the transforms lib/ad caches per code
;;; object (and the J kept per closure) were made from the old code, with the old built-in's
;;; derivative rule, and are dropped when code is moved to new cells.
(include "harness.scm")

(define env (interaction-environment))
(eval '(define (f3 x) (* 2.0 (cos x))) env)
(eval '(define (g3 x) (let loop ((i 0) (s 0.0)) (if (= i 2) s (loop (+ i 1) (+ s (f3 x)))))) env)
(test "before: f3" (* 2.0 (cos 1.0)) (eval '(f3 1.0) env))
(test "before: grad f3" (* -2.0 (sin 1.0)) (eval '((grad f3) 1.0) env))
(test "before: grad through a loop" (* -4.0 (sin 1.0)) (eval '((grad g3) 1.0) env))
(eval '(define saved (grad g3)) env)
(eval '(define (cos x) (* x x x)) env)
(test "after: f3 calls the new cos" 2.0 (eval '(f3 1.0) env))
(test "after: grad f3 follows it" 6.0 (eval '((grad f3) 1.0) env))
(test "after: grad through a loop" 12.0 (eval '((grad g3) 1.0) env))
(test "after: a gradient made before" 12.0 (eval '(saved 1.0) env))

(test-end)
