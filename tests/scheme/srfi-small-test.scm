;;; srfi-small-test.scm — the small syntax SRFIs and the ones that re-export core bindings:
;;; 2 (and-let*), 8 (receive), 9 (records), 11 (let-values), 16 (case-lambda), 23 (error), 26 (cut, cute),
;;; 31 (rec), 34 (exceptions), 39 (parameters), 87 (=> in case), 98 (environment variables),
;;; 111 (boxes). Cases follow each SRFI document's examples and stated semantics.
(import (scheme base) (scheme write) (scheme eval) (scheme lazy) (scheme process-context))
(include "harness.scm")
(import (srfi 2) (srfi 8) (srfi 9) (srfi 11) (srfi 16) (srfi 23) (srfi 26) (srfi 31) (srfi 34)
        (srfi 39) (srfi 87) (srfi 98) (srfi 111))

;; SRFI 2
(test "and-let*: no clauses, no body" #t (and-let* ()))
(test "and-let*: no clauses" 1 (and-let* () 1))
(test "and-let*: body value is the last" 2 (and-let* () 1 2))
(test "and-let*: bound variable false" #f (let ((x #f)) (and-let* (x))))
(test "and-let*: bound variable true" 1 (let ((x 1)) (and-let* (x))))
(test "and-let*: binding false" #f (and-let* ((x #f))))
(test "and-let*: binding's value is the result" 1 (and-let* ((x 1))))
(test "and-let*: (expr) clause false" #f (and-let* ((#f) (x 1))))
(test "and-let*: (expr) then binding" 1 (and-let* ((2) (x 1))))
(test "and-let*: binding then (expr)" 2 (and-let* ((x 1) (2))))
(test "and-let*: variable clause, body" #f (let ((x #f)) (and-let* (x) x)))
(test "and-let*: empty string is true" "" (let ((x "")) (and-let* (x) x)))
(test "and-let*: body sees it" 2 (let ((x 1)) (and-let* (x) (+ x 1))))
(test "and-let*: body skipped" #f (let ((x #f)) (and-let* (x) (+ x 1))))
(test "and-let*: test clause" 2 (let ((x 1)) (and-let* (((positive? x))) (+ x 1))))
(test "and-let*: test clause, no body" #t (let ((x 1)) (and-let* (((positive? x))))))
(test "and-let*: failing test" #f (let ((x 0)) (and-let* (((positive? x))) (+ x 1))))
(test "and-let*: rebinding like let*" 3
      (let ((x 1)) (and-let* (((positive? x)) (x (+ x 1))) (+ x 1))))
(test "and-let*: rebinding twice" 4
      (let ((x 1)) (and-let* (((positive? x)) (x (+ x 1)) (x (+ x 1))) (+ x 1))))
(test "and-let*: variable then test" #f (let ((x 0)) (and-let* (x ((positive? x))) (+ x 1))))
(test "and-let*: later clauses not evaluated" '(#f 0)
      (let* ((n 0) (r (and-let* ((x #f) ((begin (set! n 1) #t))) 'body))) (list r n)))
(test "and-let*: assq example" 'two
      (and-let* ((p (assq 'b '((a . one) (b . two)))) (v (cdr p)) ((symbol? v))) v))

;; SRFI 8
(test "receive: fixed" '(1 2) (receive (a b) (values 1 2) (list a b)))
(test "receive: rest" '(1 (2 3)) (receive (a . rest) (values 1 2 3) (list a rest)))
(test "receive: all" '(1 2 3) (receive all (values 1 2 3) all))
(test "receive: SRFI example" '(4 (5 6))
      (receive (x . y) (apply values '(4 5 6)) (list x y)))
(test-error "receive: too few values" (receive (a b) (values 1) a))

;; SRFI 11
(test "let-values" 3 (let-values (((a b) (values 1 2))) (+ a b)))
(test "let-values: outer scope" '(1 2)
      (let ((a 'x) (b 'y)) (let-values (((a b) (values 1 2)) ((c) (values (list a b)))) (list a b))))
(test "let-values: inits see the outer a" '(x y)
      (let ((a 'x) (b 'y)) (let-values (((a b) (values 1 2)) ((c) (values (list a b)))) c)))
(test "let*-values" '(x y)
      (let ((a 'a) (b 'b) (x 'x) (y 'y))
        (let*-values (((a b) (values x y)) ((x y) (values a b))) (list x y))))
(test "let-values: rest" '(1 (2 3)) (let-values (((a . r) (values 1 2 3))) (list a r)))

;; SRFI 16
(define plus
  (case-lambda
    (() 0)
    ((x) x)
    ((x y) (+ x y))
    ((x y z) (+ (+ x y) z))
    (args (apply + args))))
(test "case-lambda: 0" 0 (plus))
(test "case-lambda: 1" 1 (plus 1))
(test "case-lambda: 3" 6 (plus 1 2 3))
(test "case-lambda: rest" 15 (plus 1 2 3 4 5))
(define no-zero (case-lambda ((x) x) ((x y) y)))
(test-error "case-lambda: no clause matches" (no-zero))

;; SRFI 23
(test-assert "error raises an error object" (guard (e (#t (error-object? e))) (error "bad" 1 2)))
(test "error: message" "bad thing" (guard (e (#t (error-object-message e))) (error "bad thing" 'x)))
(test "error: irritants" '(x 2) (guard (e (#t (error-object-irritants e))) (error "bad" 'x 2)))

;; SRFI 26
(test "cut: cons" '(a . b) ((cut cons <> 'b) 'a))
(test "cut: list" '(1 a 2 b) ((cut list 1 <> 2 <>) 'a 'b))
(test "cut: no slots" '() ((cut list)))
(test "cut: rest slot" '(1 2 3 4) ((cut list 1 <...>) 2 3 4))
(test "cut: rest slot, none given" '(1) ((cut list 1 <...>)))
(test "cut: operator slot" 7 ((cut <> 3 4) +))
(test "cut: slots and rest" '(a 1 b c) ((cut list <> 1 <...>) 'a 'b 'c))
(test "cut: as map argument" '(2 3 4) (map (cut + 1 <>) '(1 2 3)))
(test "cut: the operator expression is evaluated per call" '(1 2)
      (let* ((n 0) (f (cut (begin (set! n (+ n 1)) list) n)))
        (list (car (f)) (car (f)))))
(test "cute: evaluated once" '(1 1)
      (let* ((n 0) (f (cute list (begin (set! n (+ n 1)) n) <>)))
        (list (car (f 'a)) (car (f 'b)))))
(test "cute: evaluated when made" 1
      (let* ((n 0) (f (cute list (begin (set! n (+ n 1)) n)))) n))
(test "cute: rest" '(1 2 3) ((cute list 1 <...>) 2 3))
(test "cute: slot" '(x . 5) ((cute cons <> (+ 2 3)) 'x))
(test "cut: hygiene of the made parameters" '(1 2 3)
      (let ((p 1) (more 2)) ((cut list p more <>) 3)))

;; SRFI 31
(test "rec: procedure form" 120 ((rec (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) 5))
(test "rec: name form" 120 ((rec fact (lambda (n) (if (= n 0) 1 (* n (fact (- n 1)))))) 5))
(test "rec: stream of ones" '(1 1 1)
      (let ((s (rec s (cons 1 (delay s)))))
        (list (car s) (car (force (cdr s))) (car (force (cdr (force (cdr s))))))))
(test "rec: the name is local" 'outer
      (let ((f 'outer)) ((rec (f x) x) 1) f))

;; SRFI 34
(test "SRFI 34: handler escapes" '(exception an-error)
      (call-with-current-continuation
       (lambda (k)
         (with-exception-handler
          (lambda (x) (k (list 'exception x)))
          (lambda () (+ 1 (raise 'an-error)))))))
(test "guard: => clause" 42
      (guard (condition ((assq 'a condition) => cdr) ((assq 'b condition)))
        (raise (list (cons 'a 42)))))
(test "guard: test clause value" '(b . 23)
      (guard (condition ((assq 'a condition) => cdr) ((assq 'b condition)))
        (raise (list (cons 'b 23)))))
(test "guard: no clause applies, re-raised to the outer guard" 'outer
      (guard (e ((eq? e 'x) 'outer))
        (guard (e ((number? e) 'inner)) (raise 'x))))
(test "guard: else" 'caught (guard (e (else 'caught)) (raise 1)))
(test "guard: body value" 3 (guard (e (#t 'no)) (+ 1 2)))
(test-error "raise: handler returning is an error"
            (with-exception-handler (lambda (e) 'ignored) (lambda () (raise 'boom))))

;; SRFI 39
(define radix (make-parameter 10))
(define checked (make-parameter 10 (lambda (x) (if (integer? x) x (error "not an integer" x)))))
(test "parameter: value" 10 (radix))
(test "parameterize" 2 (parameterize ((radix 2)) (radix)))
(test "parameterize: restored" 10 (begin (parameterize ((radix 2)) (radix)) (radix)))
(test "parameterize: converter" 12 (parameterize ((checked 12)) (checked)))
(test-error "parameterize: converter rejects" (parameterize ((checked 'x)) (checked)))
(test "converter applied to the initial value" "5"
      ((make-parameter 5 number->string)))
(test "parameterize: dynamic extent" '(2 10)
      (let ((f (lambda () (radix))))
        (list (parameterize ((radix 2)) (f)) (f))))
(test "parameterize: escaping restores" 10
      (begin (call-with-current-continuation
              (lambda (k) (parameterize ((radix 16)) (k 'out))))
             (radix)))

;; SRFI 87
(test "case =>: clause" 10 (case 5 ((1 5) => (lambda (x) (* x 2))) (else 0)))
(test "case =>: else" 'z (case 'z ((a) 1) (else => (lambda (x) x))))
(test "case: no =>" 'one (case 1 ((1) 'one) (else => (lambda (x) x))))

;; SRFI 98
(test "get-environment-variable: a missing one" #f
      (get-environment-variable "QUASI_SRFI_TEST_SURELY_UNSET_VARIABLE"))
(test-assert "get-environment-variables: an alist of strings"
             (let ((all (get-environment-variables)))
               (and (list? all)
                    (let loop ((l all))
                      (or (null? l)
                          (and (string? (car (car l))) (string? (cdr (car l))) (loop (cdr l))))))))
(test-assert "get-environment-variable agrees with the list"
             (let ((all (get-environment-variables)))
               (or (null? all)
                   (equal? (get-environment-variable (car (car all))) (cdr (car all))))))

;; SRFI 111
(define b (box 1))
(test-assert "box?" (box? b))
(test "box? of a non-box" #f (box? (vector 1)))
(test "unbox" 1 (unbox b))
(test "set-box!" 2 (begin (set-box! b 2) (unbox b)))
(test "boxes are distinct" #f (eq? (box 1) (box 1)))
(test "(scheme box) is the same box" #t
      (eval `(box? (quote ,b)) (environment (quote (scheme box)) (quote (scheme base)))))
(test-error "unbox of a non-box" (unbox 5))

;; SRFI 9, the document's pare example.
(define-record-type pare (kons x y) pare? (x kar set-kar!) (y kdr))
(test "srfi 9: predicate" '(#t #f) (list (pare? (kons 1 2)) (pare? (cons 1 2))))
(test "srfi 9: accessors" '(1 2) (let ((k (kons 1 2))) (list (kar k) (kdr k))))
(test "srfi 9: modifier" 3 (let ((k (kons 1 2))) (set-kar! k 3) (kar k)))

;; A converter that is not a procedure is reported by make-parameter (found calling every exported
;; procedure with wrong arguments: it said "application: expected a procedure").
(test-error-message "make-parameter with a non-procedure converter" "make-parameter: expected a procedure" (make-parameter 1 'x))
;; SRFI 111's unbox names itself (its error named the record field, box-value).
(test-error-message "unbox of a non-box" "unbox: expected a record" (unbox 5))

(test-end)
