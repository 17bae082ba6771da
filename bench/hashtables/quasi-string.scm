;; Hash-table benchmark, Quasi version (SRFI 69 names; the R6RS ones cost the same).
;; fixnum: insert then look up 10^6 fixnum keys in an eqv? table, twice;
;; string: insert then look up 10^5 string keys in a string=? table, 10 times (keys made once).
(define (fixnums n)
  (let ((t (make-hash-table eqv?)))
    (let loop ((i 0)) (if (< i n) (begin (hash-table-set! t i i) (loop (+ i 1)))))
    (let loop ((i 0) (s 0)) (if (< i n) (loop (+ i 1) (+ s (hash-table-ref/default t i 0))) s))))
(define (strings keys)
  (let ((t (make-hash-table string=? string-hash)) (n (vector-length keys)))
    (let loop ((i 0)) (if (< i n) (begin (hash-table-set! t (vector-ref keys i) i) (loop (+ i 1)))))
    (let loop ((i 0) (s 0)) (if (< i n) (loop (+ i 1) (+ s (hash-table-ref/default t (vector-ref keys i) 0))) s))))
(define (keys n) (let ((v (make-vector n))) (let loop ((i 0)) (if (< i n) (begin (vector-set! v i (string-append "key-" (number->string i))) (loop (+ i 1))) v))))
(display (let ((k (keys 100000))) (let loop ((r 0) (s 0)) (if (< r 10) (loop (+ r 1) (+ s (strings k))) s))))
(newline)
