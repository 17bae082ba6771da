;;; pe-counter-test.scm — loop counters under dynamic control (lib/pe/whistle.hpp, Entry::counted).
;;; A static integer that a residual ordering test compares with a dynamic number — (< i n) with n
;;; unknown — grows until a bound no static decision knows: keeping it static only unrolls the
;;; loop into a chain of nested variants until kEmbedIntegerFloor (64), whose work the whistle's
;;; restart then throws away. Such a counter is compared by size from 0, so the chain is cut at
;;; its second variant. Bounded indices (a binary search's bounds, a table index with a static
;;; limit) keep the floor and stay unrolled. Every residual agrees with the original, also on
;;; inputs that raise.

(include "harness.scm")
(include "../../scheme/examples/flow.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (mentions? code names)
  (let ((all (flat code))) (let loop ((n names)) (and (pair? n) (or (memq (car n) all) (loop (cdr n)))))))
(define (stat name) (cdr (assq name (specialize-stats))))
;; Static runs a fresh request makes (calls with all arguments static run now): each variant of
;; a chain runs its own, so they count the chain's work, restarted variants included.
(define (static-runs-of thunk)
  (let* ((s0 (stat 'static-runs)) (p (thunk))) (cons (- (stat 'static-runs) s0) p)))

;; The flowchart interpreter on its program: i is compared with the dynamic n after each step.
;; Before: a chain of 64 nested run-block variants (i = 0..63) before the whistle.
(define flow (static-runs-of (lambda () (specialize* run-flow (list (cons 0 flow-program)) '((effort . 799999))))))
(test-assert "flow: no 64-deep chain (1700 static runs before, 110 now)" (< (car flow) 400))
(test "flow: no dispatch, no store, no program text" #f
      (mentions? (residual (cdr flow)) '(quote store-ref store-set block-of eval-expr stmt-kind apply-op car cdr eq?)))
(let loop ((n 0))
  (when (< n 150)
    (test "flow agrees" (run-flow flow-program n) ((cdr flow) n))
    (loop (+ n 7))))
(test-error "flow: a non-number raises as the original does" error-object? ((cdr flow) 'x))

;; A counter with static decisions on it (i mod 3, a procedure of i run now) and a dynamic bound,
;; the test after the step.
(define (weight i) (remainder (* i i) 7))
(define (count-up i n acc k)
  (if (= (remainder i 3) 0)
      (let ((i2 (+ i 1))) (if (< i2 n) (count-up i2 n (+ acc (weight i)) (+ k 1)) (list acc k)))
      (let ((i2 (+ i 1))) (if (< i2 n) (count-up i2 n (- acc (weight i)) k) (list acc k)))))
(define (cu n) (count-up 0 n 0 0))
(define cu-s (static-runs-of (lambda () (specialize cu))))
(test-assert "count-up: no chain of variants up to 64" (< (car cu-s) 16))
(test-assert "count-up: a loop in the residual" (mentions? (residual (cdr cu-s)) '(letrec*)))
(for-each (lambda (n) (test "count-up agrees" (cu n) ((cdr cu-s) n))) '(0 1 2 3 4 5 17 64 65 200 1001))
(test-error "count-up: a string bound raises" error-object? ((cdr cu-s) "x"))
;; Counting down to a dynamic bound: (> i n).
(define (count-down i n acc) (if (> i n) (count-down (- i 1) n (if (even? i) (+ acc i) acc)) acc))
(define cd (specialize count-down 0))
(for-each (lambda (n) (test "count-down agrees" (count-down 0 n 0) (cd n 0))) '(0 -1 -2 -50 -300 5))
(test-error "count-down: a symbol bound raises" error-object? (cd 'z 0))

;; A binary search over a static sorted vector for a dynamic key: the bounds are compared only
;; with each other and the probed entries with the key — no counter: the search stays an
;; unrolled decision tree (no helper loop).
(define table (vector 2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 53))
(define (bsearch v x lo hi)
  (if (>= lo hi)
      #f
      (let ((mid (quotient (+ lo hi) 2)))
        (cond ((< x (vector-ref v mid)) (bsearch v x lo mid))
              ((> x (vector-ref v mid)) (bsearch v x (+ mid 1) hi))
              (else mid)))))
(define (find x) (bsearch table x 0 16))
(define find-s (specialize find))
(test "bsearch: unrolled, no helper loop" #f (mentions? (residual find-s) '(letrec* letrec bsearch)))
(let loop ((x -1))
  (when (< x 60)
    (test "bsearch agrees" (find x) (find-s x))
    (loop (+ x 1))))
(test-error "bsearch: a non-number key raises" error-object? (find-s 'k))

;; A scan with a static limit: the index is compared with the constant, the entries with the key.
(define (scan v x i) (cond ((>= i 12) 'none) ((= (vector-ref v i) x) i) (else (scan v x (+ i 1)))))
(define scan-s (specialize* scan (list (cons 0 table) (cons 2 0))))
(test "scan: unrolled" #f (mentions? (residual scan-s) '(letrec* letrec scan)))
(for-each (lambda (x) (test "scan agrees" (scan table x 0) (scan-s x))) '(2 3 4 37 41 53 99))

(test-end)
