;;; pe-arity-test.scm — arity raising (issue 13 item 7): a partially static list passed to a
;;; helper — an interpreter's argument list of known length, a small environment — is passed
;;; as its elements, so the residual allocates no list per call. Generalization is most
;;; specific for accumulators too (lib/pe/memo.cpp): when the elements of such a list vary
;;; from call to call, only the elements become dynamic, never the list's structure. Checked
;;; by the residual's shape (no cons, list or vector left) and by agreement with the original
;;; on generated inputs, raising ones included.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (allocates? code) (let ((all (walk code))) (and (or (memq 'cons all) (memq 'list all) (memq 'vector all)) #t)))
(define (outcome thunk) (guard (e (#t 'raised)) (thunk)))
(define (helper-arities code)  ; parameter counts of the letrec*-bound helpers
  (let ((body (caddr code)))
    (if (and (pair? body) (eq? (car body) 'letrec*))
        (map (lambda (b) (length (cadr (cadr b)))) (cadr body))
        '())))

;; A first-order interpreter: (call f e ...) evaluates the arguments into a list, which becomes
;; the callee's environment values; names and values are looked up in parallel.
(define (lookup x names vals) (if (eq? x (car names)) (car vals) (lookup x (cdr names) (cdr vals))))
(define (fun f prog) (if (eq? f (car (car prog))) (car prog) (fun f (cdr prog))))
(define (ev-list es names vals prog)
  (if (null? es) '() (cons (ev (car es) names vals prog) (ev-list (cdr es) names vals prog))))
(define (ev e names vals prog)
  (cond ((number? e) e)
        ((symbol? e) (lookup e names vals))
        ((eq? (car e) 'add) (+ (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'sub) (- (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'mul) (* (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
        ((eq? (car e) 'zero) (if (= (ev (cadr e) names vals prog) 0) 1 0))
        ((eq? (car e) 'if) (if (= (ev (cadr e) names vals prog) 0)
                               (ev (cadddr e) names vals prog)
                               (ev (caddr e) names vals prog)))
        ((eq? (car e) 'call) (let ((f (fun (cadr e) prog)))
                               (ev (caddr f) (cadr f) (ev-list (cddr e) names vals prog) prog)))
        (else (error "bad expression" e))))
(define (run prog input) (ev (caddr (car prog)) (cadr (car prog)) (list input) prog))

(define (check name prog inputs)
  (let ((sp (specialize run prog)))
    (test (string-append name ": no list is built in the residual") #f (allocates? (residual sp)))
    (for-each (lambda (x) (test (string-append name ": agrees") (outcome (lambda () (run prog x)))
                                (outcome (lambda () (sp x)))))
              inputs)
    sp))

(define inputs  ; 0..24, and values the interpreted code raises on ("s", x) or computes in flonums
  (append (let loop ((i 24) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))) '(x "s" 2.0 #\a)))

;; Two parameters: a loop with an accumulator whose first value is a constant.
(define sum '((main (n) (call loop n 0))
              (loop (i acc) (if (zero i) acc (call loop (sub i 1) (add acc i))))))
(define ssum (check "sum" sum inputs))
(test "sum: the loop helper takes the two values" #t (and (memv 2 (helper-arities (residual ssum))) #t))

;; Three parameters, two procedures calling each other, constants in argument positions.
(define fibs '((main (n) (call step n 0 1))
               (step (k a b) (if (zero k) a (call swap k b (add a b))))
               (swap (k x y) (call step (sub k 1) x y))))
(check "fibs" fibs inputs)

;; Arguments in a different order on each call, and a parameter that stays constant.
(define rot '((main (n) (call r n 1 2 5))
              (r (k a b c) (if (zero k) (add a (mul b c)) (call r (sub k 1) b a c)))))
(check "rot" rot inputs)

;; The same with direct Scheme code: a state vector of known length rebuilt on every step.
(define (spin st n) (if (= n 0) (+ (vector-ref st 0) (vector-ref st 1))
                        (spin (vector (vector-ref st 1) (+ (vector-ref st 0) n)) (- n 1))))
(define (spin0 a n) (spin (vector a 0) n))
(define sspin (specialize spin0 3))
(test "spin: no vector per step" #f (allocates? (residual sspin)))
(for-each (lambda (n) (test "spin agrees" (outcome (lambda () (spin0 3 n))) (outcome (lambda () (sspin n)))))
          '(0 1 2 5 9 x))

;; When the list escapes (it is returned), it is built: the residual still agrees.
(define (keep l n) (if (= n 0) l (keep (list (cadr l) (car l)) (- n 1))))
(define (keep0 n) (keep (list 'a 'b) n))
(define skeep (specialize keep0))
(for-each (lambda (n) (test "an escaping list agrees" (outcome (lambda () (keep0 n))) (outcome (lambda () (skeep n)))))
          '(0 1 2 3 x))

(test-end)
