;;; jit-recipes-test.scm — the primitives the JIT does inline through their globals (JitRecipe in
;;; core/prim.hpp: quotient, remainder, modulo and their truncate-/floor- names, exact-integer?,
;;; eqv?) against the interpreter, on the values where an inline path could go wrong: fixnum
;;; limits, divisors 0 and -1, signs, bignums, flonums, ratnums, non-numbers (errors), eqv? on
;;; boxed numbers, -0.0, NaN and non-numbers, and procedure? on every kind of procedure and
;;; other value. Each case is a procedure made by a fresh
;;; eval, applied once with (jit-mode 'off) (the reference) and once with (jit-mode 'force);
;;; predicates are tried as values and as branch tests (the JIT fuses those).

(include "harness.scm")
(include "gen-harness.scm")

(define env (environment '(scheme base) '(scheme eval)))
;; A direct call (not apply) so the compiled call site is the one under test.
(define (apply-args proc args)
  (if (null? (cdr args)) (proc (car args)) (proc (car args) (cadr args))))

(define fix-max (- (expt 2 62) 1))
(define fix-min (- (expt 2 62)))
(define integers
  (list 0 1 -1 2 -2 3 -3 7 -7 13 -13 100 -100 fix-max fix-min (+ fix-min 1) (- fix-max 1)
        (expt 2 62) (- (- (expt 2 62)) 1) (expt 10 30) (- (expt 10 30))))
