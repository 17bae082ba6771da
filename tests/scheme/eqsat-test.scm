;;; eqsat-test.scm — the eqsat pass (lib/passes/eqsat.cpp) on residual code, where it is on by
;;; default: the evidence the issue asks for, and a differential test over generated arithmetic
;;; programs — each run as ordinary code (eqsat off) and as the residual of specialize (eqsat
;;; on), on exact integers, bignums, flonums, ratios and non-numbers, comparing results and which
;;; inputs raise. ctest runs it in all four modes (default, passes off, JIT off, JIT forced).
(include "harness.scm")

;; ---- evidence ------------------------------------------------------------------------------------
;; A counter over an exact integer (a vector's length), unrolled by the partial evaluator.
(define (count-up v n)
  (let loop ((s (vector-length v)) (n n))
    (if (= n 0) s (loop (+ s 1) (- n 1)))))
(define count3 (specialize* count-up '((1 . 3))))
(test "exact counter: (+ s 3)" #t
      (let loop ((x (residual count3)))
        (cond ((and (pair? x) (eq? (car x) '+) (= (length x) 3) (eqv? (caddr x) 3)) #t)
              ((pair? x) (or (loop (car x)) (loop (cdr x))))
              (else #f))))
(test "exact counter: no (+ (+ ...) 1) left" #f
      (let loop ((x (residual count3)))
        (cond ((and (pair? x) (eq? (car x) '+) (pair? (cadr x)) (eq? (car (cadr x)) '+)) #t)
              ((pair? x) (or (loop (car x)) (loop (cdr x))))
              (else #f))))
(test "exact counter: value" 8 (count3 (make-vector 5 0)))

;; The seed's example: (/ (* a 2) 2) is a for an exact a, and stays for anything else.
(define (halve-double a) (if (exact-integer? a) (/ (* a 2) 2) (/ (* a 2) 2)))
(define hd (specialize halve-double))
(define (mentions? x pat)
  (cond ((equal? x pat) #t) ((pair? x) (or (mentions? (car x) pat) (mentions? (cdr x) pat))) (else #f)))
(test "(a*2)/2 → a under exact-integer?, kept elsewhere" #t
      (let ((r (residual hd)))
        (and (mentions? r '(/ (* a 2) 2))
             (let loop ((x r))
               (cond ((and (pair? x) (eq? (car x) 'if)) (eq? (caddr x) 'a))
                     ((pair? x) (or (loop (car x)) (loop (cdr x))))
                     (else #f))))))
(test "flonum a: same value" 2.5 (hd 2.5))
(test "exact a: same value" (expt 10 40) (hd (expt 10 40)))
(test-error "non-number a: still raises" (hd 'x))

;; ---- differential: generated programs ------------------------------------------------------------
;; A small linear congruential generator (fixed seed: the same programs every run).
(define seed 20261128)
(define (rand n)
  (set! seed (modulo (+ (* seed 1103515245) 12345) 2147483648))
  (modulo (quotient seed 65536) n))
(define (pick xs) (list-ref xs (rand (length xs))))

(define leaves '(a b a b 0 1 2 3 -1 7))
(define (gen depth)
  (if (or (= depth 0) (= (rand 4) 0))
      (pick leaves)
      (case (rand 9)
        ((0 1 2) (list '+ (gen (- depth 1)) (gen (- depth 1))))
        ((3 4) (list '* (gen (- depth 1)) (gen (- depth 1))))
        ((5 6) (list '- (gen (- depth 1)) (gen (- depth 1))))
        ((7) (list '- (gen (- depth 1))))
        (else (list (pick '(/ quotient < =)) (gen (- depth 1)) (pick '(1 2 3 a)))))))

;; Each body runs under three kinds of knowledge: both known exact, a known exact, nothing known.
(define (program body)
  `(lambda (a b)
     (if (exact-integer? a)
         (if (exact-integer? b) ,body ,body)
         ,body)))

(define inputs
  (list 0 1 -3 7 (expt 2 62) (- (expt 2 70)) 1.5 -0.0 +inf.0 1/2 'sym "str"))

(define (outcome f a b)
  (call-with-current-continuation
   (lambda (k)
     (with-exception-handler
      (lambda (e) (k 'raised))
      (lambda () (f a b))))))

(define (same? x y)
  (or (eqv? x y) (and (number? x) (number? y) (nan? x) (nan? y))))

(define failures 0)
(define checked 0)
(define changed 0)  ; programs whose both-exact branch eqsat rewrote (differs from the other copy)
(define (both-exact-branch-differs? r)
  (let loop ((x r))
    (cond ((and (pair? x) (eq? (car x) 'if) (equal? (cadr x) '(exact-integer? b)) (= (length x) 4))
           (not (equal? (caddr x) (cadddr x))))
          ((pair? x) (or (loop (car x)) (loop (cdr x))))
          (else #f))))
(let loop ((i 0))
  (when (< i 60)
    (let* ((body (gen 4))
           (src (program body))
           (plain (eval src (interaction-environment)))
           (special (specialize plain)))
      (when (both-exact-branch-differs? (residual special)) (set! changed (+ changed 1)))
      (for-each
       (lambda (a)
         (for-each
          (lambda (b)
            (let ((x (outcome plain a b)) (y (outcome special a b)))
              (set! checked (+ checked 1))
              (unless (same? x y)
                (set! failures (+ failures 1))
                (when (< failures 5)
                  (display "differs: ") (write body) (display " a=") (write a) (display " b=") (write b)
                  (display ": ") (write x) (display " vs ") (write y) (newline)))))
          inputs))
       inputs))
    (loop (+ i 1))))
(test "generated programs: same results and same raises with and without eqsat" 0 failures)
;; The generator makes enough arithmetic for the pass to have work in many of the programs.
(test-assert "generated programs: eqsat rewrote some" (> changed 5))
(test "generated programs: all inputs checked" (* 60 (length inputs) (length inputs)) checked)

(test-end)
