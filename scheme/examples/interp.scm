;;; interp.scm — the first Futamura projection: an interpreter specialized to a fixed program
;;; is a compiled version of that program. The residual code has no dispatch on expression
;;; types, no environment, no look-up of variables or functions: the interpreter's environment
;;; is a list built from static names and dynamic values, a partially static structure that the
;;; specializer keeps in its head, and every (call f ...) of the interpreted program becomes a
;;; call to a specialized helper.
;;; Run: quasi scheme/examples/interp.scm
;;;
;;; Language:  e ::= <integer> | <variable> | (add e e) | (sub e e) | (mul e e) | (lt e e)
;;;                | (eq e e) | (if e e e) | (call f e ...)        ; 0 is false
;;;            program ::= ((f (x ...) e) ...)                     ; the first one is the entry

(define (lookup x names vals)
  (if (eq? x (car names))
      (car vals)
      (lookup x (cdr names) (cdr vals))))

(define (find-fun f prog)
  (if (eq? f (car (car prog)))
      (car prog)
      (find-fun f (cdr prog))))

(define (ev-args args names vals prog)
  (if (null? args)
      '()
      (cons (ev (car args) names vals prog)
            (ev-args (cdr args) names vals prog))))

(define (ev e names vals prog)
  (cond ((number? e) e)
        ((symbol? e) (lookup e names vals))
        (else
         (let ((op (car e)))
           (cond ((eq? op 'add) (+ (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'sub) (- (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'mul) (* (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'lt) (if (< (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'eq) (if (= (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'if)
                  (if (= (ev (cadr e) names vals prog) 0)
                      (ev (cadddr e) names vals prog)
                      (ev (caddr e) names vals prog)))
                 ((eq? op 'call)
                  (let ((fun (find-fun (cadr e) prog)))
                    (ev (caddr fun) (cadr fun) (ev-args (cddr e) names vals prog) prog)))
                 (else (error "unknown operator" op)))))))

(define (run-program prog input)
  (let ((entry (car prog)))
    (ev (caddr entry) (cadr entry) (list input) prog)))

(define program
  '((main (n) (add (call fact n) (call fib n)))
    (fact (n) (if (lt n 1) 1 (mul n (call fact (sub n 1)))))
    (fib (n) (if (lt n 2) n (add (call fib (sub n 1)) (call fib (sub n 2)))))))

(define compiled (specialize run-program program))
(print-residual compiled)

(display (map compiled '(0 1 5 10))) (newline)
(display (map (lambda (n) (run-program program n)) '(0 1 5 10))) (newline)
