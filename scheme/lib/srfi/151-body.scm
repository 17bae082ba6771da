;;; 151-body.scm — the SRFI 151 procedures the core does not have (included by srfi/151.sld).
;;; Integers are two's complement with infinitely many sign bits; bit 0 is the least significant.

(define (%check-int who n)
  (if (not (exact-integer? n)) (error (string-append who ": expected an exact integer, got") n)))
(define (%check-index who k)
  (if (not (and (exact-integer? k) (>= k 0)))
      (error (string-append who ": expected a non-negative exact integer, got") k)))

(define bitwise-ior bitwise-or)
(define (bitwise-eqv . ns)  ; associative, identity -1
  (let loop ((ns ns) (acc -1))
    (if (null? ns) acc (loop (cdr ns) (bitwise-not (bitwise-xor acc (car ns)))))))
(define (bitwise-nand a b) (bitwise-not (bitwise-and a b)))
(define (bitwise-nor a b) (bitwise-not (bitwise-or a b)))
(define (bitwise-andc1 a b) (bitwise-and (bitwise-not a) b))
(define (bitwise-andc2 a b) (bitwise-and a (bitwise-not b)))
(define (bitwise-orc1 a b) (bitwise-or (bitwise-not a) b))
(define (bitwise-orc2 a b) (bitwise-or a (bitwise-not b)))

(define (shift-left n k) (%check-index "shift-left" k) (arithmetic-shift n k))
(define (shift-right n k) (%check-index "shift-right" k) (arithmetic-shift n (- k)))

;; Bits needed for n without its sign: (integer-length -1) = 0, (integer-length 255) = 8.
(define (integer-length n)
  (%check-int "integer-length" n)
  (let ((n (if (negative? n) (bitwise-not n) n)))
    (let big ((n n) (len 0))
      (if (>= n 4294967296)
          (big (arithmetic-shift n -32) (+ len 32))
          (let small ((n n) (len len))
            (if (= n 0) len (small (arithmetic-shift n -1) (+ len 1))))))))

;; Bits of then where mask is 1, of else where it is 0.
(define (bitwise-if mask then else)
  (bitwise-or (bitwise-and mask then) (bitwise-and (bitwise-not mask) else)))

(define (bit-set? index n)
  (%check-index "bit-set?" index)
  (not (zero? (bitwise-and n (arithmetic-shift 1 index)))))

