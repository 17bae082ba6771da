;;; 30-sort.scm — stable merge sort for lists and vectors.
;;;
;;; Provides:
;;;   (list-sort less? list)      SRFI-132 / R6RS order; a fresh sorted list
;;;   (sort list less?)           Guile/Chicken order; also accepts a vector (returns a new one)
;;;   (sort! list less?)          returns the sorted list (a fresh one; a vector is sorted in place)
;;;   (vector-sort less? vector)  a fresh sorted vector
;;;   (vector-sort! vector less?) sorts in place (SRFI-132 order)
;;;   (list-merge less? l1 l2)    merges two sorted lists (stable: ties take l1 first)
;;;
;;; Every two-argument sort also accepts its arguments in the other order (the procedure is
;;; told apart from the sequence), so (sort < l), (list-sort l <) and (vector-sort! < v)
;;; work too. All sorts are stable: equal elements keep their relative order.
;;;
;;; Internal helpers (prefix %): %sort-args %merge %reverse-onto %sort-list
;;; Needs from 08-member.scm: %bad-proc, %bad-list.

;; The sorts never mutate a pair or a variable once less? has been called: a continuation
;; captured in less? may be re-entered, and every re-entry sees the lists as they were.

;; Merges the sorted lists a and b into a fresh list. Stable: an element of b goes first only
;; when it is strictly less than the head of a.
(define (%merge a b less?)
  (let loop ((a a) (b b) (acc '()))
    (cond ((null? a) (%reverse-onto acc b))
          ((null? b) (%reverse-onto acc a))
          ((less? (car b) (car a)) (loop a (cdr b) (cons (car b) acc)))
          (else (loop (cdr a) b (cons (car a) acc))))))

(define (%reverse-onto acc tail)
  (if (null? acc) tail (%reverse-onto (cdr acc) (cons (car acc) tail))))

;; A fresh sorted list of the first n elements of the proper list lst. Recursion depth is log2(n).
(define (%sort-list lst n less?)
  (let step ((l lst) (n n))
    (cond ((> n 1)
           (let ((half (quotient n 2)))
             (%merge (step l half) (step (list-tail l half) (- n half)) less?)))
          ((= n 1) (list (car l)))
          (else '()))))

;; Puts the arguments of a two-argument sort in (procedure sequence) order.
(define (%sort-args who a b)
  (cond ((procedure? a) (cons a b))
        ((procedure? b) (cons b a))
        (else (%bad-proc who b))))

(define (list-sort a b)
  (let* ((args (%sort-args "list-sort" a b))
         (less? (car args))
         (l (cdr args)))
    (if (not (list? l)) (%bad-list "list-sort" l))
    (%sort-list l (length l) less?)))

(define (sort! a b)
  (let* ((args (%sort-args "sort!" a b))
         (less? (car args))
         (seq (cdr args)))
    (cond ((vector? seq) (vector-sort! seq less?) seq)
          ((list? seq) (%sort-list seq (length seq) less?))
          (else (error "sort!: expected a list or vector, got" seq)))))

(define (sort a b)
  (let* ((args (%sort-args "sort" a b))
         (less? (car args))
         (seq (cdr args)))
    (cond ((list? seq) (%sort-list seq (length seq) less?))
          ((vector? seq) (vector-sort less? seq))
          (else (error "sort: expected a list or vector, got" seq)))))

(define (vector-sort a b)
  (let* ((args (%sort-args "vector-sort" a b))
         (less? (car args))
         (v (cdr args)))
    (if (not (vector? v)) (error "vector-sort: expected a vector, got" v))
    (let ((l (vector->list v)))
      (list->vector (%sort-list l (vector-length v) less?)))))

(define (vector-sort! a b)
  (let* ((args (%sort-args "vector-sort!" a b))
         (less? (car args))
         (v (cdr args)))
    (if (not (vector? v)) (error "vector-sort!: expected a vector, got" v))
    (let loop ((p (%sort-list (vector->list v) (vector-length v) less?)) (i 0))
      (if (pair? p)
          (begin (vector-set! v i (car p))
                 (loop (cdr p) (+ i 1)))))))

(define (list-merge less? a b)
  (if (not (procedure? less?)) (%bad-proc "list-merge" less?))
  (if (not (list? a)) (%bad-list "list-merge" a))
  (if (not (list? b)) (%bad-list "list-merge" b))
  (%merge a b less?))
