;;; 60-complex-real.scm — (scheme complex) on the real numbers, which are all the numbers Quasi has
;;; until complex numbers land in lib/core/numbers (issue 10, point 7; R7RS makes them optional).
;;; Each procedure is exact on its real domain; a non-zero imaginary part is refused with an error
;;; naming the procedure. Delete this file when the numeric tower has complex numbers.

(define (real-part z)
  (if (real? z) z (error "real-part: expected a number, got" z)))

(define (imag-part z)
  (if (real? z) (if (exact? z) 0 0.0) (error "imag-part: expected a number, got" z)))

(define (magnitude z)
  (if (real? z) (abs z) (error "magnitude: expected a number, got" z)))

;; The angle of a real: 0 for a non-negative one, pi for a negative one (R7RS 6.2.6).
(define (angle z)
  (cond ((not (real? z)) (error "angle: expected a number, got" z))
        ((negative? z) (atan 0 -1))
        ((exact? z) 0)
        (else 0.0)))

(define (make-rectangular x y)
  (cond ((not (and (real? x) (real? y))) (error "make-rectangular: expected real numbers, got" x y))
        ((and (exact? y) (zero? y)) x)
        (else (error "make-rectangular: complex numbers are not supported, imaginary part" y))))

(define (make-polar r theta)
  (cond ((not (and (real? r) (real? theta))) (error "make-polar: expected real numbers, got" r theta))
        ((and (exact? theta) (zero? theta)) r)
        (else (error "make-polar: complex numbers are not supported, angle" theta))))
