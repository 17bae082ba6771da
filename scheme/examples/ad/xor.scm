;;; xor.scm — a tiny neural network (2 inputs, 3 tanh hidden units, 1 output) trained on XOR by
;;; gradient descent; `grad` differentiates the loss with respect to the parameter vector.
;;; Run: quasi xor.scm
(define (tanh x) (let ((e (exp (* 2 x)))) (/ (- e 1) (+ e 1))))

;; p: #(w11 w12 w21 w22 w31 w32  b1 b2 b3  v1 v2 v3  c)
(define (net p x1 x2)
  (define (hidden i)
    (tanh (+ (* (vector-ref p (* 2 i)) x1) (* (vector-ref p (+ (* 2 i) 1)) x2) (vector-ref p (+ 6 i)))))
  (+ (* (vector-ref p 9) (hidden 0)) (* (vector-ref p 10) (hidden 1)) (* (vector-ref p 11) (hidden 2))
     (vector-ref p 12)))

(define data '((0.0 0.0 0.0) (0.0 1.0 1.0) (1.0 0.0 1.0) (1.0 1.0 0.0)))

(define (loss p)
  (let loop ((d data) (s 0.0))
    (if (null? d)
        s
        (let ((x1 (car (car d))) (x2 (cadr (car d))) (t (caddr (car d))))
          (loop (cdr d) (+ s (square (- (net p x1 x2) t))))))))

(define dloss (grad loss))

(define (train p steps rate)
  (if (= steps 0)
      p
      (let ((g (dloss p)))
        (train (vector-map (lambda (w gw) (- w (* rate gw))) p g) (- steps 1) rate))))

(define p0 (vector 0.5 -0.4 0.3 0.8 -0.7 0.2  0.1 -0.1 0.05  0.6 -0.5 0.4  0.0))
(define p (train p0 1500 0.1))
(display "loss = ") (display (loss p)) (newline)
(for-each (lambda (d)
            (display (list (car d) (cadr d) '-> (net p (car d) (cadr d)))) (newline))
          data)
(display (if (< (loss p) 0.01) "converged" "FAILED")) (newline)
