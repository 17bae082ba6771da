;;; jit-diff-test.scm — differential test of the JIT against the interpreter.
;;;
;;; A deterministic generator (gen-harness.scm's LCG, fixed seed) builds a corpus of random
;;; programs: `(lambda (x y z) body)` expressions over fixnum/bignum boundary values, rationals
;;; and flonums; named-let loops, closures with set!, mutual and non-tail recursion; vectors with
;;; good and bad indexes; call/cc escapes and re-entry (also of continuations that share stack
;;; segments); dynamic-wind with a trace; errors. Each
;;; program is evaluated and applied to a few argument tuples three times:
;;;
;;;   off    (jit-mode 'off): the interpreter alone; this is the reference
;;;   force  (jit-mode 'force): a fresh procedure from a fresh eval, compiled on its first call
;;;   on     (jit-mode 'on): a fresh procedure called ~1100 times (so it is hot) before the
;;;          results are taken
;;;
;;; The outcome of one application is (value V), (error "message" "irritants written") or
;;; (raise OBJ); force and on must give outcomes equal? to off's (equal? compares numbers with
;;; eqv?: 2 vs 2.0, -0.0 vs 0.0 and +nan.0 are told apart exactly). Every comparison is one
;;; check. A failure prints the seed, the program number, the program, the arguments and both
;;; outcomes; JIT_DIFF_SEED / the constant below reproduce the corpus.

(include "harness.scm")
(include "gen-harness.scm")

;; The JIT's Scheme interface is (jit-mode), (jit-mode 'off|'on|'force) and (jit-compiled? proc),
;; built into the binary. The file was written before the JIT existed, against a stand-in that
;; has been removed: it needs the real primitives. (To check the generator on a binary without a
;; JIT, define them first: jit-mode keeping the mode in a variable, jit-compiled? returning #f;
;; then only "force compiled the programs" fails.)

(define jd-seed
  (let ((s (get-environment-variable "JIT_DIFF_SEED")))
    (or (and s (string->number s)) 20250611)))
(define jd-program-count 360)
(gen-seed! jd-seed)

;; ---- constants ----------------------------------------------------------------------------

(define jd-small '(0 1 -1 2 -2 3 5 7 -7 10 -10 100 255 1000 -3))

(define jd-big
  (list (expt 2 62) (- (expt 2 62) 1) (- (expt 2 62)) (- -1 (expt 2 62))
        (expt 2 63) (- (expt 2 63) 1) (- (expt 2 63)) (- -1 (expt 2 63))
        (expt 2 61) (- (expt 2 61) 1) (- (expt 2 61)) (- -1 (expt 2 61))
        (expt 2 64) (+ 1 (expt 2 100)) (- (expt 2 90))
        (expt 2 30) (expt 2 31) (- (expt 2 31)) (expt 2 32) 3037000499 3037000500
        (+ 1 (expt 2 53))))

(define jd-odd
  (list 1/3 -5/2 2.5 -0.0 0.0 +inf.0 -inf.0 +nan.0 1.5 -1.5 3.0 1e300 -1e-300
        (exact->inexact (expt 2 62)) 0.1))

(define jd-flo '(0.5 -0.0 0.0 2.5 -1.5 1e10 +inf.0 -inf.0 +nan.0 3.0 1e300 1e-300))

(define (jd-num-const)
  (let ((r (gen-rand 100)))
    (cond ((< r 40) (gen-pick jd-small))
          ((< r 75) (gen-pick jd-big))
          (else (gen-pick jd-odd)))))

(define (jd-int-const)
  (if (gen-chance 55) (gen-pick jd-small) (gen-pick jd-big)))

;; Arguments. The first tuple of a program is often benign (small fixnums), so that the
;; warm-up in 'on mode may see only it and the later tuples hit the slow paths.
(define jd-non-numbers (list 'sym '(1 2 3) '() "str" #t '#(1 2 3) #\a))

(define (jd-arg)
  (let ((r (gen-rand 100)))
    (cond ((< r 35) (gen-pick jd-small))
          ((< r 70) (gen-pick jd-big))
          ((< r 92) (gen-pick jd-odd))
          (else (gen-pick jd-non-numbers)))))

(define (jd-tuple) (list (jd-arg) (jd-arg) (jd-arg)))

(define (jd-small-tuple)
  (list (gen-pick jd-small) (gen-pick jd-small) (gen-pick jd-small)))

(define (jd-tuples)
  (let ((first (if (gen-chance 60) (jd-small-tuple) (jd-tuple))))
    (cons first
          (let loop ((k (+ 2 (gen-rand 2))) (acc '()))
            (if (= k 0) acc (loop (- k 1) (cons (jd-tuple) acc)))))))

;; ---- environments of generated code -------------------------------------------------------
;; An environment is a list of (name . type), type one of num (anything, usually a number),
;; int (an exact integer), list.

(define jd-counter 0)
(define (jd-fresh prefix)
  (set! jd-counter (+ jd-counter 1))
  (string->symbol (string-append prefix (number->string jd-counter))))

(define (jd-vars env type)
  (let loop ((e env) (acc '()))
    (cond ((null? e) acc)
          ((eq? (cdar e) type) (loop (cdr e) (cons (caar e) acc)))
          (else (loop (cdr e) acc)))))

(define (jd-var env types)               ; a variable of one of types, or #f
  (let ((vs (apply append (map (lambda (t) (jd-vars env t)) types))))
    (if (null? vs) #f (gen-pick vs))))

;; ---- expression generators ----------------------------------------------------------------

(define (jd-num-leaf env)
  (let ((v (and (gen-chance 60) (jd-var env '(num int)))))
    (or v (jd-num-const))))

(define (jd-int-leaf env)
  (let ((v (and (gen-chance 50) (jd-var env '(int)))))
    (or v (if (gen-chance 25) (or (jd-var env '(num)) (jd-int-const)) (jd-int-const)))))

;; Mostly exact integers (for quotient and friends).
(define (jd-gen-int env d)
  (if (or (<= d 0) (gen-chance 35))
      (jd-int-leaf env)
      (let ((a (lambda () (jd-gen-int env (- d 1)))))
        (case (gen-rand 9)
          ((0 1) `(+ ,(a) ,(a)))
          ((2) `(- ,(a) ,(a)))
          ((3) `(* ,(a) ,(a)))
          ((4) `(,(gen-pick '(quotient remainder modulo)) ,(a) ,(a)))
          ((5) `(- ,(a)))
          ((6) `(,(gen-pick '(+ - *)) ,(a) ,(gen-pick jd-big)))
          ((7) `(,(gen-pick '(quotient remainder modulo)) ,(a) ,(gen-pick '(-1 1 -2 2 3 -1 7))))
          (else `(if ,(jd-gen-bool env (- d 1)) ,(a) ,(a)))))))

(define (jd-gen-num env d)
  (if (or (<= d 0) (gen-chance 20))
      (jd-num-leaf env)
      (let ((a (lambda () (jd-gen-num env (- d 1)))))
        (case (gen-rand 24)
          ((0 1 2) `(+ ,(a) ,(a)))
          ((3 4) `(- ,(a) ,(a)))
          ((5 6) `(* ,(a) ,(a)))
          ((7) `(,(gen-pick '(+ *)) ,(a) ,(a) ,(a)))
          ((8) `(- ,(a)))
          ((9) `(,(gen-pick '(quotient remainder modulo)) ,(jd-gen-int env (- d 1))
                 ,(jd-gen-int env (- d 1))))
          ((10) `(/ ,(a) ,(a)))
          ((11) `(,(gen-pick '(max min)) ,(a) ,(a)))
          ((12) `(,(gen-pick '(abs exact->inexact floor truncate round)) ,(a)))
          ((13 14) `(if ,(jd-gen-bool env (- d 1)) ,(a) ,(a)))
          ((15) (let ((v (jd-fresh "n")))
                  `(let ((,v ,(a))) ,(jd-gen-num (cons (cons v 'num) env) (- d 1)))))
          ((16) `(vector-ref (vector ,(a) ,(a) ,(a)) ,(gen-rand 3)))
          ((17 18) `(,(gen-pick '(+ - *)) ,(a) ,(gen-pick jd-big)))
          ((19) `(,(gen-pick '(+ - * /)) ,(gen-pick jd-flo) ,(a)))
          ((20) `(exact->inexact ,(a)))
          ((21) `(* ,(a) ,(gen-pick '(2 -1 4 3037000500 -3037000500))))
          ((22) `(car (cdr (list ,(a) ,(a)))))
          (else `(- ,(gen-pick '(0 -1 1)) ,(a)))))))

(define (jd-gen-atom env)
  (case (gen-rand 9)
    ((0) ''a)
    ((1) ''b)
    ((2) ''())
    ((3) (gen-pick '(#t #f)))
    ((4) (- (gen-rand 5) 2))
    ((5) #\a)
    ((6) `(car ,(jd-gen-list env 1)))
    ((7) (or (jd-var env '(int list)) ''a))
    (else `(if ,(jd-gen-bool env 0) 'a 'b))))

(define (jd-gen-bool env d)
  (if (or (<= d 0) (gen-chance 10))
      (if (gen-chance 70)
          `(,(gen-pick '(< <= > >= =)) ,(jd-num-leaf env) ,(jd-num-leaf env))
          (gen-pick '(#t #f)))
      (let ((n (lambda () (jd-gen-num env (- d 1))))
            (b (lambda () (jd-gen-bool env (- d 1)))))
        (case (gen-rand 18)
          ((0 1 2 3 4) `(,(gen-pick '(< <= > >= =)) ,(n) ,(n)))
          ((5) `(,(gen-pick '(< <= > >= =)) ,(n) ,(n) ,(n)))
          ((6) `(,(gen-pick '(zero? positive? negative?)) ,(n)))
          ((7) `(,(gen-pick '(odd? even?)) ,(jd-gen-int env (- d 1))))
          ((8) `(not ,(b)))
          ((9) `(and ,(b) ,(b)))
          ((10) `(or ,(b) ,(b)))
          ((11 12) `(eq? ,(jd-gen-atom env) ,(jd-gen-atom env)))
          ((13) (if (gen-chance 50)
                    `(eqv? ,(n) ,(n))
                    `(,(gen-pick '(eqv? equal? =)) ,(n) ,(gen-pick '(0 0.0 -0.0 1 1.0 2 2.0 +nan.0 1/2 0.5)))))
          ((14) `(null? ,(jd-gen-list env (- d 1))))
          ((15) `(pair? ,(jd-gen-any env (- d 1))))
          ((16) `(,(gen-pick '(exact? inexact? integer? number? exact-integer?)) ,(n)))
          (else `(not (,(gen-pick '(< > =)) ,(n) ,(gen-pick jd-big))))))))

(define (jd-gen-list env d)
  (if (or (<= d 0) (gen-chance 20))
      (case (gen-rand 4)
        ((0) ''())
        ((1) (or (jd-var env '(list)) ''(1 2 3)))
        ((2) (or (jd-var env '(num)) ''(a b)))  ; an argument: sometimes a list, mostly not
        (else `(list ,(jd-num-leaf env))))
      (let ((l (lambda () (jd-gen-list env (- d 1)))))
        (case (gen-rand 8)
          ((0 1) `(cons ,(jd-gen-num env (- d 1)) ,(l)))
          ((2) `(list ,(jd-gen-num env (- d 1)) ,(jd-gen-atom env)))
          ((3) `(cdr ,(l)))
          ((4) `(if ,(jd-gen-bool env (- d 1)) ,(l) ,(l)))
          ((5) `(reverse ,(l)))
          ((6) `(append ,(l) ,(l)))
          (else `(vector->list (vector ,(jd-gen-num env (- d 1)) ,(jd-gen-atom env))))))))

;; Vector indexes and sizes: in range, out of range on both sides, bignums, wrong types.
(define (jd-gen-index env)
  (let ((r (gen-rand 100)))
    (cond ((< r 50) (gen-rand 3))
          ((< r 80) (gen-pick (list -1 3 4 100 (expt 2 62) (- (expt 2 62)) (expt 2 64) (- -1 (expt 2 63)))))
          ((< r 90) (gen-pick '(1.0 0.0 -0.0 'a 1/2 "0")))
          (else (or (jd-var env '(num int)) 0)))))

(define (jd-gen-size)
  (if (gen-chance 85)
      (gen-rand 6)
      (gen-pick (list -1 2.0 ''a (expt 2 70) (- (expt 2 62)) 1/2))))

(define (jd-gen-vec env d)
  (let ((n (lambda () (jd-gen-num env (- d 1)))))
    (case (gen-rand 9)
      ((0 1 2) `(vector-ref (vector ,(n) ,(n) ,(n)) ,(jd-gen-index env)))
      ((3 4) (let ((v (jd-fresh "v")))
               `(let ((,v (make-vector ,(jd-gen-size) ,(n))))
                  (vector-set! ,v ,(jd-gen-index env) ,(n))
                  ,v)))
      ((5) `(vector-length (make-vector ,(jd-gen-size) 0)))
      ((6) `(vector-ref ,(gen-pick (list ''(1 2 3) (or (jd-var env '(num)) 5) "abc" ''#(1 2)))
                        ,(jd-gen-index env)))
      ((7) (let ((v (jd-fresh "v")))
             `(let ((,v (vector ,(n) ,(n))))
                (vector-set! ,v ,(jd-gen-index env) ,(n))
                (vector->list ,v))))
      (else `(vector ,(n) ,(jd-gen-atom env))))))

(define (jd-gen-any env d)
  (let ((r (gen-rand 100)))
    (cond ((< r 50) (jd-gen-num env d))
          ((< r 65) (jd-gen-bool env d))
          ((< r 75) (jd-gen-list env d))
          ((< r 92) (jd-gen-vec env d))
          ((< r 96) (jd-gen-atom env))
          (else `(car ,(jd-gen-list env d))))))

(define jd-args-env '((x . num) (y . num) (z . num)))

;; ---- program shapes -----------------------------------------------------------------------
;; Each returns (program . cost), cost an estimate of the work of one call (used to bound the
;; warm-up of expensive programs).

(define (jd-iterations)
  (let ((r (gen-rand 100)))
    (cond ((< r 40) (+ 1 (gen-rand 60)))
          ((< r 80) (+ 200 (gen-rand 600)))
          (else (+ 1000 (gen-rand 2000))))))

;; A loop bound: a constant, or an argument clamped to a safe range.
(define (jd-bound n)
  (if (gen-chance 80)
      n
      `(if (and (exact-integer? x) (< 0 x ,n)) x ,n)))

;; A straight-line expression.
(define (jd-shape-expr)
  (cons `(lambda (x y z) ,(jd-gen-any jd-args-env (+ 2 (gen-rand 4)))) 1))

;; The operations whose fixnum fast paths overflow at the edges of the fixnum range
;; [-2^62, 2^62 - 1], on arguments and on values next to the edges.
(define (jd-shape-edges)
  (let ((b (gen-pick (list (expt 2 62) (- (expt 2 62) 1) (- (expt 2 62)) (- -1 (expt 2 62))
                          (expt 2 31) (- (expt 2 31)) 3037000500 (- (expt 2 63)) 0 -1)))
        (v (gen-pick '(x y z))))
    (cons `(lambda (x y z)
             (let ((b ,b))
               (list (- ,v) (abs ,v) (* ,v -1) (* -1 ,v) (+ ,v 1) (- ,v 1) (+ ,v ,v) (* ,v 2)
                     (- b ,v) (+ b ,v) (* b ,v) (< b ,v) (<= ,v b) (> b ,v) (>= ,v b) (= b ,v)
                     (eqv? b ,v) (max b ,v) (min b ,v) (- b) (abs b) (+ b b) (- b 1) (+ b 1)
                     ,(jd-gen-int '((b . int) (x . num) (y . num) (z . num)) 2)
                     (guard (e (#t (error-object-message e))) (eqv? ,v (exact->inexact ,v)))
                     (guard (e (#t (error-object-message e))) (eqv? (exact->inexact b) ,v))
                     (guard (e (#t (error-object-message e))) (eqv? (- ,v) (* -1.0 ,v)))
                     (guard (e (#t (error-object-message e))) (quotient ,v -1))
                     (guard (e (#t (error-object-message e))) (remainder ,v -1))
                     (guard (e (#t (error-object-message e))) (modulo b ,v))
                     (guard (e (#t (error-object-message e))) (quotient b ,v)))))
          1)))

;; Several expressions at once, each boundary-heavy.
(define (jd-shape-list)
  (cons `(lambda (x y z)
           (list ,@(let loop ((k (+ 2 (gen-rand 4))) (acc '()))
                     (if (= k 0) acc
                         (loop (- k 1) (cons (jd-gen-num jd-args-env (+ 1 (gen-rand 3))) acc))))))
        1))

;; An update of the accumulator acc of a loop over i: additive, or multiplicative and then
;; reduced, never growing without bound.
(define (jd-acc-update env)
  (let* ((env-no-acc (let loop ((e env))
                       (cond ((null? e) '())
                             ((eq? (caar e) 'acc) (loop (cdr e)))
                             (else (cons (car e) (loop (cdr e)))))))
         (term (lambda () (jd-gen-num env-no-acc (+ 1 (gen-rand 2))))))
    (case (gen-rand 9)
      ((0 1) `(+ acc ,(term)))
      ((2) `(- acc ,(term)))
      ((3) `(remainder (* acc ,(gen-pick '(3 7 -5 1000003 3037000500 4611686018427387903)))
                       ,(gen-pick (list 1000000007 (expt 2 62) (+ 1 (expt 2 62)) (- (expt 2 63) 25)
                                       (expt 2 61)))))
      ((4) `(if ,(jd-gen-bool env 1) (+ acc ,(term)) (- acc ,(term))))
      ((5) `(+ acc (* i ,(gen-pick (list 1 -3 (expt 2 50) (expt 2 58) 0.5 1/3)))))
      ((6) `(if (> acc ,(gen-pick (list (expt 2 62) (expt 2 61) 1000000 0.0)))
                (quotient acc ,(gen-pick '(2 3 -7)))
                (* acc ,(gen-pick '(2 3 -7)))))
      ((7) `(- ,(gen-pick (list (expt 2 62) 0 -1 (- (expt 2 62)))) acc))
      (else `(+ acc ,(gen-pick (list 1 -1 (expt 2 60) (- (expt 2 60)) 0.25 1/7)))))))

(define (jd-acc-init)
  (if (gen-chance 70)
      (gen-pick (list 0 1 -1 (- (expt 2 62) 10) (- 10 (expt 2 62)) (expt 2 62) 0.0 1/2 'x 'y))
      (jd-gen-num jd-args-env 1)))

(define jd-loop-env '((i . int) (acc . num) (x . num) (y . num) (z . num)))

;; A named-let loop with a self tail call.
(define (jd-shape-loop)
  (let* ((n (jd-iterations))
         (test (gen-pick (list `(>= i ,(jd-bound n)) `(= i ,n) `(> i ,(- n 1)) `(not (< i ,n)))))
         (result (if (gen-chance 70) 'acc `(list i acc ,(jd-gen-num jd-loop-env 1)))))
    (cons `(lambda (x y z)
             (let loop ((i 0) (acc ,(jd-acc-init)))
               (if ,test ,result (loop (+ i 1) ,(jd-acc-update jd-loop-env)))))
          n)))

;; A count-down loop with a cond and several accumulators.
(define (jd-shape-countdown)
  (let ((n (jd-iterations)))
    (cons `(lambda (x y z)
             (let loop ((i ,n) (acc ,(jd-acc-init)) (evens 0))
               (cond ((,(gen-pick '(zero? negative?)) ,(if (gen-chance 50) 'i '(- i 1)))
                      (list acc evens))
                     ((even? i) (loop (- i 1) ,(jd-acc-update jd-loop-env) (+ evens 1)))
                     (else (loop (- i 1) acc evens)))))
          n)))

;; Non-tail recursion building a value on the way back.
(define (jd-shape-rec)
  (let ((n (+ 1 (gen-rand 800))))
    (cons (case (gen-rand 3)
            ((0) `(lambda (x y z)
                    (let rec ((i ,n))
                      (if (<= i 0)
                          ,(jd-gen-num jd-args-env 1)
                          (,(gen-pick '(+ - max)) ,(jd-gen-num '((i . int) (x . num)) 1)
                                                 (rec (- i 1)))))))
            ((1) `(lambda (x y z)
                    (let ((l (let rec ((i ,n))
                               (if (= i 0) '() (cons (* i ,(jd-gen-num jd-args-env 1)) (rec (- i 1)))))))
                      (list (length l) (car (reverse l)) (apply + l)))))
            (else `(lambda (x y z)
                     (letrec ((fib (lambda (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))))
                       (list (fib ,(+ 5 (gen-rand 10)))
                             (fib (if (and (exact-integer? x) (<= 0 x 12)) x 3)))))))
          n)))

;; Mutual recursion through letrec.
(define (jd-shape-mutual)
  (let ((n (+ 1 (gen-rand 1500))))
    (cons (if (gen-chance 50)
              `(lambda (x y z)
                 (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
                          (od? (lambda (n) (if (= n 0) #f (ev? (- n 1))))))
                   (let ((k ,(jd-bound n)))
                     (list (ev? k) (od? k) (ev? (+ k 1))))))
              `(lambda (x y z)
                 (letrec ((f (lambda (i acc) (if (<= i 0) acc (g (- i 1) (+ acc ,(jd-gen-num '((i . int) (x . num)) 1))))))
                          (g (lambda (i acc) (if (<= i 0) (list 'g acc) (f (- i 1) ,(jd-acc-update jd-loop-env))))))
                   (f ,n ,(jd-acc-init)))))
          n)))

;; Closures capturing variables, set! on captured variables.
(define (jd-shape-closure)
  (let ((n (+ 1 (gen-rand 700))))
    (case (gen-rand 4)
      ((0) (cons `(lambda (x y z)
                    (let ((count ,(jd-acc-init)) (hist '()))
                      (let ((bump (lambda (d) (set! count (+ count d)) (set! hist (cons count hist)) count)))
                        (let loop ((i 0))
                          (if (< i ,n)
                              (begin (bump ,(jd-gen-num '((i . int) (x . num) (y . num)) 2))
                                     (loop (+ i 1)))))
                        (list count (length hist) (car hist)))))
                 n))
      ((1) (cons `(lambda (x y z)
                    (let ((make (lambda (start) (let ((n start)) (lambda (d) (set! n (+ n d)) n)))))
                      (let ((a (make x)) (b (make ,(jd-num-leaf jd-args-env))))
                        (a ,(jd-gen-num jd-args-env 1))
                        (b ,(jd-gen-num jd-args-env 1))
                        (a (b ,(jd-gen-num jd-args-env 1)))
                        (list (a 0) (b 0)))))
                 1))
      ((2) (cons `(lambda (x y z)
                    (let loop ((i 0) (fs '()))
                      (if (< i ,n)
                          (loop (+ i 1) (cons (lambda (v) ,(jd-gen-num '((i . int) (v . num) (x . num)) 2)) fs))
                          (let sum ((fs fs) (acc 0))
                            (if (null? fs) acc (sum (cdr fs) (+ acc ((car fs) ,(jd-num-leaf jd-args-env)))))))))
                 (* 2 n)))
      (else (cons `(lambda (x y z)
                     (let* ((compose (lambda (f g) (lambda (v) (f (g v)))))
                            (f1 (lambda (v) ,(jd-gen-num '((v . num) (y . num)) 2)))
                            (f2 (lambda (v) ,(jd-gen-num '((v . num) (z . num)) 2)))
                            (h (compose f1 f2)))
                       (let loop ((i 0) (acc '()))
                         (if (< i ,(min n 50))
                             (loop (+ i 1) (cons (if (,(gen-pick '(< > =)) i 25) (h i) (f2 x)) acc))
                             (list (length acc) (car acc) (f1 (h y)))))))
                  (min n 50))))))

;; Vectors: fill, sum, off-by-one bounds.
(define (jd-shape-vector)
  (let* ((n (+ 1 (gen-rand 500)))
         (fill-bound (if (gen-chance 85) n (+ n 1)))
         (sum-test (if (gen-chance 80) `(< i ,n) `(<= i ,n)))
         (start (if (gen-chance 85) 0 -1)))
    (cons `(lambda (x y z)
             (let ((v (make-vector ,n ,(gen-pick '(0 0.0 x #f)))))
               (let fill ((i 0))
                 (if (< i ,fill-bound)
                     (begin (vector-set! v i ,(jd-gen-num '((i . int) (x . num) (y . num)) 2))
                            (fill (+ i 1)))))
               (let sum ((i ,start) (acc 0))
                 (if ,sum-test
                     (sum (+ i 1) (+ acc (vector-ref v i)))
                     (list acc (vector-ref v ,(jd-gen-index '((x . num)))) (vector-length v))))))
          (* 2 n))))

;; Vector accesses at, around and far beyond the bounds, with the index from the arguments.
(define (jd-shape-vector-edges)
  (let* ((k (gen-rand 9))
         (probe (lambda (form) `(guard (e ((error-object? e) (error-object-message e))) ,form))))
    (cons `(lambda (x y z)
             (let ((v (make-vector ,k 'e)))
               (list ,(probe '(vector-ref v x))
                     ,(probe `(vector-ref v ,(- k 1)))
                     ,(probe `(vector-ref v ,k))
                     ,(probe '(vector-ref v (- y 1)))
                     ,(probe '(begin (vector-set! v y z) (vector->list v)))
                     ,(probe '(begin (vector-set! v (+ x 1) y) (vector-ref v (+ x 1))))
                     ,(probe `(vector-ref v ,(jd-gen-index jd-args-env)))
                     ,(probe '(vector-ref (vector x y z) z))
                     ,(probe '(vector-length v)))))
          1)))

;; call/cc: an early exit from a loop or from a non-tail recursion.
(define (jd-shape-escape)
  (let ((n (jd-iterations)))
    (cons (if (gen-chance 60)
              `(lambda (x y z)
                 (call-with-current-continuation
                  (lambda (return)
                    (let loop ((i 0) (acc ,(jd-acc-init)))
                      (cond ((>= i ,n) (list 'done acc))
                            (,(jd-gen-bool jd-loop-env 2) (return (list 'early i acc)))
                            (else (loop (+ i 1) ,(jd-acc-update jd-loop-env))))))))
              `(lambda (x y z)
                 (call/cc
                  (lambda (k)
                    (let rec ((i ,(min n 900)))
                      (if (<= i 0)
                          0
                          (if ,(jd-gen-bool '((i . int) (x . num) (y . num)) 2)
                              (k (list 'out i))
                              (+ i (rec (- i 1))))))))))
          n)))

;; Re-entering a continuation several times.
(define (jd-shape-reenter)
  (let ((m (+ 2 (gen-rand 40))))
    (cons `(lambda (x y z)
             (let ((k #f) (count 0) (acc '()))
               (let ((v (call/cc (lambda (c) (set! k c) ,(gen-pick '(0 1 x))))))
                 (set! count (+ count 1))
                 (set! acc (cons ,(jd-gen-num '((v . num) (count . int) (y . num)) 2) acc))
                 (if (< count ,m)
                     (k (+ v ,(gen-pick (list 1 -1 (expt 2 61) 0.5 1/3))))
                     (list count v (reverse acc))))))
          m)))

;; dynamic-wind with a trace: normal exit, escape, error, re-entry.
(define (jd-shape-wind)
  (cons
   (case (gen-rand 4)
     ((0) `(lambda (x y z)
             (let ((trace '()))
               (define (note t) (set! trace (cons t trace)))
               (let ((r (call/cc
                         (lambda (k)
                           (dynamic-wind
                            (lambda () (note 'before))
                            (lambda ()
                              (note 'during)
                              (if ,(jd-gen-bool jd-args-env 2) (k 'escaped) ,(jd-gen-num jd-args-env 2)))
                            (lambda () (note 'after)))))))
                 (list r (reverse trace))))))
     ((1) `(lambda (x y z)
             (let ((trace '()))
               (define (note t) (set! trace (cons t trace)))
               (guard (e ((error-object? e) (list 'caught (error-object-message e) (reverse trace)))
                         (#t (list 'raised e (reverse trace))))
                 (dynamic-wind
                  (lambda () (note 'in))
                  (lambda ()
                    (note 'body)
                    (let ((r ,(jd-gen-any jd-args-env 3)))
                      (if ,(jd-gen-bool jd-args-env 1) (raise (list 'oops r)) (list r (reverse trace)))))
                  (lambda () (note 'out)))))))
     ((2) `(lambda (x y z)
             (let ((trace '()) (k #f) (n 0))
               (define (note t) (set! trace (cons t trace)))
               (dynamic-wind
                (lambda () (note 'in))
                (lambda () (call/cc (lambda (c) (set! k c))) (note n))
                (lambda () (note 'out)))
               (set! n (+ n 1))
               (if (< n ,(+ 1 (gen-rand 5))) (k #f))
               (list ,(jd-gen-num jd-args-env 1) (reverse trace)))))
     (else `(lambda (x y z)
              (let ((trace '()))
                (define (note t) (set! trace (cons t trace)))
                (let ((r (call/cc
                          (lambda (outer)
                            (dynamic-wind
                             (lambda () (note 'in1))
                             (lambda ()
                               (dynamic-wind
                                (lambda () (note 'in2))
                                (lambda () (if ,(jd-gen-bool jd-args-env 2) (outer 'out) 'normal))
                                (lambda () (note 'out2))))
                             (lambda () (note 'out1)))))))
                  (list r (reverse trace)))))))
   1))

;; Errors caught inside the program: message and irritants, non-condition raises.
(define (jd-shape-guard)
  (cons `(lambda (x y z)
           (guard (e ((error-object? e) (list (error-object-message e) (error-object-irritants e)))
                     ((symbol? e) (list 'sym e)))
             ,(case (gen-rand 4)
                ((0) `(if ,(jd-gen-bool jd-args-env 2) (error "custom failure" x ,(jd-gen-num jd-args-env 1)) ,(jd-gen-any jd-args-env 3)))
                ((1) `(if ,(jd-gen-bool jd-args-env 2) (raise 'bail) ,(jd-gen-num jd-args-env 3)))
                (else (jd-gen-any jd-args-env 4)))))
        1))

;; Flonum expression trees: the JIT computes runs of + - * and a final comparison in SSE
;; registers and boxes only what lives on (jit/flonum_groups.hpp). Arguments are mostly flonums,
;; sometimes fixnums, bignums, rationals or non-numbers (the group's generic path).
(define jd-next-tuples #f)               ; arguments chosen by the shape, or #f

(define (jd-flo-arg)
  (let ((r (gen-rand 100)))
    (cond ((< r 55) (- (/ (gen-rand 4000) 16.0) 100.0))
          ((< r 80) (gen-pick jd-flo))
          ((< r 88) (gen-pick jd-small))
          ((< r 94) (gen-pick (list 1/3 -5/2 (expt 2 70) (- (expt 2 62)))))
          (else (gen-pick jd-non-numbers)))))

(define (jd-flo-tuples)
  (let loop ((k (+ 3 (gen-rand 3))) (acc '()))
    (if (= k 0) acc (loop (- k 1) (cons (list (jd-flo-arg) (jd-flo-arg) (jd-flo-arg)) acc)))))

(define (jd-gen-flo vars d)
  (if (or (<= d 0) (gen-chance 20))
      (let ((r (gen-rand 100)))
        (cond ((< r 70) (gen-pick vars))
              ((< r 92) (gen-pick '(0.5 -0.0 0.0 2.5 -1.5 1e300 +nan.0 +inf.0 4.0)))
              (else (gen-pick '(0 1 -2 3)))))
      (let ((a (lambda () (jd-gen-flo vars (- d 1)))))
        (case (gen-rand 8)
          ((0 1) `(+ ,(a) ,(a)))
          ((2 3) `(* ,(a) ,(a)))
          ((4 5) `(- ,(a) ,(a)))
          ((6) `(+ ,(a) ,(gen-pick '(1 -1 7 1000))))
          (else `(- ,(a) ,(gen-pick '(1 2 -3))))))))

(define (jd-flo-compare vars d)
  (if (gen-chance 25)
      `(,(gen-pick '(< <= > >= =)) ,(jd-gen-flo vars d) ,(gen-pick '(0 4 -1 100)))
      `(,(gen-pick '(< <= > >= =)) ,(jd-gen-flo vars d) ,(jd-gen-flo vars d))))

(define (jd-shape-flonum)
  (let ((v '(x y z)))
    (set! jd-next-tuples (jd-flo-tuples))
    (case (gen-rand 6)
      ((0) (cons `(lambda (x y z) ,(jd-gen-flo v (+ 2 (gen-rand 3)))) 1))
      ((1) (cons `(lambda (x y z)
                    (if ,(jd-flo-compare v 2) ,(jd-gen-flo v 2) ,(jd-gen-flo v 2)))
                 1))
      ((2) (cons `(lambda (x y z)
                    (let ((b ,(jd-flo-compare v 2))) (list b ,(jd-gen-flo v 2))))
                 1))
      ((3) (cons `(lambda (x y z)
                    (let* ((t ,(jd-gen-flo v 2)) (u ,(jd-gen-flo '(x y z t) 2)))
                      (list t u ,(jd-gen-flo '(t u z) 2))))
                 1))
      (else
       (cons `(lambda (x y z)
                (let loop ((a x) (b y) (k 0))
                  (if (or (= k 20) ,(jd-flo-compare '(a b z) 2))
                      (list a b k)
                      (loop ,(jd-gen-flo '(a b z) 3) ,(jd-gen-flo '(a b z) 2) (+ k 1)))))
             20)))))

;; Allocation in compiled loops: pairs, boxes, closures and flonums come from the inline
;; free-list pop in machine code (runtime call only when a list is empty), so these loops run
;; through many refills and collections. Closures over 0..8 values cross the inline size limit
;; (6 captured values); some capture the enclosing closure's free variables; a continuation
;; captured inside an allocating loop is re-entered.
(define (jd-take lst k) (if (or (= k 0) (null? lst)) '() (cons (car lst) (jd-take (cdr lst) (- k 1)))))

(define (jd-shape-alloc)
  (let ((n (+ 50 (gen-rand 600))) (m (gen-rand 50)))
    (case (gen-rand 7)
      ((0) (let ((vars (jd-take '(a b c d e f g h) (gen-rand 9))))
             (cons `(lambda (x y z)
                      (let* ((a x) (b y) (c z) (d (cons x y)) (e (list y)) (f 'f) (g "g") (h 8))
                        (let loop ((i 0) (acc '()))
                          (if (< i ,n)
                              (loop (+ i 1) (cons (lambda (v) (list v i ,@vars)) acc))
                              (list (length acc) ((car acc) ,(jd-num-leaf jd-args-env))
                                    ((list-ref acc ,m) 'w))))))
                   n)))
      ((1) (cons `(lambda (x y z)
                    (let ((mk (lambda (u) (lambda (v) (lambda (w) (list u v w x y ,@(jd-take '(z u v) (gen-rand 4))))))))
                      (let loop ((i 0) (fs '()))
                        (if (< i ,n)
                            (loop (+ i 1) (cons ((mk i) (* i 2)) fs))
                            (list (length fs) ((car fs) z) ((list-ref fs ,m) 'end))))))
                 n))
      ((2) (cons `(lambda (x y z)
                    (let loop ((i 0) (cells '()))
                      (if (< i ,n)
                          (let ((c i)) (loop (+ i 1) (cons (lambda (d) (set! c (+ c d)) c) cells)))
                          (let sum ((cs cells) (acc 0))
                            (if (null? cs) acc (sum (cdr cs) (+ acc ((car cs) ,(jd-num-leaf jd-args-env)))))))))
                 n))
      ((3) (cons `(lambda (x y z)
                    (let loop ((i 0) (s ,(gen-pick '(x y 0.5 1.0))) (acc '()))
                      (if (< i ,n)
                          (loop (+ i 1) (+ (* s ,(gen-pick '(0.5 0.25 -0.75))) ,(gen-pick '(1.5 x 2 -0.125))) (cons s acc))
                          (list s (length acc) (list-ref acc ,m)))))
                 n))
      ((4) (cons `(lambda (x y z)
                    (let ((saved #f) (rounds 0))
                      (let ((r (let loop ((i 0) (acc '()))
                                 (if (< i ,n)
                                     (begin (if (= i ,m) (call/cc (lambda (c) (set! saved c))) #f)
                                            (loop (+ i 1) (cons (list i x) acc)))
                                     acc))))
                        (set! rounds (+ rounds 1))
                        (if (< rounds 3) (saved #f) (list rounds (length r) (car r) (list-ref r ,m))))))
                 (* 3 n)))
      ((5) (cons `(lambda (x y z)
                    (let ((trace '()) (saved #f) (rounds 0))
                      (let ((r (dynamic-wind
                                (lambda () (set! trace (cons 'in trace)))
                                (lambda ()
                                  (let loop ((i 0) (acc '()))
                                    (if (< i ,n)
                                        (begin (if (= i ,m) (call/cc (lambda (c) (set! saved c))) #f)
                                               (loop (+ i 1) (cons (cons i y) acc)))
                                        (length acc))))
                                (lambda () (set! trace (cons 'out trace))))))
                        (set! rounds (+ rounds 1))
                        (if (< rounds 2) (saved #f) (list r rounds trace)))))
                 (* 2 n)))
      (else (cons `(lambda (x y z)
                     (let build ((i 0) (acc '()))
                       (if (< i ,n)
                           (build (+ i 1) (cons (vector i (cons x i) (list y z)) acc))
                           (let walk ((l acc) (k 0))
                             (if (null? l) k (walk (cdr l) (+ k (car (vector-ref (car l) 1)) 0)))))))
                  n)))))

;; Continuations that share segments (lib/vm/stack.cpp): a capture at every level of a
;; non-tail recursion (each shares the levels below with the one before), re-entered at chosen
;; levels after everything returned; and captures in a loop whose frame slots change between
;; them, re-entered so the loop must resume with the slots of that capture.
(define (jd-shape-segments)
  (let ((n (+ 3 (gen-rand 150))) (rounds (+ 2 (gen-rand 5))) (step (+ 1 (gen-rand 7))))
    (if (gen-chance 50)
        (cons `(lambda (x y z)
                 (let ((ks '()) (outs '()) (round 0))
                   (define (deep i acc)
                     (if (= i 0)
                         (list acc)
                         (cons (+ i (call/cc (lambda (k) (set! ks (cons k ks)) 0)))
                               (deep (- i 1) ,(jd-gen-num '((i . int) (acc . num) (y . num)) 1)))))
                   (let ((r (deep ,n x)))
                     (set! outs (cons (list (car r) (length r) (list-ref r ,(quotient n 2)) (car (reverse r))) outs))
                     (set! round (+ round 1))
                     (if (< round ,rounds)
                         ((list-ref ks (modulo (* round ,step) ,n)) (* round 100))
                         (reverse outs)))))
              (* n rounds))
        (cons `(lambda (x y z)
                 (let ((saved '()) (outs '()) (round 0))
                   (define (h i) (* 10 (call/cc (lambda (k) (set! saved (cons k saved)) i))))
                   (let ((r (let loop ((i 0) (acc (list x)))
                              (if (= i ,n) acc (loop (+ i 1) (cons (+ (h i) (car acc)) acc))))))
                     (set! outs (cons (list (car r) (length r)) outs))
                     (set! round (+ round 1))
                     (if (< round ,rounds)
                         ((list-ref saved (modulo (* round ,step) (length saved))) (- round))
                         (reverse outs)))))
              (* n rounds)))))

;; Known callees (the JIT's lean call, lib/jit/README.md): procedures that call themselves, or
;; another compiled procedure, through an unassigned global, so machine code calls them directly
;; behind a guard on the global's value. The shapes: non-tail self recursion with an error deep
;; inside for some arguments; tak's and ack's shapes; a call through a global that holds a
;; compiled helper (and mutual non-tail recursion); the global assigned (set!, or redefined by
;; eval) to another closure, a closure of another arity, a primitive or a non-procedure while a
;; compiled activation still recurses through it (the guard must fail and fall back); a call with
;; the wrong number of arguments; call/cc captured inside self-called frames and re-entered.
;; Each program is (begin definitions... (lambda (x y z) ...)) with fresh global names.
(define (jd-known-bound k)
  `(if (and (exact-integer? x) (<= 0 x ,k)) x ,k))

(define (jd-shape-known)
  (let ((f (jd-fresh "jd-known-f")) (g (jd-fresh "jd-known-g")) (s (jd-fresh "jd-known-s"))
        (n (+ 1 (gen-rand 300))))
    (case (gen-rand 8)
      ((0) (cons `(begin
                    (define (,f i acc)
                      (if (<= i 0)
                          ,(jd-gen-num '((acc . num) (i . int)) 1)
                          (,(gen-pick '(+ - max)) ,(jd-gen-num '((i . int) (acc . num)) 1) (,f (- i 1) acc))))
                    (lambda (x y z) (list (,f ,n x) (,f ,(jd-known-bound 40) y))))
                 n))
      ((1) (cons `(begin
                    (define (,f x y z)
                      (if (not (< y x)) z (,f (,f (- x 1) y z) (,f (- y 1) z x) (,f (- z 1) x y))))
                    (lambda (x y z) (list (,f ,(+ 4 (gen-rand 6)) ,(gen-rand 5) ,(gen-rand 3))
                                          (,f ,(jd-known-bound 8) 2 1))))
                 2000))
      ((2) (cons `(begin
                    (define (,f m n)
                      (cond ((= m 0) (+ n 1))
                            ((= n 0) (,f (- m 1) 1))
                            (else (,f (- m 1) (,f m (- n 1))))))
                    (lambda (x y z) (list (,f 2 ,(gen-rand 30)) (,f 1 ,(jd-known-bound 50)) (,f ,(gen-rand 3) 3))))
                 1000))
      ((3) (cons `(begin
                    (define (,g a b) (,(gen-pick '(+ - max min)) a ,(jd-gen-num '((b . int)) 1)))
                    (guard (e (#t #f)) (,g 1 2))
                    (define (,f i) (if (= i 0) 0 (+ 1 (,s (- i 1)))))
                    (define (,s i) (if (= i 0) 100 (+ 2 (,f (- i 1)))))
                    (,f 3)
                    (lambda (x y z)
                      (list (let loop ((i 0) (acc x)) (if (< i ,n) (loop (+ i 1) (,g acc i)) acc))
                            (,f ,n) (,s ,(jd-known-bound 20)))))
                 (* 2 n)))
      ((4) (let ((other (gen-pick `((lambda (i acc) (list 'other i acc))
                                   (lambda (i) (list 'one i))
                                   (lambda (i acc . more) (list 'rest i))
                                   list car - 'not-a-procedure 42
                                   (begin (eval '(define (,f i acc) (list 'redefined i acc)) (interaction-environment))
                                          ,f)))))
             (cons `(begin
                      (define (,f i acc) (if (<= i 0) acc (cons i (,f (- i 1) acc))))
                      (define ,s ,f)
                      (lambda (x y z)
                        (set! ,f ,s)
                        (let* ((a (,f ,n x))
                               (b (begin (set! ,f ,other) (,s ,(+ 1 (gen-rand 5)) y)))
                               (c (begin (set! ,f ,s) (,f ,(jd-known-bound 10) z))))
                          (list (length a) b c))))
                    n)))
      ((5) (cons `(begin
                    (define (,f i acc) (if (<= i 0) acc (+ 1 (,f (- i 1) acc))))
                    (lambda (x y z) ,(gen-pick `((,f x) (,f 1 2 3) (,f ,n y) (+ 1 (,f ,n y))))))
                 n))
      ((6) (cons `(begin
                    (define ,s #f)
                    (define (,f i) (if (= i 0) (call/cc (lambda (k) (set! ,s k) 0)) (+ i (,f (- i 1)))))
                    (lambda (x y z)
                      (let ((rounds 0) (outs '()))
                        (let ((r (,f ,n)))
                          (set! outs (cons r outs))
                          (set! rounds (+ rounds 1))
                          (if (< rounds ,(+ 2 (gen-rand 4))) (,s (* rounds ,(gen-pick '(1 x 0.5)))) (reverse outs))))))
                 (* 4 n)))
      (else (cons `(begin
                     (define ,s '())
                     (define (,f i acc)
                       (if (= i 0)
                           (list acc)
                           (cons (+ i (call/cc (lambda (k) (set! ,s (cons k ,s)) 0)))
                                 (,f (- i 1) (,(gen-pick '(+ - max)) acc ,(jd-num-leaf '((i . int))))))))
                     (lambda (x y z)
                       (set! ,s '())
                       (let ((round 0) (outs '()))
                         (let ((r (,f ,n x)))
                           (set! outs (cons (list (car r) (length r) (car (reverse r))) outs))
                           (set! round (+ round 1))
                           (if (< round 4)
                               ((list-ref ,s (modulo (* round 7) ,n)) (* round 10))
                               (reverse outs))))))
                  (* 4 n))))))

;; Continuations that machine code captures and re-enters itself (lib/jit/README.md,
;; "Continuations"): call/cc reached through calls of global procedures (machine calls, whose
;; frames a capture marks), generators built from two continuations, one continuation re-entered
;; many times from a loop, escapes out of a procedure C++ calls (a hash function). Each program
;; is (begin definitions... (lambda (x y z) ...)) with fresh global names.
(define (jd-shape-machine-k)
  (let ((f (jd-fresh "jd-mk-f")) (g (jd-fresh "jd-mk-g")) (s (jd-fresh "jd-mk-s"))
        (n (+ 2 (gen-rand 40))))
    (case (gen-rand 5)
      ((0) (cons `(begin
                    (define ,s #f)
                    (define (,g i) ,(if (gen-chance 50)
                                        `(call/cc (lambda (k) (set! ,s (cons k ,s)) i))
                                        `(+ 1 (call/cc (lambda (k) (set! ,s (cons k ,s)) i)))))
                    (lambda (x y z)
                      (set! ,s '())
                      (let ((outs '()) (round 0))
                        (let ((r (let loop ((i 0) (acc x))
                                   (if (= i ,n) acc (loop (+ i 1) (,(gen-pick '(+ - max)) acc (,g i)))))))
                          (set! outs (cons r outs))
                          (set! round (+ round 1))
                          (if (< round ,(+ 2 (gen-rand 5)))
                              ((list-ref (reverse ,s) (modulo (* round 3) ,n)) (* round ,(gen-pick '(10 y 0.5))))
                              (reverse outs))))))
                 (* 6 n)))
      ((1) (cons `(begin
                    (define (,f lst)
                      (define return #f)
                      (define resume #f)
                      (define (start)
                        (let loop ((l lst))
                          (if (pair? l)
                              (begin (call/cc (lambda (k) (set! resume k) (return (car l))))
                                     (loop (cdr l)))
                              #f))
                        (return 'done))
                      (lambda () (call/cc (lambda (r) (set! return r) (if resume (resume #f) (start))))))
                    (define (,g gen acc)
                      (let ((v (gen)))
                        (if (eq? v 'done) acc (,g gen (,(gen-pick '(+ - max)) acc ,(jd-gen-num '((v . int)) 1))))))
                    (lambda (x y z)
                      (,g (,f (let loop ((i ,n) (l '())) (if (= i 0) l (loop (- i 1) (cons i l))))) x)))
                 (* 4 n)))
      ((2) (cons `(begin
                    (define ,s '())
                    (define (,g i) (* ,(gen-pick '(2 3 -1)) (call/cc (lambda (k) (set! ,s (cons k ,s)) i))))
                    (define (,f i) (+ ,(gen-pick '(1 7 x)) (,g i)))
                    (lambda (x y z)
                      (set! ,s '())
                      (let ((outs '()) (round 0))
                        (let ((r (let loop ((i 0) (acc '())) (if (= i ,n) (reverse acc) (loop (+ i 1) (cons (,f i) acc))))))
                          (set! outs (cons r outs))
                          (set! round (+ round 1))
                          (if (< round 4)
                              ((list-ref (reverse ,s) (modulo (* round 5) ,n)) (- round))
                              (reverse outs))))))
                 (* 4 n)))
      ((3) (cons `(begin
                    (define (,f m)
                      (let ((k #f) (count 0) (acc '()))
                        (let ((v (call/cc (lambda (c) (set! k c) 0))))
                          (set! count (+ count 1))
                          (set! acc (cons v acc))
                          (if (< count m) (k (+ v count)) (list count (length acc) (car acc))))))
                    (lambda (x y z) (list (,f ,(* 10 n)) (,f 1))))
                 (* 10 n)))
      (else (cons `(begin
                     (define (,f keys bad)
                       (call/cc
                        (lambda (k)
                          (let ((t (make-hash-table = (lambda (key) (if (= key bad) (k (list 'out key)) (modulo key 5))))))
                            (let loop ((l keys) (i 0))
                              (if (null? l) i (begin (hash-table-set! t (car l) i) (loop (cdr l) (+ i 1)))))))))
                     (lambda (x y z)
                       (list (,f '(1 2 3 4 5) ,(gen-rand 8))
                             (,f (list ,n (+ ,n 1)) (if (exact-integer? x) x 0)))))
                  20)))))

;; Errors by construction: wrong types and arities at the primitives the JIT may inline.
(define (jd-shape-bad)
  (cons `(lambda (x y z)
           ,(case (gen-rand 10)
              ((0) `(car ,(gen-pick '(x 5 '() "s" (vector 1)))))
              ((1) `(cdr ,(gen-pick '(y 2.5 '() #f))))
              ((2) `(,(gen-pick '(+ - * < > = <= >=)) ,(jd-num-leaf jd-args-env) ,(gen-pick '('a "1" #\1 '(1) #f))))
              ((3) `(,(gen-pick '(+ - * < >)) ,(gen-pick '('a "1" #\1 '(1) #f)) ,(jd-num-leaf jd-args-env)))
              ((4) `(vector-ref ,(gen-pick '(x '(1 2) "abc" 7)) ,(jd-gen-index jd-args-env)))
              ((5) `(vector-set! (vector 1 2 3) ,(jd-gen-index jd-args-env) x))
              ((6) `((lambda (a) a) x y))
              ((7) `(,(gen-pick '(zero? positive? negative? odd? even? exact->inexact)) ,(gen-pick '(x 'a "s" #t))))
              ((8) `(let ((f ,(gen-pick '(5 'f "g" '(1))))) (f x)))
              (else `(,(gen-pick '(quotient remainder modulo /)) ,(jd-num-leaf jd-args-env) ,(gen-pick '(0 0.0 -0.0 x))))))
        1))

;; Calls to case-lambda closures and to closures with rest arguments (lib/jit/README.md "Calls
;; and returns": the clause chosen by the argument count, a rest list made at the call): through
;; a global (known), an argument (general), in tail position, with argument counts no clause
;; takes, through apply, and continuations captured inside them re-entered. Each program is
;; (begin definitions... (lambda (x y z) ...)) with fresh global names.
(define (jd-clause-args k . vars)
  (let loop ((j 0) (acc '()))
    (if (= j k) (reverse acc) (loop (+ j 1) (cons (gen-pick (if (null? vars) '(x y z i 1 'a) (car vars))) acc)))))
(define (jd-shape-clauses)
  (let* ((f (jd-fresh "jd-cl-f")) (g (jd-fresh "jd-cl-g")) (h (jd-fresh "jd-cl-h")) (s (jd-fresh "jd-cl-s"))
         (n (+ 1 (gen-rand 300)))
         (defs `((define ,f (case-lambda
                              ((a) (list 'one a))
                              ((a b) (list 'two a b))
                              ,@(if (gen-chance 50) `(((a b c . r) (list 'rest a b c r))) '())))
                 (define (,g ,@(jd-take '(a b) (gen-rand 3)) . r) (list 'g r))
                 (define (,h k . args) ,(gen-pick `((apply k args) (k (length args)) (apply ,g args)))))))
    (case (gen-rand 4)
      ((0) (cons `(begin ,@defs
                    (lambda (x y z)
                      (let loop ((i 0) (acc '()))
                        (if (< i ,n)
                            (loop (+ i 1) (list (,f ,@(jd-clause-args (gen-rand 6)))
                                                (,g ,@(jd-clause-args (gen-rand 11)))
                                                (,f ,@(jd-clause-args (+ 1 (gen-rand 4))))))
                            acc))))
                 n))
      ((1) (cons `(begin ,@defs
                    (define (,s p i) (p i ,@(jd-clause-args (gen-rand 5) '(i 1 'a))))
                    (lambda (x y z)
                      (let loop ((i 0) (acc '()))
                        (if (< i ,n)
                            (loop (+ i 1) (cons (list (,s ,f i) (,s ,g i) (,h ,(gen-pick (list f g)) ,@(jd-clause-args (gen-rand 4))))
                                                (if (pair? acc) (cdr acc) acc)))
                            acc))))
                 n))
      ((2) (cons `(begin ,@defs
                    (define (,s i . r) (if (<= i 0) (length r) (+ (car r) (,s (- i 1) i ,@(jd-clause-args (gen-rand 3) '(i 1 'a))))))
                    (lambda (x y z) (list (,s ,n 0) (,s ,(jd-known-bound 30) 1) (apply ,f (list x y)))))
                 n))
      (else (cons `(begin ,@defs
                     (define ,s #f)
                     (define (,h k . items)
                       (let ((v (call/cc (lambda (c) (set! ,s c) 0)))) (cons v (,f (length items) v k))))
                     (lambda (x y z)
                       (let ((rounds 0) (outs '()))
                         (let ((r (,h 'k ,@(jd-clause-args (gen-rand 5) '(x y z 1 'a)))))
                           (set! outs (cons r outs))
                           (set! rounds (+ rounds 1))
                           (if (< rounds ,(+ 2 (gen-rand 4))) (,s rounds) (reverse outs))))))
                  20)))))

(define jd-shapes
  (list (cons 14 jd-shape-expr) (cons 10 jd-shape-list) (cons 6 jd-shape-edges) (cons 10 jd-shape-loop)
        (cons 5 jd-shape-countdown) (cons 6 jd-shape-rec) (cons 5 jd-shape-mutual)
        (cons 8 jd-shape-closure) (cons 7 jd-shape-vector) (cons 5 jd-shape-vector-edges) (cons 6 jd-shape-escape)
        (cons 4 jd-shape-reenter) (cons 6 jd-shape-wind) (cons 5 jd-shape-guard)
        (cons 8 jd-shape-bad) (cons 12 jd-shape-flonum) (cons 10 jd-shape-alloc) (cons 5 jd-shape-segments)))

(define (jd-gen-program)
  (let* ((total (apply + (map car jd-shapes)))
         (r (gen-rand total)))
    (let loop ((s jd-shapes) (r r))
      (if (< r (caar s)) ((cdar s)) (loop (cdr s) (- r (caar s)))))))

;; ---- running ------------------------------------------------------------------------------

;; The warm-up before the results in 'on mode: ~1100 calls, fewer for expensive programs (their
;; loops are hot by themselves), cycling over all tuples or repeating the first one.
(define (jd-warm-count cost)
  (max 20 (min 1100 (quotient 150000 cost))))

(define (jd-warm-up p tuples count all?)
  (let loop ((i 0) (ts tuples))
    (cond ((>= i count) #t)
          ((null? ts) (loop i tuples))
          (else (gen-outcome (lambda () (apply p (car ts))))
                (loop (+ i 1) (if all? (cdr ts) ts))))))

;; Evaluates prog in mode, warms it up, returns (procedure outcomes) or (#f eval-outcome).
(define (jd-run mode prog tuples warm all?)
  (jit-mode mode)
  (let ((e (gen-outcome (lambda () (eval prog (interaction-environment))))))
    (if (not (and (eq? (car e) 'value) (procedure? (cadr e))))
        (begin (jit-mode 'on) (list #f e))
        (let ((p (cadr e)))
          (if (> warm 0) (jd-warm-up p tuples warm all?))
          (let ((outs (map (lambda (args) (gen-outcome (lambda () (apply p args)))) tuples)))
            (jit-mode 'on)
            (list p outs))))))

(define jd-forced-compiled 0)            ; programs that jit-compiled? says 'force compiled

(define (jd-report k prog mode args expected got)
  (%test-fail! (string-append "jit-diff seed " (number->string jd-seed) " program "
                              (number->string k) " mode " (symbol->string mode))
               "differs from the interpreter (rerun: JIT_DIFF_SEED=" jd-seed ")"
               "\n  program:   " (gen-written prog)
               "\n  arguments: " (gen-written args)
               "\n  off:       " (gen-written expected)
               "\n  " mode ":" (if (eq? mode 'on) "        " "     ") (gen-written got)))

(define (jd-compare k prog mode tuples ref res)
  (if (not (car res))
      (jd-report k prog mode '() (list 'procedure) (cadr res))
      (for-each (lambda (args expected got)
                  (if (equal? expected got)
                      (%test-pass!)
                      (jd-report k prog mode args expected got)))
                tuples ref (cadr res))))

(define (jd-test-program k)
  (let* ((pc (begin (set! jd-next-tuples #f) (jd-gen-program)))
         (prog (car pc))
         (tuples (or jd-next-tuples (jd-tuples)))
         (all? (gen-chance 50))
         (off (jd-run 'off prog tuples 0 #f)))
    (cond ((not (car off))
           (jd-report k prog 'off '() (list 'procedure) (cadr off)))
          (else
           ;; Under 'off nothing is ever compiled.
           (if (jit-compiled? (car off))
               (jd-report k prog 'off '() 'not-compiled 'compiled)
               (%test-pass!))
           (let ((forced (jd-run 'force prog tuples 0 #f)))
             (jd-compare k prog 'force tuples (cadr off) forced)
             (if (and (car forced) (jit-compiled? (car forced)))
                 (set! jd-forced-compiled (+ jd-forced-compiled 1))))
           (let ((hot (jd-run 'on prog tuples (jd-warm-count (cdr pc)) all?)))
             (jd-compare k prog 'on tuples (cadr off) hot))))))

;; ---- the corpus ---------------------------------------------------------------------------

(test "jit-mode off" 'off (begin (jit-mode 'off) (jit-mode)))
(test "jit-mode force" 'force (begin (jit-mode 'force) (jit-mode)))
(test "jit-mode on" 'on (begin (jit-mode 'on) (jit-mode)))

(let loop ((k 0))
  (if (< k jd-program-count)
      (begin (jd-test-program k) (loop (+ k 1)))))

;; Then programs of the known-callee shape only (after the corpus, so the corpus above is the
;; same one as before the shape existed).
(define jd-known-count 80)
(set! jd-shapes (list (cons 1 jd-shape-known)))
(let loop ((k 0))
  (if (< k jd-known-count)
      (begin (jd-test-program (+ jd-program-count k)) (loop (+ k 1)))))

;; Then continuations captured and re-entered by machine code.
(define jd-machine-k-count 40)
(set! jd-shapes (list (cons 1 jd-shape-machine-k)))
(let loop ((k 0))
  (if (< k jd-machine-k-count)
      (begin (jd-test-program (+ jd-program-count jd-known-count k)) (loop (+ k 1)))))

;; Then calls of case-lambda and rest-argument closures.
(define jd-clauses-count 40)
(set! jd-shapes (list (cons 1 jd-shape-clauses)))
(let loop ((k 0))
  (if (< k jd-clauses-count)
      (begin (jd-test-program (+ jd-program-count jd-known-count jd-machine-k-count k)) (loop (+ k 1)))))

(jit-mode 'on)
(test "jit-mode restored" 'on (jit-mode))
;; Under 'force every procedure is compiled on its first call: most programs must have been.
(test-assert "force compiled the programs"
             (> (* 2 jd-forced-compiled) (+ jd-program-count jd-known-count jd-machine-k-count jd-clauses-count)))

(test-end)
