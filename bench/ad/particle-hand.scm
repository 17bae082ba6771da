;;; particle-hand.scm — the particle benchmark with hand-written derivative code: the same
;;; simulation and Newton iterations as particle-grad.scm, the potential's gradient written out,
;;; and miss'(w) computed by carrying d/dw of position and velocity through the Euler steps
;;; (what the forward-over-reverse derivative computes, written out).
(define dt 0.1)
;; The acceleration -grad p at (x0, x1) is the sum over the charges c of (x - c) / |x - c|^3.
;; For one charge, with e = d(x - c)/dw, d/dw of (x - c)/r^3 is e/r^3 - 3 (x - c) ((x - c).e)/r^5.
;; Returns (a0 a1 da0 da1) as four values into k.
(define (charge d0 d1 e0 e1 k)
  (let* ((r2 (+ (* d0 d0) (* d1 d1))) (r (sqrt r2)) (r3 (* r2 r)) (r5 (* r3 r2))
         (de (+ (* d0 e0) (* d1 e1))))
    (k (/ d0 r3) (/ d1 r3)
       (- (/ e0 r3) (/ (* 3.0 d0 de) r5)) (- (/ e1 r3) (/ (* 3.0 d1 de) r5)))))
;; miss(w) and miss'(w), as a pair.
(define (miss-and-derivative w)
  (let loop ((x0 0.0) (x1 8.0) (v0 0.75) (v1 0.0)        ; state
             (dx0 0.0) (dx1 0.0) (dv0 0.0) (dv1 0.0))    ; its derivative with respect to w
    (let ((xn1 (+ x1 (* dt v1))))
      (if (> xn1 0.0)
          ;; c1 = (10, 10 - w): d(x - c1)/dw = dx + (0, 1); c2 = (10, 0): d(x - c2)/dw = dx
          (charge (- x0 10.0) (- x1 (- 10.0 w)) dx0 (+ dx1 1.0)
            (lambda (a0 a1 da0 da1)
              (charge (- x0 10.0) x1 dx0 dx1
                (lambda (b0 b1 db0 db1)
                  (loop (+ x0 (* dt v0)) xn1
                        (+ v0 (* dt (+ a0 b0))) (+ v1 (* dt (+ a1 b1)))
                        (+ dx0 (* dt dv0)) (+ dx1 (* dt dv1))
                        (+ dv0 (* dt (+ da0 db0))) (+ dv1 (* dt (+ da1 db1))))))))
          (let* ((tf (/ (- x1) v1))
                 (dtf (/ (- (* x1 dv1) (* dx1 v1)) (* v1 v1))))
            (cons (+ x0 (* tf v0)) (+ dx0 (* dtf v0) (* tf dv0))))))))

(define (newton)
  (let loop ((w 0.0) (k 0))
    (if (= k 6)
        w
        (let ((m (miss-and-derivative w)))
          (loop (- w (/ (car m) (cdr m))) (+ k 1))))))

(define (run reps)
  (let loop ((i 0) (w #f))
    (if (= i reps) w (loop (+ i 1) (newton)))))
(define w (run (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 5)))
(display (exact (round (* 1e6 w))))
(newline)
