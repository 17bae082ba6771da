;;; ad-harness.scm — what the AD tests compare gradients with (included after harness.scm):
;;; central finite differences with a step of 1e-6 scaled by |x|, and agreement to a relative
;;; 1e-5. One place for the tolerance every AD test states.

(define (fd f x)
  (let ((h (* 1e-6 (max 1.0 (abs x)))))
    (/ (- (f (+ x h)) (f (- x h))) (* 2 h))))
(define (close? a b)
  (<= (abs (- a b)) (* 1e-5 (max 1.0 (abs a) (abs b)))))
