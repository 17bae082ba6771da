;; (srfi 158) — generators and accumulators. A generator is a procedure of no arguments that
;; returns the next value each call and an end-of-file object when it is exhausted (and every
;; call after). An accumulator is a procedure of one argument: a value to take in, or an
;; end-of-file object to ask for the result.
(define-library (srfi 158)
  (import (scheme base) (scheme case-lambda))
  (export generator circular-generator make-iota-generator make-range-generator
          make-coroutine-generator list->generator vector->generator
          reverse-vector->generator string->generator bytevector->generator
          make-for-each-generator make-unfold-generator
          gcons* gappend gflatten ggroup gmerge gmap gcombine gfilter gremove gstate-filter
          gtake gdrop gtake-while gdrop-while gdelete gdelete-neighbor-dups gindex gselect
          generator->list generator->reverse-list generator->vector generator->vector!
          generator->string generator-fold generator-for-each generator-map->list
          generator-find generator-count generator-any generator-every generator-unfold
          make-accumulator count-accumulator list-accumulator reverse-list-accumulator
          vector-accumulator reverse-vector-accumulator vector-accumulator!
          string-accumulator bytevector-accumulator bytevector-accumulator!
          sum-accumulator product-accumulator)
  (begin
    (define eof (eof-object))

    ;; ---- constructors ----

    (define (list->generator l)
      (lambda ()
        (if (null? l) eof (let ((x (car l))) (set! l (cdr l)) x))))
    (define (generator . args) (list->generator args))
    (define (circular-generator . args)
      (if (null? args) (error "circular-generator: expected at least one value"))
      (let ((l args))
        (lambda ()
          (if (null? l) (set! l args))
          (let ((x (car l))) (set! l (cdr l)) x))))

    ;; Exact start and step give exact values; an inexact one gives inexact values computed as
    ;; start + i*step, so rounding does not accumulate.
    (define make-iota-generator
      (case-lambda
        ((count) (make-iota-generator count 0 1))
        ((count start) (make-iota-generator count start 1))
        ((count start step)
         (let ((i 0))
           (lambda ()
             (if (>= i count)
                 eof
                 (let ((x (+ start (* i step))))
                   (set! i (+ i 1))
                   (if (and (exact? start) (exact? step)) x (inexact x)))))))))
    (define make-range-generator
      (case-lambda
        ((start) (make-range-generator start +inf.0 1))
        ((start end) (make-range-generator start end 1))
        ((start end step)
         (let ((i 0))
           (lambda ()
             (let ((x (+ start (* i step))))
               (if (if (negative? step) (<= x end) (>= x end))
                   eof
                   (begin (set! i (+ i 1)) x))))))))

    ;; proc is called with a yield procedure; each yield returns a value from the generator.
    ;; Control passes between the consumer and proc by continuations.
    (define (make-coroutine-generator proc)
      (define return #f)
      (define resume #f)
      (define (yield v)
        (call-with-current-continuation
         (lambda (k) (set! resume k) (return v))))
      (lambda ()
        (call-with-current-continuation
         (lambda (caller)
           (set! return caller)
           (if resume
               (resume #f)
               (begin
                 (proc yield)
                 ;; proc returned: the generator is exhausted from now on.
                 (set! resume (lambda (ignored) (return eof)))
                 (return eof)))))))

    (define (indexed-generator len ref)
      (lambda (seq . range)
        (let ((i (if (pair? range) (car range) 0))
              (end (if (and (pair? range) (pair? (cdr range))) (cadr range) (len seq))))
          (lambda ()
            (if (>= i end) eof (let ((x (ref seq i))) (set! i (+ i 1)) x))))))
    (define vector->generator (indexed-generator vector-length vector-ref))
    (define string->generator (indexed-generator string-length string-ref))
    (define bytevector->generator (indexed-generator bytevector-length bytevector-u8-ref))
    (define (reverse-vector->generator v . range)
      (let ((start (if (pair? range) (car range) 0))
            (i (if (and (pair? range) (pair? (cdr range))) (cadr range) (vector-length v))))
        (lambda ()
          (if (<= i start) eof (begin (set! i (- i 1)) (vector-ref v i))))))

    (define (make-for-each-generator for-each obj)
      (make-coroutine-generator
       (lambda (yield) (for-each yield obj))))
    (define (make-unfold-generator stop? mapper successor seed)
      (lambda ()
        (if (stop? seed)
            eof
            (let ((x (mapper seed))) (set! seed (successor seed)) x))))

    ;; ---- operations ----

    (define (gcons* . args)
      (let ((items (let loop ((l args)) (if (null? (cdr l)) '() (cons (car l) (loop (cdr l))))))
            (gen (let loop ((l args)) (if (null? (cdr l)) (car l) (loop (cdr l))))))
        (lambda ()
          (if (null? items) (gen) (let ((x (car items))) (set! items (cdr items)) x)))))
    (define (gappend . gens)
      (lambda ()
        (let loop ()
          (if (null? gens)
              eof
              (let ((x ((car gens))))
                (if (eof-object? x) (begin (set! gens (cdr gens)) (loop)) x))))))
    (define (gflatten gen)
      (let ((l '()))
        (lambda ()
          (let loop ()
            (if (pair? l)
                (let ((x (car l))) (set! l (cdr l)) x)
                (let ((next (gen)))
                  (if (eof-object? next) eof (begin (set! l next) (loop)))))))))
    (define ggroup
      (case-lambda
        ((gen k) (ggroup-with gen k #f #f))
        ((gen k padding) (ggroup-with gen k #t padding))))
    (define (ggroup-with gen k pad? padding)
      (lambda ()
        (let loop ((n 0) (acc '()))
          (if (= n k)
              (reverse acc)
              (let ((x (gen)))
                (cond ((not (eof-object? x)) (loop (+ n 1) (cons x acc)))
                      ((= n 0) eof)
                      (pad? (loop (+ n 1) (cons padding acc)))
                      (else (reverse acc))))))))
    ;; Merges generators that each yield in order; ties go to the earlier generator.
    (define (gmerge less? . gens)
      (check-proc "gmerge" less?)
      (for-each (lambda (g) (check-proc "gmerge" g)) gens)
      (let ((heads (map (lambda (g) (g)) gens)))
        (lambda ()
          (let loop ((hs heads) (gs gens) (best #f) (best-g #f) (best-cell #f))
            (cond ((pair? hs)
                   (if (and (not (eof-object? (car hs)))
                            (or (not best-cell) (less? (car hs) best)))
                       (loop (cdr hs) (cdr gs) (car hs) (car gs) hs)
                       (loop (cdr hs) (cdr gs) best best-g best-cell)))
                  (best-cell (set-car! best-cell (best-g)) best)
                  (else eof))))))
    (define (gmap proc gen . gens)
      (if (null? gens)
          (lambda () (let ((x (gen))) (if (eof-object? x) x (proc x))))
          (let ((all (cons gen gens)))
            (lambda ()
              (let ((xs (map (lambda (g) (g)) all)))
                (if (any-eof? xs) eof (apply proc xs)))))))
    (define (any-eof? xs)
      (and (pair? xs) (or (eof-object? (car xs)) (any-eof? (cdr xs)))))
    (define (gcombine proc seed gen . gens)
      (let ((all (cons gen gens)))
        (lambda ()
          (let ((xs (map (lambda (g) (g)) all)))
            (if (any-eof? xs)
                eof
                (call-with-values (lambda () (apply proc (append xs (list seed))))
                  (lambda (value new-seed) (set! seed new-seed) value)))))))
    (define (gfilter pred gen)
      (lambda ()
        (let loop ()
          (let ((x (gen)))
            (if (or (eof-object? x) (pred x)) x (loop))))))
    (define (gremove pred gen) (gfilter (lambda (x) (not (pred x))) gen))
    (define (gstate-filter proc seed gen)
      (lambda ()
        (let loop ()
          (let ((x (gen)))
            (if (eof-object? x)
                x
                (call-with-values (lambda () (proc x seed))
                  (lambda (keep? new-seed)
                    (set! seed new-seed)
                    (if keep? x (loop)))))))))
    (define gtake
      (case-lambda
        ((gen k) (gtake-with gen k #f #f))
        ((gen k padding) (gtake-with gen k #t padding))))
    (define (gtake-with gen k pad? padding)
      (let ((n 0))
        (lambda ()
          (if (>= n k)
              eof
              (begin
                (set! n (+ n 1))
                (let ((x (gen)))
                  (if (and (eof-object? x) pad?) padding x)))))))
    (define (gdrop gen k)
      (lambda ()
        (let loop ()
          (if (> k 0) (begin (set! k (- k 1)) (gen) (loop)) (gen)))))
    (define (gtake-while pred gen)
      (let ((done #f))
        (lambda ()
          (if done
              eof
              (let ((x (gen)))
                (if (or (eof-object? x) (not (pred x))) (begin (set! done #t) eof) x))))))
    (define (gdrop-while pred gen)
      (let ((dropping #t))
        (lambda ()
          (if dropping
              (let loop ()
                (let ((x (gen)))
                  (if (and (not (eof-object? x)) (pred x))
                      (loop)
                      (begin (set! dropping #f) x))))
              (gen)))))
    (define (gdelete item gen . same)
      (let ((same? (if (pair? same) (car same) equal?)))
        (gfilter (lambda (x) (not (same? item x))) gen)))
    (define (gdelete-neighbor-dups gen . same)
      (let ((same? (if (pair? same) (car same) equal?))
            (first #t)
            (prev #f))
        (lambda ()
          (let loop ()
            (let ((x (gen)))
              (cond ((eof-object? x) x)
                    ((and (not first) (same? prev x)) (loop))
                    (else (set! first #f) (set! prev x) x)))))))
    ;; Values of value-gen at the (increasing) indices index-gen yields.
    (define (gindex value-gen index-gen)
      (let ((position 0))
        (lambda ()
          (let ((target (index-gen)))
            (if (eof-object? target)
                target
                (let loop ()
                  (let ((x (value-gen)))
                    (cond ((eof-object? x) x)
                          ((= position target) (set! position (+ position 1)) x)
                          (else (set! position (+ position 1)) (loop))))))))))
    (define (gselect value-gen truth-gen)
      (lambda ()
        (let loop ()
          (let ((x (value-gen)) (keep (truth-gen)))
            (cond ((or (eof-object? x) (eof-object? keep)) eof)
                  (keep x)
                  (else (loop)))))))

    ;; ---- consumers ----

    ;; The consumers check their generator and procedure arguments, so a wrong one is reported
    ;; under the consumer's name rather than as an application of a non-procedure.
    (define (check-proc who x)
      (if (not (procedure? x)) (error (string-append who ": expected a procedure, got") x)))
    (define (generator->reverse-list gen . n) (gen->rlist "generator->reverse-list" gen n))
    (define (gen->rlist who gen n)
      (check-proc who gen)
      (if (and (pair? n) (not (and (exact-integer? (car n)) (>= (car n) 0))))
          (error (string-append who ": expected a non-negative exact integer, got") (car n)))
      (let ((limit (if (pair? n) (car n) #f)))
        (let loop ((i 0) (acc '()))
          (if (and limit (>= i limit))
              acc
              (let ((x (gen)))
                (if (eof-object? x) acc (loop (+ i 1) (cons x acc))))))))
    (define (generator->list gen . n) (reverse (gen->rlist "generator->list" gen n)))
    (define (generator->vector gen . n) (list->vector (reverse (gen->rlist "generator->vector" gen n))))
    (define (generator->string gen . n) (list->string (reverse (gen->rlist "generator->string" gen n))))
    (define (generator->vector! v at gen)
      (check-proc "generator->vector!" gen)
      (let loop ((i at))
        (if (>= i (vector-length v))
            (- i at)
            (let ((x (gen)))
              (if (eof-object? x) (- i at) (begin (vector-set! v i x) (loop (+ i 1))))))))
    (define (generator-fold proc seed gen . gens)
      (check-proc "generator-fold" proc)
      (for-each (lambda (g) (check-proc "generator-fold" g)) (cons gen gens))
      (let ((all (cons gen gens)))
        (let loop ((acc seed))
          (let ((xs (map (lambda (g) (g)) all)))
            (if (any-eof? xs) acc (loop (apply proc (append xs (list acc)))))))))
    (define (generator-for-each proc gen . gens)
      (check-proc "generator-for-each" proc)
      (for-each (lambda (g) (check-proc "generator-for-each" g)) (cons gen gens))
      (let ((all (cons gen gens)))
        (let loop ()
          (let ((xs (map (lambda (g) (g)) all)))
            (unless (any-eof? xs) (apply proc xs) (loop))))))
    (define (generator-map->list proc gen . gens)
      (generator->list (apply gmap proc gen gens)))
    (define (generator-find pred gen)
      (check-proc "generator-find" pred) (check-proc "generator-find" gen)
      (let loop ()
        (let ((x (gen)))
          (cond ((eof-object? x) #f) ((pred x) x) (else (loop))))))
    (define (generator-count pred gen)
      (check-proc "generator-count" pred) (check-proc "generator-count" gen)
      (let loop ((n 0))
        (let ((x (gen)))
          (cond ((eof-object? x) n) ((pred x) (loop (+ n 1))) (else (loop n))))))
    (define (generator-any pred gen)
      (check-proc "generator-any" pred) (check-proc "generator-any" gen)
      (let loop ()
        (let ((x (gen)))
          (if (eof-object? x) #f (or (pred x) (loop))))))
    (define (generator-every pred gen)
      (check-proc "generator-every" pred) (check-proc "generator-every" gen)
      (let loop ((last #t))
        (let ((x (gen)))
          (if (eof-object? x)
              last
              (let ((v (pred x))) (if v (loop v) #f))))))
    (define (generator-unfold gen unfold . args)
      (apply unfold eof-object? (lambda (x) x) (lambda (x) (gen)) (gen) args))

    ;; ---- accumulators ----

    (define (make-accumulator kons knil finalizer)
      (let ((state knil))
        (lambda (x)
          (if (eof-object? x) (finalizer state) (set! state (kons x state))))))
    (define (count-accumulator) (make-accumulator (lambda (x n) (+ n 1)) 0 (lambda (n) n)))
    (define (list-accumulator) (make-accumulator cons '() reverse))
    (define (reverse-list-accumulator) (make-accumulator cons '() (lambda (l) l)))
    (define (vector-accumulator)
      (make-accumulator cons '() (lambda (l) (list->vector (reverse l)))))
    (define (reverse-vector-accumulator) (make-accumulator cons '() list->vector))
    (define (string-accumulator)
      (make-accumulator cons '() (lambda (l) (list->string (reverse l)))))
    (define (bytevector-accumulator)
      (make-accumulator cons '() (lambda (l) (apply bytevector (reverse l)))))
    (define (vector-accumulator! v at)
      (lambda (x)
        (if (eof-object? x)
            v
            (begin (vector-set! v at x) (set! at (+ at 1))))))
    (define (bytevector-accumulator! bv at)
      (lambda (x)
        (if (eof-object? x)
            bv
            (begin (bytevector-u8-set! bv at x) (set! at (+ at 1))))))
    (define (sum-accumulator) (make-accumulator + 0 (lambda (n) n)))
    (define (product-accumulator) (make-accumulator * 1 (lambda (n) n)))))
