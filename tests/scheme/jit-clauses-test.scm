;;; jit-clauses-test.scm — calls from machine code to case-lambda closures and to closures with
;;; rest arguments (lib/jit/README.md "Calls and returns": the clause chosen by the argument
;;; count, guarded on the clause's Proto; a rest list made at the call): every arity, through a
;;; global (a known callee), an argument (the general call) and a letrec's free slot; tail and
;;; non-tail; wrong argument counts (the message names the procedure); apply; deep recursion
;;; through rest-argument frames; continuations captured inside such callees and re-entered.
;;; Loops run past the hot threshold, so the default mode compiles the callers; run in all four
;;; modes, every mode must give these answers.

(include "harness.scm")

(define cl
  (case-lambda
    ((a) (list 'one a))
    ((a b) (list 'two a b))
    ((a b c) (list 'three a b c))
    ((a b c . r) (list 'many a b c r))))
(define (rest0 . xs) xs)
(define (rest1 a . xs) (cons a xs))
(define (rest2 a b . xs) (list a b xs))

(define (repeat n thunk)
  (let loop ((i 0) (r #f))
    (if (= i n) r (loop (+ i 1) (thunk)))))

;; Known callees (globals), every clause and every rest length, inline pops and the routine.
(define (known-calls n)
  (list (cl n) (cl n 1) (cl n 1 2) (cl n 1 2 3) (cl n 1 2 3 4 5 6 7 8 9 10 11)
        (rest0) (rest0 n) (rest0 n n n) (rest0 1 2 3 4 5 6 7 8) (rest0 1 2 3 4 5 6 7 8 9)
        (rest1 n) (rest1 n 'x) (rest2 n 'b) (rest2 n 'b 'c 'd)))
(define known-expected
  '((one 7) (two 7 1) (three 7 1 2) (many 7 1 2 (3)) (many 7 1 2 (3 4 5 6 7 8 9 10 11))
    () (7) (7 7 7) (1 2 3 4 5 6 7 8) (1 2 3 4 5 6 7 8 9)
    (7) (7 x) (7 b ()) (7 b (c d))))
(test "known callees, every clause" known-expected (repeat 500 (lambda () (known-calls 7))))

;; The same in tail position (each its own procedure, so each call is a tail call).
(define (t-cl1 n) (cl n))
(define (t-cl2 n) (cl n 1))
(define (t-cl4 n) (cl n 1 2 3))
(define (t-rest0 n) (rest0 n n))
(define (t-rest0-none n) (rest0))
(define (t-rest1 n) (rest1 n 1 2 3 4 5 6 7 8 9 10))
(define (t-rest2 n) (rest2 n n))
(define (tail-calls n)
  (list (t-cl1 n) (t-cl2 n) (t-cl4 n) (t-rest0 n) (t-rest0-none n) (t-rest1 n) (t-rest2 n)))
(test "known callees, tail calls"
      '((one 3) (two 3 1) (many 3 1 2 (3)) (3 3) () (3 1 2 3 4 5 6 7 8 9 10) (3 3 ()))
      (repeat 500 (lambda () (tail-calls 3))))

;; Unknown callees (an argument): the general call chooses the clause at run time.
(define (via f n) (list (f n) (f n 1) (f n 1 2) (f n 1 2 3 4)))
(define (via-tail1 f n) (f n))
(define (via-tail3 f n) (f n 1 2))
(define (via-tail5 f n) (f n 1 2 3 4))
(define (unknown-calls n)
  (list (via cl n) (via rest0 n) (via rest1 n)
        (via-tail1 cl n) (via-tail3 cl n) (via-tail5 cl n)
        (via-tail1 rest0 n) (via-tail3 rest0 n) (via-tail5 rest1 n)
        (via-tail3 rest2 n) (via-tail5 rest2 n)))
(test "unknown callees, every clause"
      '(((one 4) (two 4 1) (three 4 1 2) (many 4 1 2 (3 4)))
        ((4) (4 1) (4 1 2) (4 1 2 3 4))
        ((4) (4 1) (4 1 2) (4 1 2 3 4))
        (one 4) (three 4 1 2) (many 4 1 2 (3 4))
        (4) (4 1 2) (4 1 2 3 4)
        (4 1 (2)) (4 1 (2 3 4)))
      (repeat 500 (lambda () (unknown-calls 4))))

;; Values live across the call stay right (registers are stored and reloaded around it).
(define (around x y)
  (let* ((a (rest1 x y x))
         (b (cl y x))
         (c (+ x y)))
    (list x y a b c (* x y))))
(test "values live across the calls" '(3 5 (3 5 3) (two 5 3) 8 15) (repeat 500 (lambda () (around 3 5))))

;; A letrec's case-lambda and rest-argument procedures called through free slots.
(define (letrec-calls n)
  (letrec ((f (case-lambda ((a) (g a a)) ((a b) (g a b 'extra))))
           (g (lambda (a b . r) (list a b r))))
    (let ((h (lambda (x) (list (f x) (f x 1) (g x 2 3 4)))))
      (h n))))
(test "through free slots" '((5 5 ()) (5 1 (extra)) (5 2 (3 4))) (repeat 500 (lambda () (letrec-calls 5))))

;; A rest-argument procedure calling itself (the general call makes its list), deep enough to
;; go past the machine stack's share of the frames (the out-of-line frame push).
(define (rdepth n . acc)
  (if (= n 0) (length acc) (+ 1 (rdepth (- n 1) n n))))
(test "deep self recursion with rest lists" '(100002 10002 5002)
      (list (rdepth 100000) (rdepth 10000) (rdepth 5000)))
(define (cdepth n)
  (if (= n 0) 0 (+ 1 (cdepth2 (- n 1) 'x))))
(define cdepth2 (case-lambda ((n) (cdepth n)) ((n x) (cdepth n)) ((n x . r) r)))
(test "deep recursion through a case-lambda" '(100000 20000) (list (cdepth 100000) (cdepth 20000)))

;; Wrong argument counts: the interpreter reports them, naming the procedure, from hot code too.
(define (bad-cl n) (cl))
(define (bad-rest2 n) (rest2 n))
(define (bad-via f) (f))
(define (catch-arity thunk)
  (guard (e (#t (%test-condition-text e))) (thunk)))
(define (arity-errors)
  (list (catch-arity (lambda () (bad-cl 1)))
        (catch-arity (lambda () (bad-rest2 1)))
        (catch-arity (lambda () (bad-via cl)))
        (catch-arity (lambda () (bad-via rest1)))))
(test "wrong argument counts, hot"
      '("cl: no clause accepts 0 arguments" "rest2: expected at least 2 arguments, got 1"
        "cl: no clause accepts 0 arguments" "rest1: expected at least 1 argument, got 0")
      (repeat 300 arity-errors))
(test-error-message "a case-lambda called with no arguments" "cl" (bad-cl 1))
(test-error-message "a rest procedure called with too few" "rest2" (bad-rest2 1))

;; apply of both kinds, from compiled code.
(define (applies n)
  (list (apply cl (list n)) (apply cl n '(1 2 3 4)) (apply rest0 n '(1 2)) (apply rest2 (list n n))))
(test "apply" '((one 2) (many 2 1 2 (3 4)) (2 1 2) (2 2 ()))
      (repeat 500 (lambda () (applies 2))))

;; A continuation captured inside a rest-argument callee and inside a case-lambda clause,
;; re-entered after the call returned: the frames above the caller are restored and return
;; through compiled code again.
(define (capture-in-rest k-box . items)
  (let ((v (call/cc (lambda (k) (set-car! k-box k) 0))))
    (cons v items)))
(define capture-in-clause
  (case-lambda
    ((k-box) (capture-in-clause k-box 'none))
    ((k-box x) (list x (call/cc (lambda (k) (set-car! k-box k) 0))))))
(define (reenter)
  (let* ((box (list #f)) (count 0) (results '()))
    (let ((r (capture-in-rest box 'a 'b)))
      (set! results (cons r results))
      (set! count (+ count 1))
      (if (< count 4) ((car box) count)))
    (let ((r (capture-in-clause box)))
      (set! results (cons r results))
      (set! count (+ count 1))
      (if (< count 8) ((car box) count)))
    (reverse results)))
(test "re-entry of continuations captured inside the callees"
      '((0 a b) (1 a b) (2 a b) (3 a b) (none 0) (none 5) (none 6) (none 7))
      (repeat 300 reenter))

;; Many rest lists between collections: each is its own, fresh list.
(define (many-lists n)
  (let loop ((i 0) (acc '()))
    (if (= i n) (apply + (map (lambda (l) (apply + l)) acc))
        (loop (+ i 1) (cons (rest0 i 1 2) acc)))))
(test "rest lists under allocation" (+ (/ (* 99999 100000) 2) (* 3 100000)) (many-lists 100000))

;; Rest lists and clauses chosen at tail calls from loops whose values are in machine
;; registers (tail calls do not store them first): known and unknown callees, more arguments
;; than the inline pops take.
(define (rest-tail n)
  (let loop ((i 0) (a 0)) (if (< i n) (loop (+ i 1) (+ a i)) (rest1 a i n a))))
(define (rest-tail-long n)
  (let loop ((i 0) (a 0)) (if (< i n) (loop (+ i 1) (+ a i)) (rest0 a i n a 1 2 3 4 5 6 7 8))))
(define (via-tail-loop f n)
  (let loop ((i 0) (a 0)) (if (< i n) (loop (+ i 1) (+ a i)) (f a i n))))
(test "tail calls from loops"
      '((45 10 10 45) (45 10 10 45 1 2 3 4 5 6 7 8) (45 10 10) (three 45 10 10) (45 10 (10)))
      (repeat 300 (lambda () (list (rest-tail 10) (rest-tail-long 10) (via-tail-loop rest0 10)
                                   (via-tail-loop cl 10) (via-tail-loop rest2 10)))))

;; (case-lambda) with no clause (R7RS 4.2.9 allows it): a procedure that no call fits. It crashed
;; the compiler (review D8); every call is now an arity error naming case-lambda.
(define none (case-lambda))
(test "no clause: a procedure" #t (procedure? none))
(test-error-message "no clause: 0 arguments" "case-lambda: no clause accepts 0 arguments" (none))
(test-error-message "no clause: 1 argument" "no clause accepts 1 argument" (none 'a))
(test-error-message "no clause: 3 arguments" "no clause accepts 3 arguments" (apply none '(1 2 3)))
(test "no clause: hot caller" 300
      (repeat 300 (let ((n 0)) (lambda () (guard (e (#t (set! n (+ n 1)) n)) (none n))))))

(test-end)
