;; (scheme division) — the R7RS-large name of SRFI 141.
(define-library (scheme division)
  (import (srfi 141))
  (export floor/ floor-quotient floor-remainder
          truncate/ truncate-quotient truncate-remainder
          ceiling/ ceiling-quotient ceiling-remainder
          round/ round-quotient round-remainder
          euclidean/ euclidean-quotient euclidean-remainder
          balanced/ balanced-quotient balanced-remainder))