(define others (list 2.0 -3.0 0.0 2.5 1/2 -7/3 'a "s" #\x))
(define eqv-values
  (list 0 1 -1 fix-max fix-min (expt 2 70) (* (expt 2 35) (expt 2 35)) 1.0 (exact->inexact 1) -0.0 0.0
        +nan.0 (/ 0. 0.) 1/2 (/ 2 4) 1+2i (make-rectangular 1 2) #\a #\a 'a 'a "s" "s" '() #t #f
        (list 1) (vector)))

(define big (expt 2 70))
(define flo 2.5)
(define (iota-list n) (let loop ((i (- n 1)) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))))
(define cyclic (let ((l (list 'p 'q 'r))) (set-cdr! (cddr l) l) l))
(define search-items (list 'a 'z 3 40 #\c '() big (expt 2 70) flo 2.5 1/2 "s"))
(define search-lists
  (list '() '(a) (list 'x 'a 'b) (list 1 2 3 #\c 'z) (iota-list 50) (append (iota-list 31) '(a))
        (append (iota-list 32) '(a)) (list big flo 1/2 '()) (list (expt 2 70) 2.5 'z)
        '(a b . c) '(x y . z) 'not-a-list cyclic))

(define-record-type point (make-point x y) point? (x point-x) (y point-y))
(define procedure-values
  (list car (lambda (x) x) (case-lambda ((a) a) ((a b) b)) (lambda args args) point-x make-point
        (call/cc (lambda (k) k)) (make-parameter 1) (call-with-current-continuation (lambda (k) k))))
(define non-procedure-values
  (list 0 -1 fix-max (expt 2 70) 2.5 1/2 1+2i 'a "s" #\x '() (list 1) (vector car) (make-point 1 2) #t #f
        (delay 1) (make-bytevector 2) (current-output-port) (make-hash-table eq?) (eof-object)))

(define (cases)
  (let ((out '()))
    (define (add! src args) (set! out (cons (cons src args) out)))
    (for-each
     (lambda (op)
       (for-each (lambda (a)
                   (for-each (lambda (b) (add! `(lambda (a b) (,op a b)) (list a b)))
                             (append integers others)))
                 (append integers (list 2.0 1/2 'a))))
     '(quotient remainder modulo truncate-quotient truncate-remainder floor-remainder))
    (for-each (lambda (a)
                (add! '(lambda (a) (exact-integer? a)) (list a))
                (add! '(lambda (a) (if (exact-integer? a) 'yes 'no)) (list a)))
              (append integers others eqv-values))
    (for-each (lambda (a)
                (for-each (lambda (b)
                            (add! '(lambda (a b) (eqv? a b)) (list a b))
                            (add! '(lambda (a b) (if (eqv? a b) 'yes 'no)) (list a b)))
                          eqv-values))
              eqv-values)
    ;; memq/memv: found at the front, in the middle, past the inline walk's 32 pairs, absent;
    ;; improper and cyclic lists (the call's error or its cycle check), a non-list
    (for-each
     (lambda (op)
       (for-each (lambda (item)
                   (for-each (lambda (l)
                               (add! `(lambda (a b) (,op a b)) (list item l))
                               (add! `(lambda (a b) (if (,op a b) 'yes 'no)) (list item l)))
                             search-lists))
                 search-items))
     '(memq memv))
    ;; procedure?: each kind of procedure, and values of every other kind
    (for-each (lambda (x)
                (add! '(lambda (a) (procedure? a)) (list x))
                (add! '(lambda (a) (if (procedure? a) 'yes 'no)) (list x)))
              (append procedure-values non-procedure-values))
    ;; the same object on both sides: a boxed flonum, a bignum, NaN
    (for-each (lambda (x) (add! '(lambda (a) (eqv? a a)) (list x)))
              (list 1.5 +nan.0 (expt 2 70) 1/3 1+2i))
    (reverse out)))

(define (run-all mode)
  (let ((saved (jit-mode)))
    (jit-mode mode)
    (let ((results (map (lambda (c)
                          (let ((proc (eval (car c) env)))
                            (gen-outcome (lambda () (apply-args proc (cdr c))))))
                        (cases))))
      (jit-mode saved)
      results)))

(let ((reference (run-all 'off))
      (compiled (run-all 'force)))
  (test "as many outcomes" (length reference) (length compiled))
  (let loop ((cs (cases)) (r reference) (c compiled) (bad 0))
    (cond ((null? cs) (test "every recipe agrees with the interpreter" 0 bad))
          ((equal? (car r) (car c)) (loop (cdr cs) (cdr r) (cdr c) bad))
          (else
           (when (< bad 10)
             (display "MISMATCH ") (write (car cs)) (display " interpreter ") (write (car r))
             (display " compiled ") (write (car c)) (newline))
           (loop (cdr cs) (cdr r) (cdr c) (+ bad 1))))))

;; Spot checks whose answers are known, so the test fails if both engines were wrong alike.
(define (qrm a b) (list (quotient a b) (remainder a b) (modulo a b)))
(test "signs" '((2 1 1) (-2 1 -2) (-2 -1 2) (2 -1 -1))
      (list (qrm 7 3) (qrm 7 -3) (qrm -7 3) (qrm -7 -3)))
(test "least fixnum by -1 is a bignum" (expt 2 62) (quotient fix-min -1))
(test "least fixnum modulo -1" 0 (modulo fix-min -1))
(test-error "quotient by zero" (quotient 1 0))
(test "modulo exact zero remainder keeps zero" 0 (modulo -6 3))
(test "eqv? on equal bignums made apart" #t (eqv? (expt 2 70) (* (expt 2 35) (expt 2 35))))
(test "eqv? -0.0 0.0" #f (eqv? -0.0 0.0))
(test "exact-integer? on a bignum" #t (exact-integer? (expt 2 70)))
(test "exact-integer? on 2.0" #f (exact-integer? 2.0))
(test "memq gives the tail" '(b c) (memq 'b '(a b c)))
(test "procedure? on each kind" '(#t #t #t #t #t #t #t #t #t) (map procedure? procedure-values))
(test "procedure? on other values" #f (let loop ((l non-procedure-values)) (and (pair? l) (or (procedure? (car l)) (loop (cdr l))))))
(test "memv finds an equal flonum" '(2.5) (memv (* 5 0.5) (list 1 2.5)))
(test "memq past 32 pairs" '(40 41) (memq 40 (iota-list 42)))
(test-error "memq on a cyclic list without the item" (memq 'zz cyclic))
(test-error "memq on an improper list without the item" (memq 'zz '(a . b)))

(test-end)
