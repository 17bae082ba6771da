;; (srfi 95) — sorting and merging lists and vectors (and strings, which SRFI 95's arrays
;; include: Larceny's SRFI 95 tests sort them), each with an optional key procedure applied to
;; the elements before comparing. The sorts are the prelude's stable merge sort
;; (scheme/prelude/30-sort.scm); sort! on a vector sorts it in place, on a list it may reuse the
;; list's pairs (and returns the sorted list, which need not start with the old first pair).
(define-library (srfi 95)
  (import (scheme base)
          (only (quasi core) list-sort vector-sort vector-sort! list-merge))
  (export sorted? merge merge! sort sort!)
  (begin
    (define (keyed less? key)
      (if (null? key)
          less?
          (let ((key (car key)))
            (lambda (a b) (less? (key a) (key b))))))

    (define (check-procedure who p)
      (if (not (procedure? p))
          (error (string-append who ": expected a procedure, got") p)))

    (define (sorted? seq less? . key)
      (check-procedure "sorted?" less?)
      (let ((less? (keyed less? key)))
        (cond ((vector? seq)
               (let ((n (vector-length seq)))
                 (let loop ((i 1))
                   (or (>= i n)
                       (and (not (less? (vector-ref seq i) (vector-ref seq (- i 1))))
                            (loop (+ i 1)))))))
              ((list? seq)
               (or (null? seq)
                   (let loop ((prev (car seq)) (l (cdr seq)))
                     (or (null? l)
                         (and (not (less? (car l) prev)) (loop (car l) (cdr l)))))))
              ((string? seq) (apply sorted? (string->vector seq) less? key))
              (else (error "sorted?: expected a list, a vector or a string, got" seq)))))

    (define (merge a b less? . key)
      (check-procedure "merge" less?)
      (list-merge (keyed less? key) a b))
    (define (merge! a b less? . key)
      (apply merge a b less? key))

    (define (sort seq less? . key)
      (check-procedure "sort" less?)
      (cond ((vector? seq) (vector-sort (keyed less? key) seq))
            ((list? seq) (list-sort (keyed less? key) seq))
            ((string? seq) (vector->string (vector-sort (keyed less? key) (string->vector seq))))
            (else (error "sort: expected a list, a vector or a string, got" seq))))
    (define (sort! seq less? . key)
      (check-procedure "sort!" less?)
      (cond ((vector? seq) (vector-sort! seq (keyed less? key)) seq)
            ((list? seq) (list-sort (keyed less? key) seq))
            ((string? seq)
             (if (> (string-length seq) 0) (string-copy! seq 0 (apply sort seq less? key)))
             seq)
            (else (error "sort!: expected a list, a vector or a string, got" seq))))))
