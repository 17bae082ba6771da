;;; 75-format.scm — format: SRFI 28 and SRFI 48 format strings (also exported by (srfi 28) and
;;; (srfi 48)).
;;;
;;;   (format format-string arg ...)          SRFI 28: returns the string
;;;   (format #f format-string arg ...)       returns the string
;;;   (format #t format-string arg ...)       writes to the current output port
;;;   (format port format-string arg ...)     writes to port
;;;
;;; Directives (case-insensitive): ~a display, ~s write, ~w write (shared structure labelled),
;;; ~d ~x ~o ~b a number in radix 10/16/8/2, ~c a character, ~y pretty-print, ~? and ~k a format
;;; string and a list of its arguments, ~[w[,d]]F a number in a field of w characters with d
;;; digits after the point (a non-number is displayed, padded), ~% newline, ~& newline unless at
;;; the start of a line (always, first in the format string), ~h a summary of the directives, ~~ a tilde. Like Common Lisp, ~wA ~wS
;;; ~wD ~wX ~wO ~wB pad to w columns (~a and ~s on the right, numbers on the left).
;;; A missing argument or an unknown directive is an error naming format and the format string.
;;;
;;; Internal helpers (prefix %): %format-to %format-fixed %format-pad

(define (%format-error msg str . irritants)
  (apply error (string-append "format: " msg) str irritants))

(define (%format-pad s width left?)
  (let ((n (string-length s)))
    (cond ((or (not width) (>= n width)) s)
          (left? (string-append (make-string (- width n) #\space) s))
          (else (string-append s (make-string (- width n) #\space))))))

;; x with d digits after the decimal point, rounded to nearest (ties to even), fixed notation.
;; A negative x keeps its sign when it rounds to zero, -0.0 too ("-0.00", as C's %.2f). A
;; complex x has d applied to both parts (SRFI 48: (format "~1,2F" (sqrt -3.9)) => "0.00+1.97i").
(define (%format-fixed x d)
  (cond ((and (not (real? x)) d)
         (let ((im (imag-part x)))
           (string-append (%format-fixed (real-part x) d)
                          (if (or (< im 0) (eqv? im -0.0) (nan? im)) "" "+")
                          (%format-fixed im d)
                          "i")))
        ((not (real? x)) (number->string x))
        ((and (inexact? x) (or (nan? x) (infinite? x))) (number->string x))
        ((not d)
         (let ((s (number->string (if (exact-integer? x) x (inexact x)))))
           s))
        ((%format-scientific? x) (%format-scientific x d))
        (else
         (let* ((e (exact x))
                (neg (or (< e 0) (eqv? x -0.0)))
                (scaled (round (* (abs e) (expt 10 d))))
                (digits (number->string scaled))
                (digits (if (<= (string-length digits) d)
                            (string-append (make-string (- (+ d 1) (string-length digits)) #\0) digits)
                            digits))
                (k (- (string-length digits) d))
                (body (if (= d 0)
                          (string-append digits ".")
                          (string-append (substring digits 0 k) "." (substring digits k (string-length digits))))))
           (if neg (string-append "-" body) body)))))

;; With d digits, a magnitude of 1e10 or more, or below 1e-3, is written as a mantissa and an
;; exponent, as SRFI 48's reference implementation does on the digits of number->string where
;; that writes such numbers so (Chez Scheme's thresholds): (format "~8,2F" 32e10) => " 3.20e11",
;; (format "~10,0F" -3e-4) => "    -3.e-4", the SRFI's own examples.
(define (%format-scientific? x)
  (let ((m (abs (inexact x))))
    (and (> m 0) (or (>= m 1e10) (< m 1e-3)))))

;; d digits after the point of the mantissa (1 <= mantissa < 10, rounded to nearest, ties to
;; even, computed exactly), then "e" and the exponent.
(define (%format-scientific x d)
  (let* ((a (abs (exact x)))
         (k0 (exact (floor (/ (log (inexact a)) (log 10)))))
         (k (let adjust ((k k0))
              (cond ((< a (expt 10 k)) (adjust (- k 1)))
                    ((>= a (expt 10 (+ k 1))) (adjust (+ k 1)))
                    (else k))))
         (scale (lambda (k) (round (* (/ a (expt 10 k)) (expt 10 d)))))
         ;; 9.996e11 to 2 digits is 1.00e12
         (k (if (>= (scale k) (expt 10 (+ d 1))) (+ k 1) k))
         (digits (number->string (scale k))))
    (string-append (if (< x 0) "-" "")
                   (substring digits 0 1) "." (substring digits 1 (string-length digits))
                   "e" (number->string k))))

(define %format-help
  "~a display  ~s write  ~w write with labels  ~d ~x ~o ~b number (radix 10 16 8 2)  ~c char
~y pretty-print  ~? ~k format string + argument list  ~[w[,d]]F fixed-point number
~% newline  ~& fresh line  ~h this help  ~~ tilde
")

;; Writes the formatted output of `str` with `args` to `port`; nested: called for ~? inside one.
;; ~& first in the outermost string writes a newline: SRFI 48 counts only the call's own output
;; as "previous" ((format #f "~&1~&~&2~&~&~&3~%") is "\n1\n2\n3\n"), after that the port's
;; column decides (fresh-line).
(define (%format-to port str args . nested)
  (let ((n (string-length str)))
    (define (next-arg args c)
      (if (null? args)
          (%format-error (string-append "no argument left for ~" (string c) " in") str)
          (car args)))
    (define (number-arg args c)
      (let ((x (next-arg args c)))
        (if (number? x) x (%format-error (string-append "~" (string c) " expects a number, got") str x))))
    (let loop ((i 0) (args args))
      (if (< i n)
          (let ((ch (string-ref str i)))
            (if (or (not (char=? ch #\~)) (= (+ i 1) n))
                (begin (if (char=? ch #\~)
                           (%format-error "the format string ends with ~:" str))
                       (write-char ch port)
                       (loop (+ i 1) args))
                ;; Parameters: digits [, digits]
                (let params ((j (+ i 1)) (w #f) (d #f) (in-d #f))
                  (let ((c (string-ref str j)))
                    (cond
                     ((and (char-numeric? c) (< (+ j 1) n))
                      (let ((v (- (char->integer c) 48)))
                        (if in-d
                            (params (+ j 1) w (+ (* 10 (or d 0)) v) #t)
                            (params (+ j 1) (+ (* 10 (or w 0)) v) d #f))))
                     ((and (char=? c #\,) (< (+ j 1) n)) (params (+ j 1) w (or d 0) #t))
                     (else
                      (let ((j (+ j 1)))
                        (case (char-downcase c)
                          ((#\a)
                           (let ((x (next-arg args c)))
                             (if w
                                 (let ((o (open-output-string))) (display x o)
                                   (write-string (%format-pad (get-output-string o) w #f) port))
                                 (display x port))
                             (loop j (cdr args))))
                          ((#\s #\w)
                           (let ((x (next-arg args c)))
                             (if w
                                 (let ((o (open-output-string))) (write x o)
                                   (write-string (%format-pad (get-output-string o) w #f) port))
                                 (write x port))
                             (loop j (cdr args))))
                          ((#\d #\x #\o #\b)
                           (let ((x (number-arg args c))
                                 (radix (case (char-downcase c) ((#\d) 10) ((#\x) 16) ((#\o) 8) (else 2))))
                             (write-string (%format-pad (number->string x radix) w #t) port)
                             (loop j (cdr args))))
                          ((#\c)
                           (let ((x (next-arg args c)))
                             (if (not (char? x)) (%format-error "~c expects a character, got" str x))
                             (write-char x port)
                             (loop j (cdr args))))
                          ((#\y)
                           (pretty-print (next-arg args c) port)
                           (loop j (cdr args)))
                          ((#\? #\k)
                           (let ((s (next-arg args c)))
                             (if (not (string? s)) (%format-error "~? expects a format string, got" str s))
                             (if (null? (cdr args))
                                 (%format-error "no argument list left for ~? in" str))
                             (if (not (list? (cadr args)))
                                 (%format-error "~? expects a list of arguments, got" str (cadr args)))
                             (%format-to port s (cadr args) #t)
                             (loop j (cddr args))))
                          ((#\f)
                           (let* ((x (next-arg args c))
                                  (s (if (number? x)
                                         (%format-fixed x d)
                                         (let ((o (open-output-string))) (display x o) (get-output-string o)))))
                             (write-string (%format-pad s w #t) port)
                             (loop j (cdr args))))
                          ((#\%) (newline port) (loop j args))
                          ((#\&) (if (and (= i 0) (null? nested)) (newline port) (fresh-line port))
                           (loop j args))
                          ((#\h) (write-string %format-help port) (loop j args))
                          ((#\~) (write-char #\~ port) (loop j args))
                          (else (%format-error (string-append "unknown directive ~" (string c) " in") str))))))))))))))

(define (format dest . rest)
  (cond ((string? dest)
         (let ((o (open-output-string))) (%format-to o dest rest) (get-output-string o)))
        ((null? rest) (error "format: expected a format string after" dest))
        ((not (string? (car rest))) (error "format: expected a format string, got" (car rest)))
        ((eq? dest #f)
         (let ((o (open-output-string))) (%format-to o (car rest) (cdr rest)) (get-output-string o)))
        ((eq? dest #t) (%format-to (current-output-port) (car rest) (cdr rest)))
        ((output-port? dest) (%format-to dest (car rest) (cdr rest)))
        (else (error "format: expected #f, #t or an output port, got" dest))))
