;;; saddle-spec.scm — the saddle benchmark with Quasi's `grad` and the partial evaluator: the
;;; same iterations as saddle-grad.scm, written the way to make `specialize` apply. The inner
;;; gradient is taken with respect to y1 y2 of f itself (not of a closure over x1 x2), so
;;; (specialize (grad f '(2 3))) is straight-line arithmetic (lib/ad/README.md, "Residuals");
;;; the outer gradient differentiates through the inner ascent, which calls that residual
;;; procedure (reverse over reverse).
(define (f x1 x2 y1 y2)
  (+ (* x1 x1) (* x2 x2) (- (* y1 y1)) (- (* y2 y2)) (* 0.5 x1 y1) (* -0.3 x2 y2) (* 0.1 x1) (* -0.2 y2)))
(define df/dy (specialize (grad f '(2 3))))

(define (argmax-y x1 x2)
  (let loop ((y1 1.0) (y2 1.0) (k 0))
    (if (= k 20)
        (cons y1 y2)
        (let ((d (df/dy x1 x2 y1 y2)))
          (loop (+ y1 (* 0.2 (car d))) (+ y2 (* 0.2 (cadr d))) (+ k 1))))))

(define (outer x1 x2)
  (let ((y (argmax-y x1 x2)))
    (f x1 x2 (car y) (cdr y))))
(define d-outer (grad outer))

(define (argmin-x)
  (let loop ((x1 1.0) (x2 1.0) (k 0))
    (if (= k 20)
        (cons x1 x2)
        (let ((d (d-outer x1 x2)))
          (loop (- x1 (* 0.2 (car d))) (- x2 (* 0.2 (cadr d))) (+ k 1))))))

(define (run reps)
  (let loop ((i 0) (x #f))
    (if (= i reps) x (loop (+ i 1) (argmin-x)))))
(define x (run (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 20)))
(display (+ (exact (round (* 1e6 (car x)))) (exact (round (* 1e6 (cdr x))))))
(newline)
