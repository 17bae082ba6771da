;;; Quasi version of ../shared/bench-suite/programs/pe-power.scm that calls `specialize`
;;; (same output). The exponent is fixed once: power16 = (specialize* power '((1 . 16))).
;;; pe-power.scm -- partial-evaluation showcase (a): power with a static exponent.
;;; (power x n) recurses on n only.  Every call below passes the same constant
;;; n = 16 while x changes at run time, so an online specializer can unfold the
;;; recursion into a straight chain of 16 multiplications.
;;; Work unit: one call (power x 16) with x in 0..3, summed modulo 1000003.
(define (power x n)
  (if (= n 0)
      1
      (* x (power x (- n 1)))))

(define power16 (specialize* power '((1 . 16))))   ; the residual: 16 multiplications

(define (main reps)
  (let loop ((i reps) (acc 0))
    (if (= i 0)
        acc
        (loop (- i 1)
              (remainder (+ acc (power16 (remainder i 4))) 1000003)))))

(display (main 10000000))
(newline)
