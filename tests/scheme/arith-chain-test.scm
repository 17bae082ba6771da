;;; arith-chain-test.scm — (+ a b c ...), (- a b c ...) and (* a b c ...) with more than two
;;; operands compile to a chain of the inline op (vm/compiler.cpp, op_chain): every operand is
;;; evaluated first, in order, then folded from the left, as the builtin does. The redefinition
;;; of a chained builtin is in redefine-test.scm.
(include "harness.scm")

(define (add3 a b c) (+ a b c))
(define (sub3 a b c) (- a b c))
(define (mul4 a b c d) (* a b c d))
(define (add16 a) (+ a a a a a a a a a a a a a a a a))
(define (add17 a) (+ a a a a a a a a a a a a a a a a a))

(test "fixnums" 6 (add3 1 2 3))
(test "subtraction folds from the left" 5 (sub3 10 2 3))
(test "product" 24 (mul4 1 2 3 4))
(test "flonums" 36.0 (mul4 1.5 2 3 4))
(test "exact then inexact" 1.5 (add3 1/2 1/2 .5))
(test "overflow into a bignum" (* 3 (expt 2 61)) (add3 (expt 2 61) (expt 2 61) (expt 2 61)))
(test "a bignum product" (expt 2 186) (mul4 (expt 2 62) (expt 2 62) (expt 2 62) 1))
(test "complex" 3+3i (add3 1+i 1+i 1+i))
(test "sixteen operands" 16 (add16 1))
(test "seventeen operands (a call)" 17 (add17 1))
(test "left to right rounding" (+ (+ 1e16 1.) 1.) (add3 1e16 1. 1.))

;; The running value never overwrites an operand still to be read.
(define (into-first x y z) (set! x (+ y z x)) x)
(define (into-last x y z) (set! z (* x y z)) z)
(test "the target is the last operand" 6 (into-first 1 2 3))
(test "the target is a later operand" 24 (into-last 2 3 4))
(define (nested a b c) (+ a (+ b c a) (* a b c) c))
(test "chains inside chains" 16 (nested 1 2 3))
(define (loop n) (let lp ((i 0) (acc 0)) (if (= i n) acc (lp (+ i 1) (+ acc i i 1)))))
(test "in a loop (compiled when hot)" 1000000 (loop 1000))
(define (tail a b c) (if (> a 0) (+ a b c) (- a b c)))
(test "in tail position" 6 (tail 1 2 3))
(test "in tail position, other arm" -5 (tail 0 2 3))

;; Operands are evaluated before any addition: an error in a later operand comes first.
(define log '())
(define (note x) (set! log (cons x log)) x)
(test "every operand is evaluated before the sum" '(raised (3 2 a))
      (begin (set! log '())
             (list (guard (e (#t 'raised)) (+ (note 'a) (note 2) (note 3))) log)))
(test-error-message "the error names + and the value" "+: expected a number, got a"
                    (add3 1 'a 2))
(test-error-message "a non-number first operand" "*: expected a number, got x" (mul4 'x 1 2 3))
(test-error-message "the last operand" "-: expected a number, got #t" (sub3 1 2 #t))
(test-end)
