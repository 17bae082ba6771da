;;; 132-body.scm — SRFI 132 over the core's stable merge sort (included by srfi/132.sld).
;;; All sorts are stable, so the stable and unstable names are the same procedures; the !
;;; procedures on lists may reuse the list's pairs (sort!), on vectors they sort in place.

(define (%range who v opt)
  (if (not (vector? v)) (error (string-append who ": expected a vector, got") v))
  (let* ((len (vector-length v))
         (start (if (pair? opt) (car opt) 0))
         (end (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) len)))
    (if (not (and (exact-integer? start) (<= 0 start len)))
        (error (string-append who ": start index out of range") start))
    (if (not (and (exact-integer? end) (<= start end len)))
        (error (string-append who ": end index out of range") end))
    (values start end)))

(define (list-sorted? < l)
  (or (null? l)
      (let loop ((prev (car l)) (rest (cdr l)))
        (or (null? rest)
            (and (not (< (car rest) prev)) (loop (car rest) (cdr rest)))))))

(define (vector-sorted? < v . opt)
  (let-values (((start end) (%range "vector-sorted?" v opt)))
    (let loop ((i (+ start 1)))
      (or (>= i end)
          (and (not (< (vector-ref v i) (vector-ref v (- i 1)))) (loop (+ i 1)))))))

(define (list-stable-sort < l) (list-sort < l))
(define (list-sort! < l) (sort! l <))
(define (list-stable-sort! < l) (sort! l <))

;; A fresh sorted vector of v's [start, end).
(define (vector-sort < v . opt)
  (let-values (((start end) (%range "vector-sort" v opt)))
    (list->vector (list-sort < (vector->list v start end)))))
(define vector-stable-sort vector-sort)

;; The SRFI's text is (vector-sort! < v [start [end]]), as R6RS; (vector-sort! v < ...), the
;; order of its first drafts and of the core's vector-sort!, is accepted too.
(define (vector-sort! a b . opt)
  (let* ((v (if (vector? a) a b))
         (less? (if (vector? a) b a)))
    (if (not (procedure? less?)) (error "vector-sort!: expected a procedure, got" less?))
    (let-values (((start end) (%range "vector-sort!" v opt)))
      (let loop ((l (list-sort less? (vector->list v start end))) (i start))
        (if (pair? l) (begin (vector-set! v i (car l)) (loop (cdr l) (+ i 1))))))))
(define vector-stable-sort! vector-sort!)

(define (list-merge! < a b) (list-merge < a b))

;; Stable: on ties the element of v1 comes first. The order is less?, never <, which is the
;; index comparison here (a caller's > named < once made every merge copy nothing).
(define (%merge-into! less? to at v1 s1 e1 v2 s2 e2)
  (let loop ((i s1) (j s2) (k at))
    (cond ((and (< i e1) (< j e2))
           (if (less? (vector-ref v2 j) (vector-ref v1 i))
               (begin (vector-set! to k (vector-ref v2 j)) (loop i (+ j 1) (+ k 1)))
               (begin (vector-set! to k (vector-ref v1 i)) (loop (+ i 1) j (+ k 1)))))
          ((< i e1) (vector-set! to k (vector-ref v1 i)) (loop (+ i 1) j (+ k 1)))
          ((< j e2) (vector-set! to k (vector-ref v2 j)) (loop i (+ j 1) (+ k 1))))))

;; (vector-merge < v1 v2 [start1 [end1 [start2 [end2]]]])
(define (vector-merge less? v1 v2 . opt)
  (let*-values (((s1 e1) (%range "vector-merge" v1 (if (pair? opt) opt '())))
                ((s2 e2) (%range "vector-merge" v2 (if (and (pair? opt) (pair? (cdr opt))) (cddr opt) '()))))
    (let ((to (make-vector (+ (- e1 s1) (- e2 s2)))))
      (%merge-into! less? to 0 (vector-copy v1 s1 e1) 0 (- e1 s1) (vector-copy v2 s2 e2) 0 (- e2 s2))
      to)))

;; (vector-merge! < to from1 from2 [start [start1 [end1 [start2 [end2]]]]])
(define (vector-merge! less? to v1 v2 . opt)
  (let*-values (((start) (if (pair? opt) (car opt) 0))
                ((rest) (if (pair? opt) (cdr opt) '()))
                ((s1 e1) (%range "vector-merge!" v1 rest))
                ((s2 e2) (%range "vector-merge!" v2 (if (and (pair? rest) (pair? (cdr rest))) (cddr rest) '()))))
    (if (> (+ start (- e1 s1) (- e2 s2)) (vector-length to))
        (error "vector-merge!: the destination is too short" to))
    ;; Copies first, so the destination may overlap the sources.
    (%merge-into! less? to start (vector-copy v1 s1 e1) 0 (- e1 s1) (vector-copy v2 s2 e2) 0 (- e2 s2))))

;; Runs of adjacent elements equal under = become their first element.
(define (list-delete-neighbor-dups = l)
  (if (null? l)
      '()
      (let loop ((prev (car l)) (rest (cdr l)) (acc (list (car l))))
        (cond ((null? rest) (reverse acc))
              ((= prev (car rest)) (loop prev (cdr rest) acc))
              (else (loop (car rest) (cdr rest) (cons (car rest) acc)))))))
(define (list-delete-neighbor-dups! = l) (list-delete-neighbor-dups = l))

(define (vector-delete-neighbor-dups = v . opt)
  (let-values (((start end) (%range "vector-delete-neighbor-dups" v opt)))
    (list->vector (list-delete-neighbor-dups = (vector->list v start end)))))

;; Moves the kept elements to the front of [start, end); returns the end of that run.
(define (vector-delete-neighbor-dups! = v . opt)
  (let-values (((start end) (%range "vector-delete-neighbor-dups!" v opt)))
    (let ((kept (list-delete-neighbor-dups = (vector->list v start end))))
      (let loop ((l kept) (i start))
        (if (pair? l)
            (begin (vector-set! v i (car l)) (loop (cdr l) (+ i 1)))
            i)))))

(define (%mean a b) (/ (+ a b) 2))

(define (%median-of-sorted s knil mean)
  (let ((n (vector-length s)))
    (cond ((= n 0) knil)
          ((odd? n) (vector-ref s (quotient n 2)))
          (else (mean (vector-ref s (- (quotient n 2) 1)) (vector-ref s (quotient n 2)))))))

(define (vector-find-median < v knil . mean)
  (%median-of-sorted (vector-sort < v) knil (if (pair? mean) (car mean) %mean)))

(define (vector-find-median! < v knil . mean)
  (vector-sort! < v)
  (%median-of-sorted v knil (if (pair? mean) (car mean) %mean)))

;; The k-th smallest (0-based) of [start, end); leaves that range sorted.
(define (vector-select! less? v k . opt)
  (let-values (((start end) (%range "vector-select!" v opt)))
    (if (not (and (exact-integer? k) (<= 0 k) (< k (- end start))))
        (error "vector-select!: index out of range" k))
    (vector-sort! less? v start end)
    (vector-ref v (+ start k))))

;; Puts the k smallest of [start, end) first (here: sorts the range).
(define (vector-separate! < v k . opt)
  (let-values (((start end) (%range "vector-separate!" v opt)))
    (if (not (and (exact-integer? k) (<= 0 k (- end start))))
        (error "vector-separate!: count out of range" k))
    (vector-sort! < v start end)))