(define (copy-bit index n bit)
  (%check-index "copy-bit" index)
  (let ((b (arithmetic-shift 1 index)))
    (if (or (eq? bit #t) (eqv? bit 1))
        (bitwise-or n b)
        (bitwise-and n (bitwise-not b)))))

(define (bit-swap i j n)
  (let ((bi (bit-set? i n)) (bj (bit-set? j n)))
    (copy-bit i (copy-bit j n bi) bj)))

(define (any-bit-set? mask n) (not (zero? (bitwise-and mask n))))
(define (every-bit-set? mask n) (= mask (bitwise-and mask n)))

;; The index of the lowest 1 bit, -1 for 0.
(define (first-set-bit n)
  (%check-int "first-set-bit" n)
  (if (zero? n) -1 (- (integer-length (bitwise-and n (- n))) 1)))

(define (%mask start end) (- (arithmetic-shift 1 (- end start)) 1))
(define (%check-field who start end)
  (%check-index who start)
  (%check-index who end)
  (if (< end start) (error (string-append who ": end before start") start end)))

;; Bits start (inclusive) to end (exclusive) of n, shifted down to bit 0.
(define (bit-field n start end)
  (%check-field "bit-field" start end)
  (bitwise-and (arithmetic-shift n (- start)) (%mask start end)))

(define (bit-field-any? n start end) (not (zero? (bit-field n start end))))
(define (bit-field-every? n start end) (= (bit-field n start end) (%mask start end)))

(define (bit-field-clear n start end)
  (%check-field "bit-field-clear" start end)
  (bitwise-and n (bitwise-not (arithmetic-shift (%mask start end) start))))

(define (bit-field-set n start end)
  (%check-field "bit-field-set" start end)
  (bitwise-or n (arithmetic-shift (%mask start end) start)))

;; n with bits start..end replaced by the low bits of replacement.
(define (bit-field-replace n replacement start end)
  (%check-field "bit-field-replace" start end)
  (let ((m (arithmetic-shift (%mask start end) start)))
    (bitwise-if m (arithmetic-shift replacement start) n)))

;; n with bits start..end replaced by the same bits of replacement.
(define (bit-field-replace-same n replacement start end)
  (%check-field "bit-field-replace-same" start end)
  (bitwise-if (arithmetic-shift (%mask start end) start) replacement n))

;; The field rotated by count towards the high end.
(define (bit-field-rotate n count start end)
  (%check-field "bit-field-rotate" start end)
  (let ((width (- end start)))
    (if (zero? width)
        n
        (let* ((count (modulo count width))
               (field (bit-field n start end))
               (rotated (bitwise-and (bitwise-or (arithmetic-shift field count)
                                                 (arithmetic-shift field (- count width)))
                                     (%mask start end))))
          (bit-field-replace n rotated start end)))))

(define (bit-field-reverse n start end)
  (%check-field "bit-field-reverse" start end)
  (let loop ((i 0) (field (bit-field n start end)) (r 0))
    (if (= i (- end start))
        (bit-field-replace n r start end)
        (loop (+ i 1) (arithmetic-shift field -1)
              (bitwise-or (arithmetic-shift r 1) (bitwise-and field 1))))))

;; Booleans, least significant bit first; len defaults to (integer-length n).
(define (bits->list n . len)
  (%check-int "bits->list" n)
  (let ((len (if (pair? len) (car len) (integer-length n))))
    (let loop ((i 0) (n n) (acc '()))
      (if (= i len)
          (reverse acc)
          (loop (+ i 1) (arithmetic-shift n -1) (cons (odd? n) acc))))))

(define (bits->vector n . len) (list->vector (apply bits->list n len)))

(define (list->bits l)
  (let loop ((l (reverse l)) (n 0))
    (if (null? l) n (loop (cdr l) (+ (* 2 n) (if (car l) 1 0))))))

(define (vector->bits v) (list->bits (vector->list v)))
(define (bits . bools) (list->bits bools))

;; Checked on entry, so a wrong argument is reported under the caller's name.
(define (%check-procs who . ps)
  (for-each (lambda (p) (if (not (procedure? p)) (error (string-append who ": expected a procedure, got") p)))
            ps))

;; (kons bit acc) over the bits from bit 0 up to (integer-length n).
(define (bitwise-fold kons knil n)
  (%check-procs "bitwise-fold" kons)
  (let loop ((i 0) (n2 n) (acc knil))
    (if (= i (integer-length n))
        acc
        (loop (+ i 1) (arithmetic-shift n2 -1) (kons (odd? n2) acc)))))

(define (bitwise-for-each proc n)
  (%check-procs "bitwise-for-each" proc)
  (let loop ((i 0) (n2 n))
    (if (< i (integer-length n))
        (begin (proc (odd? n2)) (loop (+ i 1) (arithmetic-shift n2 -1))))))

;; (bitwise-unfold stop? mapper successor seed): bit i is (mapper seed_i).
(define (bitwise-unfold stop? mapper successor seed)
  (%check-procs "bitwise-unfold" stop? mapper successor)
  (let loop ((seed seed) (i 0) (n 0))
    (if (stop? seed)
        n
        (loop (successor seed) (+ i 1) (if (mapper seed) (bitwise-or n (arithmetic-shift 1 i)) n)))))

;; A generator of n's bits from bit 0 on, forever (the sign bits repeat).
(define (make-bitwise-generator n)
  (lambda ()
    (let ((b (odd? n)))
      (set! n (arithmetic-shift n -1))
      b)))
