;;; ad-values-test.scm — multiple values in differentiated code (lib/ad/README.md, "values"):
;;; values / call-with-values / let-values / define-values through grad and derivative, checked
;;; against hand formulas and central finite differences (relative 1e-5, step 1e-6 scaled by |x|).
(include "harness.scm")
(include "ad-harness.scm")

(define (check-fd name f x)
  (let ((g ((grad f) x)) (d ((derivative f) x)) (n (fd f x)))
    (if (close? g n) (test-assert (string-append name " (grad)") #t) (test (string-append name " (grad)") n g))
    (if (close? d n) (test-assert (string-append name " (derivative)") #t)
        (test (string-append name " (derivative)") n d))))

;; a helper returning two reals
(define (square-and-sine x) (values (* x x) (sin x)))
(define (use-both x)
  (call-with-values (lambda () (square-and-sine x)) (lambda (a b) (+ a (* 2 b)))))
(test-approx "call-with-values of a helper" (+ (* 2 0.5) (* 2 (cos 0.5))) ((grad use-both) 0.5))
(check-fd "fd call-with-values" use-both 0.5)
(test "exact through values (x * x^2)" 12 ((grad (lambda (x) (call-with-values (lambda () (values x (* x x))) *))) 2))
(test "one value through call-with-values" 3 ((grad (lambda (x) (call-with-values (lambda () (* 3 x)) (lambda (a) a)))) 1))
(test "a primitive consumer" 3.0 ((grad (lambda (x) (call-with-values (lambda () (values x x x)) +))) 2.0))
(test "one value unused" 1.0 ((grad (lambda (x) (call-with-values (lambda () (values x (* x x))) (lambda (a b) a)))) 5.0))
(test "no values" 2.0 ((grad (lambda (x) (call-with-values (lambda () (values)) (lambda () (* 2 x))))) 5.0))

;; the derived forms
(check-fd "fd let-values" (lambda (x) (let-values (((a b) (square-and-sine x)) ((c) (values (exp x)))) (* a b c))) 0.7)
(check-fd "fd let*-values" (lambda (x) (let*-values (((a b) (square-and-sine x)) ((c d) (values b a))) (- (* c c) d))) 1.1)
(check-fd "fd let-values with a rest list" (lambda (x) (let-values (((a . rest) (values x (* 2 x) (* 3 x)))) (* a (apply + rest)))) 0.9)
(check-fd "fd define-values" (lambda (x) (define-values (p q) (square-and-sine x)) (/ p (+ 2 q))) 0.4)

;; values out of a recursion, consumed by a closure over a value being differentiated
(define (sum-and-product l)
  (if (null? l)
      (values 0 1)
      (let-values (((s p) (sum-and-product (cdr l))))
        (values (+ (car l) s) (* (car l) p)))))
(test "recursion returning two values" '(7.0 4.0 3.0)
      ((grad (lambda (l) (let-values (((s p) (sum-and-product l))) (+ s p)))) '(1.0 2.0 3.0)))
(check-fd "fd consumer closing over x"
          (lambda (x) (call-with-values (lambda () (square-and-sine x)) (lambda (a b) (* x a b)))) 0.6)
;; a vector and a real
(test "values of a vector and a real" '#(2.0 0.0)
      ((grad (lambda (v) (let-values (((w s) (values v (vector-ref v 0)))) (+ s (vector-ref w 0))))) #(1.0 2.0)))
;; a function of several values, forward mode along tangents
(call-with-values
    (lambda () ((jvp (lambda (a b) (call-with-values (lambda () (values (* a b) (+ a b))) -))) '(2.0 3.0) '(1.0 0.0)))
  (lambda (y t)
    (test "jvp value" 1.0 y)
    (test "jvp tangent" 2.0 t)))

;; A tangent shaped unlike its argument is an error naming jvp, not a silent 0.
(define (weighted v) (+ (vector-ref v 0) (* 2 (vector-ref v 1))))
(call-with-values (lambda () ((jvp weighted) (list (vector 1.0 2.0)) (list (vector 1.0 1.0))))
  (lambda (y t) (test "jvp along a vector tangent" 3.0 t)))
(test-error-message "jvp: a list tangent for a vector" "jvp: expected a tangent shaped like"
  ((jvp weighted) (list (vector 1.0 2.0)) (list (list 1.0 1.0))))
(test-error-message "jvp: a real tangent for a vector" "jvp: expected a tangent shaped like"
  ((jvp weighted) (list (vector 1.0 2.0)) (list 1.0)))
(test-error-message "jvp: a short vector tangent" "jvp: expected a tangent shaped like"
  ((jvp weighted) (list (vector 1.0 2.0)) (list (vector 1.0))))
(test-error-message "jvp: a vector tangent for a real" "jvp: expected a tangent shaped like"
  ((jvp (lambda (x) (* x x))) (list 3.0) (list (vector 1.0))))

(test-end)
