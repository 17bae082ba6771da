;;; pe-flow-test.scm — an imperative flowchart interpreter whose store is threaded through an
;;; accumulator, with syntax selectors as procedures (scheme/examples/flow.scm), specialized to a
;;; fixed program: the store's names, the program text and the dispatch disappear (the store's
;;; values that change in the loop are generalized one by one, not the whole store). Every
;;; residual agrees with the interpreter.

(include "harness.scm")
(include "../../scheme/examples/flow.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (mentions? code names)
  (let ((all (flat code))) (let loop ((n names)) (and (pair? n) (or (memq (car n) all) (loop (cdr n)))))))

(define r (residual compiled-flow))
;; Helpers are named after the procedure they specialize (run-block); no call of the
;; interpreter's other procedures, no quoted program text, no store or syntax access is left.
(test "no dispatch, no store, no program text" #f
      (mentions? r '(quote store-ref store-set block-of eval-expr stmt-kind apply-op car cdr eq?)))
(for-each (lambda (n) (test "flow agrees" (run-flow flow-program n) (compiled-flow n)))
          '(0 1 2 3 10 77 100 1000))
(test-error "flow: a bad input raises as the original does" error-object? (compiled-flow 'x))

;; A second program: gcd by repeated subtraction, two inputs folded into one. Its temporary t
;; is set before the loop: a variable first set inside the loop makes the store at the loop
;; head grow by one binding, the whistle sees the shorter store embedded in the longer one and
;; the tail of the store becomes dynamic (lib/pe/README.md, known gaps).
(define gcd-program
  '((start (set a (add (rem n 1000) 1)) (set b (add (rem (sub n (rem n 1000)) 997) 1)) (set t 0) (goto loop))
    (loop (if (eq a b) done step))
    (step (if (lt a b) swap sub))
    (swap (set t a) (set a b) (set b t) (goto sub))
    (sub (set a (sub a b)) (goto loop))
    (done (return a))))
(define gcd-flow (specialize run-flow gcd-program))
(test "gcd: no interpreter left" #f
      (mentions? (residual gcd-flow) '(quote store-ref store-set block-of eval-expr car cdr eq?)))
(for-each (lambda (n) (test "gcd agrees" (run-flow gcd-program n) (gcd-flow n)))
          '(0 1 12018 45123 999999 123456))


;; The same with t first set inside the loop: the store's tail is generalized (names looked up
;; at run time), and the residual still agrees.
(define gcd-program2
  (cons (list 'start '(set a (add (rem n 1000) 1)) '(set b (add (rem (sub n (rem n 1000)) 997) 1)) '(goto loop))
        (cdr gcd-program)))
(define gcd-flow2 (specialize run-flow (freeze gcd-program2)))
(for-each (lambda (n) (test "gcd (t set in the loop) agrees" (run-flow gcd-program2 n) (gcd-flow2 n)))
          '(0 1 12018 45123 999999 123456))
(test-error "gcd: a bad input raises" error-object? (gcd-flow2 "x"))

(test-end)
