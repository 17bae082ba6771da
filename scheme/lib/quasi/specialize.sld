;; (quasi specialize) — the online partial evaluator: (specialize f arg ...) folds the static
;; arguments into f and returns the residual procedure (lib/pe/README.md).
(define-library (quasi specialize)
  (import (quasi core))
  (export specialize specialize* specialize-stats residual print-residual))
