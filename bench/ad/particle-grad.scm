;;; particle-grad.scm — the particle benchmark (after Siskind & Pearlmutter's second example, our
;;; own version) with Quasi's `grad` and `derivative`: a charged particle starts at (0, 8) with
;;; velocity (0.75, 0) and moves in the plane, pushed away from two point charges at (10, 10 - w)
;;; and (10, 0): its acceleration is minus the gradient of the potential
;;; p(x) = 1/|x - c1| + 1/|x - c2| (reverse mode, an inner `grad` of a closure over w).
;;; Naive Euler steps of dt = 0.1 until it crosses the x-axis; linear interpolation gives where
;;; it lands: miss(w) = x0 at the crossing. Newton's method picks w so that the particle lands
;;; on the origin, w <- w - miss(w) / miss'(w), with miss' = (derivative miss) taken through the
;;; inner gradient (forward over reverse). Prints round(1e6 w*), repeated `reps` times.
(define dt 0.1)
(define (potential x w)
  (+ (/ 1.0 (sqrt (+ (square (- (car x) 10.0)) (square (- (cdr x) (- 10.0 w))))))
     (/ 1.0 (sqrt (+ (square (- (car x) 10.0)) (square (cdr x)))))))

(define (miss w)
  (let ((dp (grad (lambda (x) (potential x w)))))
    (let loop ((x (cons 0.0 8.0)) (v (cons 0.75 0.0)))
      (let ((xn (cons (+ (car x) (* dt (car v))) (+ (cdr x) (* dt (cdr v))))))
        (if (> (cdr xn) 0.0)
            (let ((g (dp x)))
              (loop xn (cons (- (car v) (* dt (car g))) (- (cdr v) (* dt (cdr g))))))
            (let ((tf (/ (- (cdr x)) (cdr v))))
              (+ (car x) (* tf (car v)))))))))

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
