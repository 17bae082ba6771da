;;; pe-redefine-test.scm — a residual made by `specialize` follows a later `define` of a built-in
;;; name as the original does (engine/redefinition.hpp moves the original's code to the new
;;; cell; the residual, which folded, inlined or named the old built-in, is invalidated and calls
;;; the original from then on; lib/pe/README.md, "Globals"). Forms are evaluated one at a time in
;;; an environment made by `environment`, as in the REPL.
(include "harness.scm")

(define env (environment '(scheme base) '(quasi)))
(define (ev form) (eval form env))
(define (stat name) (cdr (assq name (specialize-stats))))

;; A residual that calls the built-in.
(ev '(define (f2 a b) (+ a b)))
(ev '(define s2 (specialize f2 1)))
;; A residual where the built-in was folded away: (car '(1 2)) is 1.
(ev '(define (first x) (car x)))
(ev '(define s-first (specialize first '(1 2))))
;; A static run of a pure procedure that calls the built-in: (sq 5) is 25 in the residual.
(ev '(define (sq n) (* n n)))
(ev '(define (h n x) (+ (sq n) x)))
(ev '(define s-h (specialize h 5)))
(ev '(define (h2 n x) (cons (sq n) x)))
(ev '(define s-h2 (specialize h2 5)))
;; A built-in called under dynamic control, inside a helper (a loop).
(ev '(define (count-b l) (if (null? l) 0 (+ (if (eq? (car l) 'b) 1 0) (count-b (cdr l))))))
(ev '(define (cb tag l) (if (eq? tag 'go) (count-b l) 'no)))
(ev '(define s-cb (specialize cb 'go)))
;; A cons chain the residual cleanup writes as a call of list (lib/passes/forward.cpp).
(ev '(define (two a b) (cons a (cons b '()))))
(ev '(define s-two (specialize two)))
;; One that uses none of the redefined names.
(ev '(define (neg x) (- x)))
(ev '(define s-neg (specialize neg)))

(test "before: they agree" '(3 3 1 1 26 26 2 2)
      (ev '(list (f2 1 2) (s2 2) (first '(1 2)) (s-first) (h 5 1) (s-h 1)
                 (count-b '(a b b)) (s-cb '(a b b)))))
(test "the residual calls +" '(lambda (b) (+ 1 b)) (ev '(residual s2)))
(test "the static run folded (sq 5)" '(lambda (x) (cons 25 x)) (ev '(residual s-h2)))
(test "the residual folded car" #f (pair? (memq 'car (let walk ((x (ev '(residual s-first))))
                                                       (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x))))))
