;;; ad-forward-test.scm — forward mode by transformation (lib/ad/forward.hpp): derivative and jvp
;;; of a function of reals compute value and tangent together. Each function is checked against
;;; the reverse-mode way (the same function behind a set!, which the forward transformation
;;; refuses, so derivative takes reverse mode: the same numbers and exactness), hand derivatives
;;; and finite differences; nested derivatives keep their answers; code outside the subset falls
;;; back; a specialized derivative is straight tangent code with no closure.
(include "harness.scm")
(include "ad-harness.scm")

;; f's derivative by reverse mode: a set! of a local keeps the forward transformation off.
(define (reverse-derivative f)
  (derivative (lambda (x) (let ((y x)) (set! y (+ y 0)) (f y)))))
;; The same shape and exactness; exact numbers equal, inexact ones to rounding (the two modes add
;; the chain rule's products in different orders).
(define (same? a b)
  (cond ((and (number? a) (number? b))
         (and (eq? (exact? a) (exact? b)) (if (exact? a) (= a b) (close? a b))))
        ((and (pair? a) (pair? b)) (and (same? (car a) (car b)) (same? (cdr a) (cdr b))))
        ((and (vector? a) (vector? b)) (same? (vector->list a) (vector->list b)))
        (else (equal? a b))))
(define (same-as-reverse name f xs)
  (for-each (lambda (x)
              (let ((r ((reverse-derivative f) x)) (d ((derivative f) x)))
                (test-assert (string-append name " at " (number->string x) ": as reverse mode") (same? r d))))
            xs))
(define (fd-agrees name f x)
  (test-assert (string-append name ": finite differences") (close? (fd f x) ((derivative f) x))))

;; ---- primitives: each rule's tangent ----
(define (poly x) (+ (* 3 x x x) (* -2 x) 7))
(define (trig x) (+ (sin x) (* (cos x) (tan x)) (exp (* 0.5 x)) (log (+ 2 x)) (sqrt (+ 3 x))))
(define (inverse x) (+ (asin (/ x 4)) (acos (/ x 5)) (atan x) (atan x 2.0)))
(define (kinks x) (+ (abs x) (max x 0.5) (min x -0.5) (square x) (- x) (/ 1 x) (expt x 3) (expt 2.0 x)))
(define (exactness x) (exact->inexact (* x x)))
(define (quotient-rule x) (/ (sin x) (+ x 2)))   ; both operands active: (da - r db) / b
(for-each (lambda (f name)
            (same-as-reverse name f '(1 0.7 -1.3 2))
            (fd-agrees name f 0.7))
          (list poly trig inverse kinks exactness quotient-rule)
          '("poly" "trig" "inverse" "kinks" "exactness" "quotient rule"))
(test "quotient rule, exact" 1/9 ((derivative (lambda (x) (/ (+ x 1) (+ x 2)))) 1))
(test "exact in, exact out" 12 ((derivative (lambda (x) (* x x x))) 2))
(test "exact: 3x^2 - 2 at 2" 34 ((derivative poly) 2))
(test "inexact value, exact argument" 4.0 ((derivative (lambda (x) (+ (* x x) 0.5))) 2))
(test "constant: exact zero" 0 ((derivative (lambda (x) 5)) 2.0))
(test "inexact constant: 0.0" 0.0 ((derivative (lambda (x) 5.0)) 2))
(test "times an exact 0" 0.0 ((derivative (lambda (x) (* x 0))) 2.0))
(test "piecewise constant" 0.0 ((derivative (lambda (x) (+ (round x) (floor x)))) 2.5))
(test "sqrt at an exact 0: +inf.0" +inf.0 ((derivative sqrt) 0))
(test "abs at 0: 0" 0 ((derivative abs) 0))

;; ---- control: if, loops, recursion, helpers ----
(define (piecewise x) (if (> x 0) (* x x) (- 5 x)))
(define (inactive-arm x) (if (> x 0) x 5.0))
(define (join x) (* 2 (if (< x 1) (sin x) (let ((y (* x x))) (+ y 1)))))
(define (join-atoms x) (let ((z (if (< x 1) x 3.0))) (* z z)))
(define (power x) (let loop ((i 0) (acc 1)) (if (= i 5) acc (loop (+ i 1) (* acc x)))))
(define (pw x n) (if (= n 0) 1 (* x (pw x (- n 1)))))   ; recursion through the global, not in tail position
(define (helper a b) (+ (* a a b) (sin b)))
(define (calls-helper x) (+ (helper x 2.0) (helper 3.0 x) (helper 1.0 2.0)))
(define (mutual x)
  (letrec ((ev (lambda (n acc) (if (= n 0) acc (od (- n 1) (* acc x)))))
           (od (lambda (n acc) (if (= n 0) acc (ev (- n 1) (+ acc x))))))
    (ev 6 x)))
(define (nested-loops x)
  (do ((i 0 (+ i 1)) (s 0.0 (+ s (do ((j 0 (+ j 1)) (t 1.0 (* t x))) ((= j i) t)))))
      ((= i 4) s)))
(define (counter-becomes-active x)   ; acc starts as a constant, becomes active on the second step
  (let loop ((k 0) (acc 1.0) (y 2.0)) (if (= k 3) (* acc y) (loop (+ k 1) y (* y x)))))
(for-each (lambda (f name)
            (same-as-reverse name f '(0.7 -1.3 2.5))
            (fd-agrees name f 0.7))
          (list piecewise inactive-arm join join-atoms power (lambda (x) (pw x 4)) calls-helper mutual nested-loops
                counter-becomes-active)
          '("piecewise" "inactive arm" "join" "join of atoms" "power" "recursion" "helpers" "mutual recursion"
            "nested loops" "a loop parameter becoming active"))
(test "power: 5x^4 at 2" 80 ((derivative power) 2))
(test "recursion: 4x^3 at 2" 32 ((derivative (lambda (x) (pw x 4))) 2))
(test "inactive arm: exact 0" 0 ((derivative (lambda (x) (if (> x 0) x 5))) -1.0))
(test "inactive arm: inexact 0" 0.0 ((derivative inactive-arm) -1.0))

;; a long loop stays a loop (tail calls of the forward procedures)
(define (long-loop x) (let loop ((i 0) (s 0.0)) (if (= i 100000) s (loop (+ i 1) (+ s (* x 1e-5))))))
(test-assert "100000 steps" (close? 1.0 ((derivative long-loop) 3.0)))

;; ---- shapes ----
(define (shaped x) (list x (* x x) 'a (vector (sin x) 3) (cons x '())))
(test "list, vector, symbol leaf" '(1.0 4.0 #f #(-0.4161468365471424 0) (1.0)) ((derivative shaped) 2.0))
(test-assert "list, vector, symbol leaf: as reverse mode" (same? ((reverse-derivative shaped) 2.0) ((derivative shaped) 2.0)))
(test "exact shapes" ((reverse-derivative shaped) 2) ((derivative shaped) 2))
(define (through-shapes x)
  (let* ((p (list x (* 2 x) 7)) (v (vector (car p) (cadr p) (caddr p))))
    (+ (* (vector-ref v 0) (vector-ref v 1)) (vector-ref v 2) (car (cons (* x x) 1)))))
(same-as-reverse "through lists and vectors" through-shapes '(0.5 2))
(define (list-helper x) (let ((g (list (* x x) (sin x)))) (+ (car g) (cadr g))))
(define (calls-list-helper x) (* 3 (list-helper x)))
(same-as-reverse "a helper returning a list" calls-list-helper '(0.5 2.0))

;; ---- jvp ----
(define (f2 a b) (+ (* a a b) (sin b)))
(test-assert "jvp: value and derivative"
             (same? (list (f2 2.0 3.0) (+ (* 2 2.0 3.0 1.0) (* (+ 4.0 (cos 3.0)) 0.5)))
                    (call-with-values (lambda () ((jvp f2) '(2.0 3.0) '(1.0 0.5))) list)))
(test "jvp: exact" '(12 12) (call-with-values (lambda () ((jvp (lambda (a b) (* a a b))) '(2 3) '(1 0))) list))
(test "jvp: shape-valued" '((6.0 2.0) (13.0 3.0))
      (call-with-values (lambda () ((jvp (lambda (a b) (list (* a b) a))) '(2.0 3.0) '(3.0 2.0))) list))
(test "jvp: zero tangent, inexact value" '(4.0 0.0)
      (call-with-values (lambda () ((jvp (lambda (a b) (+ (* a a) b))) '(2 0.0) '(0 0))) list))

;; ---- nesting: no perturbation confusion, derivatives of function-valued functions ----
(test "perturbation confusion (Siskind & Pearlmutter)" 1
      ((derivative (lambda (x) (* x ((derivative (lambda (y) (+ x y))) 1)))) 1))
(define (d-of f) (lambda (x) ((derivative f) x)))
(define (outer-helper x) ((d-of (lambda (y) (* x y y))) x))   ; 2x^2
(test "derivative of a derivative through a helper" 8 ((derivative outer-helper) 2))
(test "second derivative" -0.5 (let ((d2 (derivative (derivative (lambda (x) (sin x)))))) (/ (round (* 1e6 (d2 (/ 3.141592653589793 6)))) 1e6)))
(define (shift s) (lambda (f) (lambda (x) (f (+ x s)))))
(test-assert "amazing bug: d/ds of ((shift s) exp) at 0, applied to exp, at 1"
             (close? (exp 1.0) ((((derivative shift) 0.0) exp) 1.0)))
(test "grad over derivative" 3.0 ((grad (lambda (x) ((derivative (lambda (y) (* x y y y))) 1.0))) 2.0))
(test "derivative over grad" 3 ((derivative (lambda (x) ((grad (lambda (y) (* x y y y))) 1))) 2))

;; ---- outside the subset: reverse mode, same answers or its errors ----
(define (with-local-lambda x) (let ((g (lambda (y) (* y x)))) (+ (g x) (g 2.0))))
(same-as-reverse "a local lambda" with-local-lambda '(0.5 2.0))
(define (with-vector-set x) (let ((v (make-vector 2 0.0))) (vector-set! v 0 (* x x)) (+ (vector-ref v 0) x)))
(same-as-reverse "vector-set! of its own vector" with-vector-set '(0.5 2.0))
(define (by-map x) (apply + (map (lambda (k) (* k x x)) '(1 2 3))))
(same-as-reverse "map over a lambda" by-map '(0.5 2.0))
(test-error-message "no rule: reverse mode's error" "grad: no derivative for"
                    ((derivative (lambda (x) (string->number (number->string (* 2 x))))) 1.0))
(test-error-message "not a real" "expected a real number" ((derivative sin) 'a))
(test-error "a procedure of two arguments: its arity error" ((derivative (lambda (x y) x)) 1.0))
(define (wrong-count x) (helper x))
(test-error "a helper called with the wrong count: its arity error" ((derivative wrong-count) 1.0))

;; a global redefined after the caller's forward form was made: the new procedure has no forward
;; form, so the call takes jvp's (reverse mode): still right
(define (redef-h x) (* x x))
(define (redef-k x) (+ (redef-h x) x))
(test "before the redefinition" 5.0 ((derivative redef-k) 2.0))
(set! redef-h (lambda (x) (let ((c (lambda (y) (* y y y)))) (c x))))
(test "after: through jvp" 13.0 ((derivative redef-k) 2.0))
(set! redef-h (lambda (x) (lambda (y) (* x y))))
(test-error-message "after: a procedure returned into forward code is refused clearly"
                    "forward mode cannot follow a procedure" ((derivative redef-k) 2.0))

;; ---- specialized: straight tangent code, the loop a loop, no closure made per step ----
(define s-trig (specialize (derivative trig)))
(test "specialized = unspecialized" ((derivative trig) 0.7) (s-trig 0.7))
(test-assert "specialized: straight-line" (straight-line? (residual s-trig)))
(define s-power (specialize (derivative (lambda (x) (let loop ((i 0) (acc 1.0)) (if (= i 5) acc (loop (+ i 1) (* acc x))))))))
(test "specialized loop" 80.0 (s-power 2.0))
(test-assert "specialized loop: no %ad- helper, no closure but the procedure and its loop"
             (let ((code (residual s-power)))
               (and (<= (lambdas code) 2)
                    (not (let loop ((l (symbols-in code))) (and (pair? l) (or (ad-helper? (car l)) (loop (cdr l))))))
                    (not (memq 'cons (symbols-in code))))))

;; a loop of dynamic length: the residual is the loop of values and tangents (before the forward
;; form's %ad-fwd-number?, the case of a procedure-valued f made the evaluator give up)
(define (until-100 x) (let loop ((y 1.0) (k 0)) (if (> y 100.0) (+ y k) (loop (* y x) (+ k 1)))))
(define s-until (specialize (derivative until-100)))
(test "dynamic loop: specialized = unspecialized" ((derivative until-100) 1.7) (s-until 1.7))
(test-assert "dynamic loop: specialized to a loop, no %ad- helper"
             (let ((code (residual s-until)))
               (and (= (lambdas code) 2)
                    (not (let loop ((l (symbols-in code))) (and (pair? l) (or (ad-helper? (car l)) (loop (cdr l)))))))))

(test-end)
