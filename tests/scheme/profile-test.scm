;;; profile-test.scm — (profile thunk [interval]): the statistical profiler's values, in every
;;; mode (interpreted, compiled, optimizer off). Only what holds on a loaded machine is checked:
;;; the shape of the result, that a procedure busy for a quarter second is sampled, and errors.
(include "harness.scm")

(define (burn end) (if (< (current-jiffy) end) (burn end) 'done))
(define (busy-for seconds)
  (burn (+ (current-jiffy) (exact (round (* seconds (jiffies-per-second)))))))

(define-values (value prof) (profile (lambda () (busy-for 1/4)) 500))
(test "profile returns the thunk's value" 'done value)
(test-assert "a sample count" (and (exact-integer? (car prof)) (>= (car prof) 0)))
(test "the interval in seconds" 0.0005 (cadr prof))
(test-assert "entries are (name location self total)"
  (let loop ((es (cddr prof)))
    (or (null? es)
        (let ((e (car es)))
          (and (= (length e) 4) (exact-integer? (caddr e)) (>= (cadddr e) (caddr e)) (loop (cdr es)))))))
(test-assert "self counts add up to at most the samples"
  (<= (apply + (map caddr (cddr prof))) (car prof)))
(test-assert "the busy procedure is sampled (given any samples at all)"
  (or (zero? (car prof)) (assq 'burn (cddr prof))))
(test-assert "and sorted: most self samples first"
  (let loop ((es (cddr prof)))
    (or (null? es) (null? (cdr es)) (and (>= (caddr (car es)) (caddr (cadr es))) (loop (cdr es))))))

(test-error "profile needs a procedure" (profile 5))
(test-error "the interval has bounds" (profile (lambda () 1) 1))
(test-error "no profile inside a profile" (profile (lambda () (profile (lambda () 1)))))
(test "an error in the thunk leaves no profiler behind" 'second
  (begin (guard (e (#t #f)) (profile (lambda () (car '())))) (call-with-values (lambda () (profile (lambda () 'second))) (lambda (v p) v))))

(test-end)
