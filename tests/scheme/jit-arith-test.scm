;;; jit-arith-test.scm — the calls the JIT does inline as arithmetic and allocation (JitRecipe
;;; kDivide, kNegate, kSquare, kSqrt, kList in core/prim.hpp: (/ x y), (- x), (square x),
;;; (sqrt x), (list x ...)) against the interpreter, on the values where an inline path could go
;;; wrong: exact/inexact contagion, an exact 0 divisor (raises) next to a flonum one (infinities,
;;; NaN), divisors -1 and the least fixnum, quotients that are ratios, -0.0 and NaN signs, the
;;; least fixnum's negation (a bignum), squares at the fixnum limit, sqrt of negative numbers (a
;;; complex result) and of -0.0, bignums, ratnums, complex numbers and non-numbers (the call's
;;; error), lists of 1 to kMaxInlineList operands and past it. Each form is one procedure made
;;; by a fresh eval and applied to every argument list three ways: (jit-mode 'off), the
;;; reference; (jit-mode 'force), compiled at its first call; and (jit-mode 'on) after enough
;;; calls to be compiled as hot. Each
;;; form is tried in tail position and not (the recipe returns, or stores and goes on).

(include "harness.scm")
(include "gen-harness.scm")

(define env (environment '(scheme base) '(scheme inexact) '(scheme eval)))

(define fix-max (- (expt 2 62) 1))
(define fix-min (- (expt 2 62)))
(define numbers
  (list 2.0 0 1 -1 2 -2 3 -6 7 12 fix-max fix-min (+ fix-min 1) (expt 2 62) (- (expt 10 30))
        0.0 -0.0 -3.5 0.1 1e308 +inf.0 -inf.0 +nan.0 1/2 -7/3 1+2i))
(define others (list 'a "s" #\x '()))

(define (pairs-of xs ys)
  (apply append (map (lambda (x) (map (lambda (y) (list x y)) ys)) xs)))

;; (form . argument lists): the form's procedure is applied to each.
(define (cases)
  (list
   (cons '(lambda (a b) (/ a b)) (pairs-of (append numbers others) (append numbers others)))
   (cons '(lambda (a b) (let ((r (/ a b))) (if (eq? r 'none) 0 r))) (pairs-of numbers numbers))
   (cons '(lambda (a b) (/ (* a 1.0) b)) (pairs-of numbers (list 2 -1 0 0.0 2.5)))
   (cons '(lambda (a) (- a)) (map list (append numbers others)))
   (cons '(lambda (a) (let ((r (- a))) (if (eq? r 'none) 0 r))) (map list numbers))
   (cons '(lambda (a) (- (- a))) (map list numbers))
   (cons '(lambda (a) (square a)) (map list (append numbers others (list 2147483647 2147483648 -2147483648 1e200))))
   (cons '(lambda (a) (let ((r (square a))) (if (eq? r 'none) 0 r))) (map list numbers))
   (cons '(lambda (a) (sqrt a)) (map list (append numbers others (list 4 16.0 2.25 1e-320 -4.0 -1e-300))))
   (cons '(lambda (a) (let ((r (sqrt a))) (if (eq? r 'none) 0 r))) (map list numbers))
   (cons '(lambda (a b) (list a)) (pairs-of numbers '(x)))
   (cons '(lambda (a b) (list a b)) (pairs-of others numbers))
   (cons '(lambda (a b) (list a b a b a b a)) (pairs-of others '(1 2.0)))
   (cons '(lambda (a b) (list a b a b a b a b)) (pairs-of others '(1 2.0)))
   (cons '(lambda (a b) (list a b a b a b a b a)) (pairs-of others '(1 2.0)))
   (cons '(lambda (a b) (let ((l (list b a b))) (if (pair? l) (cdr l) 'no))) (pairs-of numbers '(x)))
   (cons '(lambda (a b) (list)) '((1 2)))
   ;; a list's operands computed in place, one of them the recipe's own results
   (cons '(lambda (a b) (list (- a) (/ a b) (list b))) (pairs-of numbers (list 2 0 2.0 -0.0 'a)))))

;; A direct call of the form's procedure (not apply), so the compiled call site is the one under test.
(define (caller f)
  (lambda (args)
    (if (null? (cdr args)) (f (car args)) (f (car args) (cadr args)))))

