;;; 133-body.scm — the SRFI 133 procedures the core does not have (included by srfi/133.sld).
;;; Procedures taking several vectors stop at the shortest.

(define (%v-error who msg . irritants)
  (apply error (string-append who ": " msg) irritants))

(define (%check-vector who v)
  (if (not (vector? v)) (%v-error who "expected a vector, got" v)))

;; Optional [start [end]] of v: (values start end), checked.
(define (%v-range who v opt)
  (%check-vector who v)
  (let* ((len (vector-length v))
         (start (if (pair? opt) (car opt) 0))
         (end (if (and (pair? opt) (pair? (cdr opt))) (cadr opt) len)))
    (if (not (and (exact-integer? start) (<= 0 start len)))
        (%v-error who "start index out of range" start))
    (if (not (and (exact-integer? end) (<= start end len)))
        (%v-error who "end index out of range" end))
    (values start end)))

(define (%min-length who vs)
  (let loop ((vs vs) (n #f))
    (if (null? vs)
        (or n 0)
        (begin (%check-vector who (car vs))
               (loop (cdr vs) (if n (min n (vector-length (car vs))) (vector-length (car vs))))))))

(define (%refs vs i) (map (lambda (v) (vector-ref v i)) vs))

;; ---- constructors -----------------------------------------------------------------------------
;; (f index seed ...) returns (values element new-seed ...).
(define (%unfold! who f v start end seeds right?)
  (if (not (procedure? f)) (%v-error who "expected a procedure, got" f))
  (let loop ((k 0) (seeds seeds))
    (if (< k (- end start))
        (let ((i (if right? (- end k 1) (+ start k))))
          (call-with-values (lambda () (apply f i seeds))
            (lambda (x . new-seeds)
              (vector-set! v i x)
              (loop (+ k 1) new-seeds)))))))

(define (vector-unfold f len . seeds)
  (let ((v (make-vector len)))
    (%unfold! "vector-unfold" f v 0 len seeds #f)
    v))

(define (vector-unfold-right f len . seeds)
  (let ((v (make-vector len)))
    (%unfold! "vector-unfold-right" f v 0 len seeds #t)
    v))

(define (vector-unfold! f v start end . seeds)
  (%v-range "vector-unfold!" v (list start end))
  (%unfold! "vector-unfold!" f v start end seeds #f))

(define (vector-unfold-right! f v start end . seeds)
  (%v-range "vector-unfold-right!" v (list start end))
  (%unfold! "vector-unfold-right!" f v start end seeds #t))

(define (vector-reverse-copy v . opt)
  (let-values (((start end) (%v-range "vector-reverse-copy" v opt)))
    (let ((r (make-vector (- end start))))
      (do ((i start (+ i 1))) ((= i end) r)
        (vector-set! r (- end i 1) (vector-ref v i))))))

(define (vector-concatenate vs) (apply vector-append vs))

;; (vector-append-subvectors [v start end] ...)
(define (vector-append-subvectors . args)
  (let loop ((args args) (parts '()))
    (cond ((null? args) (apply vector-append (reverse parts)))
          ((or (null? (cdr args)) (null? (cddr args)))
           (%v-error "vector-append-subvectors" "expected vector, start, end triples"))
          (else (loop (cdddr args)
                      (cons (vector-copy (car args) (cadr args) (caddr args)) parts))))))

;; ---- predicates -------------------------------------------------------------------------------
(define (vector-empty? v) (%check-vector "vector-empty?" v) (= (vector-length v) 0))

(define (vector= elt=? . vs)
  ;; No eq? short cut: the SRFI's post-finalization note drops it, as (= +nan.0 +nan.0) is #f.
  (define (two a b)
    (and (= (vector-length a) (vector-length b))
         (let loop ((i 0))
           (or (= i (vector-length a))
               (and (elt=? (vector-ref a i) (vector-ref b i)) (loop (+ i 1)))))))
  (for-each (lambda (v) (%check-vector "vector=" v)) vs)
  (let loop ((vs vs))
    (or (null? vs) (null? (cdr vs))
        (and (two (car vs) (cadr vs)) (loop (cdr vs))))))

;; ---- iteration --------------------------------------------------------------------------------
;; (kons state e1 e2 ...)
(define (vector-fold kons state v . vs)
  (if (null? vs)
      (begin (%check-vector "vector-fold" v)
             (let loop ((i 0) (acc state))
               (if (= i (vector-length v)) acc (loop (+ i 1) (kons acc (vector-ref v i))))))
      (let* ((all (cons v vs)) (n (%min-length "vector-fold" all)))
        (let loop ((i 0) (acc state))
          (if (= i n) acc (loop (+ i 1) (apply kons acc (%refs all i))))))))

(define (vector-fold-right kons state v . vs)
  (let* ((all (cons v vs)) (n (%min-length "vector-fold-right" all)))
    (let loop ((i (- n 1)) (acc state))
      (if (< i 0) acc (loop (- i 1) (apply kons acc (%refs all i)))))))

(define (vector-map! f v . vs)
  (let* ((all (cons v vs)) (n (%min-length "vector-map!" all)))
    (do ((i 0 (+ i 1))) ((= i n))
      (vector-set! v i (apply f (%refs all i))))))

(define (vector-count pred v . vs)
  (let* ((all (cons v vs)) (n (%min-length "vector-count" all)))
    (let loop ((i 0) (c 0))
      (if (= i n) c (loop (+ i 1) (if (apply pred (%refs all i)) (+ c 1) c))))))

;; #(x0 (f x0 x1) ...) with knil before x0.
(define (vector-cumulate f knil v)
  (%check-vector "vector-cumulate" v)
  (let ((r (make-vector (vector-length v))))
    (let loop ((i 0) (acc knil))
      (if (= i (vector-length v))
          r
          (let ((x (f acc (vector-ref v i))))
            (vector-set! r i x)
            (loop (+ i 1) x))))))

;; ---- searching --------------------------------------------------------------------------------
(define (%index who pred all from-right? want)
  (let ((n (%min-length who all)))
    (if from-right?
        (let loop ((i (- n 1)))
          (cond ((< i 0) #f)
                ((eq? want (and (apply pred (%refs all i)) #t)) i)
                (else (loop (- i 1)))))
        (let loop ((i 0))
          (cond ((= i n) #f)
                ((eq? want (and (apply pred (%refs all i)) #t)) i)
                (else (loop (+ i 1))))))))

(define (vector-index pred v . vs) (%index "vector-index" pred (cons v vs) #f #t))
(define (vector-index-right pred v . vs) (%index "vector-index-right" pred (cons v vs) #t #t))
(define (vector-skip pred v . vs) (%index "vector-skip" pred (cons v vs) #f #f))
(define (vector-skip-right pred v . vs) (%index "vector-skip-right" pred (cons v vs) #t #f))

;; (cmp element value) is negative, zero or positive.
(define (vector-binary-search v value cmp . opt)
  (if (not (procedure? cmp)) (%v-error "vector-binary-search" "expected a procedure, got" cmp))
  (let-values (((start end) (%v-range "vector-binary-search" v opt)))
    (let loop ((lo start) (hi end))
      (if (>= lo hi)
          #f
          (let* ((mid (quotient (+ lo hi) 2))
                 (c (cmp (vector-ref v mid) value)))
            (cond ((zero? c) mid)
                  ((negative? c) (loop (+ mid 1) hi))
                  (else (loop lo mid))))))))

(define (vector-any pred v . vs)
  (let* ((all (cons v vs)) (n (%min-length "vector-any" all)))
    (let loop ((i 0))
      (and (< i n) (or (apply pred (%refs all i)) (loop (+ i 1)))))))

(define (vector-every pred v . vs)
  (let* ((all (cons v vs)) (n (%min-length "vector-every" all)))
    (let loop ((i 0) (last #t))
      (if (= i n)
          last
          (let ((r (apply pred (%refs all i))))
            (and r (loop (+ i 1) r)))))))

;; (values v' count): the elements satisfying pred first, then the others, each in order.
(define (vector-partition pred v)
  (%check-vector "vector-partition" v)
  (let* ((n (vector-length v))
         (yes (let loop ((i 0) (c 0)) (if (= i n) c (loop (+ i 1) (if (pred (vector-ref v i)) (+ c 1) c)))))
         (r (make-vector n)))
    (let loop ((i 0) (y 0) (no yes))
      (if (= i n)
          (values r yes)
          (let ((x (vector-ref v i)))
            (if (pred x)
                (begin (vector-set! r y x) (loop (+ i 1) (+ y 1) no))
                (begin (vector-set! r no x) (loop (+ i 1) y (+ no 1)))))))))

;; ---- mutators ---------------------------------------------------------------------------------
(define (vector-swap! v i j)
  (let ((x (vector-ref v i)))
    (vector-set! v i (vector-ref v j))
    (vector-set! v j x)))

(define (vector-reverse! v . opt)
  (let-values (((start end) (%v-range "vector-reverse!" v opt)))
    (let loop ((i start) (j (- end 1)))
      (if (< i j)
          (begin (vector-swap! v i j) (loop (+ i 1) (- j 1)))))))

(define (vector-reverse-copy! to at from . opt)
  (let-values (((start end) (%v-range "vector-reverse-copy!" from opt)))
    (%check-vector "vector-reverse-copy!" to)
    (if (not (and (exact-integer? at) (<= 0 at) (<= (+ at (- end start)) (vector-length to))))
        (%v-error "vector-reverse-copy!" "destination index out of range" at))
    ;; Copy first, so that overlapping source and destination work.
    (let ((tmp (vector-reverse-copy from start end)))
      (vector-copy! to at tmp))))

;; ---- conversion -------------------------------------------------------------------------------
(define (reverse-vector->list v . opt)
  (let-values (((start end) (%v-range "reverse-vector->list" v opt)))
    (let loop ((i start) (acc '()))
      (if (= i end) acc (loop (+ i 1) (cons (vector-ref v i) acc))))))

(define (reverse-list->vector l) (list->vector (reverse l)))
