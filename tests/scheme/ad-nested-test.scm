;;; ad-nested-test.scm — forward mode (derivative, jvp, jacobian, hessian), nested derivatives
;;; (perturbation confusion, derivatives of higher-order functions), and the transformed code
;;; through specialize (differential: the same numbers with and without the partial evaluator).
(include "harness.scm")
(include "ad-harness.scm")


;; ---- derivative / jvp ----
(test "derivative of x^3 at 2" 12 ((derivative (lambda (x) (* x x x))) 2))
(test-approx "derivative of sin" (cos 0.3) ((derivative sin) 0.3))
(test "derivative of a list-valued function" '(1.0 6.0)
      ((derivative (lambda (x) (list x (* 3 x x)))) 1.0))
(test "derivative of a vector-valued function" #(2 1)
      ((derivative (lambda (x) (vector (* 2 x) (+ x 5)))) 7))
(test "jvp" '(6.0 7.0)
      (call-with-values (lambda () ((jvp (lambda (x y) (* x y))) '(2.0 3.0) '(1.0 2.0))) list))
(test-assert "derivative agrees with finite differences"
             (close? ((derivative (lambda (x) (exp (sin x)))) 0.7)
                     (fd (lambda (x) (exp (sin x))) 0.7)))

;; ---- jacobian / hessian ----
(test "jacobian" #(#(2.0 0.0) #(3.0 1.0))
      ((jacobian (lambda (v) (vector (* 2 (vector-ref v 0))
                                     (+ (* 3 (vector-ref v 0)) (vector-ref v 1)))))
       (vector 1.0 1.0)))
(test "hessian of x^2 y + y^3" #(#(2.0 2.0) #(2.0 6.0))
      ((hessian (lambda (v) (let ((x (vector-ref v 0)) (y (vector-ref v 1)))
                              (+ (* x x y) (* y y y)))))
       (vector 1.0 1.0)))

;; ---- nesting ----
(test "grad of grad" 6.0 ((grad (grad (lambda (x) (* x x x)))) 1.0))
(test-approx "second derivative of sin" (- (sin 0.5)) ((derivative (derivative sin)) 0.5))
(test "perturbation confusion (Siskind & Pearlmutter)" 1
      ((derivative (lambda (x) (* x ((derivative (lambda (y) (+ x y))) 1)))) 1))
(test "perturbation confusion, reverse over reverse" 1
      ((grad (lambda (x) (* x ((grad (lambda (y) (+ x y))) 1)))) 1))
(test "d/dx of (x * d/dy (x*y))" 4
      ((derivative (lambda (x) (* x ((derivative (lambda (y) (* x y))) 3)))) 2))
;; Manzyuk, Pearlmutter et al., "Perturbation confusion in forward automatic differentiation
;; of higher-order functions": with s = (lambda (u) (lambda (f) (lambda (x) (f (+ x u))))),
;; ((derivative s) 0) is the derivative operator; applied twice to exp it is exp''.
(define (shift u) (lambda (f) (lambda (x) (f (+ x u)))))
(test-approx "derivative of a function-valued function (the amazing bug)"
             (exp 1.0)
             (let ((d ((derivative shift) 0)))
               ((d (d exp)) 1.0)))
(test-approx "derivative of a closure-returning function applied later" 3.0
             (((derivative (lambda (a) (lambda (y) (* a y)))) 1.0) 3.0))

;; An exact 0 computed by arithmetic is not the zero cotangent: its derivative still counts.
(test "nested derivative at an exact 0" 1
      ((derivative (lambda (x) ((grad (lambda (y) (* x y))) 1))) 0))
(test "grad of grad at an exact 0" 2
      ((grad (lambda (x) ((grad (lambda (y) (* x x y))) 1))) 1))

;; ---- through the partial evaluator and the JIT: same numbers ----
(define (poly x y) (+ (* x x y) (sin y)))
(test "specialize (grad f) gives grad's numbers" ((grad poly) 1.5 0.5) ((specialize (grad poly)) 1.5 0.5))
(test "specialize a function with a fixed argument, then grad" ((grad poly 1) 2.0 0.5)
      ((grad (specialize poly 2.0)) 0.5))
(define (sumsq v) (let loop ((i 0) (s 0)) (if (= i (vector-length v)) s (loop (+ i 1) (+ s (square (vector-ref v i)))))))
(test "grad of a specialized loop" #(2.0 4.0 6.0) ((grad sumsq) (vector 1.0 2.0 3.0)))
(test "grad, many calls (JIT warm)" #t
      (let loop ((i 0) (ok #t))
        (if (= i 300) ok
            (loop (+ i 1) (and ok (equal? ((grad sumsq) (vector 1.0 (exact->inexact i))) (vector 2.0 (* 2.0 i))))))))

(test-end)
