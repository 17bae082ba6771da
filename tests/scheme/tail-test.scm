;;; tail-test.scm — proper tail calls (R7RS 3.5). Each loop runs 10^7 (or 10^6) iterations
;;; through one kind of tail context; without proper tail calls the stack or the heap would
;;; grow with the iteration count.
(include "harness.scm")

(define big 10000000)    ; 10^7
(define medium 1000000)  ; 10^6

(define (loop-if n) (if (= n 0) 'done (loop-if (- n 1))))
(test "if consequent/alternative" 'done (loop-if big))

(define (loop-if-then n) (if (> n 0) (loop-if-then (- n 1)) 'done))
(test "if consequent" 'done (loop-if-then big))

(define (loop-cond n)
  (cond ((= n 0) 'done)
        ((odd? n) (loop-cond (- n 1)))
        (else (loop-cond (- n 1)))))
(test "cond" 'done (loop-cond big))

(define (loop-cond-arrow n)
  (cond ((= n 0) 'done)
        ((- n 1) => loop-cond-arrow)))
(test "cond =>" 'done (loop-cond-arrow big))

(define (loop-case n)
  (case (remainder n 3)
    ((0) (if (= n 0) 'done (loop-case (- n 1))))
    ((1) (loop-case (- n 1)))
    (else (loop-case (- n 1)))))
(test "case" 'done (loop-case big))

(define (loop-case-arrow n)
  (if (= n 0)
      'done
      (case (- n 1)
        ((-1) 'never)
        (else => loop-case-arrow))))
(test "case =>" 'done (loop-case-arrow medium))

(define (loop-and n) (and #t (if (= n 0) 'done (loop-and (- n 1)))))
(test "and" 'done (loop-and big))

(define (loop-or n) (or (and (= n 0) 'done) (loop-or (- n 1))))
(test "or" 'done (loop-or big))

(define (loop-when n) (when #t (if (= n 0) 'done (loop-when (- n 1)))))
(test "when" 'done (loop-when big))

(define (loop-unless n) (unless #f (if (= n 0) 'done (loop-unless (- n 1)))))
(test "unless" 'done (loop-unless big))

(define (loop-let n) (let ((m (- n 1))) (if (< m 0) 'done (loop-let m))))
(test "let body" 'done (loop-let big))

(define (loop-let* n) (let* ((a n) (m (- a 1))) (if (< m 0) 'done (loop-let* m))))
(test "let* body" 'done (loop-let* big))

(define (loop-letrec n) (letrec ((m (- n 1))) (if (< m 0) 'done (loop-letrec m))))
(test "letrec body" 'done (loop-letrec medium))

(define (loop-begin n) (begin 1 (if (= n 0) 'done (loop-begin (- n 1)))))
(test "begin" 'done (loop-begin big))

(define (loop-internal-define n)
  (define m (- n 1))
  (if (< m 0) 'done (loop-internal-define m)))
(test "body with internal define" 'done (loop-internal-define big))

(test "named let" 'done (let lp ((n big)) (if (= n 0) 'done (lp (- n 1)))))

(test "do" big (do ((i 0 (+ i 1))) ((= i big) i)))

(define (loop-do-result n)
  (do ((i 0 (+ i 1))) ((= i 1) (if (= n 0) 'done (loop-do-result (- n 1))))))
(test "do result expression" 'done (loop-do-result medium))

(define (loop-apply n) (if (= n 0) 'done (apply loop-apply (list (- n 1)))))
(test "apply" 'done (loop-apply big))

(define (loop-apply-spread a n) (if (= n 0) 'done (apply loop-apply-spread a (list (- n 1)))))
(test "apply with spread arguments" 'done (loop-apply-spread 'x medium))

(define (ev? n) (if (= n 0) #t (od? (- n 1))))
(define (od? n) (if (= n 0) #f (ev? (- n 1))))
(test "mutual recursion" #t (ev? big))
(test "mutual recursion odd" #t (od? (+ big 1)))

(test "local mutual recursion" #t
      (letrec ((e? (lambda (n) (if (= n 0) #t (o? (- n 1)))))
               (o? (lambda (n) (if (= n 0) #f (e? (- n 1))))))
        (e? big)))

(define (loop-callcc n)
  (if (= n 0)
      'done
      (call-with-current-continuation (lambda (k) (loop-callcc (- n 1))))))
(test "call/cc procedure is a tail call" 'done (loop-callcc medium))

(define (loop-cwv n)
  (if (= n 0)
      'done
      (call-with-values (lambda () (- n 1)) loop-cwv)))
(test "call-with-values consumer is a tail call" 'done (loop-cwv medium))

(define (loop-let-values n)
  (let-values (((a b) (values n 1)))
    (if (= a 0) 'done (loop-let-values (- a b)))))
(test "let-values body" 'done (loop-let-values medium))

(define loop-case-lambda
  (case-lambda
    ((n) (loop-case-lambda n 0))
    ((n acc) (if (= n 0) acc (loop-case-lambda (- n 1) (+ acc 1))))))
(test "case-lambda" medium (loop-case-lambda medium))

(define (loop-varargs n . rest) (if (= n 0) 'done (loop-varargs (- n 1) 'a 'b)))
(test "variadic procedure" 'done (loop-varargs medium))

(define (loop-closure n)
  (let ((next (lambda () (loop-closure (- n 1)))))
    (if (= n 0) 'done (next))))
(test "through a closure" 'done (loop-closure medium))

(define (loop-higher f n) (if (= n 0) 'done (f f (- n 1))))
(test "self application" 'done (loop-higher loop-higher big))

(define (loop-dynamic-wind-thunk n)
  ;; The loop continues after dynamic-wind returns: not a tail call itself, but the wind
  ;; stack must not grow.
  (let lp ((i 0))
    (if (= i n)
        'done
        (begin (dynamic-wind (lambda () #f) (lambda () i) (lambda () #f))
               (lp (+ i 1))))))
(test "dynamic-wind in a loop" 'done (loop-dynamic-wind-thunk medium))

(define (loop-guard n)
  (let lp ((i 0))
    (if (= i n)
        'done
        (begin (guard (e (#t e)) (if (= (remainder i 2) 0) (raise i) i))
               (lp (+ i 1))))))
(test "guard in a loop" 'done (loop-guard medium))

(define (loop-parameterize n)
  (let ((p (make-parameter 0)))
    (let lp ((i 0))
      (if (= i n)
          (p)
          (begin (parameterize ((p i)) (p))
                 (lp (+ i 1)))))))
(test "parameterize in a loop" 0 (loop-parameterize medium))

(test "string building loop" 100000
      (string-length (let lp ((i 0) (acc '()))
                       (if (= i 100000) (list->string acc) (lp (+ i 1) (cons #\a acc))))))

(test-end)
