;;; pe-restart-test.scm — generalization restarts always make progress (lib/pe/memo.cpp), and the
;;; trivial residual names the procedure by its global.
;;;
;;; The matcher-like loop `w` below reaches a helper whose pattern slot is already a hole while
;;; the new call has a view (a pair whose car the residual code read) there. Restarting that
;;; helper changed nothing and repeated until the effort budget ran out: the whole request gave
;;; the trivial residual. Now the new call, the more specific one, is generalized and reuses the
;;; helper. Every residual agrees with the original on generated inputs, raising ones included.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (printable? x)  ; no #<...> objects: written, it reads back
  (let ((s (let ((p (open-output-string))) (write x p) (get-output-string p))))
    (equal? x (read (open-input-string s)))))
(define (stat name) (cdr (assq name (specialize-stats))))
(define (outcome thunk) (guard (e (#t 'raised)) (thunk)))

;; Deterministic pseudo-random lists over a small alphabet (an LCG), plus every list of length
;; up to 3 over it: texts that match, mismatch, run past the pattern (car of '() raises).
(define seed 12345)
(define (rand n) (set! seed (modulo (+ (* seed 1103515245) 12345) 2147483648)) (modulo (quotient seed 65536) n))
(define alphabet '(a b c d e f g h z))
(define (random-list len) (if (= len 0) '() (cons (list-ref alphabet (rand (length alphabet))) (random-list (- len 1)))))
(define (all-lists len)
  (if (= len 0) '(())
      (apply append (map (lambda (l) (map (lambda (x) (cons x l)) '(a b z))) (all-lists (- len 1))))))
(define texts
  (append (all-lists 0) (all-lists 1) (all-lists 2) (all-lists 3)
          (let loop ((k 0) (acc '())) (if (= k 60) acc (loop (+ k 1) (cons (random-list (rand 14)) acc))))
          (list '(a b c d e f g h) '(a a b b c c d d) '(h g f e d c b a) 'atom '(a . tail))))

(define (w s t) (cond ((null? s) t) ((eqv? (car s) (car t)) (w (cdr s) t)) (else (w (cdr s) (cdr t)))))
(define (w0 t s) (w s t))

(define pattern '(a b c d e f g h))
(define exhausted (stat 'budget-exhaustions))
(define sw (specialize w0 pattern))
(test "no effort budget runs out" exhausted (stat 'budget-exhaustions))
(test "the residual is specialized (not the call of w0)" #f (and (memq 'w0 (walk (residual sw))) #t))
(test "the pattern's symbols are compared as constants" #t
      (and (memq 'h (walk (residual sw))) (memq 'eqv? (walk (residual sw))) #t))
(for-each (lambda (s) (test "w0 agrees" (outcome (lambda () (w0 pattern s))) (outcome (lambda () (sw s)))))
          texts)

;; Shorter and longer patterns, and the pattern fully dynamic.
(for-each
 (lambda (p)
   (let ((sp (specialize w0 p)))
     (test "no budget runs out" exhausted (stat 'budget-exhaustions))
     (for-each (lambda (s) (test "agrees" (outcome (lambda () (w0 p s))) (outcome (lambda () (sp s))))) texts)))
 (list '() '(a) '(a a) '(z a z) '(a b a b a b a b a b a b) (random-list 20)))
(define sd (specialize w))
(test "dynamic pattern: no budget runs out" exhausted (stat 'budget-exhaustions))
(for-each (lambda (s) (for-each (lambda (t) (test "dynamic pattern agrees" (outcome (lambda () (w s t)))
                                                  (outcome (lambda () (sd s t)))))
                                (list '() '(a) '(a b) '(b a z) '(z z z z z z))))
          (list-tail texts 30))

;; The same dynamic value in two slots (a "same hole"), then apart: the restart separates them.
(define (v s t u) (cond ((null? s) (list t u)) ((eqv? (car s) (car t)) (v (cdr s) u t)) (else (v (cdr s) (cdr t) u))))
(define (v0 s t) (v s t t))
(define sv (specialize v0))
(test "aliased slots: no budget runs out" exhausted (stat 'budget-exhaustions))
(for-each (lambda (s) (for-each (lambda (t) (test "aliased slots agree" (outcome (lambda () (v0 s t))) (outcome (lambda () (sv s t)))))
                                (list '(a b c) '(z) '(a a a a a a a a a a a a a a))))
          (list-tail texts 40))

;; The trivial residual (here: a letrec variable read before its initialization ends the
;; request) calls the procedure by its global's name, so it reads back; after the global is
;; redefined the specialization still means the original.
(define (lr x) (letrec ((a (lambda () b)) (b (a))) (list x b)))
(define fallbacks (stat 'fallbacks))
(define slr (specialize lr))
(test "the request falls back" (+ fallbacks 1) (stat 'fallbacks))
(test "the trivial residual names the global" '(lambda (x) (lr x)) (residual slr))
(test "it reads back" #t (printable? (residual slr)))
(define lr-original lr)
(define lr-result (outcome (lambda () (lr 5))))
(test "it agrees" lr-result (outcome (lambda () (slr 5))))
(set! lr (lambda (x) 'redefined))
(test "after the global is redefined it still means the original" lr-result (outcome (lambda () (slr 5))))
(set! lr lr-original)

(test-end)