(define (run-all mode)
  (let ((saved (jit-mode)))
    (jit-mode mode)
    (let ((results
           (map (lambda (c)
                  (let* ((proc (eval (car c) env))
                         (call (caller proc)))
                    (when (eq? mode 'on)  ; hot: compiled by the policy, not on request
                      (let warm ((i 0))
                        (when (< i 300)
                          (apply proc (car (cdr c)))
                          (warm (+ i 1))))
                      (unless (jit-compiled? proc)
                        (display "NOT HOT ") (write (car c)) (newline)))
                    (map (lambda (args) (gen-written (gen-outcome (lambda () (call args)))))
                         (cdr c))))
                (cases))))
      (jit-mode saved)
      results)))

(define (compare name reference results)
  (let loop ((cs (cases)) (r reference) (c results) (bad 0))
    (cond ((null? cs) (test name 0 bad))
          (else
           (let inner ((args (cdar cs)) (rr (car r)) (cc (car c)) (bad bad))
             (cond ((null? args) (loop (cdr cs) (cdr r) (cdr c) bad))
                   ((equal? (car rr) (car cc)) (inner (cdr args) (cdr rr) (cdr cc) bad))
                   (else
                    (when (< bad 10)
                      (display "MISMATCH ") (write (caar cs)) (write (car args))
                      (display " interpreter ") (display (car rr))
                      (display " compiled ") (display (car cc)) (newline))
                    (inner (cdr args) (cdr rr) (cdr cc) (+ bad 1)))))))))

(define (warm-first-case-ok?)  ; every form's first argument list must return (warming applies it)
  (let loop ((cs (cases)))
    (or (null? cs)
        (and (not (eq? 'error (car (gen-outcome (lambda () (apply (eval (caar cs) env) (cadar cs)))))))
             (loop (cdr cs))))))
(test-assert "warm-up arguments are valid" (warm-first-case-ok?))

(let ((reference (run-all 'off)))
  (compare "forced JIT agrees with the interpreter" reference (run-all 'force))
  (compare "hot JIT agrees with the interpreter" reference (run-all 'on)))

;; Known answers, so the test fails if both engines were wrong alike.
(define (neg x) (- x))
(define (div x y) (/ x y))
(define (lst a b c) (list a b c))
(define (sq x) (square x))
(define (rt x) (sqrt x))
(define (known)
  (list (eqv? (neg 0.0) -0.0) (eqv? (neg -0.0) 0.0) (neg fix-min) (neg fix-max) (neg 5) (neg 1/2)
        (div 1 2) (div 6 3) (div 6 -1) (div fix-min -1) (div 1.0 0) (div -1 0.0) (div 3 2.0)
        (div 1.0 4.0) (exact? (div 4 2)) (lst 1 2.5 'c)
        (sq 2147483647) (sq -2147483648) (sq -1.5) (rt 2.25) (eqv? (rt -0.0) -0.0) (rt -4.0) (rt 16)))
(define known-answers
  (list #t #t (expt 2 62) (- fix-max) -5 -1/2 1/2 2 -6 (expt 2 62) +inf.0 -inf.0 1.5 0.25 #t
        '(1 2.5 c) 4611686014132420609 4611686018427387904 2.25 1.5 #t +2.0i 4))
(for-each (lambda (mode)
            (let ((saved (jit-mode)))
              (jit-mode mode)
              (test (string-append "known answers, " (symbol->string mode)) known-answers (known))
              (jit-mode saved)))
          '(off force))
(test-error-message "exact division by zero" "division by zero" (div 1 0))
(test-error-message "division of a symbol" "/" (div 'a 1.0))
(test-error-message "negation of a string" "-" (neg "s"))
(test-error-message "square of a symbol" "square" (sq 'a))
(test-error-message "sqrt of a string" "sqrt" (rt "s"))

;; Many lists in a compiled loop: the free list of pairs runs empty in the middle of a list
;; (the recipe then leaves its pairs to the collector and makes the call) many times over.
(define (sum-lists n)
  (let loop ((i 0) (acc 0))
    (if (= i n)
        acc
        (let ((l (list i 1 2 3 4 5 6 7)))
          (loop (+ i 1) (+ acc (car l) (list-ref l 7)))))))
(test "lists through many refills" (+ (* 7 100000) (quotient (* 99999 100000) 2)) (sum-lists 100000))
(define (negate-all n)
  (let loop ((i 0) (x 0.5) (acc 0))
    (if (= i n) (list x acc) (loop (+ i 1) (- x) (- acc i)))))
(test "negations in a loop" (list 0.5 -4950) (negate-all 100))

(test-end)
