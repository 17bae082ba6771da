;;; 10-lists.scm — list procedures written in Scheme (loaded into the core environment).
;;;
;;; Loaded on first use (lib/engine/autoload.hpp); member, assoc and the error helpers are in
;;; 08-member.scm, loaded at start-up, because member and assoc replace primitives that exist
;;; before the prelude (a deferred file may only define names nothing bound).
;;;
;;; Provides:
;;;   map, for-each           (1, 2 or n lists; stop at the shortest list)
;;;   append-map, filter-map
;;;   SRFI-1 subset: fold, fold-left (R6RS argument order), fold-right, reduce, filter, remove,
;;;   partition (2 values), delete, delete-duplicates, find, find-tail, any, every, count, last,
;;;   list-index, take, drop, take-while, drop-while, list-tabulate
;;;
;;; Internal helpers (prefix %): %check-end %cars %cdrs %map1 %map2; uses %bad-list and %bad-proc (08-member.scm)
;;;
;;; Results are accumulated in reverse and then copied with `reverse`, never built with
;;; set-cdr!, so a continuation captured inside a mapped procedure and re-entered later does
;;; not mutate lists returned earlier (R7RS 6.10, map).

;; After a loop stopped at a non-pair: () is a normal end, anything else is an improper list.
(define (%check-end who l)
  (if (not (null? l))
      (if (not (pair? l)) (%bad-list who l))))

