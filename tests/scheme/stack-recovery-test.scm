;;; stack-recovery-test.scm — the VM's stack after a stack overflow, an error or an escape deep
;;; inside compiled code, and continuations re-entered across frames the interpreter or C++
;;; pushed (review of the call sequence with VmImpl::stack_bound and Frame::resume_top, session
;;; 2026-11-28 23:06). Each case recurses again afterwards, deeper than before, so that a stack
;;; bound or frame top left wrong by the recovery shows up as a wrong answer or a crash. Run in
;;; all four modes; every mode must give these answers.

(include "harness.scm")

(define (depth n) (if (= n 0) 0 (+ 1 (depth (- n 1)))))
(define (inf n) (+ 1 (inf (+ n 1))))
(define (message-of thunk)
  (guard (e (#t (if (error-object? e) (error-object-message e) e))) (thunk)))
(define overflow "recursion too deep: the Scheme stack is exhausted")

;; One stack overflow (each costs seconds, more under the sanitizers), raised inside
;; dynamic-wind inside a procedure a C++ primitive calls back (a hash function): caught by guard
;; outside the primitive, the after thunk run once; then deep recursions whose registers hold
;; values allocated at each level survive the collections they trigger.
(define wind-count 0)
(define h (make-hash-table (lambda (a b) (= a b))
                           (lambda (k)
                             (dynamic-wind (lambda () (set! wind-count (+ wind-count 1)))
                                           (lambda () (inf 0))
                                           (lambda () (set! wind-count (+ wind-count 10)))))))
(test "overflow in a primitive's callback, inside dynamic-wind" overflow
      (message-of (lambda () (hash-table-set! h 1 1))))
(test "dynamic-wind's thunks ran once each" 11 wind-count)
(test "deep recursion after it" 300000 (depth 300000))
(define (build n) (if (= n 0) '() (let ((v (make-vector 3 n))) (cons v (build (- n 1))))))
(define (sum l) (if (null? l) 0 (+ (vector-ref (car l) 2) (sum (cdr l)))))
(test "registers across deep calls after it" 20000100000 (sum (build 200000)))

;; A continuable raise deep in a recursion: the handler allocates and recurses, then returns into
;; the recursion, which goes on with its own registers.
(define (deep-raise n)
  (if (= n 0)
      (+ 1 (raise-continuable 'need))
      (let ((a (* n 2)) (b (list n))) (+ (car b) (- a n) (deep-raise (- n 1))))))
(define (with-handler n)
  (with-exception-handler (lambda (c) (+ (depth 20000) (vector-ref (make-vector 1000 7) 3)))
                          (lambda () (deep-raise n))))
(test "raise-continuable deep inside" (list (+ 20008 (* 10 11)) (+ 20008 (* 10000 10001))) (list (with-handler 10) (with-handler 10000)))

;; An error deep inside, escaped by a full continuation from the handler.
(define (bad n) (if (= n 0) (vector-ref (vector) 5) (let ((x (cons n n))) (+ (car x) (bad (- n 1))))))
(test "escape from an error deep inside" '(caught 100000)
      (list (call/cc (lambda (k) (with-exception-handler (lambda (e) (k 'caught)) (lambda () (bad 20000)))))
            (depth 100000)))

;; A continuation captured in a procedure entered through apply with many arguments (the
;; caller's top raised above its registers), re-entered after the call returned.
(define (walk n acc) (if (= n 0) acc (walk (- n 1) (cons n acc))))
(define saved-k #f)
(define (many . args) (+ (length args) (call/cc (lambda (k) (set! saved-k k) 0))))
(define (reenter-apply)
  (let ((count 0) (out '()))
    (define (caller a b) (let ((r (apply many (walk 500 '())))) (list a b r)))
    (let ((res (caller 'x 'y)))
      (set! out (cons res out))
      (set! count (+ count 1))
      (if (< count 5) (saved-k count) (reverse out)))))
(test "re-entering a frame entered through apply"
      '((x y 500) (x y 501) (x y 502) (x y 503) (x y 504)) (reenter-apply))

;; A continuation captured at the bottom of a recursion that allocates at each level, re-entered
;; after collections and a deeper recursion over the same stack.
(define (reenter-deep)
  (let ((k2 #f) (n2 0) (out '()))
    (define (deep n)
      (if (= n 0)
          (call/cc (lambda (k) (set! k2 k) 0))
          (let ((v (make-vector 2 n))) (+ (vector-ref v 1) (deep (- n 1))))))
    (let ((r2 (deep 10000)))
      (set! n2 (+ n2 1))
      (set! out (cons r2 out))
      (make-vector 100000 0)
      (depth 200000)
      (if (< n2 3) (k2 n2) (reverse out)))))
(test "re-entering a deep recursion after a deeper one" '(50005000 50005001 50005002) (reenter-deep))

;; A generator whose walk runs inside dynamic-wind: each resume re-enters the walk.
(define (make-gen lst)
  (define return #f)
  (define resume #f)
  (define log '())
  (define (gen)
    (call/cc
     (lambda (r)
       (set! return r)
       (if resume
           (resume #f)
           (begin
             (dynamic-wind (lambda () (set! log (cons 'in log)))
                           (lambda ()
                             (let walk ((l lst))
                               (if (pair? l)
                                   (begin (call/cc (lambda (k) (set! resume k) (return (car l))))
                                          (walk (cdr l))))))
                           (lambda () (set! log (cons 'out log))))
             (return 'done))))))
  (lambda () (let ((v (gen))) (if (eq? v 'done) (list v (length log)) v))))
(test "generator through dynamic-wind" '(1 2 3 (done 8))
      (let ((g (make-gen '(1 2 3)))) (let* ((a (g)) (b (g)) (c (g)) (d (g))) (list a b c d))))

(test-end)
