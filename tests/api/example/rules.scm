;;; Pricing rules of a small shop, edited by the sales team without rebuilding the application.
;;; The host (main.cpp) provides the `order` type and `note`; this file runs in a sandbox.

(define free-shipping-from 100)   ; configuration values the host reads back
(define currency "EUR")

;; A rule looks at an order and returns a discount fraction, or #f when it does not apply.
(define (loyal-customer order)
  (and (>= (order-loyalty-years order) 3) 0.05))

(define (bulk-order order)
  (and (>= (length (order-items order)) 10) 0.10))

(define (spring-sale order)
  (and (member "umbrella" (order-items order)) 0.15))

(define rules (list loyal-customer bulk-order spring-sale))

(define (discount order)
  (let loop ((rs rules) (best 0))
    (if (null? rs)
        best
        (let ((d ((car rs) order)))
          (when d (note (string-append (order-customer order) ": discount " (number->string d))))
          (loop (cdr rs) (if (and d (> d best)) d best))))))

(define (shipping order subtotal)
  (cond ((string=? (order-country order) "DE") 0)
        ((>= subtotal free-shipping-from) 0)
        (else 4.5)))

(define (total order)
  (let* ((subtotal (* (order-subtotal order) (- 1 (discount order)))))
    (+ subtotal (shipping order subtotal))))
