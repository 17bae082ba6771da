;;; bignum-test.scm — huge exact numbers: GMP's large temporaries (conversions, multiplication,
;;; powers) must survive collections that happen while GMP works (issue 8: number->string and
;;; string->number of millions of digits, expt twice, repeated squaring crashed or looped).
(include "harness.scm")

(define (digits n) (string-length (number->string n)))

;; Each loop runs the conversion often enough that the collector runs during one of them.
(test "number->string of 7^2000000, three times" '(1690197 1690197 1690197)
      (let loop ((i 0) (acc '()))
        (if (= i 3) acc (loop (+ i 1) (cons (digits (expt 7 2000000)) acc)))))
(test "string->number of 2,000,000 digits, three times" '(#t #t #t)
      (let loop ((i 0) (acc '()))
        (if (= i 3)
            acc
            (loop (+ i 1)
                  (cons (= (string->number (make-string 2000000 #\7))
                           (* 7 (quotient (- (expt 10 2000000) 1) 9)))
                        acc)))))
(test "expt 3 10000000 twice" #t
      (let ((a (expt 3 10000000)) (b (expt 3 10000000)))
        (= a b)))
(test "squaring a 3,000,000th power twice" #t
      (let* ((a (expt 7 3000000)) (b (* a a)) (c (* a a)))
        (and (= b c) (= a (quotient b a)))))
(test "round trip of a 100,000-digit number" #t
      (let ((n (- (expt 10 100000) 12345678901234567890)))
        (= n (string->number (number->string n)))))
(test "huge rationals" #t
      (let ((q (/ (expt 3 200001) (expt 2 300001))))
        (and (= (numerator q) (expt 3 200001))
             (= q (string->number (number->string q))))))

(test-end)
