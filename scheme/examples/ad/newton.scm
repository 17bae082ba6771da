;;; newton.scm — Newton's method for a root of f, with f' from forward-mode `derivative`.
;;; Run: quasi newton.scm
(define (newton f x tolerance)
  (let ((df (derivative f)))
    (let loop ((x x) (n 0))
      (let ((step (/ (f x) (df x))))
        (if (< (abs step) tolerance)
            (values x n)
            (loop (- x step) (+ n 1)))))))

(define (report name f x0 expected)
  (call-with-values (lambda () (newton f x0 1e-12))
    (lambda (root steps)
      (display name) (display ": ") (display root)
      (display " after ") (display steps) (display " steps") (newline)
      (abs (- root expected)))))

(define e1 (report "sqrt 2" (lambda (x) (- (* x x) 2)) 1.0 (sqrt 2)))
(define e2 (report "cos x = x" (lambda (x) (- (cos x) x)) 1.0 0.7390851332151607))
(define e3 (report "x^3 - 2x - 5" (lambda (x) (- (* x x x) (* 2 x) 5)) 2.0 2.0945514815423265))
(display (if (< (max e1 e2 e3) 1e-10) "converged" "FAILED")) (newline)
