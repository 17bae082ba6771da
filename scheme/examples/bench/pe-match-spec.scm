;;; Quasi version of ../shared/bench-suite/programs/pe-match.scm that calls `specialize`
;;; (same output). The matcher is specialized to the fixed pattern once: count-pattern = (specialize count-matches pattern).
;;; pe-match.scm -- partial-evaluation showcase (c): naive string matching with
;;; a fixed pattern over many texts (the classic "KMP test").  The matcher
;;; restarts at the next text position after every mismatch; specializing it
;;; to the static pattern can yield a KMP-like matcher.
;;; Work unit: count the occurrences of the pattern in 50 texts of 400 chars.

(define (match-at? pat text start)
  (let loop ((i 0))
    (cond ((= i (string-length pat)) #t)
          ((char=? (string-ref pat i) (string-ref text (+ start i)))
           (loop (+ i 1)))
          (else #f))))

(define (count-matches pat text)
  (let ((last (- (string-length text) (string-length pat))))
    (let loop ((s 0) (c 0))
      (if (> s last)
          c
          (loop (+ s 1) (if (match-at? pat text s) (+ c 1) c))))))

;; Deterministic pseudo-random texts over {a, b}: LCG x' = (75x + 74) mod 65537.
(define (next-seed x) (remainder (+ (* x 75) 74) 65537))

(define (make-text len seed)
  (let ((s (make-string len #\a)))
    (let loop ((i 0) (x seed))
      (if (= i len)
          s
          (begin
            (if (odd? (quotient x 256)) (string-set! s i #\b) #f)
            (loop (+ i 1) (next-seed x)))))))

(define (make-texts n len seed)
  (if (= n 0)
      '()
      (cons (make-text len seed)
            (make-texts (- n 1) len (next-seed (+ seed 7919))))))

(define texts (make-texts 50 400 1))

(define pattern "abaababa")

(define count-pattern (specialize count-matches pattern))

(define (count-all texts acc)
  (if (null? texts)
      acc
      (count-all (cdr texts) (+ acc (count-pattern (car texts))))))

(define (main reps)
  (let loop ((i 0) (acc 0))
    (if (= i reps)
        acc
        (loop (+ i 1) (+ acc (count-all texts 0))))))

(display (main 1500))
(newline)
