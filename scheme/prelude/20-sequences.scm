;;; 20-sequences.scm — procedure-taking vector and string operations.
;;;
;;; Provides:
;;;   vector-map, vector-for-each     (1 or n vectors; stop at the shortest)
;;;   string-map, string-for-each     (1 or n strings; stop at the shortest; or SRFI 13's
;;;                                    (proc s start [end]))
;;;   string-join                     ((string-join list [delimiter [grammar]]); delimiter
;;;                                    defaults to " ", grammar is infix (default),
;;;                                    strict-infix, prefix or suffix, as in Guile/SRFI-130)
;;;
;;; Internal helpers (prefix %): %min-length
;;;
;;; Needs from 08-member.scm: %bad-proc.

;; The smallest (len x) over the non-empty list `xs`, checking each with `ok?`.
(define (%min-length who what ok? len xs)
  (let loop ((xs xs) (n #f))
    (if (null? xs)
        n
        (let ((x (car xs)))
          (if (not (ok? x))
              (error (string-append who ": expected " what ", got") x))
          (let ((k (len x)))
            (loop (cdr xs) (if (or (not n) (< k n)) k n)))))))

;; ---- vectors ---------------------------------------------------------------------------------

(define vector-map
  (case-lambda
    ((f v)
     (if (not (procedure? f)) (%bad-proc "vector-map" f))
     (if (not (vector? v)) (error "vector-map: expected a vector, got" v))
     (let ((n (vector-length v)))
       ;; Results go through a list so that re-entering f's continuation never mutates a
       ;; vector that was already returned.
       (let loop ((i 0) (acc '()))
         (if (= i n)
             (list->vector (reverse acc))
             (loop (+ i 1) (cons (f (vector-ref v i)) acc))))))
    ((f v1 v2)
     (if (not (procedure? f)) (%bad-proc "vector-map" f))
     (let ((n (%min-length "vector-map" "a vector" vector? vector-length (list v1 v2))))
       (let loop ((i 0) (acc '()))
         (if (= i n)
             (list->vector (reverse acc))
             (loop (+ i 1) (cons (f (vector-ref v1 i) (vector-ref v2 i)) acc))))))
    ((f v1 . more)
     (if (not (procedure? f)) (%bad-proc "vector-map" f))
     (let* ((vs (cons v1 more))
            (n (%min-length "vector-map" "a vector" vector? vector-length vs)))
       (let loop ((i 0) (acc '()))
         (if (= i n)
             (list->vector (reverse acc))
             (loop (+ i 1)
                   (cons (apply f (map (lambda (v) (vector-ref v i)) vs)) acc))))))))

(define vector-for-each
  (case-lambda
    ((f v)
     (if (not (procedure? f)) (%bad-proc "vector-for-each" f))
     (if (not (vector? v)) (error "vector-for-each: expected a vector, got" v))
     (let ((n (vector-length v)))
       (let loop ((i 0))
         (if (< i n)
             (begin (f (vector-ref v i))
                    (loop (+ i 1)))))))
    ((f v1 . more)
     (if (not (procedure? f)) (%bad-proc "vector-for-each" f))
     (let* ((vs (cons v1 more))
            (n (%min-length "vector-for-each" "a vector" vector? vector-length vs)))
       (let loop ((i 0))
         (if (< i n)
             (begin (apply f (map (lambda (v) (vector-ref v i)) vs))
                    (loop (+ i 1)))))))))

;; ---- strings ---------------------------------------------------------------------------------

(define (%string-map-result who c)
  (if (not (char? c))
      (error (string-append who ": procedure must return a character, got") c))
  c)

(define string-map
  (case-lambda
    ((f s)
     (if (not (procedure? f)) (%bad-proc "string-map" f))
     (if (not (string? s)) (error "string-map: expected a string, got" s))
     (let ((n (string-length s)))
       (let loop ((i 0) (acc '()))
         (if (= i n)
             (list->string (reverse acc))
             (loop (+ i 1)
                   (cons (%string-map-result "string-map" (f (string-ref s i))) acc))))))
    ((f s1 . more)
     (if (not (procedure? f)) (%bad-proc "string-map" f))
     (if (and (pair? more) (exact-integer? (car more)))  ; SRFI 13: (string-map f s start [end])
         (string-map f (apply string-copy s1 more))
     (let* ((ss (cons s1 more))
            (n (%min-length "string-map" "a string" string? string-length ss)))
       (let loop ((i 0) (acc '()))
         (if (= i n)
             (list->string (reverse acc))
             (loop (+ i 1)
                   (cons (%string-map-result
                          "string-map"
                          (apply f (map (lambda (s) (string-ref s i)) ss)))
                         acc)))))))))

(define string-for-each
  (case-lambda
    ((f s)
     (if (not (procedure? f)) (%bad-proc "string-for-each" f))
     (if (not (string? s)) (error "string-for-each: expected a string, got" s))
     (let ((n (string-length s)))
       (let loop ((i 0))
         (if (< i n)
             (begin (f (string-ref s i))
                    (loop (+ i 1)))))))
    ((f s1 . more)
     (if (not (procedure? f)) (%bad-proc "string-for-each" f))
     (if (and (pair? more) (exact-integer? (car more)))  ; SRFI 13: (string-for-each f s start [end])
         (string-for-each f (apply string-copy s1 more))
     (let* ((ss (cons s1 more))
            (n (%min-length "string-for-each" "a string" string? string-length ss)))
       (let loop ((i 0))
         (if (< i n)
             (begin (apply f (map (lambda (s) (string-ref s i)) ss))
                    (loop (+ i 1))))))))))

;; (string-join '("a" "b" "c") ", ") => "a, b, c"
(define string-join
  (case-lambda
    ((strings) (string-join strings " " 'infix))
    ((strings delim) (string-join strings delim 'infix))
    ((strings delim grammar)
     (if (not (list? strings)) (%bad-list "string-join" strings))
     (if (not (string? delim)) (error "string-join: expected a string delimiter, got" delim))
     (if (not (memq grammar '(infix strict-infix prefix suffix)))
         (error "string-join: unknown grammar" grammar))
     (if (and (eq? grammar 'strict-infix) (null? strings))
         (error "string-join: strict-infix grammar needs at least one string"))
     (let ((out (open-output-string)))
       (let loop ((p strings) (first #t))
         (if (pair? p)
             (let ((s (car p)))
               (if (not (string? s)) (error "string-join: expected a string, got" s))
               (cond ((eq? grammar 'prefix) (write-string delim out))
                     ((and (not first) (memq grammar '(infix strict-infix)))
                      (write-string delim out)))
               (write-string s out)
               (if (eq? grammar 'suffix) (write-string delim out))
               (loop (cdr p) #f))))
       (get-output-string out)))))
