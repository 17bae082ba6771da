;; (quasi ad) — automatic differentiation by source transformation of the core IR
;; (lib/ad/README.md): reverse mode (grad, value-and-grad, vjp).
(define-library (quasi ad)
  (import (quasi core))
  (export grad value-and-grad vjp jvp derivative jacobian hessian))
