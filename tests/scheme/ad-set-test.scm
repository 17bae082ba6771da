;;; ad-set-test.scm — set! of local variables in differentiated code (lib/ad/README.md, "set!"):
;;; reverse mode (grad, vjp, jacobian) and forward mode (derivative, jvp), checked against
;;; central finite differences (relative 1e-5, step 1e-6 scaled by |x|) and hand formulas; what
;;; stays refused gives an error naming the procedure.
(include "harness.scm")
(include "ad-harness.scm")

;; grad and derivative of a real function both agree with finite differences at x
(define (check-fd name f x)
  (let ((g ((grad f) x)) (d ((derivative f) x)) (n (fd f x)))
    (if (close? g n) (test-assert (string-append name " (grad)") #t) (test (string-append name " (grad)") n g))
    (if (close? d n) (test-assert (string-append name " (derivative)") #t)
        (test (string-append name " (derivative)") n d))))
;; the gradient of f at the list xs agrees with finite differences in each coordinate
(define (check-fd-list name f xs)
  (let ((g ((grad f) xs)))
    (let loop ((i 0) (gs g))
      (if (< i (length xs))
          (let* ((fi (lambda (t) (f (let build ((k 0) (l xs))
                                       (if (null? l) '() (cons (if (= k i) t (car l)) (build (+ k 1) (cdr l))))))))
                 (n (fd fi (list-ref xs i))))
            (if (close? (car gs) n)
                (test-assert (string-append name " coordinate " (number->string i)) #t)
                (test (string-append name " coordinate " (number->string i)) n (car gs)))
            (loop (+ i 1) (cdr gs)))))))

;; ---- the accumulator loop of the issue ----
(define (sum-squares l)
  (let ((s 0))
    (for-each (lambda (x) (set! s (+ s (* x x)))) l)
    s))
(test "for-each accumulator" '(2.0 4.0 6.0) ((grad sum-squares) '(1.0 2.0 3.0)))
(test "for-each accumulator, exact" '(2 4 6) ((grad sum-squares) '(1 2 3)))
(test "twice in a row (no adjoint left over)" '(2.0 4.0 6.0) ((grad sum-squares) '(1.0 2.0 3.0)))
(check-fd-list "fd accumulator of products"
               (lambda (l) (let ((p 1.0)) (for-each (lambda (x) (set! p (* p (sin x)))) l) p))
               '(0.3 1.1 -0.7 2.0))

(test "read in an if arm after the loop" '(20.0 40.0)
      ((grad (lambda (l) (let ((s 0.0)) (for-each (lambda (x) (set! s (+ s (* x x)))) l) (if (> s 0) (* s s) 0.0))))
       '(1.0 2.0)))
(test "a closure made in a helper, called after it returned" 36.0
      ((grad (lambda (x)
               (define (mk x) (let ((s x)) (lambda () (set! s (* s 3)) s)))
               (let ((h (mk x))) (h) (* x (h)))))
       2.0))

;; ---- straight-line code, parameters, branches ----
(test "set! twice" 6.0 ((grad (lambda (x) (let ((y 1)) (set! y (* y x)) (set! y (* y x)) y))) 3.0))
(check-fd "fd set! of a parameter" (lambda (x) (set! x (* x x)) (sin x)) 0.8)
(check-fd "fd overwrite by a constant cuts the dependence"
          (lambda (x) (let ((s x)) (set! s 3.0) (* s x))) 1.7)
(test "overwrite by a constant" 3.0 ((grad (lambda (x) (let ((s x)) (set! s 3.0) (* s x)))) 1.7))
(define (arm x)
  (let ((s x))
    (if (> x 0) (set! s (* s s)) (set! s 5.0))
    (* s 2)))
(test "set! in the taken arm" 8.0 ((grad arm) 2.0))
(test "set! of a constant in the taken arm" 0.0 ((grad arm) -1.0))
(check-fd "fd set! in an arm" arm 1.3)
(check-fd "fd set! read before and after"
          (lambda (x) (let ((s (* x x))) (let ((a s)) (set! s (+ s x)) (* a s (exp s))))) 0.4)

;; ---- loops and closures over the assigned variable ----
(check-fd "fd named let updating an outer variable"
          (lambda (x)
            (let ((s 0.0))
              (let loop ((i 0))
                (when (< i 4)
                  (set! s (+ (* s x) (sin (* i x))))
                  (loop (+ i 1))))
              s))
          0.9)
(check-fd "fd do loop with set!"
          (lambda (x) (let ((acc 1.0)) (do ((i 0 (+ i 1))) ((= i 3)) (set! acc (* acc (+ x i)))) acc))
          1.2)
(test "a closure called twice doubles twice" 4.0
      ((grad (lambda (x) (let* ((s x) (g (lambda () (set! s (* s 2)) s))) (g) (g)))) 1.5))
(check-fd "fd counter closure returned from a helper"
          (lambda (x)
            (define (make-acc init) (let ((t init)) (lambda (d) (set! t (+ t (* d d))) t)))
            (let ((acc (make-acc x)))
              (acc x)
              (acc (sin x))))
          0.6)
(check-fd "fd map with a running total"
          (lambda (x) (let ((total 0.0))
                        (apply + (map (lambda (k) (set! total (+ total (* k x))) (* total total)) '(1 2 3)))))
          0.7)
(check-fd "fd set! inside a nested let in a lambda"
          (lambda (x) (let ((f (lambda (y) (let ((z y)) (set! z (* z z z)) z)))) (+ (f x) (f (* 2 x)))))
          0.5)

;; ---- several arguments, vjp, jacobian, jvp ----
(test "grad of two arguments" '(3.0 2.0)
      ((grad (lambda (a b) (let ((s a)) (set! s (* s b)) (set! s (+ s a)) s))) 2.0 2.0))
(call-with-values
    (lambda () ((vjp (lambda (x) (let ((s x)) (set! s (* s s)) s))) 3.0))
  (lambda (y pb)
    (test "vjp value" 9.0 y)
    (test "vjp pullback" '(6.0) (pb 1.0))
    (test "vjp pullback again" '(12.0) (pb 2.0))))
(test "jacobian with set!" '#(#(2.0 0.0) #(3.0 2.0))
      ((jacobian (lambda (v) (let ((s (vector-ref v 0)))
                               (set! s (* s s))
                               (vector s (+ (* 3 (vector-ref v 0)) (* 2 (vector-ref v 1))))))) #(1.0 1.0)))
(call-with-values
    (lambda () ((jvp (lambda (a b) (let ((s a)) (set! s (* s b)) s))) '(2.0 3.0) '(1.0 1.0)))
  (lambda (y t)
    (test "jvp value" 6.0 y)
    (test "jvp tangent" 5.0 t)))
(test "derivative of a vector-valued function with set!" '#(2.0 1.0)
      ((derivative (lambda (x) (let ((s x)) (set! s (* s x)) (vector s x)))) 1.0))

;; ---- what stays refused ----
(define outside
  (let ((n 0.0))
    (lambda (x) (set! n (* x x)) n)))
(test-error-message "set! of a variable bound outside" "set! of the outside variable n"
                    ((grad outside) 2.0))
;; a closure over the argument stored in an outside variable and called later: its derivative
;; would be lost with the box (the gradient was 0.0), so it is refused like a number; in the
;; closure's own slot (set-free), in a box (the binder reads it too), inside a list
(define keeps-closure (let ((h #f)) (lambda (x) (set! h (lambda () x)) (* 2 (h)))))
(test-error-message "a closure over x stored in an own slot" "set! of the outside variable h" ((grad keeps-closure) 3.0))
(define keeps-closure-boxed (let ((h #f)) (if (eq? h 'never) (display h)) (lambda (x) (set! h (lambda () x)) (* 2 (h)))))
(test-error-message "a closure over x stored in a box" "set! of the outside variable h" ((grad keeps-closure-boxed) 3.0))
(define keeps-closure-list (let ((h #f)) (lambda (x) (set! h (list (lambda () x))) (* 2 ((car h))))))
(test-error-message "a closure over x stored in a list" "set! of the outside variable h" ((grad keeps-closure-list) 3.0))
;; a closure over nothing being differentiated may be stored
(define keeps-constant (let ((h #f)) (lambda (x) (set! h (lambda () 2)) (* x (h)))))
(test "a closure over constants stored: fine" 2 ((grad keeps-constant) 3))
(test-error-message "nested derivative through set!" "nested derivatives are not supported through set!"
                    ((hessian (lambda (v) (let ((s (vector-ref v 0))) (set! s (* s s)) s))) #(1.0)))
;; a vector the function makes itself may be written (ad-vector-set-test); the argument may not
(test "vector-set! into a vector the function made" 1.0
      ((grad (lambda (x) (let ((v (make-vector 1 0))) (vector-set! v 0 x) (vector-ref v 0)))) 1.0))
(test-error-message "vector-set! of a value being differentiated" "mutation"
                    ((grad (lambda (v) (vector-set! v 0 (* 2 (vector-ref v 0))) (vector-ref v 0))) (vector 1.0)))

(test-end)
