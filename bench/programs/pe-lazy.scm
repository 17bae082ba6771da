;;; pe-lazy.scm -- partial-evaluation showcase: a lazy (call-by-need) interpreter for a small
;;; first-order language whose arguments are memo thunks -- closures over set! variables --
;;; running one fixed program on many inputs. Specializing the interpreter to the program
;;; (first Futamura projection) removes the dispatch, the environment's names and the program
;;; text; thunks forced where they are made disappear, the others become closures over cells.
;;; Work unit: run the fixed program on one input n in 0..99.

(define (delay-thunk f)
  (let ((done #f) (v #f))
    (lambda () (if done v (begin (set! v (f)) (set! done #t) v)))))
(define (lookup x names vals) (if (eq? x (car names)) (car vals) (lookup x (cdr names) (cdr vals))))
(define (fun f prog) (if (eq? f (car (car prog))) (car prog) (fun f (cdr prog))))
(define (delay-args es names vals prog)
  (if (null? es)
      '()
      (cons (delay-thunk (lambda () (ev (car es) names vals prog))) (delay-args (cdr es) names vals prog))))
(define (ev e names vals prog)
  (cond ((number? e) e)
        ((symbol? e) ((lookup e names vals)))
        ((eq? (car e) 'add) (+ (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'sub) (- (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'mul) (* (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'rem) (remainder (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'if0) (if (= (ev (cadr e) names vals prog) 0)
                                (ev (caddr e) names vals prog)
                                (ev (cadddr e) names vals prog)))
        ((eq? (car e) 'call) (let ((f (fun (cadr e) prog)))
                               (ev (caddr f) (cadr f) (delay-args (cddr e) names vals prog) prog)))
        (else 0)))
(define (run-lazy prog input)
  (ev (caddr (car prog)) (cadr (car prog)) (list (delay-thunk (lambda () input))) prog))

;; Sum over i <= n of (i*i mod 7) and of the squares of odd i, with an argument that is never
;; used (its evaluation would divide by zero) and one used twice (evaluated once).
(define lazy-program
  '((main (n) (call loop n 0 0 (rem n 0)))
    (loop (i acc odd junk)
          (if0 i (add (mul acc 1000) odd)
               (call step i (rem (mul i i) 7) acc odd junk)))
    (step (i sq acc odd junk)
          (call loop (sub i 1) (add acc sq) (if0 (rem i 2) odd (add odd (call twice sq))) junk))
    (twice (x) (add x x))))

(define (main reps)
  (let loop ((i reps) (acc 0))
    (if (= i 0)
        acc
        (loop (- i 1)
              (remainder (+ acc (run-lazy lazy-program (remainder i 100))) 1000003)))))

(display (main 4000))
(newline)
