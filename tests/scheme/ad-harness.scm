;;; ad-harness.scm — what the AD tests compare gradients with (included after harness.scm):
;;; central finite differences with a step of 1e-6 scaled by |x|, and agreement to a relative
;;; 1e-5. One place for the tolerance every AD test states.

(define (fd f x)
  (let ((h (* 1e-6 (max 1.0 (abs x)))))
    (/ (- (f (+ x h)) (f (- x h))) (* 2 h))))
(define (close? a b)
  (<= (abs (- a b)) (* 1e-5 (max 1.0 (abs a) (abs b)))))

;; The shape of residual code (what `residual` prints, as a datum).
(define (lambdas x)  ; occurrences of lambda / case-lambda
  (cond ((pair? x) (+ (if (memq (car x) '(lambda case-lambda)) 1 0) (lambdas (car x)) (lambdas (cdr x))))
        ((vector? x) (lambdas (vector->list x)))
        (else 0)))
(define (symbols-in x)
  (cond ((symbol? x) (list x))
        ((pair? x) (append (symbols-in (car x)) (symbols-in (cdr x))))
        ((vector? x) (symbols-in (vector->list x)))
        (else '())))
(define (ad-helper? s)
  (let ((n (symbol->string s))) (and (> (string-length n) 3) (string=? (substring n 0 4) "%ad-"))))
;; Straight-line: one lambda (the procedure itself), no letrec (no specialized helper left), no
;; shape walk (no pair?/vector?/null? test, no apply), no cotangent helper (no %ad- name).
(define (straight-line? code)
  (let ((syms (symbols-in code)))
    (and (= (lambdas code) 1)
         (not (memq 'letrec* syms)) (not (memq 'letrec syms))
         (not (memq 'pair? syms)) (not (memq 'vector? syms)) (not (memq 'null? syms))
         (not (memq 'apply syms))
         (not (let loop ((l syms)) (and (pair? l) (or (ad-helper? (car l)) (loop (cdr l)))))))))
