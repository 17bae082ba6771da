;;; particle-spec.scm — the particle benchmark with Quasi's `grad` and `derivative` and the
;;; partial evaluator: the same simulation and Newton iterations as particle-grad.scm, written
;;; the way to make `specialize` apply. The potential's gradient is taken with respect to x0 x1
;;; of the potential itself (not of a closure over w), so (specialize (grad potential '(0 1))) is
;;; straight-line arithmetic (lib/ad/README.md, "Residuals"); miss'(w) = (derivative miss)
;;; differentiates through the Euler steps, which call that residual procedure (forward over
;;; reverse).
(define dt 0.1)
(define (potential x0 x1 w)
  (+ (/ 1.0 (sqrt (+ (square (- x0 10.0)) (square (- x1 (- 10.0 w))))))
     (/ 1.0 (sqrt (+ (square (- x0 10.0)) (square x1))))))
(define dp (specialize (grad potential '(0 1))))

(define (miss w)
  (let loop ((x0 0.0) (x1 8.0) (v0 0.75) (v1 0.0))
    (let ((xn1 (+ x1 (* dt v1))))
      (if (> xn1 0.0)
          (let ((g (dp x0 x1 w)))
            (loop (+ x0 (* dt v0)) xn1 (- v0 (* dt (car g))) (- v1 (* dt (cadr g)))))
          (let ((tf (/ (- x1) v1)))
            (+ x0 (* tf v0)))))))

(define dmiss (derivative miss))
(define (newton)
  (let loop ((w 0.0) (k 0))
    (if (= k 6) w (loop (- w (/ (miss w) (dmiss w))) (+ k 1)))))

(define (run reps)
  (let loop ((i 0) (w #f))
    (if (= i reps) w (loop (+ i 1) (newton)))))
(define w (run (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 5)))
(display (exact (round (* 1e6 w))))
(newline)
