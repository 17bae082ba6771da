;;; least-squares.scm — fit y = a x + b to noisy points by gradient descent, with `grad`
;;; computing the gradient of the squared error with respect to the parameter pair (a . b).
;;; Run: quasi least-squares.scm
(define xs '(0.0 1.0 2.0 3.0 4.0 5.0))
(define ys '(1.1 2.9 5.2 7.1 8.8 11.2))   ; about y = 2x + 1

(define (loss p)
  (let ((a (car p)) (b (cdr p)))
    (let loop ((xs xs) (ys ys) (s 0.0))
      (if (null? xs)
          s
          (loop (cdr xs) (cdr ys) (+ s (square (- (+ (* a (car xs)) b) (car ys)))))))))

(define dloss (grad loss))

(define (descend p steps rate)
  (if (= steps 0)
      p
      (let ((g (dloss p)))
        (descend (cons (- (car p) (* rate (car g))) (- (cdr p) (* rate (cdr g))))
                 (- steps 1) rate))))

(define fit (descend (cons 0.0 0.0) 2000 0.01))
(display "a = ") (display (car fit)) (display ", b = ") (display (cdr fit)) (newline)
(display "loss = ") (display (loss fit)) (newline)
;; The normal equations give a = Sxy / Sxx = 35.05 / 17.5, b = mean(y) - a mean(x).
(define a* (/ 35.05 17.5))
(define b* (- 6.05 (* a* 2.5)))
(display (if (and (< (abs (- (car fit) a*)) 1e-6) (< (abs (- (cdr fit) b*)) 1e-6))
             "converged" "FAILED"))
(newline)
