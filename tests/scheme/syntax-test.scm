;;; syntax-test.scm — R7RS core and derived expression types, reader syntax, promises,
;;; parameters, quasiquote.
(include "harness.scm")

;; ---- primitive expression types ---------------------------------------------------------------
(test "quote symbol" 'a (quote a))
(test "quote list" '(+ 1 2) (quote (+ 1 2)))
(test "self-evaluating string" "abc" "abc")
(test "self-evaluating vector" 2 (vector-ref #(1 2 3) 1))
(test "self-evaluating bytevector" 3 (bytevector-u8-ref #u8(1 2 3) 2))
(test "lambda" 8 ((lambda (x) (+ x x)) 4))
(test "lambda rest only" '(3 4 5 6) ((lambda x x) 3 4 5 6))
(test "lambda dotted" '(5 6) ((lambda (x y . z) z) 3 4 5 6))
(test "lambda dotted empty rest" '() ((lambda (x . z) z) 1))
(test "closure captures" 7 (let ((add (lambda (n) (lambda (m) (+ n m))))) ((add 3) 4)))
(test "if true" 'yes (if (> 3 2) 'yes 'no))
(test "if false" 'no (if (> 2 3) 'yes 'no))
(test "if empty list is true" 'yes (if '() 'yes 'no))
(test "if one-armed" 1 (if #t 1))
(test "set!" 4 (let ((x 2)) (set! x 4) x))
(test "closure shares set! variable" 2
      (let* ((n 0) (inc (lambda () (set! n (+ n 1)) n)))
        (inc)
        (inc)))

;; ---- cond / case / and / or / when / unless --------------------------------------------------
(test "cond" 'greater (cond ((> 3 2) 'greater) ((< 3 2) 'less)))
(test "cond else" 'equal (cond ((> 3 3) 'greater) ((< 3 3) 'less) (else 'equal)))
(test "cond =>" 2 (cond ((assv 'b '((a 1) (b 2))) => cadr) (else #f)))
(test "cond test only" 3 (cond (#f 1) ((+ 1 2))))
(test "cond multiple body" 'c (cond (#t 'a 'b 'c)))
(test "case" 'composite (case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) 'composite)))
(test "case else" 'consonant
      (case (car '(c d)) ((a e i o u) 'vowel) ((w y) 'semivowel) (else 'consonant)))
(test "case =>" 60 (case (* 2 3) ((2 3 5 7) 'prime) ((1 4 6 8 9) => (lambda (x) (* x 10)))))
(test "case else =>" '(z) (case 'z ((a) 1) (else => (lambda (x) (list x)))))
(test "case chars" 'vowel (case #\e ((#\a #\e) 'vowel) (else 'other)))
(test "case eqv numbers" 'big (case 100000000000000000000 ((100000000000000000000) 'big) (else 'no)))
(test "case empty datum list" 'fine (case 5 (() 'never) (else 'fine)))
(test "and empty" #t (and))
(test "and value" '(f g) (and 1 2 'c '(f g)))
(test "and false" #f (and 1 #f (car '())))
(test "or empty" #f (or))
(test "or value" '(b c) (or (memq 'b '(a b c)) (/ 3 0)))
(test "or false" #f (or #f #f))
(test "when" 'b (when (> 1 0) 'a 'b))
(test "unless" 'x (unless #f 'x))
(test "when side effects" '(2 1)
      (let ((l '())) (when #t (set! l (cons 1 l)) (set! l (cons 2 l))) l))
(test "unless skipped" '() (let ((l '())) (unless #t (set! l (cons 1 l))) l))

;; ---- binding forms ---------------------------------------------------------------------------
(test "let" 6 (let ((x 2) (y 3)) (* x y)))
(test "let scope" 35 (let ((x 2) (y 3)) (let ((x 7) (z (+ x y))) (* z x))))
(test "let*" 70 (let ((x 2) (y 3)) (let* ((x 7) (z (+ x y))) (* z x))))
(test "let* empty" 1 (let* () 1))
(test "letrec" #t
      (letrec ((ev? (lambda (n) (if (zero? n) #t (od? (- n 1)))))
               (od? (lambda (n) (if (zero? n) #f (ev? (- n 1))))))
        (ev? 88)))
(test "letrec*" 5
      (letrec* ((p (lambda (x) (+ 1 (q (- x 1)))))
                (q (lambda (y) (if (zero? y) 0 (+ 1 (p (- y 1))))))
                (x (p 5))
                (y x))
        y))
(test "named let" 55 (let fib ((n 10)) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
(test "named let accumulate" '(3 2 1)
      (let loop ((i 1) (acc '())) (if (> i 3) acc (loop (+ i 1) (cons i acc)))))
(test "named let name is local" 'outer
      (let ((loop 'outer)) (let loop ((i 0)) (if (< i 2) (loop (+ i 1)) i)) loop))
(test "let-values" 35 (let-values (((root rem) (exact-integer-sqrt 32))) (* root rem)))
(test "let-values rest and all" '(1 (2 3) (4 5))
      (let-values (((a . rest) (values 1 2 3)) (all (values 4 5))) (list a rest all)))
(test "let-values parallel scope" '(1 1)
      (let ((a 1) (b 2)) (let-values (((a b) (values b a)) ((c) (values a))) (list b c))))
(test "let*-values" '(x y x y)
      (let ((a 'a) (b 'b) (x 'x) (y 'y))
        (let*-values (((a b) (values x y)) ((x y) (values a b))) (list a b x y))))
(test "receive via call-with-values" 5 (call-with-values (lambda () (values 4 5)) (lambda (a b) b)))
(test "call-with-values *" -1 (call-with-values * -))
(test "values single" 7 (+ 2 (values 5)))

(define-values (dv-q dv-r) (floor/ 17 5))
(test "define-values top-level" '(3 2) (list dv-q dv-r))
(define-values (dv-a . dv-rest) (values 1 2 3))
(test "define-values dotted" '(1 (2 3)) (list dv-a dv-rest))
(define-values dv-all (values 'p 'q))
(test "define-values all" '(p q) dv-all)
(test "define-values internal" 3 (let () (define-values (a b) (values 1 2)) (+ a b)))
(test "define-values internal mixed" 10
      (let ()
        (define x 1)
        (define-values (y z) (values 2 3))
        (define w 4)
        (+ x y z w)))

;; ---- definitions and bodies ------------------------------------------------------------------
(define (top-add a b) (+ a b))
(test "define procedure" 5 (top-add 2 3))
(define (top-rest a . more) (list a more))
(test "define rest" '(1 (2 3)) (top-rest 1 2 3))
(define top-var 10)
(set! top-var (+ top-var 1))
(test "top-level set!" 11 top-var)
(test "internal defines" 2 (let () (define a 1) (define (g) (* a 2)) (g)))
(test "internal mutual recursion" '(#t #f)
      (let ()
        (define (ev? n) (if (= n 0) #t (od? (- n 1))))
        (define (od? n) (if (= n 0) #f (ev? (- n 1))))
        (list (ev? 10) (ev? 7))))
(test "internal define in lambda" 45
      ((lambda (x) (define y 3) (define (f) (* x y)) (f)) 15))
(test "begin splices definitions in body" 3
      (let () (begin (define x 1) (define y 2)) (+ x y)))
(test "internal define shadows global" 'inner
      (let () (define top-var 'inner) top-var))
(test "global unchanged" 11 top-var)
(begin (define begin-a 1) (define begin-b 2))
(test "top-level begin defines" 3 (+ begin-a begin-b))
(test "begin sequence" 3 (begin 1 2 3))

;; ---- do ------------------------------------------------------------------------------------
(test "do vector" #(0 1 2 3 4)
      (do ((vec (make-vector 5)) (i 0 (+ i 1))) ((= i 5) vec) (vector-set! vec i i)))
(test "do sum" 25
      (let ((x '(1 3 5 7 9))) (do ((x x (cdr x)) (sum 0 (+ sum (car x)))) ((null? x) sum))))
(test "do no step, empty result" #t
      (let ((n 0)) (do ((i 0 (+ i 1))) ((= i 3)) (set! n (+ n i))) (= n 3)))
(test "do fresh binding per iteration" '(2 1 0)
      (let ((procs (do ((i 0 (+ i 1)) (acc '() (cons (lambda () i) acc))) ((= i 3) acc))))
        (map (lambda (p) (p)) procs)))

;; ---- case-lambda -----------------------------------------------------------------------------
(define range
  (case-lambda
    ((e) (range 0 e))
    ((b e) (do ((r '() (cons e r)) (e (- e 1) (- e 1))) ((< e b) r)))))
(test "case-lambda 1" '(0 1 2) (range 3))
(test "case-lambda 2" '(3 4) (range 3 5))
(define cl
  (case-lambda
    ((a) 'one)
    ((a b) 'two)
    ((a . rest) (list 'many rest))))
(test "case-lambda dispatch 1" 'one (cl 1))
(test "case-lambda dispatch 2" 'two (cl 1 2))
(test "case-lambda rest" '(many (2 3)) (cl 1 2 3))
(test-error "case-lambda no clause" (cl))
(test "case-lambda zero args" 'none ((case-lambda (() 'none) ((x) x))))

;; ---- parameters --------------------------------------------------------------------------------
(define radix
  (make-parameter 10 (lambda (x)
                       (if (and (exact-integer? x) (<= 2 x 16))
                           x
                           (error "invalid radix" x)))))
(define (f12) (number->string 12 (radix)))
(test "parameter default" "12" (f12))
(test "parameterize" "1100" (parameterize ((radix 2)) (f12)))
(test "parameter restored" "12" (f12))
(test-error "parameterize converter raises" (parameterize ((radix 0)) (f12)))
(define doubled (make-parameter 10 (lambda (x) (* x 2))))
(test "converter on initial value" 20 (doubled))
(test "converter on parameterize" 6 (parameterize ((doubled 3)) (doubled)))
(test "converter not re-run on restore" 20 (begin (parameterize ((doubled 3)) 'x) (doubled)))
;; (p v) sets the current value through the converter (Chez, Chibi, Larceny; R7RS leaves it open);
;; inside parameterize it sets the innermost binding, which the parameterize then restores.
(define settable (make-parameter 1))
(test "(p v) sets" 7 (begin (settable 7) (settable)))
(test "(p v) through the converter" 8 (begin (doubled 4) (doubled)))
(test-error "(p v) converter raises" (radix 99))
(test "(p v) inside parameterize" '(9 7)
      (let ((inside (parameterize ((settable 3)) (settable 9) (settable)))) (list inside (settable))))
(test-error "(p v w) is an arity error" (settable 1 2))
(define p-a (make-parameter 1))
(define p-b (make-parameter 2))
(test "parameterize several, parallel" '(20 10)
      (parameterize ((p-a 10) (p-b 20)) (parameterize ((p-a (p-b)) (p-b (p-a))) (list (p-a) (p-b)))))
(test "parameterize escape restores" '(1 5)
      (let ((inside #f))
        (call-with-current-continuation
         (lambda (k) (parameterize ((p-a 5)) (set! inside (p-a)) (k 'out))))
        (list (p-a) inside)))
(test "parameterize re-entry rebinds" '(5 1 5 1)
      (let ((k #f) (seen '()))
        (parameterize ((p-a 5))
          (call-with-current-continuation (lambda (c) (set! k c)))
          (set! seen (cons (p-a) seen)))
        (set! seen (cons (p-a) seen))
        (if (< (length seen) 3) (k #f))
        (reverse seen)))
(test "parameter in closure sees dynamic value" 7
      (let ((get (lambda () (p-a)))) (parameterize ((p-a 7)) (get))))

;; ---- promises --------------------------------------------------------------------------------
(test "delay/force" 3 (force (delay (+ 1 2))))
(test "force memoizes" '(3 3) (let ((p (delay (+ 1 2)))) (list (force p) (force p))))
(test "force evaluates once" 1
      (let* ((n 0) (p (delay (begin (set! n (+ n 1)) n)))) (force p) (force p) n))
(test "promise?" '(#t #f) (list (promise? (delay 1)) (promise? 1)))
(test "make-promise" 5 (force (make-promise 5)))
(test "make-promise is a promise" #t (promise? (make-promise 5)))
(test "make-promise of a promise returns it" #t (let ((p (delay 1))) (eq? p (make-promise p))))
(test "delay of a promise yields the promise" #t (promise? (force (delay (delay 1)))))
(test "delay-force" 6 (force (delay-force (delay (* 2 3)))))
(test "delay-force of make-promise" 'x (force (delay-force (make-promise 'x))))
(define (stream-loop n)
  (delay-force (if (= n 0) (delay 'done) (stream-loop (- n 1)))))
(test "delay-force chain 100000 deep" 'done (force (stream-loop 100000)))
(define (make-counter-stream n)
  (delay (cons n (make-counter-stream (+ n 1)))))
(define (stream-ref-nth s k)
  (if (= k 0) (car (force s)) (stream-ref-nth (cdr (force s)) (- k 1))))
(test "lazy stream" 1000 (stream-ref-nth (make-counter-stream 0) 1000))
;; R7RS 4.2.5: a promise forced from inside its own thunk.
(define reent-count 0)
(define reent-x 5)
(define reent-p
  (delay (begin (set! reent-count (+ reent-count 1))
                (if (> reent-count reent-x) reent-count (force reent-p)))))
(test "reentrant force" 6 (force reent-p))
(test "reentrant force memoized" 6 (begin (set! reent-x 10) (force reent-p)))
(test "delay-force shares the inner promise's memo" '(5 5 1)
      (let* ((n 0)
             (inner (delay (begin (set! n (+ n 1)) 5)))
             (outer (delay-force inner)))
        (list (force outer) (force inner) n)))
;; SRFI-45-style stream filter: constant space over a long run of rejected elements.
(define (s-from n) (delay (cons n (s-from (+ n 1)))))
(define (s-filter keep? s)
  (delay-force
   (let ((pair (force s)))
     (if (keep? (car pair))
         (delay (cons (car pair) (s-filter keep? (cdr pair))))
         (s-filter keep? (cdr pair))))))
(test "stream filter over 100000 rejected" 100000
      (car (force (s-filter (lambda (n) (>= n 100000)) (s-from 0)))))

;; ---- quasiquote ------------------------------------------------------------------------------
(test "qq unquote" '(list 3 4) `(list ,(+ 1 2) 4))
(test "qq let" '(list a (quote a)) (let ((name 'a)) `(list ,name ',name)))
(test "qq splicing" '(a 3 4 5 6 b) `(a ,(+ 1 2) ,@(map abs '(4 -5 6)) b))
(test "qq dotted" '((foo 7) . cons) `((foo ,(- 10 3)) ,@(cdr '(c)) . ,(car '(cons))))
(test "qq vector" #(10 5 2 4 3 8) `#(10 5 ,(+ 1 1) ,@(map (lambda (x) (- x 1)) '(5 4)) 8))
(test "qq empty splice at end" '(1) `(1 ,@'()))
(test "qq splice then tail" 'foo `(,@'() . foo))
(test "qq nested" '(a `(b ,(c 3))) `(a `(b ,(c ,(+ 1 2)))))
(test "qq nested r7rs 1" '(a `(b ,(+ 1 2) ,(foo 4 d) e) f)
      `(a `(b ,(+ 1 2) ,(foo ,(+ 1 3) d) e) f))
(test "qq nested r7rs 2" '(a `(b ,x ,'y d) e)
      (let ((name1 'x) (name2 'y)) `(a `(b ,,name1 ,',name2 d) e)))
(test "qq long form" '(list 3 4) (quasiquote (list (unquote (+ 1 2)) 4)))
(test "qq nested vector" '(1 #(2 3)) `(1 #(,(+ 1 1) ,@(list 3))))
(test "qq no unquote is literal" '(a b) `(a b))
;; R6RS 11.17's unquote and unquote-splicing with several operands, as list elements (Chez and
;; Larceny's R7RS tests): each operand inserted, or spliced; one level down, ,,@x splices x's
;; elements as the operands of the inner unquote.
(test "qq unquote of several" '(foo foo foo) (let ((name 'foo)) `((unquote name name name))))
(test "qq unquote-splicing of several" '(foo foo foo) (let ((name '(foo))) `((unquote-splicing name name name))))
(test "qq unquote of several, mid-list" '(foo (2 3 4 5) -9)
      (let ((x '(2 3)) (y '(4 5))) `(foo (unquote (append x y) (- 9)))))
(test "qq unquote of none" '(a b) `(a (unquote) b))
(test "qq ,,@ one level down" '`(foo (unquote (append x y) (sqrt 9)))
      (let ((q '((append x y) (sqrt 9)))) ``(foo ,,@q)))
(test "qq ,@ of several in a vector" #(1 2 3 4) `#(,@(list 1 2) ,@(list 3) 4))
(test-error "qq unquote of several outside a list" (eval '(quasiquote (unquote 1 2)) (environment '(scheme base))))

;; ---- reader syntax -------------------------------------------------------------------------
(test "datum comment" 3 (+ 1 #;(error "not evaluated") 2))
(test "block comment" 7 (+ #| a #| nested |# comment |# 7))
(test "bar symbol" "hello world" (symbol->string '|hello world|))
(test "bar symbol escape" "a|b" (symbol->string '|a\|b|))
(test "case sensitive symbols" #f (eq? 'abc 'ABC))
(test "booleans long" '(#t #f) (list #true #false))
(test "char names" '(7 8 127 27 10 0 13 32 9)
      (map char->integer
           (list #\alarm #\backspace #\delete #\escape #\newline #\null #\return #\space #\tab)))
(test "hex char" #\A #\x41)
(test "numbers in source" '(6/5 16 -5 100.0 15) (list #e1.2 #x10 #b-101 1e2 #o17))
(test "peculiar identifiers" '(+ - ... ->x) (list '+ '- '... '->x))
(test "dotted literal" '(1 . 2) (cons 1 2))

;; ---- cond-expand -----------------------------------------------------------------------------
(test "cond-expand r7rs" 'yes (cond-expand (r7rs 'yes) (else 'no)))
(test "cond-expand and/not" 1 (cond-expand ((and r7rs (not quasi-no-such-feature)) 1) (else 2)))
(test "cond-expand or" 1 (cond-expand ((or quasi-no-such-feature r7rs) 1) (else 2)))
(test "cond-expand else" 2 (cond-expand (quasi-no-such-feature 1) (else 2)))
(test "cond-expand library" 'ok (cond-expand ((library (scheme base)) 'ok) (else 'missing)))
(test "features lists r7rs" #t (and (memq 'r7rs (features)) #t))
;; One list for both: every feature cond-expand accepts is in (features) and back, and each
;; built-in (srfi N) library is feature srfi-N.
(test "features include the srfi libraries" '(#t #t #t #f)
      (map (lambda (f) (and (memq f (features)) #t)) '(srfi-1 srfi-69 exact-complex srfi-9999)))
(test "cond-expand sees srfi-N and exact-complex" '(yes yes no)
      (list (cond-expand (srfi-1 'yes) (else 'no)) (cond-expand ((and exact-complex srfi-133) 'yes) (else 'no))
            (cond-expand (srfi-9999 'yes) (else 'no))))

(test-end)
