;;; pe-state-test.scm — assigned variables in the partial evaluator (issue 13 item 6): a set!
;;; variable whose box was made in the code being specialized has its content tracked while the
;;; box has not escaped; otherwise the box is a run-time cell and the rest is still specialized
;;; (lib/pe/boxes.cpp). The example is a lazy interpreter (call by need, memo thunks that close
;;; over set! variables) specialized to fixed programs: the residual keeps neither the
;;; interpreter nor the program text. The tricky cases — a closure over set! that escapes and is
;;; called twice, set! in a loop under dynamic control, continuations re-entered after the
;;; variable changed, arms of an if that disagree — are checked against the original on many
;;; inputs, raising ones included.

(include "harness.scm")

(define (outcome thunk) (guard (e (#t (list 'raised (if (error-object? e) (error-object-message e) e)))) (thunk)))
(define (agree name f sf inputs)
  (for-each (lambda (x) (test (string-append name ": agrees") (outcome (lambda () (f x))) (outcome (lambda () (sf x)))))
            inputs))
(define numbers (let loop ((i 12) (acc '(x "s" 2.5 -3))) (if (< i 0) acc (loop (- i 1) (cons i acc)))))

;; Free symbols of a residual lambda expression (the binding forms residual code uses).
(define (free-syms x bound)
  (cond ((symbol? x) (if (memq x bound) '() (list x)))
        ((not (pair? x)) '())
        ((eq? (car x) 'quote) '())
        ((memq (car x) '(lambda))
         (let ((ps (let flat ((p (cadr x))) (cond ((pair? p) (cons (car p) (flat (cdr p)))) ((null? p) '()) (else (list p))))))
           (apply append (map (lambda (b) (free-syms b (append ps bound))) (cddr x)))))
        ((eq? (car x) 'case-lambda) (apply append (map (lambda (c) (free-syms (cons 'lambda c) bound)) (cdr x))))
        ((memq (car x) '(let letrec*))
         (let ((names (map car (cadr x))))
           (append (apply append (map (lambda (b) (free-syms (cadr b) (if (eq? (car x) 'let) bound (append names bound))))
                                      (cadr x)))
                   (apply append (map (lambda (b) (free-syms b (append names bound))) (cddr x))))))
        ((memq (car x) '(if begin set!)) (apply append (map (lambda (b) (free-syms b bound)) (cdr x))))
        (else (apply append (map (lambda (b) (free-syms b bound)) x)))))
(define (quoted x)  ; every quoted datum in residual code
  (cond ((not (pair? x)) '())
        ((eq? (car x) 'quote) (list (cadr x)))
        (else (append (quoted (car x)) (quoted (cdr x))))))
(define (objects x)  ; constants without an external representation (procedures, ...)
  (cond ((pair? x) (append (objects (car x)) (objects (cdr x))))
        ((procedure? x) (list x))
        (else '())))
(define (mentions code names)  ; which of names are referenced (free) or quoted in code
  (let ((free (free-syms code '()))
        (q (let flat ((l (quoted code))) (cond ((pair? l) (append (flat (car l)) (flat (cdr l)))) ((symbol? l) (list l)) (else '())))))
    (let loop ((ns names) (out '()))
      (cond ((null? ns) (reverse out))
            ((or (memq (car ns) free) (memq (car ns) q)) (loop (cdr ns) (cons (car ns) out)))
            (else (loop (cdr ns) out))))))
(define (symbols-of d)
  (cond ((symbol? d) (list d)) ((pair? d) (append (symbols-of (car d)) (symbols-of (cdr d)))) (else '())))

;; ---- straight-line state is static --------------------------------------------------------

(define (st x) (let ((y 0)) (set! y (+ x 1)) (set! y (* y 2)) y))
(test "a set! variable assigned static values folds" '(lambda () 8) (residual (specialize st 3)))
(define (st2 x d) (let ((y x)) (set! y (+ y d)) (set! y (* y 2)) y))
(define sst2 (specialize st2 5))
(test "no cell when nothing can observe one" '() (mentions (residual sst2) '(vector vector-ref vector-set!)))
(agree "st2" (lambda (d) (st2 5 d)) sst2 numbers)

;; the arms of a residual if disagree: the join reads the cell
(define (arms x d) (let ((y x)) (if (> d 0) (set! y (+ y d)) (set! y (- y 1))) (* y 2)))
(agree "arms" (lambda (d) (arms 10 d)) (specialize arms 10) numbers)
;; they agree: no cell
(define (same-arms x d) (let ((y x)) (if (> d 0) (set! y 7) (set! y 7)) (+ y x)))
(test "arms that agree keep the content" '() (mentions (residual (specialize same-arms 1)) '(vector)))
(agree "same-arms" (lambda (d) (same-arms 1 d)) (specialize same-arms 1) numbers)

;; ---- memo thunks ----------------------------------------------------------------------------

(define evaluations 0)
(define (memo f)
  (let ((done #f) (v #f))
    (lambda () (if done v (begin (set! v (f)) (set! evaluations (+ evaluations 1)) (set! done #t) v)))))
(define (share x d) (let ((t (memo (lambda () (* x d))))) (+ (t) (t) (if (> d 0) (t) 0))))
(define (counted f) (lambda (d) (set! evaluations 0) (let ((r (f d))) (list r evaluations))))
(agree "memo thunk forced three times" (counted (lambda (d) (share 3 d))) (counted (specialize share 3)) numbers)

;; forced around a helper call: the thunk's writes come before any read after the call (a
;; re-entry there writes again), so no cell is made
(define (delay-thunk0 f) (let ((done #f) (v #f)) (lambda () (if done v (begin (set! v (f)) (set! done #t) v)))))
(define (slow-sq x d) (if (> d 0) (slow-sq x (- d 1)) (* x x)))
(define (memo-call x d) (let ((t (delay-thunk0 (lambda () (slow-sq x d))))) (+ (t) (t))))
(define smemo-call (specialize memo-call 3))
(test "a thunk forced around a helper call needs no cell" '() (mentions (residual smemo-call) '(vector vector-ref vector-set!)))
(agree "memo-call" (lambda (d) (memo-call 3 d)) smemo-call numbers)

;; ---- closures over set! that escape --------------------------------------------------------

(define (make-counter n) (lambda () (set! n (+ n 1)) n))
(define (twice-through start k) (let ((c (make-counter start))) (k c) (k c) (c)))
(define stt (specialize twice-through 10))
(test "an escaped counter is one object: called twice outside, once inside" 13 (stt (lambda (c) (c))))
(test "called outside, later" '(11 12 13 14)
      (let ((saved #f)) (let ((r (stt (lambda (c) (set! saved c))))) (list r (saved) (saved) (saved)))))
(define (peek start k) (let ((c (make-counter start))) (let ((a (c))) (k c) (list a (c) (c)))))
(define speek (specialize peek 0))
(test "the content known before the escape, the cell after" (peek 0 (lambda (c) (c) (c))) (speek (lambda (c) (c) (c))))
(test "the escape and no call" (peek 0 (lambda (c) #f)) (speek (lambda (c) #f)))
;; the escape happens in one arm only; the other arm and the join still agree
(define (one-arm x d k)
  (let ((y x))
    (if (> d 0) (k (lambda () (set! y (+ y 100)) y)) 'none)
    (set! y (+ y 1))
    (if (> d 5) (k (lambda () y)) (list y d))))
(define sone (specialize one-arm 1))
(for-each (lambda (d)
            (test "one-arm agrees" (outcome (lambda () (one-arm 1 d (lambda (f) (f) (f)))))
                  (outcome (lambda () (sone d (lambda (f) (f) (f)))))))
          numbers)

;; ---- set! in loops under dynamic control ----------------------------------------------------

(define (sum-squares k n)
  (let ((acc 0) (i 0))
    (let loop () (if (< i n) (begin (set! acc (+ acc (* k i i))) (set! i (+ i 1)) (loop)) acc))))
(agree "a loop over two set! variables" (lambda (n) (sum-squares 3 n)) (specialize sum-squares 3) numbers)
(define (steps n)
  (let ((count 0) (odd 0))
    (let loop ((i n)) (if (> i 0) (begin (set! count (+ count 1)) (if (odd? i) (set! odd (+ odd 1))) (loop (- i 1)))))
    (list count odd)))
(define (steps-from k n) (steps (+ k n)))
(agree "set! in an arm inside a loop" (lambda (n) (steps-from 2 n)) (specialize steps-from 2) numbers)

;; ---- continuations re-entered after the variable changed -----------------------------------

(define (reenter m n)
  (let ((count m) (k #f))
    (call/cc (lambda (c) (set! k c)))
    (set! count (+ count 1))
    (if (< count n) (k #f) count)))
(agree "a continuation re-entered counts on" (lambda (n) (reenter 0 n)) (specialize reenter 0) numbers)
(define resume #f)
(define (gen start) (let ((x start)) (call/cc (lambda (c) (set! resume c))) (set! x (+ x 1)) (* x 10)))
(define (run-gen g)
  (let ((seen '()))
    (let ((r (g)))
      (set! seen (cons r seen))
      (if (< (length seen) 3) (resume #f) (reverse seen)))))
(test "re-entered after the procedure returned (original)" '(10 20 30) (run-gen (lambda () (gen 0))))
(define sgen (specialize gen 0))
(test "re-entered after the procedure returned (residual)" '(10 20 30) (run-gen sgen))
;; a box written after a call that may capture, read after a second one
(define (around x k) (let ((y x)) (k) (set! y (* y 2)) (k) (+ y 1)))
(define saround (specialize around 4))
(test "captures around a write" (let ((n 0) (kk #f))
                                  (let ((r (around 4 (lambda () (call/cc (lambda (c) (if (not kk) (set! kk c))))))))
                                    (set! n (+ n 1))
                                    (if (< n 3) (kk #f) (list r n))))
      (let ((n 0) (kk #f))
        (let ((r (saround (lambda () (call/cc (lambda (c) (if (not kk) (set! kk c))))))))
          (set! n (+ n 1))
          (if (< n 3) (kk #f) (list r n)))))

;; ---- the lazy interpreter -------------------------------------------------------------------
;; A first-order lazy language: a program is a list of functions (name (param ...) body);
;; arguments are passed as memo thunks (call by need), so an argument never used is never
;; evaluated (an error in it is not raised) and one used twice is evaluated once.

(define (delay-thunk f)
  (let ((done #f) (v #f))
    (lambda () (if done v (begin (set! v (f)) (set! done #t) v)))))
(define (lookup x names vals) (if (eq? x (car names)) (car vals) (lookup x (cdr names) (cdr vals))))
(define (fun f prog) (if (eq? f (car (car prog))) (car prog) (fun f (cdr prog))))
(define (delay-args es names vals prog)
  (if (null? es)
      '()
      (cons (delay-thunk (lambda () (lazy-ev (car es) names vals prog))) (delay-args (cdr es) names vals prog))))
(define (lazy-ev e names vals prog)
  (cond ((number? e) e)
        ((symbol? e) ((lookup e names vals)))
        ((eq? (car e) 'add) (+ (lazy-ev (cadr e) names vals prog) (lazy-ev (caddr e) names vals prog)))
        ((eq? (car e) 'sub) (- (lazy-ev (cadr e) names vals prog) (lazy-ev (caddr e) names vals prog)))
        ((eq? (car e) 'mul) (* (lazy-ev (cadr e) names vals prog) (lazy-ev (caddr e) names vals prog)))
        ((eq? (car e) 'div) (quotient (lazy-ev (cadr e) names vals prog) (lazy-ev (caddr e) names vals prog)))
        ((eq? (car e) 'if0) (if (= (lazy-ev (cadr e) names vals prog) 0)
                                (lazy-ev (caddr e) names vals prog)
                                (lazy-ev (cadddr e) names vals prog)))
        ((eq? (car e) 'call) (let ((f (fun (cadr e) prog)))
                               (lazy-ev (caddr f) (cadr f) (delay-args (cddr e) names vals prog) prog)))
        (else (error "bad expression" e))))
(define (lazy-run prog input)
  (lazy-ev (caddr (car prog)) (cadr (car prog)) (list (delay-thunk (lambda () input))) prog))
(define interpreter '(delay-thunk lookup fun delay-args lazy-ev lazy-run))

(define (check-lazy name prog inputs)
  (let* ((sp (specialize lazy-run prog))
         (code (residual sp)))
    (test (string-append name ": no interpreter and no program text in the residual") '()
          (mentions code (append interpreter (symbols-of prog))))
    (test (string-append name ": no procedure objects or quoted lists") '()
          (append (objects code) (let keep ((q (quoted code))) (cond ((null? q) '()) ((pair? (car q)) (cons (car q) (keep (cdr q)))) (else (keep (cdr q)))))))
    (agree name (lambda (x) (lazy-run prog x)) sp inputs)
    sp))

;; sharing: the argument is evaluated once, both uses read it
(define double '((main (n) (call twice (mul n n))) (twice (x) (add x x))))
(define naturals (let loop ((i 12) (acc '(x "s"))) (if (< i 0) acc (loop (- i 1) (cons i acc)))))  ; others diverge
(define sdouble (check-lazy "double" double numbers))
(test "double: the thunk disappears" '() (mentions (residual sdouble) '(vector vector-ref vector-set!)))
;; a loop; an argument never forced whose evaluation would raise
(define sum '((main (n) (call loop n 0 (div 1 0)))
              (loop (i acc junk) (if0 i acc (call loop (sub i 1) (add acc i) junk)))))
(check-lazy "sum" sum naturals)
;; two functions calling each other, an argument used only on one path
(define evenodd '((main (n) (call ev n 1 (div n 0)))
                  (ev (n acc bad) (if0 n acc (call od (sub n 1) (mul acc 2) bad)))
                  (od (n acc bad) (if0 n (add acc bad) (call ev (sub n 1) (add acc 1) bad)))))
(check-lazy "even-odd" evenodd naturals)
;; a function of a function's result, nested calls
(define fib '((main (n) (call fib n))
              (fib (n) (if0 n 0 (if0 (sub n 1) 1 (add (call fib (sub n 1)) (call fib (sub n 2))))))))
(check-lazy "fib" fib '(0 1 2 3 4 5 6 7 8 9 10 x "s"))

(test-end)
