;;; 1-body.scm — the SRFI 1 procedures the core does not have (included by srfi/1.sld).

(define (%srfi1-error who msg . irritants)
  (apply error (string-append who ": " msg) irritants))

;; Checked before a linear-update procedure changes anything: an improper list (or a non-list)
;; is reported under the procedure's name with the list intact (reverse! used to drop the tail).
(define (%check-list who l)
  (if (not (list? l)) (%srfi1-error who "expected a proper list, got" l)))

(define (%check-index who k)
  (if (not (and (exact-integer? k) (>= k 0)))
      (%srfi1-error who "expected a non-negative exact integer, got" k)))

;; ---- constructors -----------------------------------------------------------------------------
(define (xcons d a) (cons a d))

(define (circular-list x . rest)
  (let ((l (cons x rest)))
    (set-cdr! (last-pair l) l)
    l))

;; ---- predicates -------------------------------------------------------------------------------
;; Floyd's tortoise and hare: the kind of ending a chain of pairs has.
(define (%list-shape x)  ; 'proper 'dotted 'circular
  (let loop ((slow x) (fast x))
    (cond ((null? fast) 'proper)
          ((not (pair? fast)) 'dotted)
          ((null? (cdr fast)) 'proper)
          ((not (pair? (cdr fast))) 'dotted)
          (else (let ((fast (cddr fast)) (slow (cdr slow)))
                  (if (eq? fast slow) 'circular (loop slow fast)))))))

(define (proper-list? x) (eq? (%list-shape x) 'proper))
(define (circular-list? x) (eq? (%list-shape x) 'circular))
(define (dotted-list? x) (eq? (%list-shape x) 'dotted))
(define (not-pair? x) (not (pair? x)))

(define (null-list? l)
  (cond ((pair? l) #f)
        ((null? l) #t)
        (else (%srfi1-error "null-list?" "expected a proper or circular list, got" l))))

;; (list= elt= list ...): pairwise comparison of adjacent lists.
(define (list= elt= . lists)
  (define (two a b)
    (cond ((eq? a b) #t)
          ((null? a) (null? b))
          ((null? b) #f)
          (else (and (elt= (car a) (car b)) (two (cdr a) (cdr b))))))
  (let loop ((ls lists))
    (or (null? ls) (null? (cdr ls))
        (and (two (car ls) (cadr ls)) (loop (cdr ls))))))

;; ---- selectors --------------------------------------------------------------------------------
;; The k-th element (0-based); a list too short is reported under the selector's name.
(define (%nth who l k)
  (let loop ((p l) (i k))
    (cond ((not (pair? p)) (%srfi1-error who "list too short" l))
          ((= i 0) (car p))
          (else (loop (cdr p) (- i 1))))))
(define (first l) (if (pair? l) (car l) (%nth "first" l 0)))
(define (second l) (%nth "second" l 1))
(define (third l) (%nth "third" l 2))
(define (fourth l) (%nth "fourth" l 3))
(define (fifth l) (%nth "fifth" l 4))
(define (sixth l) (%nth "sixth" l 5))
(define (seventh l) (%nth "seventh" l 6))
(define (eighth l) (%nth "eighth" l 7))
(define (ninth l) (%nth "ninth" l 8))
(define (tenth l) (%nth "tenth" l 9))

(define (car+cdr p) (values (car p) (cdr p)))

;; The last k pairs of l (l may be dotted).
(define (take-right l k)
  (%check-index "take-right" k)
  (let loop ((lead (drop l k)) (lag l))
    (if (pair? lead) (loop (cdr lead) (cdr lag)) lag)))

(define (drop-right l k)
  (%check-index "drop-right" k)
  (let loop ((lead (drop l k)) (lag l) (acc '()))
    (if (pair? lead)
        (loop (cdr lead) (cdr lag) (cons (car lag) acc))
        (reverse acc))))

;; ---- linear update ----------------------------------------------------------------------------
;; The ! variants reuse their argument's pairs, relinking them with set-cdr! (SRFI 1 allows it;
;; Larceny's R7RS tests expect it). On a bad argument each calls its pure twin, whose error it
;; reports.

;; The pairs of l whose elements satisfy keep?, relinked in place, in order.
(define (%keep! keep? l)
  (let skip ((l l))
    (cond ((null? l) '())
          ((keep? (car l))
           (let loop ((prev l) (p (cdr l)))
             (cond ((null? p) l)
                   ((keep? (car p)) (loop p (cdr p)))
                   (else (set-cdr! prev (cdr p)) (loop prev (cdr p))))))
          (else (skip (cdr l))))))

;; The longest prefix of l whose elements satisfy pred, cut off in place, and the rest.
(define (%span! pred l)
  (cond ((not (list? l)) (span pred l))
        ((or (null? l) (not (pred (car l)))) (values '() l))
        (else (let loop ((prev l))
                (let ((next (cdr prev)))
                  (if (and (pair? next) (pred (car next)))
                      (loop next)
                      (begin (set-cdr! prev '()) (values l next))))))))

(define (take! l k)
  (%check-index "take!" k)
  (if (= k 0)
      '()
      ;; the k-th pair is cut after; a list too short is reported as take!'s, with its k
      (let loop ((end l) (i (- k 1)))
        (cond ((not (pair? end)) (%srfi1-error "take!" "list too short" l k))
              ((= i 0) (set-cdr! end '()) l)
              (else (loop (cdr end) (- i 1)))))))

(define (drop-right! l k)
  (%check-index "drop-right!" k)
  (let ((lead (drop l k)))
    (if (pair? lead)
        (let loop ((lead (cdr lead)) (lag l))
          (if (pair? lead)
              (loop (cdr lead) (cdr lag))
              (begin (set-cdr! lag '()) l)))
        '())))

(define (split-at l k)
  (%check-index "split-at" k)
  (let loop ((p l) (i k) (acc '()))
    (cond ((= i 0) (values (reverse acc) p))
          ((pair? p) (loop (cdr p) (- i 1) (cons (car p) acc)))
          (else (%srfi1-error "split-at" "list too short" l k)))))
(define (split-at! l k)
  (%check-index "split-at!" k)
  (if (= k 0)
      (values '() l)
      (let ((end (drop l (- k 1))))
        (if (pair? end)
            (let ((rest (cdr end))) (set-cdr! end '()) (values l rest))
            (split-at l k)))))

;; ---- miscellaneous ----------------------------------------------------------------------------
;; The length of a proper (or dotted) list, #f for a circular one.
(define (length+ x)
  (let loop ((slow x) (fast x) (n 0))
    (cond ((not (pair? fast)) n)
          ((not (pair? (cdr fast))) (+ n 1))
          (else (let ((fast (cddr fast)) (slow (cdr slow)))
                  (if (eq? fast slow) #f (loop slow fast (+ n 2))))))))

(define (concatenate lists) (apply append lists))

(define (reverse! l)
  (%check-list "reverse!" l)
  (let loop ((p l) (acc '()))
    (if (pair? p)
        (let ((next (cdr p))) (set-cdr! p acc) (loop next p))
        acc)))

(define (append! . lists)
  ;; Every list but the last is proper, checked before anything changes.
  (let check ((ls lists))
    (if (and (pair? ls) (pair? (cdr ls)))
        (begin (%check-list "append!" (car ls)) (check (cdr ls)))))
  ;; The last pair of each non-empty list is linked to the next non-empty list.
  (let skip ((ls lists))
    (cond ((null? ls) '())
          ((null? (cdr ls)) (car ls))
          ((null? (car ls)) (skip (cdr ls)))
          (else
           (let ((result (car ls)))
             (let loop ((tail (last-pair (car ls))) (rest (cdr ls)))
               (cond ((null? rest) result)
                     ((null? (cdr rest)) (set-cdr! tail (car rest)) result)
                     ((null? (car rest)) (loop tail (cdr rest)))
                     (else (set-cdr! tail (car rest)) (loop (last-pair (car rest)) (cdr rest))))))))))

(define (concatenate! lists) (apply append! lists))

(define (append-reverse rev-head tail)
  (%check-list "append-reverse" rev-head)
  (let loop ((p rev-head) (acc tail))
    (if (pair? p) (loop (cdr p) (cons (car p) acc)) acc)))

(define (append-reverse! rev-head tail)
  (%check-list "append-reverse!" rev-head)
  (let loop ((p rev-head) (acc tail))
    (if (pair? p)
        (let ((next (cdr p))) (set-cdr! p acc) (loop next p))
        acc)))

(define (zip l . ls) (apply map list l ls))

(define (unzip1 l) (map car l))
(define (unzip2 l) (values (map car l) (map cadr l)))
(define (unzip3 l) (values (map car l) (map cadr l) (map caddr l)))
(define (unzip4 l) (values (map car l) (map cadr l) (map caddr l) (map cadddr l)))
(define (unzip5 l) (values (map car l) (map cadr l) (map caddr l) (map cadddr l) (map fifth l)))

;; ---- fold, unfold, map ------------------------------------------------------------------------
;; Checked on entry, so a wrong argument is reported under the caller's name.
(define (%check-procs who . ps)
  (for-each (lambda (p) (if (not (procedure? p)) (error (string-append who ": expected a procedure, got") p)))
            ps))

;; (unfold stop? mapper successor seed [tail-gen])
(define (unfold stop? mapper successor seed . tail-gen)
  (%check-procs "unfold" stop? mapper successor)
  (let loop ((seed seed) (acc '()))
    (if (stop? seed)
        (append-reverse! acc (if (pair? tail-gen) ((car tail-gen) seed) '()))
        (loop (successor seed) (cons (mapper seed) acc)))))

;; (unfold-right stop? mapper successor seed [tail])
(define (unfold-right stop? mapper successor seed . tail)
  (%check-procs "unfold-right" stop? mapper successor)
  (let loop ((seed seed) (acc (if (pair? tail) (car tail) '())))
    (if (stop? seed)
        acc
        (loop (successor seed) (cons (mapper seed) acc)))))

;; The lists of the argument lists, or #f once one has ended.
(define (%tails lists)
  (let loop ((ls lists))
    (cond ((null? ls) #t)
          ((pair? (car ls)) (loop (cdr ls)))
          (else #f))))

(define (pair-fold kons knil l . ls)
  (if (null? ls)
      (let loop ((p l) (acc knil))
        (if (pair? p)
            (let ((next (cdr p))) (loop next (kons p acc)))
            acc))
      (let loop ((ps (cons l ls)) (acc knil))
        (if (%tails ps)
            (let ((next (map cdr ps))) (loop next (apply kons (append ps (list acc)))))
            acc))))

(define (pair-fold-right kons knil l . ls)
  (if (null? ls)
      (let loop ((p l) (pairs '()))
        (if (pair? p)
            (loop (cdr p) (cons p pairs))
            (fold kons knil pairs)))
      (let loop ((ps (cons l ls)) (rows '()))
        (if (%tails ps)
            (loop (map cdr ps) (cons ps rows))
            (fold (lambda (row acc) (apply kons (append row (list acc)))) knil rows)))))

;; (reduce-right f ridentity l): (f x1 (f x2 ... (f xn-1 xn))).
(define (reduce-right f ridentity l)
  (if (null? l)
      ridentity
      (let ((r (reverse l)))
        (fold (lambda (x acc) (f x acc)) (car r) (cdr r)))))

(define (append-map! f l . ls) (apply append-map f l ls))

(define (pair-for-each f l . ls)
  (if (null? ls)
      (let loop ((p l))
        (if (pair? p) (let ((next (cdr p))) (f p) (loop next))))
      (let loop ((ps (cons l ls)))
        (if (%tails ps) (let ((next (map cdr ps))) (apply f ps) (loop next))))))

;; map calls f left to right already.
(define (map-in-order f l . ls) (apply map f l ls))
;; One list: each element replaced in its own pair. Several: fresh pairs, as map.
(define (map! f l . ls)
  (if (or (pair? ls) (not (list? l)))
      (apply map f l ls)
      (let loop ((p l))
        (if (pair? p)
            (begin (set-car! p (f (car p))) (loop (cdr p)))
            l))))

;; ---- filtering ----------------------------------------------------------------------------------
(define (filter! pred l)
  (if (and (procedure? pred) (list? l)) (%keep! pred l) (filter pred l)))
(define (remove! pred l)
  (if (and (procedure? pred) (list? l)) (%keep! (lambda (x) (not (pred x))) l) (remove pred l)))
;; The pairs relinked into two chains behind two header pairs.
(define (partition! pred l)
  (if (not (and (procedure? pred) (list? l)))
      (partition pred l)
      (let ((in (list 'in)) (out (list 'out)))
        (let loop ((p l) (i in) (o out))
          (if (null? p)
              (begin (set-cdr! i '()) (set-cdr! o '()) (values (cdr in) (cdr out)))
              (let ((next (cdr p)))
                (if (pred (car p))
                    (begin (set-cdr! i p) (loop next p o))
                    (begin (set-cdr! o p) (loop next i p)))))))))

;; ---- searching ----------------------------------------------------------------------------------
(define (take-while! pred l)
  (if (procedure? pred)
      (call-with-values (lambda () (%span! pred l)) (lambda (head rest) head))
      (take-while pred l)))

(define (span pred l)
  (let loop ((p l) (acc '()))
    (if (and (pair? p) (pred (car p)))
        (loop (cdr p) (cons (car p) acc))
        (values (reverse acc) p))))
(define (break pred l) (span (lambda (x) (not (pred x))) l))
(define (span! pred l) (%span! pred l))
(define (break! pred l) (%span! (lambda (x) (not (pred x))) l))

;; ---- deleting -----------------------------------------------------------------------------------
(define (delete! x l . same)
  (if (and (list? l) (or (null? same) (procedure? (car same))))
      (let ((same? (if (pair? same) (car same) equal?)))
        (%keep! (lambda (y) (not (same? x y))) l))
      (apply delete x l same)))
;; Each kept pair drops the later elements equal to its own from the rest, in place.
(define (delete-duplicates! l . same)
  (if (and (list? l) (or (null? same) (procedure? (car same))))
      (let ((same? (if (pair? same) (car same) equal?)))
        (let loop ((p l))
          (if (pair? p)
              (let ((x (car p)))
                (set-cdr! p (%keep! (lambda (y) (not (same? x y))) (cdr p)))
                (loop (cdr p)))
              l)))
      (apply delete-duplicates l same)))

;; ---- association lists --------------------------------------------------------------------------
(define (alist-cons k v alist) (cons (cons k v) alist))
(define (alist-copy alist) (map (lambda (p) (cons (car p) (cdr p))) alist))
;; (alist-delete key alist [=]): = is called as (= key entry-key).
(define (alist-delete key alist . same)
  (let ((same? (if (pair? same) (car same) equal?)))
    (remove (lambda (p) (same? key (car p))) alist)))
(define (alist-delete! key alist . same)
  (if (and (list? alist) (or (null? same) (procedure? (car same))))
      (let ((same? (if (pair? same) (car same) equal?)))
        (%keep! (lambda (p) (not (same? key (car p)))) alist))
      (apply alist-delete key alist same)))

;; ---- lists as sets ------------------------------------------------------------------------------
;; Membership with the SRFI's argument order: (= list-element x), for adjoin and union, whose
;; accumulated elements come first.
(define (%lset-member? = x l)
  (let loop ((l l))
    (and (pair? l) (or (= (car l) x) (loop (cdr l))))))
;; x from an earlier list, l a later one: (= x later-element), as lset<=, lset=, intersection,
;; difference and diff+intersection call = (their first argument from the first list).
(define (%lset-in? = x l)
  (let loop ((l l))
    (and (pair? l) (or (= x (car l)) (loop (cdr l))))))
(define (%lset-check who =)
  (if (not (procedure? =)) (error (string-append who ": expected a procedure, got") =)))

(define (lset<= = . lists)
  (%lset-check "lset<=" =)
  (let loop ((ls lists))
    (or (null? ls) (null? (cdr ls))
        (and (every (lambda (x) (%lset-in? = x (cadr ls))) (car ls))
             (loop (cdr ls))))))

(define (lset= = . lists)
  (%lset-check "lset=" =)
  (let loop ((ls lists))
    (or (null? ls) (null? (cdr ls))
        (and (every (lambda (x) (%lset-in? = x (cadr ls))) (car ls))
             (every (lambda (x) (%lset-member? = x (car ls))) (cadr ls))
             (loop (cdr ls))))))

(define (lset-adjoin = l . xs)
  (%lset-check "lset-adjoin" =)
  (fold (lambda (x acc) (if (%lset-member? = x acc) acc (cons x acc))) l xs))

(define (lset-union = . lists)
  (%lset-check "lset-union" =)
  (cond ((null? lists) '())
        (else
         (fold (lambda (l acc)
                 (cond ((null? l) acc)
                       ((null? acc) l)
                       ((eq? l acc) acc)
                       (else (fold (lambda (x acc) (if (%lset-member? = x acc) acc (cons x acc)))
                                   acc l))))
               (car lists) (cdr lists)))))

(define (lset-intersection = l . lists)
  (%lset-check "lset-intersection" =)
  (filter (lambda (x) (every (lambda (other) (%lset-in? = x other)) lists)) l))

(define (lset-difference = l . lists)
  (%lset-check "lset-difference" =)
  (filter (lambda (x) (not (any (lambda (other) (%lset-in? = x other)) lists))) l))

(define (lset-xor = . lists)
  (%lset-check "lset-xor" =)
  (fold (lambda (b a)
          (let ((a-b (lset-difference = a b))
                (b-a (lset-difference = b a)))
            (append b-a a-b)))
        '() lists))

(define (lset-diff+intersection = l . lists)
  (%lset-check "lset-diff+intersection" =)
  (partition (lambda (x) (not (any (lambda (other) (%lset-in? = x other)) lists))) l))

(define (lset-union! = . lists) (%lset-check "lset-union!" =) (apply lset-union = lists))
(define (lset-intersection! = l . lists)
  (%lset-check "lset-intersection!" =)
  (apply lset-intersection = l lists))
(define (lset-difference! = l . lists)
  (%lset-check "lset-difference!" =)
  (apply lset-difference = l lists))
(define (lset-xor! = . lists) (%lset-check "lset-xor!" =) (apply lset-xor = lists))
(define (lset-diff+intersection! = l . lists)
  (%lset-check "lset-diff+intersection!" =)
  (apply lset-diff+intersection = l lists))