;; The cars of `lists`, or #f when one of them has ended.
(define (%cars who lists)
  (let loop ((ls lists) (acc '()))
    (if (null? ls)
        (reverse acc)
        (let ((l (car ls)))
          (cond ((pair? l) (loop (cdr ls) (cons (car l) acc)))
                ((null? l) #f)
                (else (%bad-list who l)))))))

;; The cdrs of `lists` (all known to be pairs).
(define (%cdrs lists)
  (let loop ((ls lists) (acc '()))
    (if (null? ls)
        (reverse acc)
        (loop (cdr ls) (cons (cdr (car ls)) acc)))))

;; ---- map / for-each --------------------------------------------------------------------------

;; The procedures that accumulate a result check first that their list ends (list?, or for two
;; lists that one of them does): on a circular list they would grow the result until memory
;; runs out. map checks only past its first 1000 elements, where it starts accumulating.
(define (%one-finite who p1 p2 l1)
  (if (or (list? p1) (list? p2)) p1 (%bad-list who l1)))

;; map builds its result the way it reads it: by recursion, for the first 1000 elements (no
;; reverse pass, no second list), then by accumulating in reverse (the frames of a deeper
;; recursion would cost more than the copy). Either way no pair of a returned list is ever
;; mutated. f is applied to the elements in order. The bound is a literal so that the partial
;; evaluator folds the test.

(define (%map1 f p l depth)
  (cond ((pair? p)
         (if (< depth 1000)
             (let ((v (f (car p))))
               (cons v (%map1 f (cdr p) l (+ depth 1))))
             (let loop ((p (if (list? p) p (%bad-list "map" l))) (acc '()))
               (if (pair? p)
                   (loop (cdr p) (cons (f (car p)) acc))
                   (reverse acc)))))
        ((null? p) '())
        (else (%bad-list "map" l))))

(define (%map2 f p1 p2 l1 l2 depth)
  (if (and (pair? p1) (pair? p2))
      (if (< depth 1000)
          (let ((v (f (car p1) (car p2))))
            (cons v (%map2 f (cdr p1) (cdr p2) l1 l2 (+ depth 1))))
          (let loop ((p1 (%one-finite "map" p1 p2 l1)) (p2 p2) (acc '()))
            (if (and (pair? p1) (pair? p2))
                (loop (cdr p1) (cdr p2) (cons (f (car p1) (car p2)) acc))
                (begin (%check-end "map" p1)
                       (%check-end "map" p2)
                       (reverse acc)))))
      (begin (%check-end "map" p1)
             (%check-end "map" p2)
             '())))

(define map
  (case-lambda
    ((f l)
     (if (not (procedure? f)) (%bad-proc "map" f))
     (%map1 f l l 0))
    ((f l1 l2)
     (if (not (procedure? f)) (%bad-proc "map" f))
     (%map2 f l1 l2 l1 l2 0))
    ((f l1 . more)
     (if (not (procedure? f)) (%bad-proc "map" f))
     (let loop ((ls (cons l1 more)) (acc '()))
       (let ((xs (%cars "map" ls)))
         (if xs
             (loop (%cdrs ls) (cons (apply f xs) acc))
             (reverse acc)))))))

(define for-each
  (case-lambda
    ((f l)
     (if (not (procedure? f)) (%bad-proc "for-each" f))
     (let loop ((p l))
       (cond ((pair? p) (f (car p)) (loop (cdr p)))
             ((null? p) (if #f #f))
             (else (%bad-list "for-each" l)))))
    ((f l1 l2)
     (if (not (procedure? f)) (%bad-proc "for-each" f))
     (let loop ((p1 l1) (p2 l2))
       (if (and (pair? p1) (pair? p2))
           (begin (f (car p1) (car p2))
                  (loop (cdr p1) (cdr p2)))
           (begin (%check-end "for-each" p1)
                  (%check-end "for-each" p2)
                  (if #f #f)))))
    ((f l1 . more)
     (if (not (procedure? f)) (%bad-proc "for-each" f))
     (let loop ((ls (cons l1 more)))
       (let ((xs (%cars "for-each" ls)))
         (if xs
             (begin (apply f xs)
                    (loop (%cdrs ls)))
             (if #f #f)))))))

;; (append-map f l ...): the results of f, appended. The last result is copied too.
(define (append-map f l . more)
  (if (not (procedure? f)) (%bad-proc "append-map" f))
  (let ((results (if (null? more) (map f l) (apply map f l more))))
    (let loop ((rs (reverse results)) (acc '()))
      (if (null? rs)
          acc
          (loop (cdr rs) (append (car rs) acc))))))

;; (filter-map f l ...): the true results of f, in order.
(define filter-map
  (case-lambda
    ((f l)
     (if (not (procedure? f)) (%bad-proc "filter-map" f))
     (if (not (list? l)) (%bad-list "filter-map" l))
     (let loop ((p l) (acc '()))
       (cond ((pair? p)
              (let ((v (f (car p))))
                (loop (cdr p) (if v (cons v acc) acc))))
             ((null? p) (reverse acc))
             (else (%bad-list "filter-map" l)))))
    ((f l1 . more)
     (if (not (procedure? f)) (%bad-proc "filter-map" f))
     (let loop ((ls (cons l1 more)) (acc '()))
       (let ((xs (%cars "filter-map" ls)))
         (if xs
             (let ((v (apply f xs)))
               (loop (%cdrs ls) (if v (cons v acc) acc)))
             (reverse acc)))))))

;; ---- folds -----------------------------------------------------------------------------------

;; SRFI-1: (fold kons knil l ...) calls (kons elem ... acc), left to right.
(define fold
  (case-lambda
    ((kons knil l)
     (if (not (procedure? kons)) (%bad-proc "fold" kons))
     (if (not (list? l)) (%bad-list "fold" l))
     (let loop ((p l) (acc knil))
       (cond ((pair? p) (loop (cdr p) (kons (car p) acc)))
             ((null? p) acc)
             (else (%bad-list "fold" l)))))
    ((kons knil l1 . more)
     (if (not (procedure? kons)) (%bad-proc "fold" kons))
     (let loop ((ls (cons l1 more)) (acc knil))
       (let ((xs (%cars "fold" ls)))
         (if xs
             (loop (%cdrs ls) (apply kons (append xs (list acc))))
             acc))))))

;; R6RS: (fold-left f init l ...) calls (f acc elem ...), left to right.
(define fold-left
  (case-lambda
    ((f init l)
     (if (not (procedure? f)) (%bad-proc "fold-left" f))
     (if (not (list? l)) (%bad-list "fold-left" l))
     (let loop ((p l) (acc init))
       (cond ((pair? p) (loop (cdr p) (f acc (car p))))
             ((null? p) acc)
             (else (%bad-list "fold-left" l)))))
    ((f init l1 . more)
     (if (not (procedure? f)) (%bad-proc "fold-left" f))
     (let loop ((ls (cons l1 more)) (acc init))
       (let ((xs (%cars "fold-left" ls)))
         (if xs
             (loop (%cdrs ls) (apply f acc xs))
             acc))))))

;; (fold-right f init l ...) calls (f elem ... acc), right to left. Runs in constant stack.
(define fold-right
  (case-lambda
    ((f init l)
     (if (not (procedure? f)) (%bad-proc "fold-right" f))
     (if (not (list? l)) (%bad-list "fold-right" l))
     (let loop ((p (reverse l)) (acc init))
       (if (pair? p)
           (loop (cdr p) (f (car p) acc))
           acc)))
    ((f init l1 . more)
     (if (not (procedure? f)) (%bad-proc "fold-right" f))
     ;; Collect the argument rows left to right, then combine them right to left.
     (let collect ((ls (cons l1 more)) (rows '()))
       (let ((xs (%cars "fold-right" ls)))
         (if xs
             (collect (%cdrs ls) (cons xs rows))
             (let loop ((rows rows) (acc init))
               (if (pair? rows)
                   (loop (cdr rows) (apply f (append (car rows) (list acc))))
                   acc))))))))

;; SRFI-1: (reduce f ridentity l) = (fold f (car l) (cdr l)), or ridentity for ().
(define (reduce f ridentity l)
  (if (not (procedure? f)) (%bad-proc "reduce" f))
  (cond ((pair? l) (fold f (car l) (cdr l)))
        ((null? l) ridentity)
        (else (%bad-list "reduce" l))))

;; ---- filtering -------------------------------------------------------------------------------

(define (filter pred l)
  (if (not (procedure? pred)) (%bad-proc "filter" pred))
  (if (not (list? l)) (%bad-list "filter" l))
  (let loop ((p l) (acc '()))
    (cond ((pair? p)
           (let ((x (car p)))
             (loop (cdr p) (if (pred x) (cons x acc) acc))))
          ((null? p) (reverse acc))
          (else (%bad-list "filter" l)))))

(define (remove pred l)
  (if (not (procedure? pred)) (%bad-proc "remove" pred))
  (if (not (list? l)) (%bad-list "remove" l))
  (let loop ((p l) (acc '()))
    (cond ((pair? p)
           (let ((x (car p)))
             (loop (cdr p) (if (pred x) acc (cons x acc)))))
          ((null? p) (reverse acc))
          (else (%bad-list "remove" l)))))

;; (partition pred l) returns two values: the elements satisfying pred, and the others.
(define (partition pred l)
  (if (not (procedure? pred)) (%bad-proc "partition" pred))
  (if (not (list? l)) (%bad-list "partition" l))
  (let loop ((p l) (in '()) (out '()))
    (cond ((pair? p)
           (let ((x (car p)))
             (if (pred x)
                 (loop (cdr p) (cons x in) out)
                 (loop (cdr p) in (cons x out)))))
          ((null? p) (values (reverse in) (reverse out)))
          (else (%bad-list "partition" l)))))

;; (delete x l [=]) removes every element e with (= x e); = defaults to equal?.
(define delete
  (case-lambda
    ((x l) (delete x l equal?))
    ((x l same?)
     (if (not (procedure? same?)) (%bad-proc "delete" same?))
     (if (not (list? l)) (%bad-list "delete" l))
     (let loop ((p l) (acc '()))
       (cond ((pair? p)
              (let ((e (car p)))
                (loop (cdr p) (if (same? x e) acc (cons e acc)))))
             ((null? p) (reverse acc))
             (else (%bad-list "delete" l)))))))

;; (delete-duplicates l [=]) keeps the first of each group of equal elements, in order.
;; The compare procedure is called as (= earlier later).
(define delete-duplicates
  (case-lambda
    ((l)
     (let loop ((p l) (acc '()))
       (cond ((pair? p)
              (let ((e (car p)))
                (loop (cdr p) (if (%member2 e acc) acc (cons e acc)))))
             ((null? p) (reverse acc))
             (else (%bad-list "delete-duplicates" l)))))
    ((l same?)
     (if (not (procedure? same?)) (%bad-proc "delete-duplicates" same?))
     (let loop ((p l) (acc '()))
       (cond ((pair? p)
              (let ((e (car p)))
                (loop (cdr p)
                      (let seen ((k acc))
                        (cond ((null? k) (cons e acc))
                              ((same? (car k) e) acc)
                              (else (seen (cdr k))))))))
             ((null? p) (reverse acc))
             (else (%bad-list "delete-duplicates" l)))))))

;; ---- searching -------------------------------------------------------------------------------

(define (find pred l)
  (if (not (procedure? pred)) (%bad-proc "find" pred))
  (let loop ((p l))
    (cond ((pair? p) (if (pred (car p)) (car p) (loop (cdr p))))
          ((null? p) #f)
          (else (%bad-list "find" l)))))

(define (find-tail pred l)
  (if (not (procedure? pred)) (%bad-proc "find-tail" pred))
  (let loop ((p l))
    (cond ((pair? p) (if (pred (car p)) p (loop (cdr p))))
          ((null? p) #f)
          (else (%bad-list "find-tail" l)))))

;; (any pred l ...): the first true value of pred, or #f. The last call is a tail call.
(define any
  (case-lambda
    ((pred l)
     (if (not (procedure? pred)) (%bad-proc "any" pred))
     (let loop ((p l))
       (cond ((pair? p)
              (if (null? (cdr p))
                  (pred (car p))
                  (or (pred (car p)) (loop (cdr p)))))
             ((null? p) #f)
             (else (%bad-list "any" l)))))
    ((pred l1 . more)
     (if (not (procedure? pred)) (%bad-proc "any" pred))
     (let loop ((ls (cons l1 more)))
       (let ((xs (%cars "any" ls)))
         (and xs
              (or (apply pred xs)
                  (loop (%cdrs ls)))))))))

;; (every pred l ...): #f as soon as pred returns #f, else the last value (#t for empty lists).
(define every
  (case-lambda
    ((pred l)
     (if (not (procedure? pred)) (%bad-proc "every" pred))
     (let loop ((p l))
       (cond ((pair? p)
              (if (null? (cdr p))
                  (pred (car p))
                  (and (pred (car p)) (loop (cdr p)))))
             ((null? p) #t)
             (else (%bad-list "every" l)))))
    ((pred l1 . more)
     (if (not (procedure? pred)) (%bad-proc "every" pred))
     (let loop ((ls (cons l1 more)) (last-value #t))
       (let ((xs (%cars "every" ls)))
         (if xs
             (let ((v (apply pred xs)))
               (and v (loop (%cdrs ls) v)))
             last-value))))))

(define count
  (case-lambda
    ((pred l)
     (if (not (procedure? pred)) (%bad-proc "count" pred))
     (let loop ((p l) (n 0))
       (cond ((pair? p) (loop (cdr p) (if (pred (car p)) (+ n 1) n)))
             ((null? p) n)
             (else (%bad-list "count" l)))))
    ((pred l1 . more)
     (if (not (procedure? pred)) (%bad-proc "count" pred))
     (let loop ((ls (cons l1 more)) (n 0))
       (let ((xs (%cars "count" ls)))
         (if xs
             (loop (%cdrs ls) (if (apply pred xs) (+ n 1) n))
             n))))))

(define list-index
  (case-lambda
    ((pred l)
     (if (not (procedure? pred)) (%bad-proc "list-index" pred))
     (let loop ((p l) (i 0))
       (cond ((pair? p) (if (pred (car p)) i (loop (cdr p) (+ i 1))))
             ((null? p) #f)
             (else (%bad-list "list-index" l)))))
    ((pred l1 . more)
     (if (not (procedure? pred)) (%bad-proc "list-index" pred))
     (let loop ((ls (cons l1 more)) (i 0))
       (let ((xs (%cars "list-index" ls)))
         (and xs
              (if (apply pred xs) i (loop (%cdrs ls) (+ i 1)))))))))

;; (last l): the last element of a non-empty list.
(define (last l)
  (if (not (pair? l)) (error "last: expected a non-empty list, got" l))
  (let loop ((p l))
    (let ((next (cdr p)))
      (if (pair? next) (loop next) (car p)))))

;; ---- sublists --------------------------------------------------------------------------------

(define (%check-count who k)
  (if (not (and (exact-integer? k) (>= k 0)))
      (error (string-append who ": expected a non-negative exact integer, got") k)))

;; (take l k): a fresh list of the first k elements.
(define (take l k)
  (%check-count "take" k)
  (let loop ((p l) (i k) (acc '()))
    (cond ((= i 0) (reverse acc))
          ((pair? p) (loop (cdr p) (- i 1) (cons (car p) acc)))
          (else (error "take: list too short" l k)))))

;; (drop l k): the tail of l after k elements (shared).
(define (drop l k)
  (%check-count "drop" k)
  (let loop ((p l) (i k))
    (cond ((= i 0) p)
          ((pair? p) (loop (cdr p) (- i 1)))
          (else (error "drop: list too short" l k)))))

(define (take-while pred l)
  (if (not (procedure? pred)) (%bad-proc "take-while" pred))
  (let loop ((p l) (acc '()))
    (cond ((and (pair? p) (pred (car p))) (loop (cdr p) (cons (car p) acc)))
          ((or (pair? p) (null? p)) (reverse acc))
          (else (%bad-list "take-while" l)))))

(define (drop-while pred l)
  (if (not (procedure? pred)) (%bad-proc "drop-while" pred))
  (let loop ((p l))
    (cond ((and (pair? p) (pred (car p))) (loop (cdr p)))
          ((or (pair? p) (null? p)) p)
          (else (%bad-list "drop-while" l)))))

;; (list-tabulate n f): (list (f 0) ... (f (- n 1))).
(define (list-tabulate n f)
  (%check-count "list-tabulate" n)
  (if (not (procedure? f)) (%bad-proc "list-tabulate" f))
  (let loop ((i 0) (acc '()))
    (if (= i n)
        (reverse acc)
        (loop (+ i 1) (cons (f i) acc)))))