(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
;; A residual that calls another residual: the inner one's validity guard is #t while it is
;; valid, so its fallback (the original) is not specialized into the outer one (ad's saddle
;; bench: the outer gradient gave up on the residual size), and the outer one depends on what
;; the inner one assumed.
(ev '(define (inner x) (* x x)))
(ev '(define s-inner (specialize inner)))
(ev '(define (outer y) (+ (s-inner y) 1)))
(ev '(define s-outer (specialize outer)))
(test "the inner residual's guard and fallback are not in the outer one" '(lambda (y) (+ (* y y) 1))
      (ev '(residual s-outer)))
(test "... which agrees" 10 (ev '(s-outer 3)))
(define invalidations-before (stat 'invalidations))

(ev '(define (+ . a) 'redefined))
(test "the original follows the new +" 'redefined (ev '(f2 1 2)))
(test "so does its residual" 'redefined (ev '(s2 2)))
(test "a static run's result is not kept either" (ev '(h 5 1)) (ev '(s-h 1)))
(test "a helper's call of + follows" (ev '(count-b '(a b b))) (ev '(s-cb '(a b b))))
(test "specialize again: a new residual that calls the new +" 'redefined (ev '((specialize f2 1) 2)))
(test "... not the cached one" #f (ev '(eq? s2 (specialize f2 1))))

(ev '(define (car x) 'my-car))
(test "a folded car follows the new car" 'my-car (ev '(s-first)))
(test "the residual made now reads the list at run time or folds the new car"
      'my-car (ev '((specialize first '(1 2)))))

(test "the residual names list" '(lambda (a b) (list a b)) (ev '(residual s-two)))
(ev '(define (list . xs) 'my-list))
(test "a residual written with list does not follow a new list (the original names cons)"
      '(1 2) (ev '(s-two 1 2)))
(ev '(define (* a b) (cons 'times (cons a (cons b '())))))
(test "a static run of a procedure calling * follows the new *" '((times 5 5) . 1) (ev '(s-h2 1)))
(test "a residual over a residual follows the new * too" (ev '(outer 3)) (ev '(s-outer 3)))

(test "a residual that used none of them is still valid (cached)" #t (ev '(eq? s-neg (specialize neg))))
(test "it agrees" -3 (ev '(s-neg 3)))
(test-assert "invalidations counted" (>= (- (stat 'invalidations) invalidations-before) 4))

;; A residual made through grad: the J code lib/ad made from the program holds the derivative
;; rules of the built-ins it read (cos's is -sin), not their cells, so the residual depends on the
;; cells the transformed code read (lib/pe/README.md, "Globals"). Its own environment: cos is
;; redefined there.
(define adenv (environment '(scheme base) '(scheme inexact) '(quasi)))
(define (ad form) (eval form adenv))
(ad '(define (f3 x) (* 2.0 (cos x))))
(ad '(define (g x) (let loop ((i 0) (s 0.0)) (if (= i 2) s (loop (+ i 1) (+ s (f3 x)))))))
(ad '(define sp (specialize (lambda (x) ((grad g) x)))))
(ad '(define sp-f3 (specialize (grad f3))))
(ad '(define sp-lam (specialize (lambda (x) ((grad (lambda (y) (* 3.0 (cos y)))) x)))))
(ad '(define sp-static (specialize (lambda () ((grad g) 1.0)))))
(ad '(define (dtwice x) ((grad (grad (lambda (y) (* 2.0 (cos y))))) x)))
(ad '(define sp-2 (specialize dtwice)))
(test "grad residuals before: they agree"
      (ad '(list ((grad g) 1.0) ((grad f3) 1.0) (* -3.0 (sin 1.0)) ((grad g) 1.0) (dtwice 1.0)))
      (ad '(list (sp 1.0) (sp-f3 1.0) (sp-lam 1.0) (sp-static) (sp-2 1.0))))
(ad '(define (cos x) (* x x x)))
(test "a residual through grad follows the new cos" 12.0 (ad '(sp 1.0)))
(test "... and agrees with grad" (ad '((grad g) 1.0)) (ad '(sp 1.0)))
(test "a residual of (grad f3) follows it" 6.0 (ad '(sp-f3 1.0)))
(test "grad of a lambda the evaluator made follows it" 9.0 (ad '(sp-lam 1.0)))
(test "a static run through grad follows it" 12.0 (ad '(sp-static)))
(test "a second derivative follows it" 12.0 (ad '(sp-2 1.0)))

;; A redefinition made while a residual runs (by a procedure it calls) reaches it at its next
;; call: the guard is checked on entry, and the call already running finishes with the built-in
;; it was entered with — inlined or folded —, where the original, whose code the redefinition
;; moves while it runs, follows it at once (lib/pe/README.md, "Globals").
(define env3 (environment '(scheme base) '(quasi)))
(define (ev3 form) (eval form env3))
(ev3 `(define redefine-car! ,(lambda () (eval '(define (car x) 'new-car) env3))))
(ev3 `(define redefine-cdr! ,(lambda () (eval '(define (cdr x) 'new-cdr) env3))))
(ev3 '(define (fr g l) (g) (car l)))
(ev3 '(define (fr2 g l) (g) (cdr l)))
(ev3 '(define s-fr (specialize fr)))
(ev3 '(define s-fr2 (specialize* fr2 '((1 . (5 . 6))))))
(test "the residual folded cdr" '(lambda (g) (g) 6) (ev3 '(residual s-fr2)))
(test "while it runs: the inlined car stays" 5 (ev3 '(s-fr redefine-car! '(5))))
(test "... its next call follows" 'new-car (ev3 '(s-fr (lambda () #f) '(5))))
(test "... as the original does" 'new-car (ev3 '(fr (lambda () #f) '(5))))
(test "while it runs: the folded cdr stays" 6 (ev3 '(s-fr2 redefine-cdr!)))
(test "... its next call follows" 'new-cdr (ev3 '(s-fr2 (lambda () #f))))
(test "... as the original does" 'new-cdr (ev3 '(fr2 (lambda () #f) '(5 . 6))))
(ev3 '(define (fr3 g l) (g) (car l)))
(ev3 `(define redefine-car-again! ,(lambda () (eval '(define (car x) 'newer-car) env3))))
(test "the original follows at once" 'newer-car (ev3 '(fr3 redefine-car-again! '(5))))

;; The program's own environment is untouched.
(define (p2 a b) (+ a b))
(test "a residual in the program's environment still adds" 3 ((specialize p2 1) 2))

(test-end)
