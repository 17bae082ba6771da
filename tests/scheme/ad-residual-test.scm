;;; ad-residual-test.scm — gradients through the partial evaluator (lib/ad/README.md,
;;; "Residuals"): specializing a procedure that takes a gradient of a fixed-shape function gives
;;; straight-line residual code (no lambda: no closure allocated, no shape walk left), and the
;;; specialized procedure computes what the original does.
(include "harness.scm")
(include "ad-harness.scm")

;; The same function, unspecialized and specialized, at each argument list.
(define (agree name f args-list)
  (let ((s (specialize f)))
    (for-each (lambda (args) (test (string-append name " agrees") (apply f args) (apply s args))) args-list)
    s))

;; a polynomial of a vector of 3
(define (poly v)
  (+ (* 3.0 (vector-ref v 0) (vector-ref v 0)) (* (vector-ref v 1) (vector-ref v 2)) (- (vector-ref v 2))))
(define (poly-grad a b c) ((grad poly) (vector a b c)))
(define s1 (agree "poly" poly-grad '((1.0 2.0 3.0) (-0.5 0.25 4.0) (1 2 3))))
(test "poly gradient" '#(6.0 3.0 1.0) (s1 1.0 2.0 3.0))
(test "poly residual has no lambda" 1 (lambdas (residual s1)))

;; three scalar arguments, a list of gradients, through a helper procedure
(define (sq x) (* x x))
(define (f3 x y z) (+ (* x y z) (sq x) (* 2 (sq z))))
(define (f3-grad x y z) ((grad f3) x y z))
(define s2 (agree "f3" f3-grad '((1.0 2.0 3.0) (0.5 -1.0 2.0))))
(test "f3 residual has no lambda" 1 (lambdas (residual s2)))

;; a transcendental part: straight-line as well
(define (energy v) (+ (sq (- (vector-ref v 0) (vector-ref v 1))) (exp (vector-ref v 1))))
(define (energy-grad a b) ((grad energy) (vector a b)))
(define s3 (agree "energy" energy-grad '((1.0 2.0) (0.0 -1.0))))
(test "energy residual has no lambda" 1 (lambdas (residual s3)))
;; (specialize (grad f)) itself, f of fixed arity: grad returns a procedure of f's own parameters
;; (not of a rest list), so the residual is straight-line too. Checked by the shape of the code,
;; not by names: one lambda (the procedure itself), no letrec (no specialized helper left), no
;; shape walk (no pair?/vector?/null? test, no apply), no cotangent helper (no %ad- name).
(define (g2 x y) (+ (* x y) (sin x) (/ (exp y) x)))
(define (g3 x y z) (* (+ x (sq y)) (- z (cos x))))
;; the inner gradient of the saddle benchmark, with respect to y1 y2: what a person would write
;; (the optimizer's number facts, passes/fold_constants.cpp: no exactness test of the value, no
;; unused derivative with respect to x1 x2, no product computed twice)
(define (saddle4 x1 x2 y1 y2)
  (+ (* x1 x1) (* x2 x2) (- (* y1 y1)) (- (* y2 y2)) (* 0.5 x1 y1) (* -0.3 x2 y2) (* 0.1 x1) (* -0.2 y2)))
(define s-dy (specialize (grad saddle4 '(2 3))))
(test "saddle dy" ((grad saddle4 '(2 3)) 1.0 2.0 0.5 -0.25) (s-dy 1.0 2.0 0.5 -0.25))
(test-assert "saddle dy: no exact? left" (not (memq 'exact? (symbols-in (residual s-dy)))))
(define (count-calls op x)
  (cond ((pair? x) (+ (if (eq? (car x) op) 1 0) (count-calls op (car x)) (count-calls op (cdr x))))
        (else 0)))
(test "saddle dy: 12 products (8 for the value, 4 for the derivatives)" 12 (count-calls '* (residual s-dy)))
(define sg2 (specialize (grad g2)))
(define sg3 (specialize (grad g3)))
(define sg3-1 (specialize (grad g3 1)))
(define svg2 (specialize (value-and-grad g2)))
(test-assert "(specialize (grad g2)) is straight-line" (straight-line? (residual sg2)))
(test-assert "(specialize (grad g3)) is straight-line" (straight-line? (residual sg3)))
(test-assert "(specialize (grad g3 1)) is straight-line" (straight-line? (residual sg3-1)))
(test-assert "(specialize (value-and-grad g2)) is straight-line" (straight-line? (residual svg2)))
(test-assert "the straight-line check sees a shape walk" (not (straight-line? (residual (specialize (grad poly))))))
(for-each
 (lambda (p)
   (let ((x (car p)) (y (cadr p)) (z (caddr p)))
     (test "specialized grad g2 = grad g2" ((grad g2) x y) (sg2 x y))
     (test "specialized grad g3 = grad g3" ((grad g3) x y z) (sg3 x y z))
     (test "specialized grad g3 1 = grad g3 1" ((grad g3 1) x y z) (sg3-1 x y z))
     (test "specialized value-and-grad g2" (call-with-values (lambda () ((value-and-grad g2) x y)) list)
           (call-with-values (lambda () (svg2 x y)) list))
     (let ((d (sg2 x y)))
       (test-assert "specialized grad g2, d/dx = finite differences" (close? (fd (lambda (x) (g2 x y)) x) (car d)))
       (test-assert "specialized grad g2, d/dy = finite differences" (close? (fd (lambda (y) (g2 x y)) y) (cadr d))))
     (let ((d (sg3 x y z)))
       (test-assert "specialized grad g3, d/dz = finite differences" (close? (fd (lambda (z) (g3 x y z)) z) (caddr d))))))
 '((1.0 2.0 3.0) (0.5 -1.5 2.0) (2 1 3)))
(test "exact arguments, exact gradient" '(6 4) ((specialize (grad (lambda (x y) (* x x y)))) 2 3/2))

;; closures the transformed code makes and hands to procedures the evaluator does not unfold
;; (map over a list of unknown length): the request falls back rather than let a materialized
;; closure's cotangent be indexed by the wrong layout
(define (fp p l) (apply + (map (lambda (e) (* (car p) e (cdr p) e)) l)))
(agree "map over a closure" (lambda (a b l) ((grad fp 0) (cons a b) l)) '((2.0 3.0 (1.0 2.0 3.0)) (1.0 -1.0 (0.5))))
(define (f2 x y l) (let ((k 2.0)) (apply + (map (lambda (e) (* y k x e)) l))))
(agree "map over a closure of three variables" (lambda (x y l) ((grad f2) x y l)) '((2.0 3.0 (1.0 2.0 3.0))))
(define (f3 x y l)
  (let loop ((l l) (acc 0.0)) (if (null? l) acc (loop (cdr l) (+ acc ((lambda (e) (* y 2.0 x e)) (car l)))))))
(agree "named let with a closure" (lambda (x y l) ((grad f3) x y l)) '((2.0 3.0 (1.0 2.0 3.0))))
(test "specialized on x" '(36.0 24.0 (12.0 12.0 12.0)) ((specialize (lambda (x y l) ((grad f2) x y l)) 2.0) 3.0 '(1.0 2.0 3.0)))
;; nested: a gradient through an inner gradient ascent
(define (saddle-f x y) (+ (* x x) (- (* y y)) (* 0.5 x y)))
(define (inner x) (let loop ((y 1.0) (k 0)) (if (= k 5) y (loop (+ y (* 0.2 ((grad (lambda (y) (saddle-f x y))) y))) (+ k 1)))))
(agree "nested gradient" (lambda (x) ((grad (lambda (x) (saddle-f x (inner x)))) x)) '((1.0) (0.3)))

;; Closures the evaluator makes inside differentiated code (a named let, a lambda over the
;; outer arguments): (%ad-j c) is made from c's lambda, with c's free values in the order the code
;; that made c sends c's cotangent to them. Such requests specialize (no fallback), and a layout
;; mix-up would swap derivatives between free variables: the functions are asymmetric in them.
(define (fallbacks) (cdr (assq 'fallbacks (specialize-stats))))
(define (specialized-without-fallback name f args-list)
  (let* ((before (fallbacks)) (s (agree name f args-list)))
    (test (string-append name ": no fallback") before (fallbacks))
    s))
(define (loop-f x y)
  (let loop ((k 0) (acc 0.0))
    (if (= k 3) acc (loop (+ k 1) (+ acc (* x k) (* y y x) (* 3.0 y))))))
(define s-loop (specialized-without-fallback "named let over x y" (lambda (x y) ((grad loop-f) x y)) '((1.0 2.0) (-0.5 3.0))))
(test-assert "named let: d/dx = finite differences" (close? (fd (lambda (x) (loop-f x 2.0)) 1.0) (car (s-loop 1.0 2.0))))
(test-assert "named let: d/dy = finite differences" (close? (fd (lambda (y) (loop-f 1.0 y)) 2.0) (cadr (s-loop 1.0 2.0))))
(define (sf x1 x2 y1 y2) (+ (* x1 x1) (* 3.0 x2 x2) (- (* y1 y1)) (- (* y2 y2)) (* 0.5 x1 y1) (* -0.3 x2 y2) (* 0.1 x1)))
(define (ascent x1 x2)
  (let ((g (grad (lambda (y) (sf x1 x2 (car y) (cdr y))))))
    (let loop ((y (cons 1.0 2.0)) (k 0))
      (if (= k 4) y (let ((d (g y))) (loop (cons (+ (car y) (* 0.2 (car d))) (+ (cdr y) (* 0.3 (cdr d)))) (+ k 1)))))))
(define (saddle-outer x1 x2) (let ((y (ascent x1 x2))) (sf x1 x2 (car y) (cdr y))))
(define s-saddle (specialized-without-fallback "saddle, closure over x1 x2" (grad saddle-outer) '((1.0 2.0) (0.3 -0.7))))
(test-assert "saddle: d/dx1 = finite differences" (close? (fd (lambda (x) (saddle-outer x 2.0)) 1.0) (car (s-saddle 1.0 2.0))))
(test-assert "saddle: d/dx2 = finite differences" (close? (fd (lambda (x) (saddle-outer 1.0 x)) 2.0) (cadr (s-saddle 1.0 2.0))))
(test-assert "saddle: no %ad-j left in the residual" (not (memq (quote %ad-j) (symbols-in (residual s-saddle)))))
;; straight-line: no pullback run only while a set! cell's adjoint is pending (grad's own check
;; that f is a procedure is a branch with one quiet arm), no closure cotangent left as a list
(test-assert "saddle: the residual is straight-line" (straight-line? (residual s-saddle)))

;; forward over reverse through a closure the evaluator makes: derivative of an inner gradient of
;; a closure over w (the particle benchmark's nesting)
(define (inner-grad w) ((grad (lambda (x) (* x x w (sin w)))) 1.5))
(define s-fr (specialized-without-fallback "derivative of a gradient of a closure" (derivative inner-grad) '((0.7) (2.0))))
(test-assert "derivative of a gradient of a closure = finite differences" (close? (fd inner-grad 0.7) (s-fr 0.7)))

;; derivative of a number-valued function of a real is its forward form (lib/ad/forward.hpp): value
;; and tangent computed together, no pullback: specialized, straight-line like a gradient
(define (hx x) (* x x (sin x)))
(define s-dh (agree "derivative" (derivative hx) '((0.5) (-1.25) (2))))
(test-assert "derivative = finite differences" (close? (fd hx 0.5) (s-dh 0.5)))
(test-assert "derivative: the residual is straight-line" (straight-line? (residual s-dh)))
;; x*x and (x*x)*sin x; tangents: cos x times t, x times t (x*x's, (+ t5 t5) after CSE), and
;; the product rule's two
(test "derivative: value and tangent together (6 products)" 6 (count-calls '* (residual s-dh)))
(test "derivative exactness: exact polynomial" 12 ((derivative (lambda (x) (* x x x))) 2))
(test "derivative exactness: constant of an inexact x" 0 ((derivative (lambda (x) 3)) 1.5))
(test "derivative exactness: inexact function of an exact x" 1.5 ((derivative (lambda (x) (* 1.5 x))) 2))
;; a partial 1/E (sqrt, log, asin) times the cotangent is one division d/E (reverse.cpp, over_rule):
;; no product with (/ 1 E), whose exact 1 meets a flonum in generic arithmetic
(define (dist x y) (sqrt (+ (* x x) (* y y))))
(define s-dist (specialize (grad dist)))
(test-assert "sqrt's rule: the gradient" (let ((g (s-dist 3.0 4.0))) (and (close? 0.6 (car g)) (close? 0.8 (cadr g)))))
(test-assert "sqrt's rule: straight-line" (not (memq 'lambda (symbols-in (cdr (residual s-dist))))))
(test "sqrt's rule: no (/ 1 ...)" 0 (let loop ((x (residual s-dist)))
                                       (cond ((and (pair? x) (eq? (car x) '/) (pair? (cdr x)) (eqv? (cadr x) 1)) 1)
                                             ((pair? x) (+ (loop (car x)) (loop (cdr x))))
                                             (else 0))))
(test "sqrt's rule: 4 products (2 for the value, 2 for the derivatives; 5 with the product by (/ 1 E))" 4 (count-calls '* (residual s-dist)))
(test "sqrt's rule, exact: 1/4" 1/4 ((grad sqrt) 4))
(test "sqrt's rule at an exact 0: +inf.0" +inf.0 ((grad (lambda (x) (* 3 (sqrt x)))) 0))
(test-assert "log's rule: 1/x" (close? 0.25 ((grad log) 4.0)))
(test "sqrt's rule at an inexact 0: +inf.0" +inf.0 ((grad sqrt) 0.0))
(test "sqrt's rule at an exact 0, zero cotangent" #t (nan? ((grad (lambda (x) (* 0 (sqrt x)))) 0)))

;; an if whose arms are quiet and whose backward code reads nothing the arm computed (reverse.cpp,
;; flag_branch): the backward code tests the same test again, so the transformed code makes no
;; pullback closure, no (value . pullback) pair and no vector of cotangents for it; the residual's
;; body (past the helpers' letrec*) has none either. Before, each arm was (cons value (lambda (d)
;; (vector ...))).
(define (body-of code)  ; (lambda args (letrec* (helpers) body)) -> body
  (let ((b (caddr code))) (if (and (pair? b) (eq? (car b) 'letrec*)) (caddr b) b)))
(define (fif x y) (* x (if (> y 0) x y) y (if (< x 0) (- x) (* 2 x))))
(define s-fif (agree "non-tail if of atoms" (grad fif) '((2.0 3.0) (2.0 -3.0) (-1.5 0.5) (2 3) (-2 -3))))
(test "non-tail if: exact gradient" (list 72 16) (s-fif 2 3))
(test-assert "non-tail if: finite differences in x"
             (close? (fd (lambda (x) (fif x -0.7)) 1.3) (car (s-fif 1.3 -0.7))))
(test-assert "non-tail if: finite differences in y"
             (close? (fd (lambda (y) (fif -1.1 y)) 0.4) (cadr (s-fif -1.1 0.4))))
(test "non-tail if: no lambda, cons or vector in the residual's body" '(0 0 0)
      (let ((b (body-of (residual s-fif)))) (list (lambdas b) (count-calls 'cons b) (count-calls 'vector b))))
(test "non-tail if: second derivative" 6 ((derivative (derivative (lambda (x) (* x (if (> x 0) (* x x) x))))) 1))
(test "non-tail if: second derivative, other arm" 2 ((derivative (derivative (lambda (x) (* x (if (> x 0) (* x x) x))))) -1))
(test "non-tail if: hessian" (quote #(#(2 0) #(0 0)))
      ((hessian (lambda (v) (let ((a (vector-ref v 0)) (b (vector-ref v 1))) (* a (if (> b 0) a b) (if (> a 0) 1 b))))) (vector 1 2)))
(test "non-tail if: hessian, other arms" '#(#(0 -4) #(-4 -2))
      ((hessian (lambda (v) (let ((a (vector-ref v 0)) (b (vector-ref v 1))) (* a (if (> b 0) a b) (if (> a 0) 1 b))))) (vector -1 -2)))

(test-end)
