;;; specialize-time.scm — how long `specialize` itself takes: (specialize power 16) on many
;;; fresh procedures (a fresh closure each time, so the cache never answers), timed with
;;; current-jiffy. Prints microseconds per specialization.
;;; Run: quasi scheme/examples/bench/specialize-time.scm

(define (make-power)
  (define (power x n) (if (= n 0) 1 (* x (power x (- n 1)))))
  power)

(define count 2000)
(define procs (let loop ((i 0) (acc '())) (if (= i count) (list->vector acc) (loop (+ i 1) (cons (make-power) acc)))))

(define (per-call-us thunk)
  (let ((t0 (current-jiffy)))
    (let loop ((i 0)) (if (< i count) (begin (thunk i) (loop (+ i 1)))))
    (/ (* 1e6 (- (current-jiffy) t0)) (* 1.0 count (jiffies-per-second)))))

(display "(specialize* power '((1 . 16))), fresh procedures: ")
(display (per-call-us (lambda (i) (specialize* (vector-ref procs i) '((1 . 16))))))
(display " us") (newline)
(display "the same request again (cache hit): ")
(display (per-call-us (lambda (i) (specialize* (vector-ref procs i) '((1 . 16))))))
(display " us") (newline)
