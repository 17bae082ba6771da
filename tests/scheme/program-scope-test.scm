;;; program-scope-test.scm — an import-less script's top-level definitions are in scope in its
;;; whole body (R7RS 5.1), also in procedures defined before them, even where the name is a
;;; built-in of the environment the script starts with.
(include "harness.scm")

(define (split xs) (partition odd? xs))
(define (partition pred xs)          ; a built-in's name, with other results
  (list 'mine (filter pred xs)))
(test "a procedure defined before calls the script's partition" '(mine (1 3)) (split '(1 2 3)))

(define (count-all xs) (length xs))
(define (length xs) 'my-length)
(test "a procedure defined before calls the script's length" 'my-length (count-all '(1 2)))

(define (first-pair) (assoc 2 '((1 . a) (2 . b))))
(define-values (assoc other) (values (lambda (k alist) (list 'my-assoc k)) 'other))
(test "define-values is seen" '(my-assoc 2) (first-pair))

(define (make) (make-point 1 2))
(define-record-type point (make-point x y) point? (x point-x) (y point-y))
(test "define-record-type is seen" 2 (point-y (make)))

(define (inside-begin) (iota 3))
(begin (define (iota n) (list 'my-iota n)))
(test "a definition inside begin is seen" '(my-iota 3) (inside-begin))

;; Built-ins the compiler turns into instructions are no exception (the harness uses neither).
(define (second v) (vector-ref v 1))
(define (vector-ref v i) (list 'my-vector-ref i))
(test "an inlined built-in's name" '(my-vector-ref 1) (second (vector 1 2)))
(define (empty? x) (if (null? x) 'empty 'full))
(define (null? x) #f)
(test "an inlined test" 'full (empty? '()))

(test-end)
