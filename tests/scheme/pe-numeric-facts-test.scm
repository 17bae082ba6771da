;;; pe-numeric-facts-test.scm — what numeric tests and element reads teach the partial evaluator
;;; (lib/pe/facts.cpp): after a residual (= x c) or (zero? x), c a small integer, the then arm
;;; knows x is numerically c (so (< x 5) is decided) and the else arm that it is not — never
;;; that x is the fixnum c, since 3.0 passes (= x 3) too; after a residual (vector-ref v i) or
;;; (string-ref s i), a later read of the same element is that value while no residual code
;;; that may mutate ran since. Every residual agrees with the original, raising included.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (count-of sym code) (let loop ((l (walk code)) (n 0)) (if (null? l) n (loop (cdr l) (if (eq? (car l) sym) (+ n 1) n)))))
(define (outcome thunk) (guard (e (#t (if (error-object? e) (list 'raised (error-object-message e)) (list 'raised e)))) (thunk)))
(define (agree name f sf inputs)
  (for-each (lambda (args) (test name (outcome (lambda () (apply f args))) (outcome (lambda () (apply sf args)))))
            inputs))
(define numbers (list 3 3.0 4 -3 0 0.0 -0.0 2.5 1/2 (expt 2 70) +nan.0 +inf.0 'x "3" #\3 '()))

;; (= x 3): the then arm knows x is numerically 3, the else arm that it is not.
(define (f x) (if (= x 3) (list (= x 3) (< x 5) (> x 3) (<= 3 x) (zero? x) (eqv? x 3) x) (list (= x 3) (= 3 x) (= x 4))))
(define sf (specialize f))
(test "the then arm decides every comparison with a constant (the else arm keeps (= x 4))" 2 (count-of '= (residual sf)))
(test "... but not eqv? (3.0 = 3)" 1 (count-of 'eqv? (residual sf)))
(test "... the else arm decides (= x 3), not (= x 4)" '(#f #f #t) (sf 4))
(test "3.0 is not the fixnum 3" '(#t #t #f #t #f #f 3.0) (sf 3.0))
(agree "(= x 3) agrees" (lambda (x) (f x)) sf (map list numbers))

;; zero?
(define (z x) (if (zero? x) (list (= x 0) (= 0 x) (positive? x) x) (list (zero? x) (= x 0) (= x 1))))
(define sz (specialize z))
(test "zero? teaches that x is numerically 0 (the else arm keeps (= x 1))" 1 (count-of '= (residual sz)))
(test "... the else arm that it is not" 1 (count-of 'zero? (residual sz)))
(agree "zero? agrees" z sz (map list numbers))

;; Large integers are not learned from (a double might not hold them exactly).
(define big (expt 2 60))
(define (b x) (if (= x 1152921504606846976) (= x 1152921504606846977) 'no))
(define sb (specialize b))
(test "no fact from a constant a double does not hold" 2 (count-of '= (residual sb)))
(agree "large constants agree" b sb (map list (list big (+ big 1) (exact->inexact big) 3)))

;; Facts are per arm and per helper: a loop on a counter (= i n) under dynamic control.
(define (count-to n i acc) (if (= i n) acc (count-to n (+ i 1) (if (= i 3) (+ acc 10) acc))))
(define sc (specialize count-to 6))
(agree "a loop with numeric tests agrees" (lambda (i acc) (count-to 6 i acc)) sc
       (list '(0 0) '(3 1) '(6 2) '(2.0 0) '(5.0 0) '(x 0)))

;; Element reads: the same element read twice is read once, while nothing could change it.
(define (h v i) (list (vector-ref v i) (vector-ref v i) (vector-ref v 0) (vector-ref v 0)))
(define sh (specialize h))
(test "two reads of each element" 2 (count-of 'vector-ref (residual sh)))
(agree "element reads agree" h sh (list (list (vector 1 2) 1) (list (vector 1 2) 0) (list (vector 1) 3) (list "ab" 0) (list 'v 0)))
(define (hm v i) (let ((a (vector-ref v i))) (vector-set! v i 9) (list a (vector-ref v i))))
(define shm (specialize hm))
(test "a write in between: read again" 2 (count-of 'vector-ref (residual shm)))
(test "... and agrees" (hm (vector 1 2) 0) (shm (vector 1 2) 0))
(define (hc v g) (let ((a (vector-ref v 0))) (g v) (list a (vector-ref v 0))))
(define shc (specialize hc))
(test "a call in between: read again" 2 (count-of 'vector-ref (residual shc)))
(test "... and agrees" (hc (vector 1 2) (lambda (v) (vector-set! v 0 'changed)))
      (shc (vector 1 2) (lambda (v) (vector-set! v 0 'changed))))
(define (hs s) (if (char=? (string-ref s 0) #\a) (list (string-ref s 0) (string-ref s 1)) (string-ref s 0)))
(define shs (specialize hs))
(test "string-ref: read once, and known in the then arm" 2 (count-of 'string-ref (residual shs)))
(agree "string reads agree" hs shs (list '("ab") '("ba") '("a") '("") (list (vector #\a #\b)) '(x)))
(define (vs x) (list (vector-ref x 0) (string-ref x 0)))
(define svs (specialize vs))
(test "a vector-ref is not reused for a string-ref" 1 (count-of 'string-ref (residual svs)))
(agree "mixed reads raise as the original does" vs svs (list (list (vector #\a)) '("a")))
(define (arms v c) (if c (vector-ref v 0) (list (vector-ref v 0) (vector-ref v 0))))
(agree "reads per arm agree" arms (specialize arms) (list (list (vector 1) #t) (list (vector 1) #f) (list (vector) #f)))

(test-end)
