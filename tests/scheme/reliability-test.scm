;;; reliability-test.scm — regressions of the issue 8 findings that ordinary Scheme code can
;;; check: primitives that looped or misbehaved on odd but legal input.
(include "harness.scm")

;; list-tail / list-ref / list-set! on a circular list with a huge index finish at once: the
;; walk finds the cycle and skips whole rounds.
(define (circular . xs)
  (let ((l (list-copy xs)))
    (set-cdr! (list-tail l (- (length l) 1)) l)
    l))
(define c3 (circular 'a 'b 'c))
(define big 4611686018427387903)  ; 2^62 - 1 = 3 * 1537228672809129301, so index = 0 mod 3
(test "list-ref on a circle, huge index" 'a (list-ref c3 big))
(test "list-ref on a circle, huge index - 2" (quote b) (list-ref c3 (- big 2)))
(test "list-tail on a circle is the same pair" #t (eq? (list-tail c3 (* 3 1000000000000)) c3))
(test "list-ref on a one-pair circle" 'z (list-ref (circular 'z) big))
(define c1 (list 0 1 2 3 4))
(set-cdr! (list-tail c1 4) (cdr c1))  ; a tail of 1 before a cycle of 4
(test "list-ref past a tail into a cycle" 1 (list-ref c1 (+ 1 (* 4 123456789012))))
(test "list-ref past a tail into a cycle, offset" 3 (list-ref c1 (+ 3 (* 4 123456789012))))
(define c2 (circular 1 2))
(list-set! c2 big 'x)  ; big is odd: the second pair
(test "list-set! on a circle" '(1 x 1 x) (list (list-ref c2 0) (list-ref c2 1) (list-ref c2 2) (list-ref c2 3)))
(test "ordinary list-ref" 'd (list-ref '(a b c d e) 3))
(test-error "list-ref past the end" (list-ref '(a b) 2))
(test-error "list-tail of an improper list" (list-tail '(a . b) 2))
(define (ref-folded) (list-ref '#0=(1 2 3 . #0#) 4611686018427387903))
(test "constant folding of list-ref on a circular constant" 1 (ref-folded))

;; An exact literal too large to build is a limit, not bad syntax.
(test-error-message "#e with a huge exponent" "too large"
                    (read (open-input-string "#e1e100000000")))
(test "#e with a modest exponent" (expt 10 30) (read (open-input-string "#e1e30")))

;; Sorting with a comparator whose continuation is re-entered.
(define (reenter-sort sorter)
  (let ((k #f) (runs 0) (results '()))
    (let ((r (sorter (lambda (a b)
                       (if (and (not k) (= a 3))
                           (call/cc (lambda (c) (set! k c) (< a b)))
                           (< a b)))
                     (list 5 3 1 4 2))))
      (set! results (cons r results))
      (set! runs (+ runs 1))
      (if (< runs 3) (k #t))
      results)))
(test "list-sort survives re-entry" '((1 2 3 4 5) (1 2 3 4 5) (1 2 3 4 5)) (reenter-sort list-sort))
(test "sort survives re-entry" '((1 2 3 4 5) (1 2 3 4 5) (1 2 3 4 5))
      (reenter-sort (lambda (less? l) (sort l less?))))
(test "sort is stable" '((1 . a) (1 . b) (2 . c) (2 . d))
      (sort (list '(2 . c) '(1 . a) '(2 . d) '(1 . b)) (lambda (x y) (< (car x) (car y)))))
(test "list-merge is stable and fresh" '(1 1 2 3 4)
      (let ((a (list 1 3)) (b (list 1 2 4)))
        (let ((m (list-merge < a b)))
          (if (equal? a '(1 3)) m 'mutated))))
(test "vector-sort!" #(1 2 3) (let ((v (vector 3 1 2))) (vector-sort! v <) v))

;; ((specialize f) 5) once raised "internal error: variable g not in scope".
(define (f b)
  (if (> b 0)
      (let ((g (lambda (x) (let loop ((i 2) (acc x)) (if (= i 0) acc (loop (- i 1) (+ acc 1)))))))
        (g (g b)))
      0))
(test "specialize of a twice-applied local procedure" 9 ((specialize f) 5))
(test "specialize of it, false branch" 0 ((specialize f) -1))

(test-end)
