;;; pe-test.scm — specialize, specialize*, residual, specialize-stats (lib/pe).

(include "harness.scm")

(define (add x y) (+ x y))
(define (power x n) (if (= n 0) 1 (* x (power x (- n 1)))))

;; Residual code.
(test "add residual" '(lambda (y) (+ 1 y)) (residual (specialize add 1)))
(test "add result" 42 ((specialize add 1) 41))
(test "power residual" '(lambda (x) (* x (* x (* x 1)))) (residual (specialize* power '((1 . 3)))))
(test "power 16" 65536 ((specialize* power '((1 . 16))) 2))
(test "primitive" 3 ((specialize + 1) 2))
(test "primitive, more arguments" 10 ((specialize + 1) 2 3 4))
(test "primitive, fixed arity" '(lambda (y) (cons 1 y)) (residual (specialize cons 1)))

;; The residual code is a lambda expression that eval runs.
(test "eval of residual" 42 ((eval (residual (specialize add 1)) (interaction-environment)) 41))

;; Memoization.
(test-assert "eq? on equal arguments" (eq? (specialize add 1) (specialize add 1)))
(test-assert "eq? on equal literal lists" (eq? (specialize add '(1 2)) (specialize add '(1 2))))
(test-assert "specialize and specialize* share" (eq? (specialize add 7) (specialize* add '((0 . 7)))))
(test-assert "different values" (not (eq? (specialize add 1) (specialize add 2))))

;; Errors.
(test-error "not a procedure" error-object? (specialize 5 1))
(test-error-message "too many static arguments" "specialize" (specialize add 1 2 3))
(test-error-message "bad position" "specialize*" (specialize* add '((4 . 1))))
(test-error-message "not specialized" "residual" (residual car))

;; Termination: a counter growing under a dynamic test.
(define (count-up n x) (if (= x 0) n (count-up (+ n 1) (- x 1))))
(test "counter loop" 1000 ((specialize count-up 0) 1000))
(define (spin n) (spin (+ n 1)))
(define (maybe-spin n x) (if (> x 0) (spin n) x))
(test "static infinite loop not reached" -1 ((specialize maybe-spin 0) -1))

;; Soundness.
(define v (vector 1 2 3))
(define (vr v i) (vector-ref v i))
(define vr1 (specialize vr v))
(vector-set! v 0 'changed)
(test "static vector mutated later" 'changed (vr1 0))

(define (sq x) (* x x))
(define (use n x) (+ (sq n) x))
(define u (specialize use 3))
(test "before redefinition" 10 (u 1))
(define (sq x) (* 10 x))
(test "after redefinition" 31 (u 1))
(test "respecialized after redefinition" 31 ((specialize use 3) 1))

(define log '())
(define (note x) (set! log (cons x log)) x)
(define (three a b) (+ (note a) (note b) (note a)))
(set! log '())
(test "effects" 4 ((specialize three 1) 2))
(test "effects in order, once each" '(1 2 1) log)

(define (careful n x) (if (> x 0) (car n) 'no))
(test "error not reached" 'no ((specialize careful '()) 0))
(test-error-message "error reached" "car" ((specialize careful '()) 1))

;; Partially static data.
(define (lk y) (cdr (assq 'x (list (cons 'w 0) (cons 'x y)))))
(test "assq on a built list" '(lambda (y) y) (residual (specialize lk)))

;; The whole language.
(define (r a . rest) (apply + a rest))
(test "rest arguments" 15 ((specialize r 1 2 3) 4 5))
(define cl (case-lambda ((a) (list 'one a)) ((a b) (list 'two a b))))
(test "case-lambda" '((one 1) (two 1 2)) (let ((c (specialize cl 1))) (list (c) (c 2))))
(define (cc n x) (call/cc (lambda (k) (if (> x n) (k 'big) 'small))))
(test "call/cc" '(big small) (let ((c (specialize cc 5))) (list (c 10) (c 1))))
(define (my-map f l) (if (null? l) '() (cons (f (car l)) (my-map f (cdr l)))))
(define (add-all n l) (my-map (lambda (x) (+ x n)) l))
(test "higher order" '(11 12) ((specialize add-all 10) '(1 2)))

;; Statistics.
(test-assert "stats" (let ((s (specialize-stats)))
                       (and (assq 'specializations s) (assq 'cache-hits s)
                            (assq 'budget-exhaustions s) (assq 'invalidations s)
                            (>= (cdr (assq 'invalidations s)) 1))))

(test-end)
