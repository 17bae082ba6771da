;;; pe-static-test.scm — static computation in `specialize` runs at full speed (lib/pe/static_run.hpp):
;;; fully static calls run on the real evaluator, and one that raises or runs out of steps is left
;;; residual alone, not the whole request. Every residual is compared with the original.

(include "harness.scm")

;; (outcome thunk): (ok value) or (err message irritants) — what a call does, errors included.
(define (outcome thunk)
  (guard (e (#t (if (error-object? e)
                    (list 'err (error-object-message e) (error-object-irritants e))
                    (list 'raised e))))
    (list 'ok (thunk))))

(define-syntax agree
  (syntax-rules ()
    ((_ name sp orig (arg ...) ...)
     (begin (test name (outcome (lambda () (orig arg ...))) (outcome (lambda () (sp arg ...)))) ...))))

;; A static call of a global procedure: its value is computed now.
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (fibplus n x) (+ (fib n) x))
(test "fib 25 static" '(lambda (x) (+ 75025 x)) (residual (specialize fibplus 25)))
(agree "fib 25 agrees" (lambda (x) ((specialize fibplus 25) x)) (lambda (x) (fibplus 25 x)) (1) (-3) ('a))

;; A static loop of a million iterations (a named let over static values).
(define (sloop n x) (+ (let loop ((i 0) (a 0)) (if (= i n) a (loop (+ i 1) (+ a 1)))) x))
(test "static loop" '(lambda (x) (+ 1000000 x)) (residual (specialize sloop 1000000)))
(agree "static loop agrees" (specialize sloop 1000000) (lambda (x) (sloop 1000000 x)) (5) (2.5) ("s"))
;; The same loop reading a dynamic value: unfolding it a million times runs away; that unfolding
;; alone is undone and becomes a residual loop (not the whole request).
(define (dloop n x) (let loop ((i 0) (a 0)) (if (= i n) (+ a x) (loop (+ i 1) (+ a 1)))))
(define dl (specialize dloop 1000000))
(test "runaway unfolding becomes a loop"
      '(lambda (x) (letrec* ((loop (lambda (i a) (if (= i 1000000) (+ a x) (loop (+ i 1) (+ a 1)))))) (loop 0 0)))
      (residual dl))
(agree "runaway loop agrees" dl (lambda (x) (dloop 1000000 x)) (5) (2.5) ("s"))
(define (dcount n x) (if (= n 0) x (+ 1 (dcount (- n 1) x))))
(define dc (specialize dcount 100000))
(agree "deep recursion with a dynamic leaf agrees" dc (lambda (x) (dcount 100000 x)) (1) ('a))

;; Deep static recursion.
(define (count n) (if (= n 0) 0 (+ 1 (count (- n 1)))))
(define (deep n x) (+ (count n) x))
(test "100000-deep static recursion" 100001 ((specialize deep 100000) 1))

;; A static call that raises is left residual: it raises when (and only if) reached.
(define (careful n x) (if (> x 0) (+ x (fib n)) 'no))
(define c1 (specialize careful 'oops))
(test "error not reached" 'no (c1 0))
(test-error-message "error reached" "<" (c1 1))
(agree "careful agrees" c1 (lambda (x) (careful 'oops x)) (0) (1) (-1))

;; Past the step budget: only that call stays residual; the rest is still specialized.
(define (spin n) (spin (+ n 1)))
(define (two n x) (if (> x 0) (spin n) (+ (fib 10) x)))
(define t2 (specialize two 0))
(test "budget: the rest is specialized" '(lambda (x) (if (> x 0) (spin 0) (+ 55 x))) (residual t2))
(test "budget: the runaway call is reached only at run time" 50 (t2 -5))

;; Effects are never run at specialization time.
(define log '())
(define (noisy n) (set! log (cons n log)) (* n 2))
(define (use-noisy n x) (+ (noisy n) x))
(set! log '())
(define un (specialize use-noisy 4))
(test "effectful call not run" '() log)
(test "effectful call runs at run time" 9 (un 1))
(test "effect once" '(4) log)
(define (shout n) (display "") n)
(define (use-shout n x) (+ (shout n) x))
(test "I/O stays residual" 7 ((specialize use-shout 3) 4))

;; A result with an identity (a fresh list, a procedure) is not a constant: each call makes its own.
(define (mk n) (list n n))
(define (use-mk n x) (let ((l (mk n))) (set-car! l x) l))
(define um (specialize use-mk 1))
(test "fresh result" '(5 1) (um 5))
(test-assert "fresh each call" (not (eq? (um 5) (um 5))))
(define (gs n x) (list (gensym) x))
(define ug (specialize gs 1))
(test-assert "gensym is not a constant" (not (eq? (car (ug 1)) (car (ug 1)))))

;; Data in a global may change: not assumed.
(define table (vector 1 2 3))
(define (sum-table) (+ (vector-ref table 0) (vector-ref table 1)))
(define (use-table n x) (+ (sum-table) n x))
(define ut (specialize use-table 1))
(test "global data" 4 (ut 0))
(vector-set! table 0 10)
(test "global data changed" 13 (ut 0))

;; A procedure the static run used is a dependency: redefining it invalidates the residual.
(define (base n) (* n 10))
(define (use-base n x) (+ (base n) x))
(define ub (specialize use-base 2))
(test "dependency before" 21 (ub 1))
(define (base n) (* n 100))
(test "dependency after redefinition" 201 (ub 1))

;; Higher order: static procedures as arguments.
(define (sum-map f l) (apply + (map f l)))
(define (use-sum-map l x) (+ (sum-map (lambda (y) (* y y)) l) x))
(test "map with a static lambda" '(lambda (x) (+ 14 x)) (residual (specialize use-sum-map '(1 2 3))))

;; Raising inside the run does not reach the caller's handlers.
(define (raiser n) (if (> n 0) (raise 'up) n))
(define (use-raiser n x) (+ (raiser n) x))
(define ur (specialize use-raiser 1))
(test "raise stays residual" '(raised up) (outcome (lambda () (ur 1))))
(test "handlers of the caller not run"
      'specialized
      (with-exception-handler (lambda (e) 'handler-ran) (lambda () (specialize use-raiser 1) 'specialized)))

;; The reported scope bug: a let-bound lambda with a loop inside, called twice.
(define (f b) (if (> b 0) (let ((g (lambda (x) (let loop ((i 2) (acc x)) (if (= i 0) acc (loop (- i 1) (+ acc 1))))))) (g (g b))) 0))
(agree "let-bound lambda with a loop" (specialize f) f (5) (0) (-1))

;; Primitives that read state without being effects (command-line) are not run statically.
(define (args-count n) (+ n (length (command-line))))
(define (use-args n x) (+ (args-count n) x))
(test "state-reading primitive not assumed" (use-args 1 2) ((specialize use-args 1) 2))
(test-assert "state-reading primitive stays residual"
             (let ((r (residual (specialize use-args 1)))) (not (number? (cadr (caddr r))))))

;; freeze: an immutable deep copy the specializer may read as it reads literals.
(define built (list 'add 1 (vector 2 "s")))
(define frozen (freeze built))
(test "freeze copies" built frozen)
(test-assert "freeze is a copy" (not (eq? built frozen)))
(test-error "frozen data is immutable" error-object? (set-car! frozen 'sub))
(test-error "frozen vectors too" error-object? (vector-set! (caddr frozen) 0 1))
(define cyc (list 1 2))
(set-cdr! (cdr cyc) cyc)
(define fc (freeze cyc))
(test-assert "freeze keeps cycles" (eq? fc (cddr fc)))
(define (op-of e x) (if (eq? (car e) 'add) (+ (cadr e) x) (- x)))
(test "built data is read when frozen" '(lambda (x) (+ 1 x)) (residual (specialize op-of frozen)))
(test-assert "mutable built data is not read" (not (equal? '(lambda (x) (+ 1 x)) (residual (specialize op-of built)))))
(agree "frozen data agrees" (specialize op-of frozen) (lambda (x) (op-of frozen x)) (1) ('a))

(test-end)
