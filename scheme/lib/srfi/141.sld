;; (srfi 141) — integer division: the six families floor, truncate, ceiling, round, euclidean,
;; balanced, each as q/ (both values), quotient and remainder. n = d*q + r always; they differ
;; in how q is rounded:
;;   floor      q = floor(n/d)            r has d's sign
;;   truncate   q = truncate(n/d)         r has n's sign
;;   ceiling    q = ceiling(n/d)          r has the sign opposite to d's
;;   round      q = n/d rounded to even   |r| <= |d|/2
;;   euclidean  0 <= r < |d|
;;   balanced   -|d|/2 <= r < |d|/2
;; Arguments are integers (exact or inexact); a zero divisor is an error.
(define-library (srfi 141)
  (import (scheme base))
  (export floor/ floor-quotient floor-remainder
          truncate/ truncate-quotient truncate-remainder
          ceiling/ ceiling-quotient ceiling-remainder
          round/ round-quotient round-remainder
          euclidean/ euclidean-quotient euclidean-remainder
          balanced/ balanced-quotient balanced-remainder)
  (begin
    (define (check who n d)
      (cond ((not (integer? n)) (error (string-append who ": expected an integer, got") n))
            ((not (integer? d)) (error (string-append who ": expected an integer, got") d))
            ((zero? d) (error (string-append who ": division by zero") n d))))

    ;; Every family is its quotient; the remainder follows from n = d*q + r.
    (define (remainder-of n d q) (- n (* d q)))

    (define (ceiling-quotient n d)
      (check "ceiling-quotient" n d)
      (- (floor-quotient (- n) d)))
    (define (ceiling-remainder n d)
      (remainder-of n d (ceiling-quotient n d)))
    (define (ceiling/ n d)
      (let ((q (ceiling-quotient n d))) (values q (remainder-of n d q))))

    ;; Rounding n/d to even without rationals: compare twice the floor remainder with |d|.
    (define (round-quotient n d)
      (check "round-quotient" n d)
      (let* ((q (floor-quotient n d))
             (r (- n (* d q)))          ; same sign as d, |r| < |d|
             (twice (abs (* 2 r)))
             (ad (abs d)))
        (cond ((< twice ad) q)
              ((> twice ad) (+ q 1))
              ((even? q) q)
              (else (+ q 1)))))
    (define (round-remainder n d)
      (remainder-of n d (round-quotient n d)))
    (define (round/ n d)
      (let ((q (round-quotient n d))) (values q (remainder-of n d q))))

    (define (euclidean-quotient n d)
      (check "euclidean-quotient" n d)
      (if (negative? d) (ceiling-quotient n d) (floor-quotient n d)))
    (define (euclidean-remainder n d)
      (remainder-of n d (euclidean-quotient n d)))
    (define (euclidean/ n d)
      (let ((q (euclidean-quotient n d))) (values q (remainder-of n d q))))

    (define (balanced-quotient n d)
      (check "balanced-quotient" n d)
      (let* ((q (euclidean-quotient n d))
             (r (- n (* d q)))          ; 0 <= r < |d|
             (ad (abs d)))
        (cond ((< (* 2 r) ad) q)
              ((positive? d) (+ q 1))
              (else (- q 1)))))
    (define (balanced-remainder n d)
      (remainder-of n d (balanced-quotient n d)))
    (define (balanced/ n d)
      (let ((q (balanced-quotient n d))) (values q (remainder-of n d q))))))
