;;; pe-control-test.scm — control and explanation of the partial evaluator (issue 13 item 8):
;;; per-request options of specialize* (effort, residual size, static-run steps, whistle), the
;;; (dynamic x) annotation, and (specialize-explain p). Every residual agrees with the original.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (mentions? code name) (and (memq name (walk code)) #t))
(define (stat name) (cdr (assq name (specialize-stats))))
(define (outcome thunk) (guard (e (#t 'raised)) (thunk)))
(define (helpers p)  ; the letrec-bound helpers of a residual (lambda (...) (letrec* (...) ...))
  (let ((body (caddr (residual p))))
    (if (and (pair? body) (eq? (car body) 'letrec*)) (length (cadr body)) 0)))
(define (entries p reason) (filter (lambda (e) (eq? (cdr (assq 'reason e)) reason)) (specialize-explain p)))
(define (filter ok? l) (cond ((null? l) '()) ((ok? (car l)) (cons (car l) (filter ok? (cdr l)))) (else (filter ok? (cdr l)))))
(define (contains? s sub)
  (let loop ((i 0))
    (and (<= (+ i (string-length sub)) (string-length s))
         (or (string=? (substring s i (+ i (string-length sub))) sub) (loop (+ i 1))))))

;; ---- options ------------------------------------------------------------------------------------

;; A counter that is tested (so it stays static) and grows: the whistle generalizes it past 64.
(define (cnt n x acc) (if (= n 100) acc (if (> x 0) (cnt (+ n 1) (- x 1) (+ acc n)) (cnt (+ n 1) x acc))))
(define default (specialize* cnt '((0 . 0))))
(define off (specialize* cnt '((0 . 0)) '((whistle . off))))
(define strict (specialize* cnt '((0 . 0)) '((whistle . strict))))
(test "whistle off keeps the counter static: one helper per value" #t (> (helpers off) (helpers default)))
(test "strict generalizes at once" #t (<= (helpers strict) (helpers default)))
(test "strict: at most two helpers" #t (<= (helpers strict) 2))
(for-each (lambda (x)
            (for-each (lambda (p) (test "every whistle agrees" (cnt 0 x 0) (p x 0))) (list default off strict)))
          '(0 1 5 50 99 100 150))
(test "options are cached apart" #f (eq? default off))
(test "the same options share the cache entry" #t (eq? off (specialize* cnt '((0 . 0)) '((whistle . off)))))
(test "#t and #f name embedding and off" #t (eq? off (specialize* cnt '((0 . 0)) '((whistle . #f)))))

;; Effort and residual size: a static unrolling that needs more than a tiny budget.
(define (pw n x) (if (= n 0) 1 (* x (pw (- n 1) x))))
(define exhausted (stat 'budget-exhaustions))
(define tiny (specialize* pw '((0 . 30)) '((effort . 40))))
(test "a tiny effort budget gives up" (+ exhausted 1) (stat 'budget-exhaustions))
(test "... with the trivial residual, by name" '(lambda (x) (pw 30 x)) (residual tiny))
(test "... which agrees" (pw 30 3) (tiny 3))
(define small (specialize* pw '((0 . 30)) '((residual-size . 20))))
(test "a small residual size gives up" (+ exhausted 2) (stat 'budget-exhaustions))
(test "... and agrees" (pw 30 2) (small 2))
(define roomy (specialize* pw '((0 . 30)) '((effort . 1000000) (residual-size . 100000))))
(test "larger budgets specialize" #f (mentions? (residual roomy) 'pw))
(test "... and agree" (pw 30 2) (roomy 2))

;; The residual size counts the residual that exists: the unfolded first iteration of dn, dropped
;; when the call inside it becomes dn's loop helper (lib/pe/unfold.cpp, undo_level), is given back.
;; Measured: the loop fits from a budget of 279; with the dropped copy counted it needed 289, so
;; 284 gave up. (The budget counts the code as built, before the residual passes clean it up.)
(define (dn v d)
  (if (= d 0) v
      (begin (vector-set! v 0 (list (+ d 1) (+ d 2) (+ d 3) (+ d 4) (+ d 5) (+ d 6) (+ d 7) (+ d 8) (+ d 9) (+ d 10)
                                    (+ d 11) (+ d 12) (+ d 13) (+ d 14) (+ d 15) (+ d 16) (+ d 17) (+ d 18) (+ d 19) (+ d 20)))
             (dn v (- d 1)))))
(define dn-vec (make-vector 1 #f))
(define (dn-from d) (dn dn-vec d))
(define dn-fit (specialize* dn-from '() '((residual-size . 284))))
(test "a dropped first iteration is not counted: the loop fits" '() (specialize-explain dn-fit))
(test "... it is the loop" #f (mentions? (residual dn-fit) 'dn-from))
(test "... and agrees" (list dn-vec (iota 20 2)) (let ((r (dn-fit 3))) (list r (vector-ref dn-vec 0))))

;; Static-run steps: a static call that runs long is left residual under a small step budget.
(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define (fib-plus n x) (+ x (fib n)))
(define few (specialize* fib-plus '((0 . 25)) '((static-steps . 100))))
(test "few static steps: fib runs at run time" #t (mentions? (residual few) 'fib))
(test "... and agrees" (fib-plus 25 1) (few 1))
(test "enough steps: fib is computed now" #f (mentions? (residual (specialize fib-plus 25)) 'fib))

(test-error "an unknown option" (specialize* pw '((0 . 3)) '((speed . 3))))
(test-error "a non-positive effort" (specialize* pw '((0 . 3)) '((effort . 0))))
(test-error "a whistle that is not one of the three" (specialize* pw '((0 . 3)) '((whistle . loud))))
(test-error "options that are not an alist" (specialize* pw '((0 . 3)) 'fast))
(test-error-message "the unknown option is named" "speed" (specialize* pw '((0 . 3)) '((speed . 3))))

;; ---- (dynamic x) --------------------------------------------------------------------------------

(test "dynamic is the identity" '(5 #t) (let ((l (list 1))) (list (dynamic 5) (eq? l (dynamic l)))))
(define (pw-loop n x) (pw (dynamic n) x))
(define unrolled (specialize pw 5))
(define looped (specialize pw-loop 5))
(test "without the annotation the static exponent is unrolled" #f (mentions? (residual unrolled) '=))
(test "with it the exponent is a run-time value: a loop" #t (mentions? (residual looped) '=))
(for-each (lambda (x) (test "annotated agrees" (pw-loop 5 x) (looped x))) '(0 1 2 3 -2 1/2 2.5))
(test "an annotated call raises like the original" (outcome (lambda () (pw-loop 5 'a))) (outcome (lambda () (looped 'a))))
;; A partially static list made dynamic: its fields are read at run time.
(define (fst a b) (car (dynamic (list a b))))
(define sfst (specialize fst 'k))
(test "a partially static object made dynamic is built and read" #t (mentions? (residual sfst) 'car))
(test "... and agrees" 'k (sfst 'z))
;; What a test taught is forgotten too.
(define (taught x) (if (eq? x 'a) (eq? (dynamic x) 'a) 'other))
(define staught (specialize taught))
(test "what a test taught does not pass the annotation" #t (mentions? (residual staught) 'eq?))
(for-each (lambda (x) (test "taught agrees" (taught x) (staught x))) '(a b 1 "a"))

;; ---- specialize-explain -------------------------------------------------------------------------

(define (rev l r) (if (null? l) r (rev (cdr l) (cons (car l) r))))
(define srev (specialize* rev '((1 . ()))))
(define acc (entries srev 'accumulator))
(test "an accumulator is explained" #t (pair? acc))
(test "... by procedure" 'rev (cdr (assq 'procedure (car acc))))
(test "... with the argument's name" #t (contains? (cdr (assq 'detail (car acc))) "r"))
(test "... as a generalization" 'generalized (cdr (assq 'action (car acc))))
(test "... where the procedure is defined" #t
      (let ((l (cdr (assq 'location (car acc))))) (and (string? l) (contains? l "pe-control-test.scm"))))
(for-each (lambda (x) (test "rev agrees" (rev x '()) (srev x))) '(() (1) (1 2 3)))

(define (bad x) (car x))
(define (calls-bad d) (if (> d 0) (bad 5) d))
(define sbad (specialize calls-bad))
(define err (entries sbad 'static-run-error))
(test "a static call that raises is explained" #t (pair? err))
(test "... naming the callee" 'bad (cdr (assq 'procedure (car err))))
(test "... as left residual" 'residualized (cdr (assq 'action (car err))))
(test "it raises when reached" 'raised (outcome (lambda () (sbad 1))))
(test "... and not otherwise" 0 (sbad 0))

(define (w s t) (cond ((null? s) t) ((eqv? (car s) (car t)) (w (cdr s) t)) (else (w (cdr s) (cdr t)))))
(define sw (specialize w))
(test "a whistle restart is explained" #t (pair? (entries sw 'whistle)))

(define gave (specialize-explain tiny))
(test "giving up is explained" 'gave-up (cdr (assq 'action (car (entries tiny 'effort)))))
(test "... naming the procedure" 'pw (cdr (assq 'procedure (car (entries tiny 'effort)))))
(define (lr x) (letrec ((a (lambda () b)) (b (a))) (list x b)))
(test "something not modelled is explained" #t (pair? (entries (specialize lr) 'not-modelled)))
(test "nothing generalized: no entries" '() (specialize-explain (specialize (lambda (x y) (+ x y)) 1)))
(test "every entry has the six fields" #t
      (let ((e (car (specialize-explain srev))))
        (and (assq 'action e) (assq 'reason e) (assq 'procedure e) (assq 'location e) (assq 'detail e)
             (assq 'count e) #t)))
(define printed (let ((p (open-output-string))) (specialize-explain srev p) (get-output-string p)))
(test "printed: one line naming the procedure and the reason" #t
      (and (contains? printed "rev") (contains? printed "accumulator") #t))
(test-error "explain of a procedure specialize did not make" (specialize-explain car))

(test-end)
