;;; 65-comparators.scm — SRFI 128 comparators (exported by (srfi 128) and (scheme comparator)).
;;;
;;; A comparator bundles a type test, an equality predicate, an ordering predicate (a strict
;;; less-than, or #f) and a hash function (or #f). Hash tables (70-hash-tables.scm) take their
;;; equality and hash from one. The hash functions are the C++ ones (builtins/hashtables.cpp), so
;;; a hash table made from a standard comparator uses its fast built-in hashing.
;;;
;;; The default comparator orders values of different types as SRFI 128 lists them: the empty
;;; list, pairs, booleans, characters, strings, symbols, numbers, vectors, bytevectors, then
;;; types registered with comparator-register-default! in registration order; within a type,
;;; in the natural order (pairs and vectors lexicographically, shorter vectors first; complex
;;; numbers by real part then imaginary part). Its equality is the one that order implies:
;;; numbers are equal when = (so 1 and 1.0 are), or both NaN (reflexive, as SRFI 128 requires of
;;; an equality: a NaN key is found again; the order leaves NaN unordered), pairs and vectors element by element with
;;; the default comparator itself, other values by equal? (a registered type by its comparator).
;;; Its hash (default-hash) agrees with that equality and with the SRFI's per-type hash
;;; functions: number-hash on numbers, string-hash on strings, symbol-hash on symbols, ...
;;;
;;; Its public macros (hash-bound, hash-salt, comparator-if<=>) are in 66-comparator-syntax.scm:
;;; this file holds only definitions of variables, so it is loaded on first use
;;; (lib/engine/autoload.hpp).
;;;
;;; Internal helpers (prefix %): %comparator %comparator-default-rank %default<? ...

(define-record-type comparator
  (%make-comparator type-test equality ordering hash)
  comparator?
  (type-test comparator-type-test-predicate)
  (equality comparator-equality-predicate)
  (ordering %comparator-ordering)
  (hash %comparator-hash))

(define (make-comparator type-test equality ordering hash)
  (%make-comparator
   (if (eq? type-test #t) (lambda (x) #t) type-test)
   (if (eq? equality #t)
       (lambda (a b) (and (not (ordering a b)) (not (ordering b a))))
       equality)
   ordering
   hash))

(define (comparator-ordered? c) (if (%comparator-ordering c) #t #f))
(define (comparator-hashable? c) (if (%comparator-hash c) #t #f))

(define (comparator-ordering-predicate c)
  (or (%comparator-ordering c)
      (lambda (a b) (error "comparator: the comparator has no ordering predicate" c))))
(define (comparator-hash-function c)
  (or (%comparator-hash c)
      (lambda (x) (error "comparator: the comparator has no hash function" c))))

(define (comparator-test-type c x) ((comparator-type-test-predicate c) x))
(define (comparator-check-type c x)
  (if ((comparator-type-test-predicate c) x)
      #t
      (error "comparator-check-type: value of the wrong type" x)))
(define (comparator-hash c x) ((comparator-hash-function c) x))

;; ---- hash functions -----------------------------------------------------------------------
(define (boolean-hash b . bound) (if b 1 0))
(define (char-hash c . bound) (apply eqv-hash c bound))
(define (char-ci-hash c . bound) (apply eqv-hash (char-foldcase c) bound))
;; Consistent with =: numbers that are = have the same floor of their real part.
(define (number-hash n . bound)
  (let ((r (if (real? n) n (real-part n))))
    (apply equal-hash
           (cond ((exact? r) (floor r))
                 ((or (nan? r) (infinite? r)) 0)
                 (else (exact (floor r))))
           bound)))

(define %hash-salt 0)

;; ---- comparison ---------------------------------------------------------------------------
(define (%chain who test c args)
  (let loop ((a (car args)) (rest (cdr args)))
    (cond ((null? rest) #t)
          ((test c a (car rest)) (loop (car rest) (cdr rest)))
          (else #f))))

(define (=? c a b . rest)
  (if (null? rest)
      ((comparator-equality-predicate c) a b)
      (%chain "=?" (lambda (c a b) ((comparator-equality-predicate c) a b)) c (cons a (cons b rest)))))
(define (<? c a b . rest)
  (if (null? rest)
      ((comparator-ordering-predicate c) a b)
      (%chain "<?" (lambda (c a b) ((comparator-ordering-predicate c) a b)) c (cons a (cons b rest)))))
(define (>? c a b . rest)
  (if (null? rest)
      ((comparator-ordering-predicate c) b a)
      (%chain ">?" (lambda (c a b) ((comparator-ordering-predicate c) b a)) c (cons a (cons b rest)))))
(define (<=? c a b . rest)
  (define (le c a b) (not ((comparator-ordering-predicate c) b a)))
  (if (null? rest) (le c a b) (%chain "<=?" le c (cons a (cons b rest)))))
(define (>=? c a b . rest)
  (define (ge c a b) (not ((comparator-ordering-predicate c) a b)))
  (if (null? rest) (ge c a b) (%chain ">=?" ge c (cons a (cons b rest)))))

;; ---- the default comparator ----------------------------------------------------------------
(define %registered-comparators '())  ; newest first

(define (comparator-register-default! c)
  (set! %registered-comparators (cons c %registered-comparators)))

(define (%registered-index x)
  (let loop ((cs (reverse %registered-comparators)) (i 0))
    (cond ((null? cs) #f)
          (((comparator-type-test-predicate (car cs)) x) i)
          (else (loop (cdr cs) (+ i 1))))))

(define (%registered-comparator x)
  (let loop ((cs (reverse %registered-comparators)))
    (cond ((null? cs) #f)
          (((comparator-type-test-predicate (car cs)) x) (car cs))
          (else (loop (cdr cs))))))

(define (%default-rank x)
  (cond ((null? x) 0) ((pair? x) 1) ((boolean? x) 2) ((char? x) 3) ((string? x) 4)
        ((symbol? x) 5) ((number? x) 6) ((vector? x) 7) ((bytevector? x) 8)
        ((%registered-index x) => (lambda (i) (+ 9 i)))
        (else (error "default comparator: no ordering for" x))))

(define (%number<? a b)
  (if (and (real? a) (real? b))
      (< a b)
      (or (< (real-part a) (real-part b))
          (and (= (real-part a) (real-part b)) (< (imag-part a) (imag-part b))))))

;; = except that a NaN is the same as a NaN (part by part for complex numbers): a comparator's
;; equality must be reflexive (SRFI 128), or a hash table under the default comparator could never
;; find a NaN key it holds. number-hash already gives every NaN one code.
(define (%number=? a b)
  (define (same? x y) (or (= x y) (and (nan? x) (nan? y))))
  (if (and (real? a) (real? b))
      (same? a b)
      (and (same? (real-part a) (real-part b)) (same? (imag-part a) (imag-part b)))))

(define (%default<? a b)
  (let ((ra (%default-rank a)) (rb (%default-rank b)))
    (cond ((< ra rb) #t)
          ((> ra rb) #f)
          (else
           (case ra
             ((0) #f)
             ((1) (or (%default<? (car a) (car b))
                      (and (%default=? (car a) (car b)) (%default<? (cdr a) (cdr b)))))
             ((2) (and (not a) b))
             ((3) (char<? a b))
             ((4) (string<? a b))
             ((5) (string<? (symbol->string a) (symbol->string b)))
             ((6) (%number<? a b))
             ((7) (%sequence<? vector-length vector-ref %default<? %default=? a b))
             ((8) (%sequence<? bytevector-length bytevector-u8-ref < = a b))
             (else ((comparator-ordering-predicate (%registered-comparator a)) a b)))))))

(define (%default=? a b)
  (cond ((number? a) (and (number? b) (%number=? a b)))
        ((pair? a)
         (and (pair? b) (%default=? (car a) (car b)) (%default=? (cdr a) (cdr b))))
        ((vector? a)
         (and (vector? b)
              (= (vector-length a) (vector-length b))
              (let loop ((i 0))
                (or (= i (vector-length a))
                    (and (%default=? (vector-ref a i) (vector-ref b i)) (loop (+ i 1)))))))
        ((or (null? a) (boolean? a) (char? a) (string? a) (symbol? a) (bytevector? a)
             (null? %registered-comparators))
         (equal? a b))
        ((%registered-comparator a)
         => (lambda (c)
              (and ((comparator-type-test-predicate c) b) ((comparator-equality-predicate c) a b))))
        (else (equal? a b))))

;; Shorter sequences first, then element by element.
(define (%sequence<? len ref less? same? a b)
  (let ((la (len a)) (lb (len b)))
    (cond ((< la lb) #t)
          ((> la lb) #f)
          (else (let loop ((i 0))
                  (cond ((= i la) #f)
                        ((less? (ref a i) (ref b i)) #t)
                        ((same? (ref a i) (ref b i)) (loop (+ i 1)))
                        (else #f)))))))

(define (default-hash x . bound)
  (let ((h (%default-hash x)))
    (if (null? bound) h (modulo h (car bound)))))

;; Pairs and vectors mix their elements' codes (a list's spine iteratively, so long lists do not
;; nest calls); equal values get equal codes because equal elements do.
(define (%default-hash x)
  (cond ((number? x) (number-hash x))
        ((string? x) (string-hash x))
        ((symbol? x) (symbol-hash x))
        ((char? x) (char-hash x))
        ((boolean? x) (boolean-hash x))
        ((null? x) 0)
        ((pair? x)
         (let loop ((x x) (h 17))
           (if (pair? x)
               (loop (cdr x) (%hash-mix h (%default-hash (car x))))
               (%hash-mix h (%default-hash x)))))
        ((vector? x)
         (let loop ((i 0) (h (vector-length x)))
           (if (= i (vector-length x))
               h
               (loop (+ i 1) (%hash-mix h (%default-hash (vector-ref x i)))))))
        ((and (not (bytevector? x)) (%registered-comparator x))
         => (lambda (c) ((comparator-hash-function c) x)))
        (else (equal-hash x))))

(define (%hash-mix h k) (modulo (+ (* h 31) k) 2305843009213693951))

(define %the-default-comparator
  (%make-comparator (lambda (x) #t) %default=? %default<? default-hash))

(define (make-default-comparator) %the-default-comparator)

;; equal-hash is consistent with eq?, eqv? and equal? alike, and built in: hash tables made
;; from these comparators keep the fast C++ hashing (70-hash-tables.scm).
(define (make-eq-comparator) (%make-comparator (lambda (x) #t) eq? %default<? equal-hash))
(define (make-eqv-comparator) (%make-comparator (lambda (x) #t) eqv? %default<? equal-hash))
(define (make-equal-comparator) (%make-comparator (lambda (x) #t) equal? %default<? equal-hash))

;; ---- compound comparators -----------------------------------------------------------------
(define (make-pair-comparator ca cd)
  (make-comparator
   (lambda (x) (and (pair? x) (comparator-test-type ca (car x)) (comparator-test-type cd (cdr x))))
   (lambda (a b) (and (=? ca (car a) (car b)) (=? cd (cdr a) (cdr b))))
   (lambda (a b) (or (<? ca (car a) (car b))
                     (and (=? ca (car a) (car b)) (<? cd (cdr a) (cdr b)))))
   (lambda (x . bound) (+ (* 31 (comparator-hash ca (car x))) (comparator-hash cd (cdr x))))))

(define (make-list-comparator ce type-test empty? head tail)
  (define (all-ok? x)
    (let loop ((x x))
      (cond ((empty? x) #t)
            ((comparator-test-type ce (head x)) (loop (tail x)))
            (else #f))))
  (make-comparator
   (lambda (x) (and (type-test x) (all-ok? x)))
   (lambda (a b)
     (let loop ((a a) (b b))
       (cond ((empty? a) (empty? b))
             ((empty? b) #f)
             ((=? ce (head a) (head b)) (loop (tail a) (tail b)))
             (else #f))))
   (lambda (a b)
     (let loop ((a a) (b b))
       (cond ((empty? a) (not (empty? b)))
             ((empty? b) #f)
             ((<? ce (head a) (head b)) #t)
             ((=? ce (head a) (head b)) (loop (tail a) (tail b)))
             (else #f))))
   (lambda (x . bound)
     (let loop ((x x) (h 17))
       (if (empty? x)
           h
           (loop (tail x) (%hash-mix h (comparator-hash ce (head x)))))))))

(define (make-vector-comparator ce type-test len ref)
  (make-comparator
   (lambda (x)
     (and (type-test x)
          (let loop ((i 0))
            (or (= i (len x)) (and (comparator-test-type ce (ref x i)) (loop (+ i 1)))))))
   (lambda (a b)
     (and (= (len a) (len b))
          (let loop ((i 0))
            (or (= i (len a)) (and (=? ce (ref a i) (ref b i)) (loop (+ i 1)))))))
   (lambda (a b)
     (%sequence<? len ref (lambda (x y) (<? ce x y)) (lambda (x y) (=? ce x y)) a b))
   (lambda (x . bound)
     (let loop ((i 0) (h (len x)))
       (if (= i (len x))
           h
           (loop (+ i 1) (%hash-mix h (comparator-hash ce (ref x i)))))))))

;; Comparators for common types (SRFI 114/128 style; (srfi 128) exports the SRFI's own names only).
(define boolean-comparator
  (make-comparator boolean? eq? (lambda (a b) (and (not a) b)) boolean-hash))
(define char-comparator (make-comparator char? char=? char<? char-hash))
(define char-ci-comparator (make-comparator char? char-ci=? char-ci<? char-ci-hash))
(define string-comparator (make-comparator string? string=? string<? string-hash))
(define string-ci-comparator (make-comparator string? string-ci=? string-ci<? string-ci-hash))
(define symbol-comparator
  (make-comparator symbol? eq? (lambda (a b) (string<? (symbol->string a) (symbol->string b)))
                   symbol-hash))
(define real-comparator (make-comparator real? = < number-hash))
(define number-comparator (make-comparator number? = %number<? number-hash))

;; ---- SRFI 162: the comparator sublibrary (exported by (srfi 162)) ----------------------------
;; The first of the maximal (minimal) objects: ties keep the earlier one.
;; (better? x m): whether x replaces the best so far, m.
(define (%comparator-best who l better?)
  (if (null? l) (error (string-append who ": an empty list") l))
  (let loop ((m (car l)) (l (cdr l)))
    (if (null? l) m (loop (if (better? (car l) m) (car l) m) (cdr l)))))
(define (comparator-max-in-list c l)
  (%comparator-best "comparator-max-in-list" l (lambda (x m) (<? c m x))))
(define (comparator-min-in-list c l)
  (%comparator-best "comparator-min-in-list" l (lambda (x m) (<? c x m))))
(define (comparator-max c x . more) (comparator-max-in-list c (cons x more)))
(define (comparator-min c x . more) (comparator-min-in-list c (cons x more)))
(define default-comparator %the-default-comparator)
(define pair-comparator (make-pair-comparator %the-default-comparator %the-default-comparator))
(define list-comparator (make-list-comparator %the-default-comparator list? null? car cdr))
(define vector-comparator (make-vector-comparator %the-default-comparator vector? vector-length vector-ref))
(define eq-comparator (make-eq-comparator))
(define eqv-comparator (make-eqv-comparator))
(define equal-comparator (make-equal-comparator))
