;;; pe-deep-test.scm — issue 9 from Scheme, in all four modes: a counting loop specialized to
;;; 100,000 levels computes what the loop computes (the partial evaluator refuses residual code
;;; nested deeper than its walks reach, instead of overflowing the C stack), and the fold size
;;; limits the partial evaluator shares with fold-constants (ir/limits.hpp, within_fold_limits)
;;; also bound the parts of a ratio, which the specializer's own checker once did not.

(include "harness.scm")

(define (count n x) (if (= n 0) x (+ (count (- n 1) x) 1)))
(define (depth d) (if (pair? d) (+ 1 (apply max 0 (map depth d))) 0))

(test "count 100,000" 100005 ((specialize count 100000) 5))
(test "count 100,000, again (cached)" 100007 ((specialize count 100000) 7))
(test "count 15,000" 15005 ((specialize count 15000) 5))
(test "count 1,000" 1005 ((specialize count 1000) 5))
;; Shallow enough to build: the residual is the unrolled sum, nested as deep as the loop.
(test-assert "count 1,000 unrolled" (>= (depth (residual (specialize count 1000))) 1000))
(test "count 1,000, negative" -995 ((specialize count 1000) -1995))

;; 3^k / 2^k: each part must stay within 4096 bits for the value to become a constant.
(define (ratio k) (/ (expt 3 k) (expt 2 k)))
(test "small ratio folds" '(lambda () 243/32) (residual (specialize ratio 5)))
(test "ratio within the limit" (ratio 2000) ((specialize ratio 2000)))
(test-assert "ratio within the limit folds" (not (pair? (caddr (residual (specialize ratio 2000))))))
;; 3^2600 has 4121 bits: the numerator is computed at run time.
(test "ratio past the limit" (ratio 2600) ((specialize ratio 2600)))
(test-assert "ratio past the limit is not a constant"
  (pair? (caddr (residual (specialize ratio 2600)))))
(define (scaled k x) (* x (ratio k)))
(test "past the limit, inside a procedure" (* 2 (ratio 2600)) ((specialize scaled 2600) 2))

(test-end)
