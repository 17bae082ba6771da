;;; saddle-grad.scm — the saddle benchmark (after Siskind & Pearlmutter's, our own version) with
;;; Quasi's `grad`: minimize over x = (x1 x2) the maximum over y = (y1 y2) of f(x, y), each by a
;;; fixed number of gradient steps; the outer gradient differentiates through the inner ascent
;;; (reverse over reverse). Prints round(1e6 x1*) + round(1e6 x2*), repeated `reps` times.
(define (f x1 x2 y1 y2)
  (+ (* x1 x1) (* x2 x2) (- (* y1 y1)) (- (* y2 y2)) (* 0.5 x1 y1) (* -0.3 x2 y2) (* 0.1 x1) (* -0.2 y2)))

(define (argmax-y x1 x2)
  (let ((g (grad (lambda (y) (f x1 x2 (car y) (cdr y))))))
    (let loop ((y (cons 1.0 1.0)) (k 0))
      (if (= k 20)
          y
          (let ((d (g y)))
            (loop (cons (+ (car y) (* 0.2 (car d))) (+ (cdr y) (* 0.2 (cdr d)))) (+ k 1)))))))

(define (outer x)
  (let ((y (argmax-y (car x) (cdr x))))
    (f (car x) (cdr x) (car y) (cdr y))))

(define (argmin-x)
  (let ((g (grad outer)))
    (let loop ((x (cons 1.0 1.0)) (k 0))
      (if (= k 20)
          x
          (let ((d (g x)))
            (loop (cons (- (car x) (* 0.2 (car d))) (- (cdr x) (* 0.2 (cdr d)))) (+ k 1)))))))

(define (run reps)
  (let loop ((i 0) (x #f))
    (if (= i reps) x (loop (+ i 1) (argmin-x)))))
(define x (run (if (pair? (cdr (command-line))) (string->number (cadr (command-line))) 20)))
(display (+ (exact (round (* 1e6 (car x)))) (exact (round (* 1e6 (cdr x))))))
(newline)
