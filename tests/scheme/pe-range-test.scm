;;; pe-range-test.scm — what ordering tests teach about a dynamic number (lib/pe/facts.cpp,
;;; Fact ranges). After (< x 10) holds, x is a real below 10 (not NaN): (< x 20) is #t and
;;; (>= x 10) or (= x 12) is #f. After it fails, x is at least 10 or NaN: a test the bound
;;; refutes — (< x 5) — is #f (NaN fails every ordering test), but one it implies — (>= x 10) —
;;; stays, since NaN fails it. Residual shapes, then agreement with the original on generated
;;; programs and inputs (fixnums, flonums, infinities, NaN, exact rationals, and non-numbers
;;; that raise).

(include "harness.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (mentions? code items)
  (let ((all (flat code))) (let loop ((n items)) (and (pair? n) (or (member (car n) all) (loop (cdr n)))))))
(define (count-of item code) (let loop ((l (flat code)) (n 0)) (if (null? l) n (loop (cdr l) (if (equal? (car l) item) (+ n 1) n)))))

;; Then arm: implied and refuted tests decided.
(define (r1 x) (if (< x 10) (if (< x 20) (if (>= x 10) 'never 'low) 'never2) 'high))
(define s1 (specialize r1))
(test "then arm: (< x 20) and (>= x 10) decided" #f (mentions? (residual s1) '(never never2 20)))
;; Else arm: a refuted test decided, an implied one kept (NaN).
(define (r2 x) (if (< x 10) 'low (if (< x 5) 'never (if (>= x 10) 'high 'nan))))
(define s2 (specialize r2))
(test "else arm: (< x 5) decided" #f (mentions? (residual s2) '(never 5)))
(test "else arm: (>= x 10) kept for NaN" #t (and (mentions? (residual s2) '(nan)) #t))
(test "else arm: NaN" 'nan (s2 +nan.0))
;; The constant on the left, and = against a range.
(define (r3 x) (if (> 0 x) (if (= x 5) 'never (if (<= 0 x) 'never2 'neg)) 'nonneg))
(define s3 (specialize r3))
(test "(> 0 x) then (= x 5), (<= 0 x): decided" #f (mentions? (residual s3) '(never never2)))
;; Two bounds make an interval.
(define (r4 x) (if (>= x 3) (if (<= x 7) (list (< x 8) (> x 2) (= x 9) (< x 5)) 'hi) 'lo))
(define s4 (specialize r4))
(test "interval [3,7]: three of four tests decided" 1 (count-of '< (residual s4)))
(for-each (lambda (x) (test "r4 agrees" (r4 x) (s4 x))) '(2 3 4 5 6 7 8 3.5 7.0 +nan.0 +inf.0 -inf.0 13/2))
;; Bounds do not leak out of their arm.
(define (r5 x) (list (if (< x 0) 'neg 'nonneg) (< x 0) (> x 100)))
(define s5 (specialize r5))
(for-each (lambda (x) (test "r5 agrees" (r5 x) (s5 x))) '(-1 0 1 101 -0.5 +nan.0))

;; Generated programs: nested ordering and = tests of x against small constants, leaves are
;; symbols or the results of further tests. Every input value, for every program.
(define seed 20261129)
(define (rand n) (set! seed (modulo (+ (* seed 1103515245) 12345) 2147483648)) (modulo (quotient seed 65536) n))
(define ops '(< <= > >= =))
(define (gen-test)
  (let ((op (list-ref ops (rand 5))) (c (- (rand 13) 6)))
    (if (= (rand 2) 0) (list op 'x c) (list op c 'x))))
(define leaf-count 0)
(define (gen depth)
  (if (or (= depth 0) (= (rand 4) 0))
      (begin (set! leaf-count (+ leaf-count 1))
             (if (= (rand 3) 0) (gen-test) (list 'quote (string->symbol (string-append "l" (number->string leaf-count))))))
      (list 'if (gen-test) (gen (- depth 1)) (gen (- depth 1)))))
(define inputs (list -7 -6 -3 -1 0 1 2 3 5 6 7 -2.5 0.5 3.0 6.0 -6.0 +inf.0 -inf.0 +nan.0 1/3 -13/2))
(define bad-inputs (list 'a "s" #\c (list 1) 1+2i))
(define (agree? f g x)
  (let ((a (call-with-current-continuation
            (lambda (k) (with-exception-handler (lambda (e) (k (list 'raised))) (lambda () (f x))))))
        (b (call-with-current-continuation
            (lambda (k) (with-exception-handler (lambda (e) (k (list 'raised))) (lambda () (g x)))))))
    (equal? a b)))
(define (tests-in code) (apply + (map (lambda (op) (count-of op code)) ops)))
(define decided 0)
(let loop ((i 0))
  (when (< i 150)
    (let* ((body (gen 4))
           (f (eval (list 'lambda '(x) body) (interaction-environment)))
           (s (specialize f))
           (all-ok (let check ((xs (append inputs bad-inputs)))
                     (or (null? xs) (and (agree? f s (car xs)) (check (cdr xs)))))))
      (if (< (tests-in (residual s)) (tests-in body)) (set! decided (+ decided 1)))
      (if (not all-ok) (begin (display "disagrees: ") (write body) (newline)))
      (test "generated program agrees" #t all-ok))
    (loop (+ i 1))))
;; Many programs have a test an earlier one decides (= facts decide some without ranges).
(test-assert "ranges decide tests in generated programs (57 of 150 without, 97 with)" (> decided 75))

(test-end)
