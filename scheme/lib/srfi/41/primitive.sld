;; (srfi 41 primitive) — the stream type and the five primitives of SRFI 41 over R7RS promises.
;; A stream is a record holding a promise whose value is either the null marker or a stream
;; pair (a promise of the head and the tail stream). stream-lambda's body is delay-forced, so a
;; chain of stream procedures each returning the next stream is forced iteratively, in constant
;; space (R7RS delay-force), which is what the SRFI asks for.
(define-library (srfi 41 primitive)
  (import (scheme base) (scheme lazy))
  (export stream-null stream-cons stream? stream-null? stream-pair? stream-car stream-cdr
          stream-lambda)
  (begin
    (define-record-type <stream>
      (make-stream promise) stream?
      (promise stream-promise))
    (define-record-type <stream-pair>
      (make-stream-pair head tail) %stream-pair?
      (head stream-pair-head)
      (tail stream-pair-tail))

    (define null-marker (list 'stream-null))
    (define stream-null (make-stream (delay null-marker)))

    (define (value-of s who)
      (if (not (stream? s)) (error (string-append who ": expected a stream, got") s))
      (force (stream-promise s)))

    (define (stream-null? x)
      (and (stream? x) (eq? (force (stream-promise x)) null-marker)))
    (define (stream-pair? x)
      (and (stream? x) (%stream-pair? (force (stream-promise x)))))

    (define-syntax stream-cons
      (syntax-rules ()
        ((_ head tail)
         (make-stream
          (delay (make-stream-pair (delay head)
                                   (make-stream (delay-force (stream-promise* tail)))))))))
    ;; The promise of a stream, for stream-cons's tail and stream-lambda's body.
    (define (stream-promise* s)
      (if (stream? s) (stream-promise s) (error "stream: expected a stream, got" s)))

    (define (stream-car s)
      (let ((v (value-of s "stream-car")))
        (if (eq? v null-marker) (error "stream-car: the stream is empty"))
        (force (stream-pair-head v))))
    (define (stream-cdr s)
      (let ((v (value-of s "stream-cdr")))
        (if (eq? v null-marker) (error "stream-cdr: the stream is empty"))
        (stream-pair-tail v)))

    (define-syntax stream-lambda
      (syntax-rules ()
        ((_ formals body1 body ...)
         (lambda formals
           (make-stream (delay-force (stream-promise* (let () body1 body ...))))))))))
