;;; 30-sort.scm — stable merge sort for lists and vectors.
;;;
;;; Provides:
;;;   (list-sort less? list)      SRFI-132 / R6RS order; a fresh sorted list
;;;   (sort list less?)           Guile/Chicken order; also accepts a vector (returns a new one)
;;;   (sort! list less?)          may reuse the list's pairs; returns the sorted list
;;;   (vector-sort less? vector)  a fresh sorted vector
;;;   (vector-sort! vector less?) sorts in place (SRFI-132 order)
;;;   (list-merge less? l1 l2)    merges two sorted lists (stable: ties take l1 first)
;;;
;;; Every two-argument sort also accepts its arguments in the other order (the procedure is
;;; told apart from the sequence), so (sort < l), (list-sort l <) and (vector-sort! < v)
;;; work too. All sorts are stable: equal elements keep their relative order.
;;;
;;; Internal helpers (prefix %): %sort-args %merge! %sort-list!
;;; Needs from 10-lists.scm: %bad-proc, %bad-list.

;; Destructively merges the sorted lists a and b (both non-empty or empty). Stable: an element
;; of b goes first only when it is strictly less than the head of a.
(define (%merge! a b less?)
  (cond ((null? a) b)
        ((null? b) a)
        (else
         (let ((head (if (less? (car b) (car a))
                         (let ((h b)) (set! b (cdr b)) h)
                         (let ((h a)) (set! a (cdr a)) h))))
           (let loop ((tail head))
             (cond ((null? a) (set-cdr! tail b) head)
                   ((null? b) (set-cdr! tail a) head)
                   ((less? (car b) (car a))
                    (set-cdr! tail b)
                    (let ((next b)) (set! b (cdr b)) (loop next)))
                   (else
                    (set-cdr! tail a)
                    (let ((next a)) (set! a (cdr a)) (loop next)))))))))

;; Sorts the proper list `lst` of length n, reusing its pairs. Recursion depth is log2(n).
(define (%sort-list! lst n less?)
  (define rest lst)
  (define (step n)
    (cond ((> n 2)
           (let* ((half (quotient n 2))
                  (a (step half))
                  (b (step (- n half))))
             (%merge! a b less?)))
          ((= n 2)
           (let* ((p rest) (q (cdr p)) (x (car p)) (y (car q)))
             (set! rest (cdr q))
             (if (less? y x)
                 (begin (set-car! p y) (set-car! q x)))
             (set-cdr! q '())
             p))
          ((= n 1)
           (let ((p rest))
             (set! rest (cdr p))
             (set-cdr! p '())
             p))
          (else '())))
  (step n))

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
    (%sort-list! (list-copy l) (length l) less?)))

(define (sort! a b)
  (let* ((args (%sort-args "sort!" a b))
         (less? (car args))
         (seq (cdr args)))
    (cond ((vector? seq) (vector-sort! seq less?) seq)
          ((list? seq) (%sort-list! seq (length seq) less?))
          (else (error "sort!: expected a list or vector, got" seq)))))

(define (sort a b)
  (let* ((args (%sort-args "sort" a b))
         (less? (car args))
         (seq (cdr args)))
    (cond ((list? seq) (%sort-list! (list-copy seq) (length seq) less?))
          ((vector? seq) (vector-sort less? seq))
          (else (error "sort: expected a list or vector, got" seq)))))

(define (vector-sort a b)
  (let* ((args (%sort-args "vector-sort" a b))
         (less? (car args))
         (v (cdr args)))
    (if (not (vector? v)) (error "vector-sort: expected a vector, got" v))
    (let ((l (vector->list v)))
      (list->vector (%sort-list! l (vector-length v) less?)))))

(define (vector-sort! a b)
  (let* ((args (%sort-args "vector-sort!" a b))
         (less? (car args))
         (v (cdr args)))
    (if (not (vector? v)) (error "vector-sort!: expected a vector, got" v))
    (let loop ((p (%sort-list! (vector->list v) (vector-length v) less?)) (i 0))
      (if (pair? p)
          (begin (vector-set! v i (car p))
                 (loop (cdr p) (+ i 1)))))))

(define (list-merge less? a b)
  (if (not (procedure? less?)) (%bad-proc "list-merge" less?))
  (if (not (list? a)) (%bad-list "list-merge" a))
  (if (not (list? b)) (%bad-list "list-merge" b))
  (%merge! (list-copy a) (list-copy b) less?))
