;;; map-test.scm — map builds its result by recursion for the first 1000 elements and by a
;;; reversed accumulation after that (scheme/prelude/10-lists.scm). These tests cross that
;;; boundary: results, application order, errors naming the whole list, and re-entry through a
;;; continuation captured in either phase (no returned list may change afterwards).
(include "harness.scm")

(define (iota-from a n) (let loop ((i (- (+ a n) 1)) (acc '())) (if (< i a) acc (loop (- i 1) (cons i acc)))))
(define (squares n) (iota-from 0 n))

(define (check-squares n)
  (let ((r (map (lambda (x) (* x x)) (squares n))))
    (and (= (length r) n)
         (let loop ((r r) (i 0)) (or (null? r) (and (= (car r) (* i i)) (loop (cdr r) (+ i 1))))))))

(test "empty" '() (map car '()))
(test "one" '(2) (map (lambda (x) (+ x 1)) '(1)))
(test-assert "999 elements" (check-squares 999))
(test-assert "1000 elements" (check-squares 1000))
(test-assert "1001 elements" (check-squares 1001))
(test-assert "100000 elements" (check-squares 100000))

;; f sees the elements in order, in both phases.
(define (visit-order n)
  (let ((seen '()))
    (map (lambda (x) (set! seen (cons x seen)) x) (squares n))
    (equal? (reverse seen) (squares n))))
(test-assert "order, short list" (visit-order 10))
(test-assert "order, across the bound" (visit-order 2500))

;; Two lists: stops at the shorter one, on either side of the bound.
(test "two lists" '(5 7 9) (map + '(1 2 3) '(4 5 6)))
(test "two lists, shorter first" 1500 (length (map + (squares 1500) (squares 3000))))
(test "two lists, shorter second" 999 (length (map + (squares 3000) (squares 999))))
(test "two lists, sums across the bound"
      (map (lambda (x) (* 2 x)) (squares 1200))
      (map + (squares 1200) (squares 1200)))
(test "three lists" '(12 15 18) (map + '(1 2 3) '(4 5 6) '(7 8 9)))

;; Errors name the list the caller passed, wherever the bad tail is.
(define (improper n) (let loop ((i 0) (acc 'tail)) (if (= i n) acc (loop (+ i 1) (cons i acc)))))
(test-error-message "not a list" "map" (map car 5))
(test-error-message "improper, short" "map" (map (lambda (x) x) (improper 3)))
(test-error-message "improper, past the bound" "map" (map (lambda (x) x) (improper 1500)))
(test-error-message "two lists, improper past the bound" "map"
                    (map + (improper 1200) (squares 1300)))
(test-error-message "not a procedure" "map" (map 5 '(1 2)))

;; Re-entering a continuation captured inside f: earlier results stay as they were.
(define reentries 0)
(define (reenter k v)
  (set! reentries (+ reentries 1))
  (if (> reentries 100) (error "runaway re-entry"))
  (k v))
(define (reentry-results n at)
  (let ((k #f) (count 0) (results '()))
    (let ((r (map (lambda (x) (call/cc (lambda (c) (if (= x at) (set! k c)) x)))
                  (squares n))))
      (set! results (cons r results))
      (if (< count 2)
          (begin (set! count (+ count 1)) (reenter k (* -1 count)))
          results))))
(define (value-at l i) (list-ref l i))
(test "re-entry in the recursive phase" '(-2 -1 5)
      (map (lambda (r) (value-at r 5)) (reentry-results 20 5)))
(test "re-entry in the accumulating phase" '(-2 -1 1500)
      (map (lambda (r) (value-at r 1500)) (reentry-results 2000 1500)))
(test "re-entry keeps the other elements" #t
      (let ((rs (reentry-results 2000 1500)))
        (and (equal? (list-tail (car rs) 1501) (list-tail (caddr rs) 1501))
             (equal? (value-at (car rs) 1499) 1499))))

;; map under specialize folds the bound: the residual is a plain list.
(define (add-all xs d) (map (lambda (x) (+ x d)) xs))
(test "specialized map" '(11 12 13) ((specialize add-all '(1 2 3)) 10))

(test-end)
