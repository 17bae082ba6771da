;;; own-slot-review-test.scm — closures of one code whose assigned variables live in their own
;;; slots (vm/compiler.cpp, kSetFree), reached through paths where the running closure is not the
;;; one the code was entered with last: tail calls between two closures of the same code (a
;;; self tail call must switch R[0]), loops inside the closure (in its frame, or a closure when
;;; not only tail-called), a continuation captured inside such a loop and re-entered, and the
;;; state read by a procedure specialized or differentiated through them. Review, session
;;; 2026-11-28 23:06. Run in all four modes.
(include "harness.scm")

;; tail calls between closures of one code: each must count in its own slot
(define (mk n) (lambda (other k) (set! n (+ n 1)) (if (= k 0) n (other (lambda (a b) 0) (- k 1)))))
(define (ping-pong)
  (define a (mk 0))
  (define b (mk 100))
  (define (ping k) (if (= k 0) (list (a b 0) (b a 0)) (begin (a b 1) (ping (- k 1)))))
  (ping 1000))
(test "tail calls between two counters" '(1001 1101) (ping-pong))
(define (mk2 n) (lambda (self other k) (set! n (+ n 1)) (if (= k 0) n (other other self (- k 1)))))
(test "self-passing tail calls" '(6001 5002 6002)
      (let ((a (mk2 0)) (b (mk2 1000))) (let* ((x (a a b 10001)) (y (a a b 0)) (z (b b a 0))) (list x y z))))

;; loops inside the closure: in tail position, not in tail position, not only tail-called
(define (mk3 n) (lambda (k) (let loop ((i 0)) (if (< i k) (begin (set! n (+ n i)) (loop (+ i 1))) n))))
(test "a loop in tail position" '(45 90 4999950090) (let ((c (mk3 0))) (let* ((x (c 10)) (y (c 10)) (z (c 100000))) (list x y z))))
(define (mk4 n) (lambda (k) (+ 1 (let loop ((i 0)) (if (< i k) (begin (set! n (+ n i)) (loop (+ i 1))) n)))))
(test "a loop not in tail position" '(46 91 4999950091) (let ((c (mk4 0))) (let* ((x (c 10)) (y (c 10)) (z (c 100000))) (list x y z))))
(define (mk5 n) (lambda (k) (let loop ((i 0)) (if (< i k) (begin (set! n (+ n i)) (+ 0 (loop (+ i 1)))) n))))
(test "a loop called not only in tail position" '(45 90 499590) (let ((c (mk5 0))) (let* ((x (c 10)) (y (c 10)) (z (c 1000))) (list x y z))))
(define (mk6 n) (letrec ((inc (lambda (k) (set! n (+ n 1)) (if (< k 3) (+ 0 (inc (+ k 1))) n)))) inc))
(test "a letrec of the one lambda, recursing" '(9 13) (let ((c (mk6 5))) (let* ((x (c 0)) (y (c 0))) (list x y))))
(define (mk7 n) (lambda (k) (do ((i 0 (+ i 1))) ((= i k) n) (set! n (* n 2)))))
(test "a do loop" '(8 64) (let ((c (mk7 1))) (let* ((x (c 3)) (y (c 3))) (list x y))))

;; a continuation captured inside the closure's loop, re-entered: the slot is not restored
(define (reenter)
  (let ((k #f) (count 0))
    (define c
      (let ((n 0))
        (lambda ()
          (let loop ((i 0))
            (if (< i 3)
                (begin (set! n (+ n 1))
                       (if (= i 1) (call/cc (lambda (kk) (if (not k) (set! k kk)))))
                       (loop (+ i 1)))
                n)))))
    (let ((r (c)))
      (set! count (+ count 1))
      (if (< count 3) (k #f) (list r count)))))
(test "re-entering a loop inside the closure" '(5 3) (reenter))

;; the state read through specialize and grad: refused or followed, never frozen
(define acc (let ((n 0)) (lambda (d) (set! n (+ n d)) n)))
(define s (specialize acc))
(test "a specialized counter shares the state" '(1 2 3 4) (let* ((a (s 1)) (b (s 1)) (c (acc 1)) (d (s 1))) (list a b c d)))
(define (use x) (+ x (acc 0)))
(define su (specialize use))
(test "a residual reading the counter follows it" '(5 9 10 10)
      (let* ((a (su 1)) (b (acc 5)) (c (su 1)) (d (use 1))) (list a b c d)))
(define (g-own x) (let ((c (let ((n 0.0)) (lambda (d) (set! n (+ n d)) n)))) (c x) (c (* x x)) (* x (c 1.0))))
(test "a gradient through a local counter" 10.75 ((grad g-own) 1.5))
(define acc2 (let ((n 0.0)) (lambda (d) (set! n (+ n d)) (* n d))))
(test-error "the gradient of the counter itself: refused" ((grad acc2) 2.0))

(test-end)
