;;; saddle-hand.scm — the saddle benchmark with hand-written derivative code: the same
;;; iterations as saddle-grad.scm, the outer gradient computed by propagating dy/dx through the
;;; inner ascent by hand (what reverse-over-reverse computes, written out).
(define (f x1 x2 y1 y2)
  (+ (* x1 x1) (* x2 x2) (- (* y1 y1)) (- (* y2 y2)) (* 0.5 x1 y1) (* -0.3 x2 y2) (* 0.1 x1) (* -0.2 y2)))
;; df/dy1 = -2 y1 + 0.5 x1, df/dy2 = -2 y2 - 0.3 x2 - 0.2; y1 depends on x1 only, y2 on x2 only.
(define (outer-grad x1 x2)
  (let loop ((y1 1.0) (y2 1.0) (s1 0.0) (s2 0.0) (k 0))  ; s1 = dy1/dx1, s2 = dy2/dx2
    (if (= k 20)
        (cons (+ (* 2 x1) (* 0.5 y1) 0.1 (* (+ (* -2 y1) (* 0.5 x1)) s1))
              (+ (* 2 x2) (* -0.3 y2) (* (+ (* -2 y2) (* -0.3 x2) -0.2) s2)))
        (loop (+ y1 (* 0.2 (+ (* -2 y1) (* 0.5 x1))))
              (+ y2 (* 0.2 (+ (* -2 y2) (* -0.3 x2) -0.2)))
              (+ s1 (* 0.2 (+ (* -2 s1) 0.5)))
              (+ s2 (* 0.2 (+ (* -2 s2) -0.3)))
              (+ k 1)))))
(define (argmin-x)
  (let loop ((x1 1.0) (x2 1.0) (k 0))
    (if (= k 20)
        (cons x1 x2)
        (let ((d (outer-grad x1 x2)))
          (loop (- x1 (* 0.2 (car d))) (- x2 (* 0.2 (cdr d))) (+ k 1))))))
(define (run reps)
  (let loop ((i 0) (x #f))
    (if (= i reps) x (loop (+ i 1) (argmin-x)))))
(define x (run (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 20)))
(display (+ (exact (round (* 1e6 (car x)))) (exact (round (* 1e6 (cdr x))))))
(newline)
