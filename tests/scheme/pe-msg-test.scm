;;; pe-msg-test.scm — most specific generalization (lib/pe/memo.cpp, generalize_parts): when the
;;; whistle generalizes partially static data that grows, only the parts that differ between
;;; the two variants become dynamic; the static fields around them (a tag that is dispatched on,
;;; the names of an environment, a binding whose value does not change) stay static, and a
;;; growing sibling does not make its neighbours escape. Every residual agrees with the original.

(include "harness.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (mentions? code names)
  (let ((all (flat code))) (let loop ((n names)) (and (pair? n) (or (memq (car n) all) (loop (cdr n)))))))

;; An environment of three bindings threaded through a loop under a dynamic test: i counts up
;; (and is inspected: odd?), acc grows, k never changes. Names and k stay static; only i and
;; acc are loop variables.
(define (lookup x env) (if (eq? x (car (car env))) (cdr (car env)) (lookup x (cdr env))))
(define (loop2 env d)
  (if (= (lookup 'i env) d)
      (lookup 'acc env)
      (loop2 (list (cons 'i (+ (lookup 'i env) 1))
                   (cons 'acc (+ (lookup 'acc env) (if (odd? (lookup 'i env)) (lookup 'k env) (lookup 'i env))))
                   (car (cddr env)))
             d)))
(define (run2 i0 d) (loop2 (list (cons 'i i0) (cons 'acc 0) (cons 'k 7)) d))
(define s2 (specialize run2 0))
(test "env: no look-up, no names, no pairs left" #f
      (mentions? (residual s2) '(lookup quote car cdr cons list)))
(test "env: the unchanging binding is a constant" #t (and (memv 7 (flat (residual s2))) #t))
(for-each (lambda (d) (test "env agrees" (run2 0 d) (s2 d))) '(0 1 2 10 63 64 65 100 1000))
(test-error "env: a bad input raises as the original does" #t (s2 'x))
(test-error "env: so does a negative one (runs out of fixnums? no: raises on =)" #t (s2 "x"))

;; A counter past the whistle's integer floor (64) inside a record-like vector whose first field
;; is a tag the loop dispatches on: the tag stays, the counter becomes a loop variable.
(define (step st d)
  (if (= (vector-ref st 1) d)
      (vector-ref st 2)
      (step (vector (vector-ref st 0)
                    (+ (vector-ref st 1) 1)
                    (case (vector-ref st 0)
                      ((sum) (+ (vector-ref st 2) (if (even? (vector-ref st 1)) 1 2)))
                      ((prod) (* (vector-ref st 2) 2))
                      (else 'unknown)))
            d)))
(define (run3 tag d) (step (vector tag 0 (if (eq? tag 'prod) 1 0)) d))
(define s3 (specialize run3 'sum))
(test "tagged: no tag test, no vector left" #f (mentions? (residual s3) '(quote vector vector-ref eq? eqv? memv)))
(for-each (lambda (d) (test "tagged agrees" (run3 'sum d) (s3 d))) '(0 1 2 63 64 65 200))
(define s3p (specialize run3 'prod))
(for-each (lambda (d) (test "tagged prod agrees" (run3 'prod d) (s3p d))) '(0 1 5 70))
(test-error "tagged: a bad input raises" #t (s3 'x))

;; A pair whose car is a static list that is read (assq) and whose cdr grows: the list stays
;; static, so the look-up is gone.
(define table '((a . 1) (b . 2) (c . 3)))
(define (walk p d)
  (if (null? d)
      (cdr p)
      (walk (cons (car p) (+ (cdr p) (cdr (assq (car d) (car p))))) (cdr d))))
(define (run4 t d) (walk (cons t 0) d))
(define s4 (specialize run4 table))
(test "walk: the pair is gone, the table stays a constant" #f (mentions? (residual s4) (quote (cons))))
(test "walk agrees" (run4 table '(a b c c a)) (s4 '(a b c c a)))
(test "walk on ()" 0 (s4 '()))
(test-error "walk: a missing key raises" #t (s4 '(a z)))

(test-end)
