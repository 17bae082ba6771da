;;; ad-test.scm — reverse-mode automatic differentiation (lib/ad): grad, value-and-grad, vjp.
;;; Gradients are checked against hand-derived formulas and against central finite
;;; differences (tolerance: relative 1e-5, step 1e-6 scaled by |x|).
(include "harness.scm")
(include "ad-harness.scm")

(define (check-fd name f x)
  (let ((g ((grad f) x)) (n (fd f x)))
    (if (close? g n) (test-assert name #t) (test name n g))))

;; ---- scalars: hand formulas ----
(test "grad x^2 at 3" 6 ((grad (lambda (x) (* x x))) 3))
(test "grad exact stays exact" 12 ((grad (lambda (x) (* x x x))) 2))
(test-approx "grad sin" (cos 1.0) ((grad sin) 1.0))
(test-approx "grad (sin (* x x))" (* 2 1.5 (cos (* 1.5 1.5))) ((grad (lambda (x) (sin (* x x)))) 1.5))
(test-approx "grad exp" (exp 0.7) ((grad (lambda (x) (exp x))) 0.7))
(test-approx "grad log" (/ 1 2.5) ((grad (lambda (x) (log x))) 2.5))
(test-approx "grad sqrt" (/ 0.5 (sqrt 2.0)) ((grad (lambda (x) (sqrt x))) 2.0))
(test-approx "grad quotient rule" (/ (- 0 1.0) (* 2.0 2.0)) ((grad (lambda (x) (/ 1 x))) 2.0))
(test "grad identity inexact" 1.0 ((grad (lambda (x) x)) 2.0))
(test "grad constant" 0.0 ((grad (lambda (x) 5.0)) 2.0))
(test "grad n-ary +" 3 ((grad (lambda (x) (+ x x x))) 1))
(test "grad n-ary *" 27 ((grad (lambda (x) (* x x x))) 3))
(test "grad unary -" -1 ((grad (lambda (x) (- x))) 4))
(test "grad 3-arg -" -1 ((grad (lambda (x) (- 10 x 2))) 4))
(test-approx "grad expt" (* 3 (expt 1.5 2)) ((grad (lambda (x) (expt x 3))) 1.5))
(test-approx "grad expt exponent" (* (expt 2.0 1.5) (log 2.0)) ((grad (lambda (y) (expt 2.0 y))) 1.5))
(test-approx "grad atan2" (/ 2.0 (+ 1.0 4.0)) ((grad (lambda (y) (atan y 2.0))) 1.0))
(test "grad abs negative" -1 ((grad abs) -3))
(test "grad abs at 0 (convention: 0)" 0 ((grad abs) 0))
;; leaves that are not numbers: #f in their place, never the private zero
(test "grad non-number rest arguments" '(2.0 #f #f) ((grad (lambda (x . r) (* x (length r)))) 2.0 'a 'b))
(test "grad string argument" '(3.0 #f) ((grad (lambda (x s) (* x (string-length s)))) 2.0 "abc"))
(test "grad symbol in a pair" '(2.0 . #f) ((grad (lambda (p) (* (car p) 2))) (cons 1.0 'tag)))
(test "grad char and boolean in a vector" (vector 1 #f #f) ((grad (lambda (v) (vector-ref v 0))) (vector 5 #\a #t)))
(test "grad procedure argument" '(#f 1.0) ((grad (lambda (f x) (f x))) (lambda (y) y) 2.0))
(test "grad max picks" '(1 0) ((grad max) 3 2))
(test "grad min ties go to the first" '(1 0) ((grad min) 2 2))
(test-approx "grad square" 5.0 ((grad square) 2.5))
(test "grad sqrt at 0 is +inf.0" +inf.0 ((grad sqrt) 0))

;; ---- several arguments, selections ----
(define (f3 x y z) (+ (* x y) (* y z) (sin z)))
(test "grad all args" (list 2.0 4.0 (+ 2.0 (cos 3.0))) ((grad f3) 1.0 2.0 3.0))
(test "grad wrt 1" 4.0 ((grad f3 1) 1.0 2.0 3.0))
(test "grad wrt (0 2)" (list 2.0 (+ 2.0 (cos 3.0))) ((grad f3 '(0 2)) 1.0 2.0 3.0))
(test "value-and-grad" '(6 (3 2))
      (call-with-values (lambda () ((value-and-grad *) 2 3)) list))
(test "unused argument gets 0.0" '(1.0 0.0) ((grad (lambda (x y) x)) 1.0 2.0))

;; ---- finite differences ----
(check-fd "fd poly" (lambda (x) (+ (* 3 x x x) (* -2 x) 7)) 1.3)
(check-fd "fd trig" (lambda (x) (* (sin x) (cos (* 2 x)) (tan (/ x 3)))) 0.4)
(check-fd "fd exp/log" (lambda (x) (log (+ 1 (exp (* -2 x))))) 0.3)
(check-fd "fd asin/acos" (lambda (x) (+ (asin x) (* 2 (acos (/ x 2))))) 0.3)
(check-fd "fd atan" (lambda (x) (atan (* x x) (+ 1 x))) 0.8)
(check-fd "fd division chain" (lambda (x) (/ x (+ 1 x) (+ 2 x))) 0.9)

;; ---- control flow ----
(define (relu x) (if (> x 0) x 0))
(test "grad if positive" 1.0 ((grad relu) 2.0))
(test "grad if negative" 0.0 ((grad relu) -2.0))
(define (pw x) (if (< x 1) (* x x) (+ (* 3 x) 1)))
(test-approx "grad if arm 1" 1.0 ((grad pw) 0.5))
(test-approx "grad if arm 2" 3.0 ((grad pw) 2.0))
(test-approx "grad let" (* 2 (sin 0.5) (cos 0.5))
             ((grad (lambda (x) (let ((s (sin x))) (* s s)))) 0.5))
(define (pow-loop x n)
  (let loop ((i 0) (acc 1))
    (if (= i n) acc (loop (+ i 1) (* acc x)))))
(test "grad named let" 75 ((grad pow-loop 0) 5 3))
(check-fd "fd named let" (lambda (x) (pow-loop x 7)) 1.1)
(define (fact-ish x n) (if (= n 0) 1 (* x (fact-ish x (- n 1)))))
(test "grad recursion through a global" 32 ((grad fact-ish 0) 2 4))
(define (horner x cs)
  (let loop ((cs cs) (acc 0))
    (if (null? cs) acc (loop (cdr cs) (+ (* acc x) (car cs))))))
(test "grad horner" (+ (* 3 4) (* 4 2) 3) ((grad horner 0) 2 '(1 2 3 4)))
(test-approx "grad do loop" (* 10 (expt 1.01 9))
             ((grad (lambda (x) (do ((i 0 (+ i 1)) (p 1 (* p x))) ((= i 10) p)))) 1.01))

;; ---- closures ----
(test-approx "grad through a local closure"
             (* 2 (cos 1.0))
             ((grad (lambda (x) (let ((g (lambda (y) (* 2 (sin y))))) (g x)))) 1.0))
(test-approx "grad of captured variable"
             (+ 1.0 3.0)
             ((grad (lambda (x) (let ((add-x (lambda (y) (* x y)))) (+ (add-x 1.0) (add-x 3.0))))) 2.0))
(define (make-scaler k) (lambda (y) (* k y)))
(test "grad through a made closure" 5 ((grad (lambda (k) ((make-scaler k) 5))) 2))
(test "grad map over a lambda" 12.0
      ((grad (lambda (x) (apply + (map (lambda (c) (* c x)) '(1.0 2.0 3.0 6.0))))) 7.0))
(test "grad map of a primitive" '(0.0 . 2.0)
      ((grad (lambda (p) (apply + (map * (list (car p) (cdr p)) '(0.0 2.0))))) (cons 1.0 1.0)))

;; ---- shapes ----
(test "grad vector arg" #(2.0 4.0 6.0)
      ((grad (lambda (v) (+ (square (vector-ref v 0)) (square (vector-ref v 1)) (square (vector-ref v 2)))))
       (vector 1.0 2.0 3.0)))
(test "grad list arg" '(1 2 3)
      ((grad (lambda (l) (+ (car l) (* 2 (cadr l)) (* 3 (caddr l))))) '(5 6 7)))
(test "grad pair arg" '(3.0 . 2.0) ((grad (lambda (p) (* (car p) (cdr p)))) (cons 2.0 3.0)))
(test "grad nested shape" (list (vector 1.0 0.0) '(0.0 . 2.0))
      ((grad (lambda (s) (+ (vector-ref (car s) 0) (* 2 (cdr (cadr s))))))
       (list (vector 1.0 2.0) (cons 3.0 4.0))))
(test "grad through cons/list built inside" 2.0
      ((grad (lambda (x) (let ((p (list x (* 2 x) 3))) (cadr p)))) 1.0))
(test "grad through vector built inside" 1.0
      ((grad (lambda (x) (vector-ref (vector 0 x) 1))) 1.0))
(test "grad through reverse/append" '(1.0 10.0)
      ((grad (lambda (l) (let ((r (append (reverse l) '(5.0)))) (+ (* 10 (car r)) (cadr r)))))
       '(1.0 2.0)))
(test "grad list-ref" '(0 1 0) ((grad (lambda (l) (list-ref l 1))) '(4 5 6)))

;; ---- vjp ----
(test "vjp of a pair-valued function" '((3.0 . 5.0))
      (call-with-values (lambda () ((vjp (lambda (p) (cons (* 3 (car p)) (* 5 (cdr p))))) '(1.0 . 1.0)))
        (lambda (y pb) (pb '(1.0 . 1.0)))))

;; ---- refusals ----
(define ad-test-global 0)
(test-error-message "no rule" "no derivative for string->number"
                    ((grad (lambda (x) (string->number (number->string x)))) 1.0))
(test "no rule is fine where no derivative flows" 2.0
      ((grad (lambda (x) (* x (string->number "2")))) 1.0))
(test-error-message "set! of a global refused" "set! of a global"
                    ((grad (lambda (x) (set! ad-test-global x) x)) 1.0))
(test-error-message "vector-set! refused (a vector the function did not make)" "mutation"
                    ((grad (lambda (x v) (vector-set! v 0 x) (vector-ref v 0)) 0) 1.0 (vector 0.0)))
(test-error-message "call/cc refused" "call-with-current-continuation"
                    ((grad (lambda (x) (call/cc (lambda (k) (k x))))) 1.0))
(test-error-message "non-real result" "must return a real" ((grad (lambda (x) (list x))) 1.0))
(test-error "grad of a non-procedure" (grad 5))

;; mutual recursion: a letrec group whose procedures are free variables of each other (the
;; cotangent of one holds those of the others it calls, nested; %ad-group-cot sends them all to
;; the outer variables). Without the optimizer's passes the group stays a group.
(define (mr x)
  (letrec ((ev (lambda (i acc) (if (< i 4) (od (+ i 1) (+ acc (* x x))) acc)))
           (od (lambda (i acc) (if (< i 4) (ev (+ i 1) (+ acc (* 3 x))) acc))))
    (ev 0 0.0)))
(test "mutual recursion" 14.0 ((grad mr) 2.0))
(test "mutual recursion, second derivative" 4.0 ((derivative (derivative mr)) 2.0))
(test "mutual recursion, specialized" 14.0 ((specialize (lambda (x) ((grad mr) x))) 2.0))
(define (mr3 x y)
  (letrec ((a (lambda (i s) (if (< i 6) (b (+ i 1) (+ s (* x y))) s)))
           (b (lambda (i s) (if (< i 6) (c (+ i 1) (* s x)) s)))
           (c (lambda (i s) (if (< i 6) (a (+ i 1) (+ s (sin y))) s))))
    (a 0 1.0)))
(let ((g ((grad mr3) 1.1 0.7)))
  (test-assert "three procedures, d/dx" (close? (fd (lambda (x) (mr3 x 0.7)) 1.1) (car g)))
  (test-assert "three procedures, d/dy" (close? (fd (lambda (y) (mr3 1.1 y)) 0.7) (cadr g))))

;; d(a/b)/da is d/b, one division (not d * (/ 1 b), two roundings): 3.0/10.0 is 0.3, 3.0 * 0.1 is not
(test "division: one rounding" 0.3 ((grad (lambda (a) (* 3.0 (/ a 10.0)))) 1.0))
(test "division: exact" '(1/3 -1/9) ((grad (lambda (a b) (/ a b))) 1 3))
;; a call's argument cotangents, read down the list: a callee with a rest parameter (whose rest
;; cotangent may be the zero), apply with leading arguments, an unused argument between used ones
(define (rest-sum a . more) (if (null? more) (* a a) (+ (* a a) (apply rest-sum more))))
(test "rest parameter" '(2.0 4.0 6.0) ((grad (lambda (x y z) (rest-sum x y z))) 1.0 2.0 3.0))
(test "rest parameter, only the first" '(2.0 0.0 0.0) ((grad (lambda (x y z) (rest-sum x))) 1.0 2.0 3.0))
(test "apply with leading arguments" '(2.0 4.0 6.0) ((grad (lambda (x y z) (apply rest-sum x (list y z)))) 1.0 2.0 3.0))
(define (pick a b c d) (+ (* a d) (* 2.0 d)))
(test "unused arguments between used ones" '(4.0 0.0 0.0 3.0) ((grad (lambda (a b c d) (pick a b c d))) 1.0 2.0 3.0 4.0))
;; internal procedures the compiler keeps in boxes: a definition that is not a lambda between
;; them makes the body a letrec whose procedures may be captured before their init ran
(define (boxed-mutual)
  (define (f x) (if (> x 0) (* x (g (- x 1))) 1.0))
  (define (g x) (f x))
  (define a ((grad f) 2.5))
  (define (h x) (* 3 x))
  a)
(test-approx "grad through a letrec-boxed procedure (mutual recursion)" 5.75 (boxed-mutual))
(define (boxed-later)
  (define (f x) (* x (g x)))
  (define a 1)
  (define (g x) (* x x))
  ((grad f) 2.0))
(test "grad through a procedure defined after a non-lambda definition" 12.0 (boxed-later))
(define (assigned-proc)
  (define g #f)
  (set! g (lambda (x) (* x x)))
  (define (f x) (* x (g x)))
  ((grad f) 2.0))
(test "grad through an assigned procedure variable" 12.0 (assigned-proc))

;; Internal defines and letrec* of values that are not procedures: each variable is its init's
;; value, and the cotangent reaching it goes on to that value (it stopped there before: 0.0).
(test "grad through an internal define of a value" 4.0 ((grad (lambda (x) (define a (* x x)) a)) 2.0))
(test "grad through internal defines of values" 7.0
      ((grad (lambda (x) (define a (* x x)) (define b (* 3 x)) (+ a b))) 2.0))
(test "grad through a letrec* of values" 7.0 ((grad (lambda (x) (letrec* ((a (* x x)) (b (* 3 x))) (+ a b)))) 2.0))
(test "grad through a letrec* of a value and a procedure" 12.0
      ((grad (lambda (x) (letrec* ((a (* x x)) (f (lambda (y) (* a y)))) (f 3)))) 2.0))

;; A letrec (not letrec*) with an init that may capture a continuation evaluates every init
;; before it assigns (expander.cpp, letrec_inits_first: the first init sets the later variables):
;; grad refused it ("set! of the local variable b is not supported") since 472beb7.
(test "grad through a letrec of values" 7.0 ((grad (lambda (x) (letrec ((a (* x x)) (b (* 3 x))) (+ a b)))) 2.0))
(define (letrec-product x) (letrec ((a (* x x)) (b (+ x 1))) (* a b)))
(test "grad through a letrec of values, named" 33.0 ((grad letrec-product) 3.0))

;; Cotangents of pairs from c[ad]+r reads are summed as pairs when the code is transformed
;; (reverse.cpp, sum_pairs), where %ad-add summed the lists at run time: the same gradients.
(define (pair-reads l) (* (car l) (cadr l) (+ (car l) (caddr l)) (cadr l)))
(test "pair cotangents: car, cadr, caddr, each read twice or more" '(72 72 18)
      ((grad pair-reads) '(2 3 4)))
(test-assert "pair cotangents: finite differences"
             (let ((g ((grad pair-reads) (list 1.5 -0.5 2.0))))
               (and (close? (fd (lambda (a) (pair-reads (list a -0.5 2.0))) 1.5) (car g))
                    (close? (fd (lambda (b) (pair-reads (list 1.5 b 2.0))) -0.5) (cadr g))
                    (close? (fd (lambda (c) (pair-reads (list 1.5 -0.5 c))) 2.0) (caddr g)))))
(test "pair cotangents: nested pairs and an improper tail" '((6 . 2) 3 . 12)
      ((grad (lambda (p) (* (caar p) (cdar p) (cadr p) (cddr p) (cddr p)))) '((1 . 3) 2 . 1)))
(test "pair cotangents: a read of the whole pair and of its parts" '(3 . 1)
      ((grad (lambda (p) (+ (car p) (* 2 (car p)) (cdr p)))) '(5 . 6)))
(test "pair cotangents: second derivative through cadr" 6
      ((derivative (derivative (lambda (x) (let ((l (list x (* x x) 1))) (* (car l) (cadr l) (caddr l)))))) 1))
(test "pair cotangents: in a loop" '(2 3 5 3)
      ((grad (lambda (l) (let loop ((l l) (s 0)) (if (null? (cddr l)) (+ s (* (car l) (cadr l))) (loop (cdr l) (+ s (car l) (cadr l) (car l))))))) '(1 2 3 4)))

;; letrec groups (with e97df2e's narrower inits-first form): values and lambdas in one group,
;; lambdas among the inits that refer to the group's variables, nested where no set! is involved.
(define (lr-sq y) (* y y))
(test "letrec: a lambda reading a value of the group" 12.0
      ((grad (lambda (x) (letrec ((a (* x x)) (f (lambda (y) (* a y)))) (f x)))) 2.0))
(test "letrec: a lambda reading a value of the group, nested" 12.0
      ((derivative (grad (lambda (x) (letrec ((a (* x x)) (f (lambda (y) (* a y)))) (f x))))) 2.0))
(test "letrec: a lambda reading a value of the group, hessian" '#(#(6.0 4.0) #(4.0 0.0))
      ((hessian (lambda (v) (letrec ((a (* (vector-ref v 0) (vector-ref v 1))) (f (lambda (y) (* a y)))) (f (vector-ref v 0)))))
       (vector 2.0 3.0)))
;; mutual recursion over a value of the same group (reverse.cpp split_letrec: the values, then
;; the lambdas as a group); refused before as 'values refer to later ones'
(define (lr-mutual x)
  (letrec ((k (* 2 x))
           (ev (lambda (n) (if (= n 0) k (od (- n 1)))))
           (od (lambda (n) (if (= n 0) (* k k k) (ev (- n 1))))))
    (ev 3)))
(test "letrec: mutual recursion over a value of the group" 54.0 ((grad lr-mutual) 1.5))
(test "letrec: mutual recursion over a value, second derivative" 72.0 ((derivative (derivative lr-mutual)) 1.5))
(test-assert "letrec: mutual recursion over a value, finite differences" (close? (fd lr-mutual 0.7) ((grad lr-mutual) 0.7)))
(test "letrec: mutual recursion over a value, specialized" ((grad lr-mutual) 1.5) ((specialize (grad lr-mutual)) 1.5))
;; an init calling user code (the inits-first form): a lambda among the inits reading the first
;; variable, itself, or a later one (cells made before the first init)
(test "letrec, inits first: a lambda reading the first variable" 12.0
      ((grad (lambda (x) (letrec ((a (lr-sq x)) (f (lambda (y) (* a y)))) (f x)))) 2.0))
(test "letrec, inits first: a recursive lambda" 13.5
      ((grad (lambda (x) (letrec ((a (lr-sq x)) (f (lambda (n) (if (= n 0) a (* x (f (- n 1))))))) (f 2)))) 1.5))
(test "letrec, inits first: a lambda reading a later value" 6.75
      ((grad (lambda (x) (letrec ((f (lambda (y) (* b y))) (b (lr-sq x))) (f x)))) 1.5))
(test "letrec, inits first: vjp twice" '(8.0 (12.0) (12.0))
      (call-with-values (lambda () ((vjp (lambda (x) (letrec ((a (lr-sq x)) (f (lambda (y) (* a y)))) (f x)))) 2.0))
        (lambda (y pb) (list y (pb 1.0) (pb 1.0)))))
(test "letrec, inits first: specialized" 12.0
      ((specialize (grad (lambda (x) (letrec ((a (lr-sq x)) (f (lambda (y) (* a y)))) (f x))))) 2.0))
;; still refused, clearly: nested derivatives through the inits-first form's set!, and a read of
;; the first variable before its initialization
(test-error-message "letrec, inits first: nested" "nested derivatives are not supported through set!"
                    ((derivative (grad (lambda (x) (letrec ((a (lr-sq x)) (f (lambda (y) (* a y)))) (f x))))) 2.0))
(test-error-message "letrec, inits first: a read before initialization" "a letrec whose values refer to later ones"
                    ((grad (lambda (x) (letrec ((a (lr-sq x)) (f (* a 2))) f))) 2.0))
;; letrec* of a lambda that refers to a later value, called after that value is made (split_letrec
;; makes the lambda just before the value that calls it): without the optimizer, which otherwise
;; inlines the lambda, it was refused as 'values refer to later ones'. Same in every mode now.
(define (lr-later x) (letrec* ((h (lambda (y) (* y c))) (c (* x 3)) (d (h x))) d))
(test "letrec*: a lambda reading a later value, called after it" 12.0 ((grad lr-later) 2.0))
(test "letrec*: a lambda reading a later value, nested" 6.0 ((derivative (grad lr-later)) 2.0))
(test "letrec*: mutual recursion between values" 216.0
      ((grad (lambda (x)
               (letrec* ((a (* x x))
                         (f (lambda (y) (if (> y 0) (* y a) (g y))))
                         (g (lambda (y) (f (- y))))
                         (b (f -2.0)))
                 (* a b))))
       3.0))
;; the lambda called before the value it reads is made: the original raises, grad refuses
(test-error-message "letrec*: a lambda called before the later value it reads" "a letrec whose values refer to later ones"
                    ((grad (lambda (x) (letrec* ((h (lambda (y) (* y c))) (d (h x)) (c (* x 3))) d))) 3.0))
(test-end)
