;;; srfi-together-test.scm — every SRFI library here imported at once with the R7RS-small
;;; libraries and the R7RS-large names of the same SRFIs: names they share are one binding, so
;;; none of this is a conflict, and each library's bindings still work side by side.
(import (scheme base) (scheme char) (scheme lazy) (scheme case-lambda) (scheme write)
        (scheme process-context) (scheme inexact)
        (srfi 2) (srfi 8) (srfi 9) (srfi 11) (srfi 14) (srfi 28) (srfi 48) (srfi 113) (srfi 128) (srfi 16) (srfi 23) (srfi 26) (srfi 31) (srfi 34)
        (srfi 39) (srfi 41) (srfi 87) (srfi 95) (srfi 98) (srfi 111) (srfi 117) (srfi 141)
        (srfi 143) (srfi 158)
        (scheme box) (scheme charset) (scheme stream) (scheme list-queue) (scheme division)
        (scheme fixnum) (scheme generator) (scheme set))
(include "harness.scm")

(test "and-let* with receive" 3
      (and-let* ((x 1)) (receive (a b) (values x 2) (+ a b))))
(test "cut over a stream" '(2 3 4) (stream->list (stream-map (cut + 1 <>) (stream 1 2 3))))
(test "char-set with a generator" "abc"
      (char-set->string (list->char-set (generator->list (string->generator "cabba")))))
(test "boxes in a list queue" 3
      (let ((q (list-queue (box 1) (box 2))))
        (+ (unbox (list-queue-front q)) (unbox (list-queue-back q)))))
(test "division and fixnums" '(4 -1 5)
      (call-with-values (lambda () (balanced/ 7 2)) (lambda (q r) (list q r (fx+ q 1)))))
(test "sort with rec" '(1 2 6 24)
      (sort (map (rec (f n) (if (= n 0) 1 (* n (f (- n 1))))) '(4 3 2 1)) <))
(test "guard and parameterize" 'caught
      (let ((p (make-parameter 1)))
        (guard (e (#t 'caught)) (parameterize ((p 2)) (error "boom" (p))))))
(test "case with =>" 2 (case 1 ((1) => (lambda (x) (* 2 x))) (else 0)))
(test "floor/ from (scheme base) and (srfi 141) is one binding" '(3 1)
      (call-with-values (lambda () (floor/ 7 2)) list))

(test "format and sets" "3 elements"
      (format "~a elements" (set-size (set (make-default-comparator) 1 2 3 2))))

(test-end)
