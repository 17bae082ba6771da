;; (srfi 41 derived) — the stream procedures and syntax built on (srfi 41 primitive).
;; Every procedure that makes a stream is lazy: it does work only as its result is forced, and
;; forces its argument streams only as far as the result is used.
(define-library (srfi 41 derived)
  (import (scheme base) (scheme case-lambda) (srfi 41 primitive))
  (export define-stream list->stream port->stream stream stream->list stream-append
          stream-concat stream-constant stream-drop stream-drop-while stream-filter
          stream-fold stream-for-each stream-from stream-iterate stream-length stream-let
          stream-map stream-match stream-of stream-range stream-ref stream-reverse stream-scan
          stream-take stream-take-while stream-unfold stream-unfolds stream-zip)
  (begin
    (define-syntax define-stream
      (syntax-rules ()
        ((_ (name . formals) body1 body ...)
         (define name (stream-lambda formals body1 body ...)))))

    (define-syntax stream
      (syntax-rules ()
        ((_) stream-null)
        ((_ x rest ...) (stream-cons x (stream rest ...)))))

    (define-syntax stream-let
      (syntax-rules ()
        ((_ tag ((var init) ...) body1 body ...)
         ((letrec ((tag (stream-lambda (var ...) body1 body ...))) tag) init ...))))

    (define (check-stream who s)
      (if (not (stream? s)) (error (string-append who ": expected a stream, got") s)))
    (define (check-procedure who p)
      (if (not (procedure? p)) (error (string-append who ": expected a procedure, got") p)))
    (define (check-count who n)
      (if (not (and (exact-integer? n) (>= n 0)))
          (error (string-append who ": expected a non-negative exact integer, got") n)))

    (define (list->stream l)
      (if (not (list? l)) (error "list->stream: expected a list, got" l))
      (let loop ((l l))
        (stream-let next ((l l))
          (if (null? l) stream-null (stream-cons (car l) (next (cdr l)))))))

    (define port->stream
      (case-lambda
        (() (port->stream (current-input-port)))
        ((port)
         (if (not (input-port? port)) (error "port->stream: expected an input port, got" port))
         (stream-let loop ()
           (let ((c (read-char port)))
             (if (eof-object? c) stream-null (stream-cons c (loop))))))))

    ;; (stream->list [n] stream)
    (define stream->list
      (case-lambda
        ((s) (check-stream "stream->list" s) (take-list #f s))
        ((n s)
         (check-count "stream->list" n)
         (check-stream "stream->list" s)
         (take-list n s))))
    ;; n #f: the whole stream.
    (define (take-list n s)
         (let loop ((n n) (s s) (acc '()))
           (if (or (eqv? n 0) (stream-null? s))
               (reverse acc)
               (loop (and n (- n 1)) (stream-cdr s) (cons (stream-car s) acc)))))

    (define (stream-append . ss)
      (for-each (lambda (s) (check-stream "stream-append" s)) ss)
      (stream-let outer ((ss ss))
        (cond ((null? ss) stream-null)
              ((stream-null? (car ss)) (outer (cdr ss)))
              (else (stream-cons (stream-car (car ss))
                                 (outer (cons (stream-cdr (car ss)) (cdr ss))))))))

    (define (stream-concat ss)
      (check-stream "stream-concat" ss)
      (stream-let outer ((ss ss))
        (cond ((stream-null? ss) stream-null)
              ((stream-null? (stream-car ss)) (outer (stream-cdr ss)))
              (else (let ((s (stream-car ss)))
                      (check-stream "stream-concat" s)
                      (stream-cons (stream-car s)
                                   (outer (stream-cons (stream-cdr s) (stream-cdr ss)))))))))

    (define (stream-constant . objs)
      (if (null? objs)
          stream-null
          (stream-let loop ((l objs))
            (if (null? l) (loop objs) (stream-cons (car l) (loop (cdr l)))))))

    (define (stream-drop n s)
      (check-count "stream-drop" n) (check-stream "stream-drop" s)
      (stream-let loop ((n n) (s s))
        (if (or (zero? n) (stream-null? s)) s (loop (- n 1) (stream-cdr s)))))

    (define (stream-drop-while pred s)
      (check-procedure "stream-drop-while" pred) (check-stream "stream-drop-while" s)
      (stream-let loop ((s s))
        (if (and (stream-pair? s) (pred (stream-car s))) (loop (stream-cdr s)) s)))

    (define (stream-filter pred s)
      (check-procedure "stream-filter" pred) (check-stream "stream-filter" s)
      (stream-let loop ((s s))
        (cond ((stream-null? s) stream-null)
              ((pred (stream-car s)) (stream-cons (stream-car s) (loop (stream-cdr s))))
              (else (loop (stream-cdr s))))))

    (define (stream-fold proc base s)
      (check-procedure "stream-fold" proc) (check-stream "stream-fold" s)
      (let loop ((acc base) (s s))
        (if (stream-null? s) acc (loop (proc acc (stream-car s)) (stream-cdr s)))))

    (define (stream-for-each proc s . more)
      (check-procedure "stream-for-each" proc)
      (let ((ss (cons s more)))
        (for-each (lambda (s) (check-stream "stream-for-each" s)) ss)
        (let loop ((ss ss))
          (unless (any-null? ss)
            (apply proc (map stream-car ss))
            (loop (map stream-cdr ss))))))
    (define (any-null? ss)
      (and (pair? ss) (or (stream-null? (car ss)) (any-null? (cdr ss)))))

    (define stream-from
      (case-lambda
        ((first) (stream-from first 1))
        ((first step)
         (if (not (number? first)) (error "stream-from: expected a number, got" first))
         (if (not (number? step)) (error "stream-from: expected a number, got" step))
         (stream-let loop ((x first)) (stream-cons x (loop (+ x step)))))))

    (define (stream-iterate proc base)
      (check-procedure "stream-iterate" proc)
      (stream-let loop ((x base)) (stream-cons x (loop (proc x)))))

    (define (stream-length s)
      (check-stream "stream-length" s)
      (let loop ((n 0) (s s)) (if (stream-null? s) n (loop (+ n 1) (stream-cdr s)))))

    (define (stream-map proc s . more)
      (check-procedure "stream-map" proc)
      (let ((ss (cons s more)))
        (for-each (lambda (s) (check-stream "stream-map" s)) ss)
        (stream-let loop ((ss ss))
          (if (any-null? ss)
              stream-null
              (stream-cons (apply proc (map stream-car ss)) (loop (map stream-cdr ss)))))))

    ;; (stream-range first past [step]): step defaults to 1 or -1, by the direction.
    (define stream-range
      (case-lambda
        ((first past) (stream-range first past (if (< first past) 1 -1)))
        ((first past step)
         (if (not (and (real? first) (real? past) (real? step)))
             (error "stream-range: expected real numbers" first past step))
         (let ((done? (if (positive? step) (lambda (x) (>= x past)) (lambda (x) (<= x past)))))
           (stream-let loop ((x first))
             (if (done? x) stream-null (stream-cons x (loop (+ x step)))))))))

    (define (stream-ref s n)
      (check-stream "stream-ref" s) (check-count "stream-ref" n)
      (let loop ((s s) (n n))
        (cond ((stream-null? s) (error "stream-ref: the stream is too short"))
              ((zero? n) (stream-car s))
              (else (loop (stream-cdr s) (- n 1))))))

    (define (stream-reverse s)
      (check-stream "stream-reverse" s)
      (stream-let loop ((s s) (acc stream-null))
        (if (stream-null? s) acc (loop (stream-cdr s) (stream-cons (stream-car s) acc)))))

    (define (stream-scan proc base s)
      (check-procedure "stream-scan" proc) (check-stream "stream-scan" s)
      (stream-let loop ((acc base) (s s))
        (if (stream-null? s)
            (stream acc)
            (stream-cons acc (loop (proc acc (stream-car s)) (stream-cdr s))))))

    (define (stream-take n s)
      (check-count "stream-take" n) (check-stream "stream-take" s)
      (stream-let loop ((n n) (s s))
        (if (or (zero? n) (stream-null? s))
            stream-null
            (stream-cons (stream-car s) (loop (- n 1) (stream-cdr s))))))

    (define (stream-take-while pred s)
      (check-procedure "stream-take-while" pred) (check-stream "stream-take-while" s)
      (stream-let loop ((s s))
        (if (and (stream-pair? s) (pred (stream-car s)))
            (stream-cons (stream-car s) (loop (stream-cdr s)))
            stream-null)))

    (define (stream-unfold mapper pred generator base)
      (check-procedure "stream-unfold" mapper)
      (check-procedure "stream-unfold" pred)
      (check-procedure "stream-unfold" generator)
      (stream-let loop ((x base))
        (if (pred x) (stream-cons (mapper x) (loop (generator x))) stream-null)))

    ;; gen returns the next seed and one result per stream: a list of the elements that
    ;; stream gets this round (usually one), #f for none this round, or () when it ends.
    (define (stream-unfolds gen seed)
      (check-procedure "stream-unfolds" gen)
      (let* ((rounds (stream-let loop ((seed seed))
                       (call-with-values (lambda () (gen seed))
                         (lambda (next . results) (stream-cons results (loop next))))))
             (n (length (stream-car rounds))))
        (define (nth i)
          (stream-let loop ((rounds rounds))
            (let ((r (list-ref (stream-car rounds) i)))
              (cond ((not r) (loop (stream-cdr rounds)))
                    ((null? r) stream-null)
                    (else (let elements ((l r))
                            (if (null? l)
                                (loop (stream-cdr rounds))
                                (stream-cons (car l) (elements (cdr l))))))))))
        (let build ((i (- n 1)) (acc '()))
          (if (< i 0) (apply values acc) (build (- i 1) (cons (nth i) acc))))))

    (define (stream-zip s . more)
      (let ((ss (cons s more)))
        (for-each (lambda (s) (check-stream "stream-zip" s)) ss)
        (stream-let loop ((ss ss))
          (if (any-null? ss) stream-null (stream-cons (map stream-car ss) (loop (map stream-cdr ss)))))))

    ;; (stream-of expr clause ...): clause is (var in stream), (var is expr) or a test.
    (define-syntax stream-of
      (syntax-rules ()
        ((_ expr clause ...) (%stream-of expr stream-null clause ...))))
    (define-syntax %stream-of
      (syntax-rules (in is)
        ((_ expr rest) (stream-cons expr rest))
        ((_ expr rest (var in s) clause ...)
         (stream-let loop ((strm s))
           (if (stream-null? strm)
               rest
               (let ((var (stream-car strm)))
                 (%stream-of expr (loop (stream-cdr strm)) clause ...)))))
        ((_ expr rest (var is e) clause ...)
         (let ((var e)) (%stream-of expr rest clause ...)))
        ((_ expr rest test clause ...)
         (if test (%stream-of expr rest clause ...) rest))))

    ;; (stream-match stream clause ...): clause is (pattern expr) or (pattern fender expr).
    ;; A pattern is (), (p ...), (p ... . rest) or rest; each p is an identifier or _.
    (define-syntax stream-match
      (syntax-rules ()
        ((_ s clause ...)
         (let ((strm s))
           (check-stream "stream-match" strm)
           (%stream-match strm clause ...)))))
    (define-syntax %stream-match
      (syntax-rules ()
        ((_ strm) (error "stream-match: no pattern matches"))
        ((_ strm (pattern expr) clause ...)
         (%stream-match strm (pattern #t expr) clause ...))
        ((_ strm (pattern fender expr) clause ...)
         (let ((next (lambda () (%stream-match strm clause ...))))
           (%stream-pattern strm pattern fender expr next)))))
    (define-syntax %stream-pattern
      (syntax-rules (_)
        ((_ strm () fender expr next)
         (if (and (stream-null? strm) fender) expr (next)))
        ((_ strm (_ . rest) fender expr next)
         (if (stream-pair? strm)
             (let ((tail (stream-cdr strm))) (%stream-pattern tail rest fender expr next))
             (next)))
        ((_ strm (var . rest) fender expr next)
         (if (stream-pair? strm)
             (let ((var (stream-car strm)) (tail (stream-cdr strm)))
               (%stream-pattern tail rest fender expr next))
             (next)))
        ((_ strm _ fender expr next)
         (if fender expr (next)))
        ((_ strm var fender expr next)
         (let ((var strm)) (if fender expr (next))))))))
