;;; ad-particle-test.scm — the particle benchmark's derivative (bench/ad/particle-*.scm) at a
;;; small size: miss'(w), taken by `derivative` through an inner `grad` of a closure over w
;;; (forward over reverse), agrees with the hand-written derivative code and with finite
;;; differences, and Newton's method lands where the hand-written version lands.
(include "harness.scm")
(include "ad-harness.scm")

(define dt 0.4)   ; the benchmark's is 0.1: fewer Euler steps here
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

;; the hand-written version (bench/ad/particle-hand.scm)
(define (charge d0 d1 e0 e1 k)
  (let* ((r2 (+ (* d0 d0) (* d1 d1))) (r (sqrt r2)) (r3 (* r2 r)) (r5 (* r3 r2))
         (de (+ (* d0 e0) (* d1 e1))))
    (k (/ d0 r3) (/ d1 r3)
       (- (/ e0 r3) (/ (* 3.0 d0 de) r5)) (- (/ e1 r3) (/ (* 3.0 d1 de) r5)))))
(define (miss-and-derivative w)
  (let loop ((x0 0.0) (x1 8.0) (v0 0.75) (v1 0.0) (dx0 0.0) (dx1 0.0) (dv0 0.0) (dv1 0.0))
    (let ((xn1 (+ x1 (* dt v1))))
      (if (> xn1 0.0)
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

(for-each
 (lambda (w)
   (let ((h (miss-and-derivative w)))
     (test-approx (string-append "miss at " (number->string w)) (car h) (miss w))
     (test-assert (string-append "miss' at " (number->string w) " = hand-written")
                  (close? (cdr h) (dmiss w)))
     (test-assert (string-append "miss' at " (number->string w) " = finite differences")
                  (close? (fd miss w) (dmiss w)))))
 '(0.0 0.1 0.3 -0.1))

;; particle-spec.scm's form: the potential's gradient specialized to straight-line code, and
;; miss' differentiating through that residual procedure
(define (potential3 x0 x1 w) (potential (cons x0 x1) w))
(define dp3 (specialize (grad potential3 '(0 1))))
(define (miss3 w)
  (let loop ((x0 0.0) (x1 8.0) (v0 0.75) (v1 0.0))
    (let ((xn1 (+ x1 (* dt v1))))
      (if (> xn1 0.0)
          (let ((g (dp3 x0 x1 w)))
            (loop (+ x0 (* dt v0)) xn1 (- v0 (* dt (car g))) (- v1 (* dt (cadr g)))))
          (let ((tf (/ (- x1) v1)))
            (+ x0 (* tf v0)))))))
(define dmiss3 (derivative miss3))
(for-each
 (lambda (w)
   (let ((h (miss-and-derivative w)))
     (test-approx (string-append "specialized: miss at " (number->string w)) (car h) (miss3 w))
     (test-assert (string-append "specialized: miss' at " (number->string w) " = hand-written")
                  (close? (cdr h) (dmiss3 w)))))
 '(0.0 0.3))

(define (newton step)
  (let loop ((w 0.0) (k 0))
    (if (= k 5) w (loop (- w (step w)) (+ k 1)))))
(define w-grad (newton (lambda (w) (/ (miss w) (dmiss w)))))
(define w-hand (newton (lambda (w) (let ((m (miss-and-derivative w))) (/ (car m) (cdr m))))))
(test-assert "Newton lands where the hand-written version lands" (close? w-hand w-grad))
(test-assert "and the particle lands near the origin" (< (abs (miss w-grad)) 1e-6))
(test-end)
