;;; saddle.scm — a saddle point by nested optimization: minimize over x the maximum over y of
;;; f(x, y). The inner maximization runs gradient ascent with `grad` with respect to y; the
;;; outer descent differentiates *through* that inner optimization (gradients inside gradients),
;;; the shape of Siskind & Pearlmutter's saddle example.
;;; Run: quasi saddle.scm
;; f(x, y) = x^2 - y^2 + x y / 2 - x / 2 + y / 4, concave in y, convex in x.
(define (f x y) (+ (* x x) (- (* y y)) (* 0.5 x y) (* -0.5 x) (* 0.25 y)))

(define (argmax-y x)
  (let ((dfy (grad (lambda (y) (f x y)))))
    (let loop ((y 0.0) (n 0))
      (if (= n 40) y (loop (+ y (* 0.25 (dfy y))) (+ n 1))))))

(define (outer x) (f x (argmax-y x)))   ; max over y of f(x, y), as a function of x

(define dout (grad outer))
(define x* (let loop ((x 1.0) (n 0)) (if (= n 40) x (loop (- x (* 0.25 (dout x))) (+ n 1)))))
(define y* (argmax-y x*))
(display "saddle at x = ") (display x*) (display ", y = ") (display y*) (newline)
;; Exact solution: df/dx = 2x + y/2 - 1/2 = 0, df/dy = -2y + x/2 + 1/4 = 0  =>  x = 7/34, y = 3/17
(display (if (and (< (abs (- x* (/ 7. 34))) 1e-6) (< (abs (- y* (/ 3. 17))) 1e-6)) "converged" "FAILED"))
(newline)
