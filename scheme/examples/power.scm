;;; power.scm — a static exponent: the recursion on n disappears and the residual procedure is a
;;; straight chain of multiplications.
;;; Run: quasi scheme/examples/power.scm

(define (power x n)
  (if (= n 0)
      1
      (* x (power x (- n 1)))))

;; Fix the second parameter (position 1) to 16; the residual takes x.
(define power16 (specialize* power '((1 . 16))))
(print-residual power16)
(display (power16 2)) (newline)                    ; 65536

;; The exponent first, as a curried form: (specialize f arg) fixes leading arguments.
(define (power-n n x) (power x n))
(define cube (specialize power-n 3))
(print-residual cube)                              ; (lambda (x) (* x (* x (* x 1))))
(display (map cube '(1 2 3 4))) (newline)          ; (1 8 27 64)
