;;; 70-hash-tables.scm — SRFI 69, SRFI 125 and R6RS / Chez Scheme hash tables over the one C++
;;; implementation (builtins/hashtables.cpp: %make-hash-table, hash-table-set!, -ref/default,
;;; -delete!, -contains?, -size, -copy, -clear!, -keys, -values, ->alist, %hash-table-entries).
;;;
;;; Where SRFI 69 and SRFI 125 differ, these accept both: hash-table-fold takes (proc seed table)
;;; or (table proc seed), hash-table-for-each/-map!/-prune! take the procedure first or the table
;;; first, hash-table-ref/-update! take SRFI 125's optional success procedure. hash-table-copy is
;;; mutable unless #f is given (SRFI 69); (srfi 125) exports a copy that is immutable by default.
;;; The procedures that visit entries walk a snapshot (%hash-table-entries), so a visiting
;;; procedure may change the table without upsetting the walk.
;;;
;;; make-hash-table's extra arguments: a non-negative integer is the initial capacity; the symbol
;;; weak (or weak-keys) makes keys weak: an entry goes away when its key is otherwise unreachable;
;;; any other is ignored.

(define %ht-absent (list 'absent))

;; The hash function a table reports when none was given.
(define (%default-hash-for equiv)
  (cond ((eq? equiv eq?) hash-by-identity)
        ((eq? equiv eqv?) eqv-hash)
        ((eq? equiv string=?) string-hash)
        ((eq? equiv string-ci=?) string-ci-hash)
        (else equal-hash)))

;; Makes a table from an equivalence, a hash function or #f, and the extra arguments.
(define (%make-table who equiv hash args)
  (let loop ((args args) (weak #f) (capacity #f))
    (cond ((null? args)
           (%make-hash-table equiv (or hash (%default-hash-for equiv)) weak capacity))
          ((and (exact-integer? (car args)) (>= (car args) 0)) (loop (cdr args) weak (car args)))
          ((memq (car args) '(weak weak-keys ephemeral-keys)) (loop (cdr args) #t capacity))
          ;; Other arguments mean what the implementation says (SRFI 125): here, nothing. The
          ;; SRFI's reference tests pass symbols, strings and vectors and expect them ignored.
          (else (loop (cdr args) weak capacity)))))

;; (make-hash-table [comparator | equiv [hash]] arg ...)
(define (make-hash-table . args)
  (cond ((null? args) (%make-table "make-hash-table" equal? #f '()))
        ((comparator? (car args))
         (let ((c (car args)))
           (%make-table "make-hash-table" (comparator-equality-predicate c)
                        (and (comparator-hashable? c) (comparator-hash-function c)) (cdr args))))
        ((procedure? (car args))
         (if (and (pair? (cdr args)) (procedure? (cadr args)))
             (%make-table "make-hash-table" (car args) (cadr args) (cddr args))
             (%make-table "make-hash-table" (car args) #f (cdr args))))
        (else (error "make-hash-table: expected a comparator or an equivalence procedure, got"
                     (car args)))))

(define (%table-args who args)  ; comparator / equiv+hash prefix of alist->hash-table etc.
  (if (null? args) (list equal?) args))

;; (hash-table comparator key value ...): immutable (SRFI 125).
(define (hash-table comparator . kvs)
  (if (not (or (comparator? comparator) (procedure? comparator)))
      (error "hash-table: expected a comparator, got" comparator))
  (let ((t (make-hash-table comparator)))
    (let loop ((kvs kvs))
      (cond ((null? kvs) (hash-table-copy t #f))
            ((null? (cdr kvs)) (error "hash-table: a key without a value" (car kvs)))
            (else (if (not (hash-table-contains? t (car kvs)))
                      (hash-table-set! t (car kvs) (cadr kvs)))
                  (loop (cddr kvs)))))))

(define (hash-table-unfold stop? mapper successor seed . args)
  (for-each (lambda (p) (if (not (procedure? p)) (%bad-proc "hash-table-unfold" p)))
            (list stop? mapper successor))
  (let ((t (apply make-hash-table args)))
    (let loop ((seed seed))
      (if (stop? seed)
          t
          (call-with-values (lambda () (mapper seed))
            (lambda (k v)
              (if (not (hash-table-contains? t k)) (hash-table-set! t k v))
              (loop (successor seed))))))))

;; The first association of a key wins.
(define (alist->hash-table alist . args)
  (let ((t (apply make-hash-table (%table-args "alist->hash-table" args))))
    (if (not (list? alist)) (%bad-list "alist->hash-table" alist))
    (for-each (lambda (p)
                (if (not (pair? p))
                    (error "alist->hash-table: expected a list of pairs, got" alist))
                (if (not (hash-table-contains? t (car p))) (hash-table-set! t (car p) (cdr p))))
              alist)
    t))

;; (hash-table-ref t k [failure [success]])
(define (hash-table-ref t k . opt)
  (%ht-check "hash-table-ref" t)
  (let ((v (hash-table-ref/default t k %ht-absent)))
    (cond ((eq? v %ht-absent)
           (if (and (pair? opt) (car opt))
               ((car opt))
               (error "hash-table-ref: key not found" k)))
          ((and (pair? opt) (pair? (cdr opt))) ((cadr opt) v))
          (else v))))

(define (hash-table-update! t k updater . opt)
  (hash-table-set! t k (updater (apply hash-table-ref t k opt))))

(define (hash-table-update!/default t k updater default)
  (%ht-check "hash-table-update!/default" t)
  (hash-table-set! t k (updater (hash-table-ref/default t k default))))

(define (hash-table-intern! t k failure)
  (%ht-check "hash-table-intern!" t)
  (let ((v (hash-table-ref/default t k %ht-absent)))
    (if (eq? v %ht-absent)
        (let ((new (failure))) (hash-table-set! t k new) new)
        v)))

(define (hash-table-pop! t)
  (let ((e (%ht-entries "hash-table-pop!" t)))
    (if (= (vector-length e) 0)
        (error "hash-table-pop!: the hash table is empty" t)
        (begin (hash-table-delete! t (vector-ref e 0))
               (values (vector-ref e 0) (vector-ref e 1))))))

(define (hash-table-empty? t)
  (%ht-check "hash-table-empty?" t)
  (= (hash-table-size t) 0))

(define (hash-table-entries t)
  (let ((e (%ht-entries "hash-table-entries" t)))
    (let loop ((i (- (vector-length e) 2)) (ks '()) (vs '()))
      (if (< i 0)
          (values ks vs)
          (loop (- i 2) (cons (vector-ref e i) ks) (cons (vector-ref e (+ i 1)) vs))))))

;; The checks of the procedures written here, named as the user called them (the C++ ones they
;; call would name themselves: "hash-table-size: expected a hash table" from hash-table-empty?).
(define (%ht-check who t)
  (if (not (hash-table? t)) (error (string-append who ": expected a hash table, got") t)))
(define (%ht-entries who t)
  (%ht-check who t)
  (%hash-table-entries t))

;; Calls (f key value) on each entry of the snapshot, in order.
(define (%ht-walk who t f)
  (%ht-check who t)
  (if (not (procedure? f)) (%bad-proc who f))
  (let ((e (%hash-table-entries t)))
    (let loop ((i 0))
      (if (< i (vector-length e))
          (begin (f (vector-ref e i) (vector-ref e (+ i 1))) (loop (+ i 2)))))))

;; (proc table) or (table proc): the procedure and the table in either order.
(define-syntax %with-proc-table
  (syntax-rules ()
    ((_ a b (proc table) body ...)
     (let-values (((proc table) (if (hash-table? a) (values b a) (values a b))))
       body ...))))

(define (hash-table-walk t proc) (%ht-walk "hash-table-walk" t proc))
(define (hash-table-for-each a b) (%with-proc-table a b (proc t) (%ht-walk "hash-table-for-each" t proc)))

(define (hash-table-map! a b)
  (%with-proc-table a b (proc t)
    (%ht-walk "hash-table-map!" t (lambda (k v) (hash-table-set! t k (proc k v))))))

(define (hash-table-prune! a b)
  (%with-proc-table a b (proc t)
    (%ht-walk "hash-table-prune!" t (lambda (k v) (if (proc k v) (hash-table-delete! t k))))))

(define (hash-table-map->list a b)
  (%with-proc-table a b (proc t)
    (let ((acc '()))
      (%ht-walk "hash-table-map->list" t (lambda (k v) (set! acc (cons (proc k v) acc))))
      (reverse acc))))

;; (hash-table-map proc comparator t): a new table of (proc value) under comparator.
(define (hash-table-map proc comparator t)
  (let ((r (make-hash-table comparator)))
    (%ht-walk "hash-table-map" t (lambda (k v) (hash-table-set! r k (proc v))))
    r))

;; (hash-table-fold proc seed t) or (hash-table-fold t proc seed); proc: (key value acc).
(define (hash-table-fold a b c)
  (let-values (((proc seed t) (if (hash-table? a) (values b c a) (values a b c))))
    (let ((acc seed))
      (%ht-walk "hash-table-fold" t (lambda (k v) (set! acc (proc k v acc))))
      acc)))

(define (hash-table-find proc t failure)
  (let ((e (%ht-entries "hash-table-find" t)))
    (let loop ((i 0))
      (if (< i (vector-length e))
          (or (proc (vector-ref e i) (vector-ref e (+ i 1))) (loop (+ i 2)))
          (failure)))))

;; (hash-table-count pred t) — SRFI 125; (hash-table-count t) is the size.
(define (hash-table-count a . b)
  (if (null? b)
      (begin (%ht-check "hash-table-count" a) (hash-table-size a))
      (%with-proc-table a (car b) (pred t)
        (let ((n 0))
          (%ht-walk "hash-table-count" t (lambda (k v) (if (pred k v) (set! n (+ n 1)))))
          n))))

;; SRFI 125 compares the values with a comparator; an equality procedure is accepted too.
(define (hash-table=? values t1 t2)
  (define value=?
    (cond ((comparator? values) (comparator-equality-predicate values))
          ((procedure? values) values)
          (else (error "hash-table=?: expected a comparator, got" values))))
  (and (= (hash-table-size t1) (hash-table-size t2))
       (let ((e (%ht-entries "hash-table=?" t1)))
         (let loop ((i 0))
           (or (= i (vector-length e))
               (let ((v (hash-table-ref/default t2 (vector-ref e i) %ht-absent)))
                 (and (not (eq? v %ht-absent))
                      (value=? (vector-ref e (+ i 1)) v)
                      (loop (+ i 2)))))))))

(define (hash-table-empty-copy t)
  (%make-hash-table (hash-table-equivalence-function t) (hash-table-hash-function t)
                    (hash-table-weak? t) #f))

(define (hash-table-union! t1 t2)
  (%ht-check "hash-table-union!" t1)
  (%ht-walk "hash-table-union!" t2 (lambda (k v) (if (not (hash-table-contains? t1 k)) (hash-table-set! t1 k v))))
  t1)
(define hash-table-merge! hash-table-union!)

(define (hash-table-intersection! t1 t2)
  (%ht-check "hash-table-intersection!" t2)
  (%ht-walk "hash-table-intersection!" t1 (lambda (k v) (if (not (hash-table-contains? t2 k)) (hash-table-delete! t1 k))))
  t1)

(define (hash-table-difference! t1 t2)
  (%ht-check "hash-table-difference!" t2)
  (%ht-walk "hash-table-difference!" t1 (lambda (k v) (if (hash-table-contains? t2 k) (hash-table-delete! t1 k))))
  t1)

(define (hash-table-xor! t1 t2)
  (%ht-check "hash-table-xor!" t1)
  (%ht-walk "hash-table-xor!" t2 (lambda (k v)
                 (if (hash-table-contains? t1 k)
                     (hash-table-delete! t1 k)
                     (hash-table-set! t1 k v))))
  t1)

;; ---- R6RS (rnrs hashtables) and Chez Scheme names -------------------------------------------
(define (make-eq-hashtable . k) (%make-hash-table eq? hash-by-identity #f (and (pair? k) (car k))))
(define (make-eqv-hashtable . k) (%make-hash-table eqv? eqv-hash #f (and (pair? k) (car k))))
(define (make-hashtable hash equiv . k) (%make-hash-table equiv hash #f (and (pair? k) (car k))))
(define (make-weak-eq-hashtable . k) (%make-hash-table eq? hash-by-identity #t (and (pair? k) (car k))))
(define (make-weak-eqv-hashtable . k) (%make-hash-table eqv? eqv-hash #t (and (pair? k) (car k))))
(define (make-weak-hashtable hash equiv . k) (%make-hash-table equiv hash #t (and (pair? k) (car k))))

(define (hashtable-update! t k proc default)
  (%ht-check "hashtable-update!" t)
  (hash-table-set! t k (proc (hash-table-ref/default t k default))))
;; R6RS: the copy is immutable unless mutable? is true.
(define (hashtable-copy t . mutable) (hash-table-copy t (and (pair? mutable) (car mutable))))
(define (hashtable-keys t) (list->vector (hash-table-keys t)))
(define (hashtable-values t) (list->vector (hash-table-values t)))
(define (hashtable-entries t)
  (let-values (((ks vs) (hash-table-entries t))) (values (list->vector ks) (list->vector vs))))
(define (hashtable-cells t) (list->vector (hash-table->alist t)))
;; R6RS: #f for eq? and eqv? tables.
(define (hashtable-hash-function t)
  (let ((e (hash-table-equivalence-function t)))
    (if (or (eq? e eq?) (eqv? e eqv?)) #f (hash-table-hash-function t))))
