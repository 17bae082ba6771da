;;; Quasi version of ../shared/bench-suite/programs/pe-interp.scm that calls `specialize`
;;; (same output). The interpreter is specialized to the fixed program once: run = (specialize run-program program).
;;; pe-interp.scm -- partial-evaluation showcase (b): an interpreter for a tiny
;;; first-order language, running one fixed program on many inputs.
;;; Specializing `ev` to the fixed program (first Futamura projection) removes
;;; all dispatch on syntax, variable lookup by name and function lookup.
;;;
;;; Mini-language:
;;;   e ::= <integer> | <variable>
;;;       | (add e e) | (sub e e) | (mul e e) | (lt e e) | (eq e e)
;;;       | (if e e e)            ; 0 is false, anything else is true
;;;       | (call f e ...)
;;;   program ::= ((f (x ...) e) ...)   ; the first definition is the entry
;;; Work unit: run the fixed program on one input n in 0..49.

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
           (cond ((eq? op 'add)
                  (+ (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'sub)
                  (- (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'mul)
                  (* (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'lt)
                  (if (< (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'eq)
                  (if (= (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'if)
                  (if (= (ev (cadr e) names vals prog) 0)
                      (ev (cadddr e) names vals prog)
                      (ev (caddr e) names vals prog)))
                 ((eq? op 'call)
                  (let ((fun (find-fun (cadr e) prog)))
                    (ev (caddr fun)
                        (cadr fun)
                        (ev-args (cddr e) names vals prog)
                        prog)))
                 (else 0))))))

(define (run-program prog input)
  (let ((entry (car prog)))
    (ev (caddr entry) (cadr entry) (list input) prog)))

(define program
  '((main (n) (add (call fib (call mod n 12)) (call sumto n 0)))
    (fib (n) (if (lt n 2) n (add (call fib (sub n 1)) (call fib (sub n 2)))))
    (sumto (n acc) (if (eq n 0) acc (call sumto (sub n 1) (add acc n))))
    (mod (a b) (if (lt a b) a (call mod (sub a b) b)))))

(define run (specialize run-program program))      ; the first Futamura projection

(define (main reps)
  (let loop ((i reps) (acc 0))
    (if (= i 0)
        acc
        (loop (- i 1)
              (remainder (+ acc (run (remainder i 50))) 1000003)))))

(display (main 100000))
(newline)
