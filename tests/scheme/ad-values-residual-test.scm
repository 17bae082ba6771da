;;; ad-values-residual-test.scm — multiple values through the partial evaluator (lib/pe/README.md,
;;; "Multiple values"; lib/ad/README.md, "Residuals"): call-with-values, let-values and receive
;;; around value-and-grad, vjp and jvp specialize with no consumer lambda left, compute what the
;;; unspecialized code computes, and multiple values the evaluator does not know keep their
;;; meaning (a residual %apply-values).
(include "harness.scm")
(include "ad-harness.scm")

(define (mentions? s code) (and (memq s (symbols-in code)) #t))
;; The residual has no call-with-values and no %apply-values: the consumer was called in place.
(define (no-spreading? code)
  (not (or (mentions? 'call-with-values code) (mentions? '%apply-values code))))
;; The same procedure unspecialized and specialized, at each argument list.
(define (agree name f s args-list)
  (for-each (lambda (args) (test (string-append name " agrees") (apply f args) (apply s args))) args-list))
(define inputs '((1.0 2.0) (0.5 -1.5) (-2.0 0.25) (3.0 1e-3) (2 1) (7/2 -3) (1e6 -1e-6)))

(define (g2 x y) (+ (* x y) (sin x) (/ (exp y) x)))

;; value-and-grad: the consumer is called on the value and the gradient list in place
(define (h-vg x y)
  (call-with-values (lambda () ((value-and-grad g2) x y)) (lambda (v g) (list v (car g) (cadr g)))))
(define s-vg (specialize h-vg))
(agree "value-and-grad in call-with-values" h-vg s-vg inputs)
(test "value-and-grad in call-with-values: one lambda" 1 (lambdas (residual s-vg)))
(test-assert "value-and-grad in call-with-values: no spreading" (no-spreading? (residual s-vg)))
(for-each (lambda (a)
            (let ((r (s-vg (car a) (cadr a))) (x (exact->inexact (car a))) (y (exact->inexact (cadr a))))
              (test-assert "value-and-grad in call-with-values: d/dx = finite differences"
                           (close? (fd (lambda (x) (g2 x y)) x) (cadr r)))
              (test-assert "value-and-grad in call-with-values: d/dy = finite differences"
                           (close? (fd (lambda (y) (g2 x y)) y) (caddr r)))))
          '((1.0 2.0) (0.5 -1.5) (-2.0 0.25)))

;; let-values and receive expand to call-with-values
(define (h-lv x y) (let-values (((v g) ((value-and-grad g2) x y))) (+ v (* 2 (car g)) (* 3 (cadr g)))))
(define s-lv (specialize h-lv))
(agree "value-and-grad in let-values" h-lv s-lv inputs)
(test "value-and-grad in let-values: one lambda" 1 (lambdas (residual s-lv)))

;; vjp: the consumer calls the pullback, which is unfolded where it is called
(define (h-vjp x y) (let-values (((v pb) ((vjp g2) x y))) (cons v (pb 1.0))))
(define s-vjp (specialize h-vjp))
(agree "vjp in let-values" h-vjp s-vjp inputs)
(test-assert "vjp in let-values: no spreading" (no-spreading? (residual s-vjp)))
(test "vjp in let-values: one lambda" 1 (lambdas (residual s-vjp)))
(test "vjp in let-values = grad" ((grad g2) 1.0 2.0) (cdr (s-vjp 1.0 2.0)))

;; jvp of a number-valued function
(define (h-jvp x y) (call-with-values (lambda () ((jvp g2) (list x y) (list 1.0 -2.0))) list))
(define s-jvp (specialize h-jvp))
(agree "jvp in call-with-values" h-jvp s-jvp inputs)
(test-assert "jvp in call-with-values: no spreading" (no-spreading? (residual s-jvp)))
(for-each (lambda (a)
            (let ((r (s-jvp (car a) (cadr a))) (gr ((grad g2) (car a) (cadr a))))
              (test-assert "jvp = <grad, t>" (close? (- (car gr) (* 2.0 (cadr gr))) (cadr r)))))
          inputs)

;; grad of a function that itself spreads multiple values (reverse mode through %apply-values)
(define (mv x y) (call-with-values (lambda () (values (* x y) (sin y))) (lambda (a b) (+ (* a b) a))))
(define (h-mv x y) ((grad mv) x y))
(define s-mv (specialize h-mv))
(agree "grad through call-with-values" h-mv s-mv inputs)
(test-assert "grad through call-with-values: no spreading" (no-spreading? (residual s-mv)))

;; Multiple values the evaluator does not know stay a residual %apply-values: the same results for
;; zero, one and several values, and for a single value that is not a number
(define (spread p) (call-with-values p list))
(define s-spread (specialize spread))
(for-each (lambda (p) (test "unknown producer" (spread p) (s-spread p)))
          (list (lambda () (values)) (lambda () 5) (lambda () (values 1 2 3)) (lambda () (values 'a '(b)))
                (lambda () '(1 2)) (lambda () (vector 1 2))))
(define (spread2 x k) (call-with-values (lambda () (k x)) (lambda args (length args))))
(define s-spread2 (specialize spread2))
(for-each (lambda (k) (test "unknown producer of a known argument" (spread2 1 k) (s-spread2 1 k)))
          (list (lambda (x) x) (lambda (x) (values x x)) (lambda (x) (values))))
(define (spread3 k) (call-with-values (lambda () (values 1 2)) k))
(define s-spread3 (specialize spread3))
(test "unknown consumer" (spread3 list) (s-spread3 list))
(test "unknown consumer, two arguments" 3 (s-spread3 +))
;; known values: the consumer with the wrong number of arguments still fails
(define (bad x) (call-with-values (lambda () (values x 2)) (lambda (a) a)))
(test-error "consumer of one argument given two values" (bad 1))
(test-error "specialized: consumer of one argument given two values" ((specialize bad) 1))
(define (zero x) (call-with-values (lambda () (values)) (lambda () x)))
(test "zero values" 4 ((specialize zero) 4))
;; a multiple-values object kept in a variable, stored in a structure, its parts mutated
(define (kept x) (let ((v (values (cons x 1) 2))) (call-with-values (lambda () v) (lambda (a b) (+ (car a) b)))))
(agree "values in a variable" kept (specialize kept) '((1) (2.5)))
(define (stored x) (let ((v (values x 2))) (vector-length (vector v v))))
(agree "values in a vector" stored (specialize stored) '((1)))
(define (mutated x)
  (let* ((p (cons x 1)) (v (values p 2)))
    (set-car! p 9)
    (call-with-values (lambda () v) (lambda (a b) (+ (car a) b)))))
(agree "values whose part is mutated" mutated (specialize mutated) '((1) (3)))
(define (escaped x k)
  (let* ((p (cons x 1)) (v (values p 2)))
    (k v)
    (call-with-values (lambda () v) (lambda (a b) (+ (car a) b)))))
(define (smash v) (call-with-values (lambda () v) (lambda (a b) (set-car! a 40))))
(agree "values whose part is mutated by unknown code" escaped (specialize escaped) (list (list 1 smash)))

(test-end)
