;;; ad-quiet-test.scm — the pullback of a call no cotangent reaches (lib/ad/README.md, "set!"):
;;; it runs only while some set! cell's adjoint is pending, and never for a quiet callee (one with
;;; no cell operation and no call other than its own recursion), which the partial evaluator
;;; knows for a J it knows: a specialized gradient through such a call is straight-line. Callees
;;; that are not quiet (a for-each over a lambda doing set! on the caller's variable) still run,
;;; and every gradient agrees with finite differences and with the specialized one.
(include "harness.scm")
(include "ad-harness.scm")

(define (agree name f args-list)
  (let ((s (specialize f)))
    (for-each (lambda (args) (test (string-append name " agrees") (apply f args) (apply s args))) args-list)
    s))

;; a helper whose value only indexes: the call is unreached, its callee quiet
(define tbl (vector 1.0 2.0 3.0 4.0))
(define (idx x) (exact (floor x)))
(define (tf x y) (* (vector-ref tbl (idx x)) x y))
(define s1 (agree "index helper" (grad tf) '((1.5 2.0) (2.25 -1.0) (0.5 3.0))))
(test "index helper: gradient" '(4.0 3.0) (s1 1.5 2.0))
(test-assert "index helper: straight-line residual" (straight-line? (residual s1)))
(test-assert "index helper: no pending check" (not (memq '%ad-adjoints-pending? (symbols-in (residual s1)))))

;; a lambda the differentiated code makes (its J made by the partial evaluator) called unreached
(define (hq x) (let ((k (lambda (y) (exact (floor y))))) (* x x (vector-ref tbl (k x)))))
(define s2 (agree "local helper" (grad hq) '((1.5) (2.5))))
(test-assert "local helper = finite differences" (close? (fd hq 1.5) (s2 1.5)))
(test-assert "local helper: straight-line residual" (straight-line? (residual s2)))

;; a quiet recursion (a named let) whose own calls' values are dropped
(define (depth n x) (if (= n 0) 0 (begin (* x x) (+ 1 (depth (- n 1) x)))))
(define (tr x)
  (* x (vector-ref tbl (let count ((n 3) (y x)) (if (= n 0) 0 (begin (* y y) (+ 1 (count (- n 1) y))))))))
(define s3 (agree "quiet recursion" (grad tr) '((1.5) (-2.0))))
(test "quiet recursion: gradient" 4.0 (s3 1.5))
(test-assert "quiet recursion: no pending check" (not (memq '%ad-adjoints-pending? (symbols-in (residual s3)))))

;; a helper with a named let of its own (quiet: the loop is), its value only an index
(define (count-below x) (let loop ((k 0) (y x)) (if (< y 1.0) k (loop (+ k 1) (/ y 2.0)))))
(define (tc x) (* x x (vector-ref tbl (count-below x))))
(define s5 (agree "helper with a named let" (grad tc) '((3.0) (0.5) (5.0))))
(test-assert "helper with a named let = finite differences" (close? (fd tc 3.0) (s5 3.0)))
(test-assert "helper with a named let: no pending check" (not (memq '%ad-adjoints-pending? (symbols-in (residual s5)))))
;; local procedures that assign the caller's variable are not quiet: their pullbacks run
(define (ls x) (let ((s 0.0)) (let ((bump (lambda (y) (set! s (+ s (* y y))) 0))) (bump x) (* 2.0 s))))
(test-assert "let-bound lambda doing set!, unreached" (close? (fd ls 1.5) ((grad ls) 1.5)))
(define (ls2 x) (let ((s 0.0)) (let loop ((k 0)) (if (< k 2) (begin (set! s (+ s x)) (loop (+ k 1))) 0)) (* s s)))
(test-assert "named let doing set!, unreached" (close? (fd ls2 1.5) ((grad ls2) 1.5)))
(test "named let doing set!, unreached: specialized" ((grad ls2) 1.5) ((specialize (grad ls2)) 1.5))

;; set!: the accumulator's adjoint is pending while the pullbacks of the unreached calls run
(define (acc-sq l) (let ((s 0.0)) (for-each (lambda (x) (set! s (+ s (* x x)))) l) s))
(define (fe a b) (acc-sq (list a (* a b) b)))
(test-assert "for-each with set!: d/da" (close? (fd (lambda (a) (fe a 2.0)) 1.5) (car ((grad fe) 1.5 2.0))))
(test-assert "for-each with set!: d/db" (close? (fd (lambda (b) (fe 1.5 b)) 2.0) (cadr ((grad fe) 1.5 2.0))))
(test "for-each with set!: at 1 2" '(10.0 8.0) ((grad fe) 1 2))
;; the same inline: the for-each call itself is unreached (its value is dropped)
(define (fe2 a b) (let ((s 0.0)) (for-each (lambda (x) (set! s (+ s (* x x b)))) (list a b)) (* s a)))
(test-assert "for-each inline: d/da" (close? (fd (lambda (a) (fe2 a 2.0)) 1.5) (car ((grad fe2) 1.5 2.0))))
(test-assert "for-each inline: d/db" (close? (fd (lambda (b) (fe2 1.5 b)) 2.0) (cadr ((grad fe2) 1.5 2.0))))
(define s4 (specialize (grad fe2)))
(test "for-each inline: specialized" ((grad fe2) 1.5 2.0) (s4 1.5 2.0))
;; a callee that is not quiet (it calls its argument) and returns a constant
(define (call-it f x) (f x) 0)
(define (ci x) (let ((s 0.0)) (call-it (lambda (y) (set! s (* y y))) x) (* s 3.0)))
(test "unreached call of a procedure doing set!" 9.0 ((grad ci) 1.5))
(test "unreached call of a procedure doing set!: specialized" 9.0 ((specialize (grad ci)) 1.5))
;; a quiet callee unreached while an adjoint is pending: skipped, the gradient unchanged
(define (qs x) (let ((s 0.0)) (set! s (* x x)) (idx x) (depth 2 x) (* s (vector-ref tbl (idx x)))))
(test-assert "quiet callee while pending = finite differences" (close? (fd qs 1.5) ((grad qs) 1.5)))
(test "quiet callee while pending: specialized" ((grad qs) 1.5) ((specialize (grad qs)) 1.5))
;; nested: a derivative of a gradient through the unreached call
(define (nq x) (* x x x (vector-ref tbl (idx x))))
(test-assert "second derivative through an unreached call"
  (close? (fd (lambda (x) ((grad nq) x)) 1.5) ((derivative (grad nq)) 1.5)))
(test-assert "hessian through an unreached call"
  (close? (fd (lambda (x) ((grad nq) x)) 1.5) (vector-ref (vector-ref ((hessian (lambda (v) (nq (vector-ref v 0)))) (vector 1.5)) 0) 0)))

(test-end)
