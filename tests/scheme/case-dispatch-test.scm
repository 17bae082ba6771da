;;; case-dispatch-test.scm — `case` compares its key with eqv? whatever the expander emits for
;;; a clause: eq?/memq for data that are not heap numbers (symbols, fixnums, characters,
;;; booleans, ()), memv/eqv? for flonums, bignums and ratnums.
(include "harness.scm")

(define (classify x)
  (case x
    ((a b c) 'abc)
    ((d) 'd)
    ((1 2) 'small)
    ((#\x #\y) 'char)
    ((1.5) 'flo)
    ((()) 'nil)
    ((#t) 'true)
    ((#f) 'false)
    ((100000000000000000000) 'big)
    ((1/3) 'third)
    ((0.0) 'zero)
    (("s") 'string)
    ((3 4 5 6 7 8 9 10 11 12) 'long)
    (else 'other)))

(test "symbols" '(abc abc abc d) (map classify '(a b c d)))
(test "fixnums" '(small small) (map classify (list 1 (+ 1 1))))
(test "characters" '(char char) (map classify (list #\x (integer->char 121))))
(test "flonum by eqv" 'flo (classify (/ 3.0 2)))
(test "fixnum datum, flonum key" 'other (classify 2.0))
(test "flonum datum, exact key" 'other (classify 3/2))
(test "empty list" 'nil (classify (cdr '(1))))
(test "booleans" '(true false) (map classify (list (= 1 1) (= 1 2))))
(test "bignum by eqv" 'big (classify (expt 10 20)))
(test "ratnum by eqv" 'third (classify (/ 2 6)))
(test "0.0 is not -0.0" '(zero other) (map classify (list (- 1.0 1.0) (- 0.0))))
(test "strings are not eqv" 'other (classify (string #\s)))
(test "long clause" '(long long long) (map classify '(3 7 12)))
(test "not listed" '(other other other) (map classify (list 'e 13 (vector))))

(define (arrow x) (case x ((a b) => (lambda (k) (list k 'ab))) (else => (lambda (k) (list 'else k)))))
(test "=> gets the key" '((a ab) (b ab) (else z)) (map arrow '(a b z)))

(define (count-vowels s)
  (let loop ((i 0) (n 0))
    (if (= i (string-length s))
        n
        (loop (+ i 1) (case (string-ref s i) ((#\a #\e #\i #\o #\u) (+ n 1)) (else n))))))
(test "in a loop" 6 (count-vowels "the quick brown fox jumps"))

(test-end)
