;;; pe-tail-test.scm — tail calls of unfoldings (lib/pe/unfold.cpp): a call in tail position of
;;; an unfolded body (through decided ifs, lets, sequences) that is unfolded too is the next
;;; level of one loop, not a nested unfolding: a static tail loop needs no C stack and no depth
;;; budget (kMaxUnfoldDepth, 16384, stopped it before: the residual kept a loop), only the effort
;;; budget, past which the loop is undone and specialized as before. Each level is still finished
;;; as a nested one would be: its loop entered, undone for a helper that repeats it, a runaway
;;; recovered by its outermost level. Every residual is compared with the original, effects,
;;; assigned variables and raising inputs included.

(include "harness.scm")

(define (reasons p) (map (lambda (e) (cdr (assq 'reason e))) (specialize-explain p)))

;; A static countdown past the old depth budget: nothing residual but x.
(define (down n x) (if (= n 0) x (down (- n 1) x)))
(define s-down (specialize down 20000))
(test "20,000 decided tail calls: nothing left" '(lambda (x) x) (residual s-down))
(test "... nothing generalized or given up" '() (reasons s-down))
(test "... agrees" (down 20000 'q) (s-down 'q))

;; Mutual tail recursion through let, begin and cond.
(define (ev? n x) (cond ((= n 0) (cons 'even x)) (else (let ((m (- n 1))) (begin (od? m x))))))
(define (od? n x) (if (= n 0) (cons 'odd x) (ev? (- n 1) x)))
(define s-ev (specialize ev? 30001))
(test "mutual tail recursion through let, begin, cond" '(lambda (x) (cons 'odd x)) (residual s-ev))
(test "... agrees" (ev? 30001 7) (s-ev 7))

;; A runaway static tail loop: the effort budget, then the outermost level is undone and the call
;; specialized (a residual loop); the request does not give up.
(define (spin n x) (if (= n -1) x (spin (+ n 1) x)))
(define s-spin (specialize spin 0))
(test "a runaway tail loop is recovered, not given up" #f (and (memq 'gave-up (map (lambda (e) (cdr (assq 'action e))) (specialize-explain s-spin))) #t))
(test-assert "... by the effort budget" (memq 'effort (reasons s-spin)))
(define (spin-to n lim x) (if (= n lim) x (spin-to (+ n 1) lim x)))
(define s-spin-to (specialize spin-to 0))
(test "a tail loop to a dynamic limit agrees" (spin-to 0 100 'z) (s-spin-to 100 'z))
(test "... alternating between two procedures" (ev? 1001 'w) ((specialize* ev? '()) 1001 'w))

;; Residual effects in every level keep their order and count.
(define (fill v i) (if (= i 6) v (begin (vector-set! v i (* i i)) (fill v (+ i 1)))))
(define s-fill (specialize* fill '((1 . 0))))
(test "effects of each level, in order" (fill (make-vector 6 0) 0) (s-fill (make-vector 6 0)))
(test "... raising as the original does" (guard (e (#t 'raised)) (fill (vector 1 2) 0))
      (guard (e (#t 'raised)) (s-fill (vector 1 2))))
(define (say n port) (if (= n 0) (get-output-string port) (begin (write n port) (say (- n 1) port))))
(test "output of each level" (say 5 (open-output-string)) ((specialize say 5) (open-output-string)))

;; A tail loop over an assigned variable, and a closure over it escaping in the middle.
(define (acc k x)
  (let ((c 0))
    (define (lp i) (if (= i k) c (begin (set! c (+ c i x)) (lp (+ i 1)))))
    (lp 0)))
(test "set! in a tail loop" (acc 50 3) ((specialize acc 50) 3))
(define (leak k f)
  (let ((c 0))
    (define (lp i) (if (= i k) c (begin (set! c (+ c i)) (if (= i 3) (f (lambda () c)) #f) (lp (+ i 1)))))
    (lp 0)))
(define seen '())
(define (keep t) (set! seen (cons t seen)))
(test "a closure over the variable escapes mid-loop" (leak 10 keep) ((specialize leak 10) keep))
(test "... and sees the last write" ((car seen)) ((cadr seen)))

;; A tail chain under dynamic control: the interpreter of pe-mp-test style, a loop entered from
;; a level of the chain (loop_helper) and a runaway inside a helper.
(define (walk-list l acc) (if (null? l) acc (walk-list (cdr l) (+ acc (car l)))))
(define (sum-to n x) (if (> x 0) (walk-list (iota n) x) 0))
(test "a static tail loop in a residual if's arm" (sum-to 3000 4) ((specialize sum-to 3000) 4))
(test "... the other arm" (sum-to 3000 -1) ((specialize sum-to 3000) -1))
(define (pw n x) (if (= n 0) 1 (* x (pw (- n 1) x))))
(define (tail-pw n x) (if (> n 100) 'big (pw n x)))
(for-each (lambda (n) (test "a non-tail loop after a tail call" (tail-pw n 2) ((specialize tail-pw) n 2))) '(0 5 200))

;; Generated: a tail loop with a static counter, a static or dynamic step and a dynamic effect
;; every few levels, against the original on several inputs.
(define (gen-loop k step every)
  (lambda (v i acc)
    (let lp ((i i) (acc acc) (n 0))
      (cond ((>= n k) acc)
            ((= (remainder n every) 0) (vector-set! v (remainder n (vector-length v)) acc) (lp (+ i step) (+ acc i) (+ n 1)))
            (else (lp (+ i step) (+ acc i) (+ n 1)))))))
(for-each
 (lambda (k)
   (for-each
    (lambda (every)
      (let* ((f (gen-loop k 3 every)) (s (specialize* f '((1 . 0)))))
        (for-each (lambda (acc)
                    (let ((v1 (make-vector 5 0)) (v2 (make-vector 5 0)))
                      (test "generated tail loop agrees" (guard (e (#t 'raised)) (list (f v1 0 acc) v1))
                            (guard (e (#t 'raised)) (list (s v2 acc) v2)))))
                  (list 0 7 -2 1.5 'a))))
    '(1 4 50)))
 '(0 1 10 500))

(test-end)
