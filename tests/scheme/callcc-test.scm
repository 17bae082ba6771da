;;; callcc-test.scm — first-class continuations and dynamic-wind.
;;; Every experiment that re-enters a continuation is kept inside one test expression.
(include "harness.scm")

;; Re-entering a continuation must not restore the values of variables assigned since it was
;; captured (variables are locations). An engine that copies mutable locals into continuations
;; would loop forever in the tests below, so every re-entry goes through `reenter`, which gives
;; up with an error after too many re-entries instead of hanging.
(define reentry-count 0)
(define (reenter k . vals)
  (set! reentry-count (+ reentry-count 1))
  (if (> reentry-count 150000)
      (begin (set! reentry-count 0)
             (error "runaway re-entry: re-entered continuation restored assigned variables")))
  (apply k vals))

;; ---- escapes ---------------------------------------------------------------------------------
(test "escape from for-each" -3
      (call-with-current-continuation
       (lambda (exit)
         (for-each (lambda (x) (if (negative? x) (exit x))) '(54 0 37 -3 245 19))
         #t)))

(define list-length
  (lambda (obj)
    (call/cc
     (lambda (return)
       (letrec ((r (lambda (obj)
                     (cond ((null? obj) 0)
                           ((pair? obj) (+ (r (cdr obj)) 1))
                           (else (return #f))))))
         (r obj))))))
(test "list-length proper" 4 (list-length '(1 2 3 4)))
(test "list-length improper" #f (list-length '(a b . c)))

(test "escape from deep recursion" 0
      (call/cc (lambda (k)
                 (let prod ((l '(1 2 3 0 4 5)))
                   (cond ((null? l) 1)
                         ((= (car l) 0) (k 0))
                         (else (* (car l) (prod (cdr l)))))))))
(test "normal return" 5 (call/cc (lambda (k) 5)))
(test "continuation is a procedure" #t (call/cc (lambda (k) (procedure? k))))
(test "escape value used in expression" 11 (+ 1 (call/cc (lambda (k) (+ 100 (k 10))))))
(test "continuation with several values" '(1 2)
      (call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) list))
(test "continuation with zero values" '()
      (call-with-values (lambda () (call/cc (lambda (k) (k)))) list))
(test "call-with-current-continuation and call/cc are the same" 'x
      (call-with-current-continuation (lambda (k) (call/cc (lambda (k2) (k 'x))))))
(test "escape from nested procedure calls" 'found
      (call/cc (lambda (return)
                 (define (search tree)
                   (cond ((eq? tree 'target) (return 'found))
                         ((pair? tree) (search (car tree)) (search (cdr tree)))
                         (else #f)))
                 (search '((a (b c)) (d (e target f))))
                 'missing)))
(test "break and continue in do" '(1 3 5)
      (let ((acc '()))
        (call/cc
         (lambda (break)
           (do ((i 0 (+ i 1))) (#f)
             (call/cc
              (lambda (continue)
                (if (> i 5) (break #f))
                (if (even? i) (continue #f))
                (set! acc (cons i acc)))))))
        (reverse acc)))

;; ---- re-entry --------------------------------------------------------------------------------
(test "re-enter let binding" '(5 6)
      (let ((k #f) (n 0))
        (let ((v (call/cc (lambda (c) (set! k c) 0))))
          (set! n (+ n 1))
          (if (< v 5) (reenter k (+ v 1)) (list v n)))))

(test "re-enter a finished computation" '(102 3)
      (let ((k #f) (count 0))
        (let ((r (+ 100 (call/cc (lambda (c) (set! k c) 1)))))
          (set! count (+ count 1))
          (if (< count 3) (reenter k count) (list r count)))))

(test "re-entry keeps argument evaluation results" '((1 10 3) (1 2 3))
      (let ((k #f) (results '()))
        (let ((r (list 1 (call/cc (lambda (c) (set! k c) 2)) 3)))
          (set! results (cons r results))
          (if (= (length results) 1) (reenter k 10) results))))

(test "re-enter 100000 times" 100000
      (let ((k #f) (n 0))
        (call/cc (lambda (c) (set! k c)))
        (set! n (+ n 1))
        (if (< n 100000) (reenter k #f))
        n))

(define (make-generator lst)
  (define return #f)
  (define resume #f)
  (define (start)
    (for-each (lambda (x) (call/cc (lambda (k) (set! resume k) (return x)))) lst)
    (return 'done))
  (lambda ()
    (call/cc (lambda (r)
               (set! return r)
               (if resume (reenter resume #f) (start))))))
(test "generator" '(1 2 3 done done)
      (let ((g (make-generator '(1 2 3))))
        (let* ((a (g)) (b (g)) (c (g)) (d (g)) (e (g)))
          (list a b c d e))))

(define (tree-walker tree)
  ;; A generator of the leaves of a tree, by re-entering the walk.
  (define return #f)
  (define resume #f)
  (define (walk t)
    (cond ((null? t) #f)
          ((pair? t) (walk (car t)) (walk (cdr t)))
          (else (call/cc (lambda (k) (set! resume k) (return t))))))
  (lambda ()
    (call/cc (lambda (r)
               (set! return r)
               (if resume
                   (reenter resume #f)
                   (begin (walk tree) (set! resume (lambda (ignored) (return 'eof))) (return 'eof)))))))
(define (same-fringe? a b)
  (let ((ga (tree-walker a)) (gb (tree-walker b)))
    (let loop ()
      (let ((x (ga)) (y (gb)))
        (cond ((not (eqv? x y)) #f)
              ((eq? x 'eof) #t)
              (else (loop)))))))
(test "same fringe" #t (same-fringe? '(1 (2 3) ((4)) 5) '((1 2) 3 (4 (5)))))
(test "different fringe" #f (same-fringe? '(1 (2 3) 4) '(1 (2 4) 3)))

(test "map is re-entry safe" '((1 20 3) (1 10 3) (1 2 3))
      (let ((k #f) (n 0) (results '()))
        (let ((r (map (lambda (x)
                        (call/cc (lambda (c) (if (= x 2) (set! k c)) x)))
                      '(1 2 3))))
          (set! results (cons r results))
          (if (< n 2)
              (begin (set! n (+ n 1)) (reenter k (* 10 n)))
              results))))

(test "vector-map is re-entry safe" '(#(1 20) #(1 10) #(1 2))
      (let ((k #f) (n 0) (results '()))
        (let ((r (vector-map (lambda (x)
                               (call/cc (lambda (c) (if (= x 2) (set! k c)) x)))
                             (vector 1 2))))
          (set! results (cons r results))
          (if (< n 2)
              (begin (set! n (+ n 1)) (reenter k (* 10 n)))
              results))))

;; ---- dynamic-wind ----------------------------------------------------------------------------
(test "dynamic-wind normal order" '(before during after)
      (let ((trace '()))
        (dynamic-wind (lambda () (set! trace (cons 'before trace)))
                      (lambda () (set! trace (cons 'during trace)))
                      (lambda () (set! trace (cons 'after trace))))
        (reverse trace)))

(test "dynamic-wind returns thunk values" '(1 2)
      (call-with-values
          (lambda () (dynamic-wind (lambda () #f) (lambda () (values 1 2)) (lambda () #f)))
        list))

(test "dynamic-wind r7rs connect/talk" '(connect talk1 disconnect connect talk2 disconnect)
      (let ((path '()) (c #f))
        (let ((add (lambda (s) (set! path (cons s path)))))
          (dynamic-wind
           (lambda () (add 'connect))
           (lambda () (add (call-with-current-continuation (lambda (c0) (set! c c0) 'talk1))))
           (lambda () (add 'disconnect)))
          (if (< (length path) 4)
              (reenter c 'talk2)
              (reverse path)))))

(test "escape runs after thunks innermost first" '(in1 in2 out2 out1 x)
      (let ((trace '()))
        (define (note x) (set! trace (cons x trace)))
        (note (call/cc
               (lambda (k)
                 (dynamic-wind
                  (lambda () (note 'in1))
                  (lambda ()
                    (dynamic-wind (lambda () (note 'in2))
                                  (lambda () (k 'x))
                                  (lambda () (note 'out2))))
                  (lambda () (note 'out1))))))
        (reverse trace)))

(test "re-entry runs before thunks outermost first"
      '(in1 in2 body out2 out1 in1 in2 body out2 out1)
      (let ((trace '()) (k #f) (n 0))
        (define (note x) (set! trace (cons x trace)))
        (dynamic-wind
         (lambda () (note 'in1))
         (lambda ()
           (dynamic-wind (lambda () (note 'in2))
                         (lambda () (call/cc (lambda (c) (set! k c))) (note 'body))
                         (lambda () (note 'out2))))
         (lambda () (note 'out1)))
        (set! n (+ n 1))
        (if (< n 2) (reenter k #f))
        (reverse trace)))

(test "jump between sibling extents" '(a-in a-body a-out b-in b-out a-in a-body a-out)
      (let ((trace '()) (ka #f) (done #f))
        (define (note x) (set! trace (cons x trace)))
        (dynamic-wind (lambda () (note 'a-in))
                      (lambda () (call/cc (lambda (c) (set! ka c))) (note 'a-body))
                      (lambda () (note 'a-out)))
        (if (not done)
            (dynamic-wind (lambda () (note 'b-in))
                          (lambda () (set! done #t) (reenter ka #f))
                          (lambda () (note 'b-out))))
        (reverse trace)))

(test "jump within shared outer extent keeps it" '(outer-in a-in a-out b-in b-out a-in a-out outer-out)
      (let ((trace '()) (ka #f) (done #f))
        (define (note x) (set! trace (cons x trace)))
        (dynamic-wind
         (lambda () (note 'outer-in))
         (lambda ()
           (dynamic-wind (lambda () (note 'a-in))
                         (lambda () (call/cc (lambda (c) (set! ka c))))
                         (lambda () (note 'a-out)))
           (if (not done)
               (dynamic-wind (lambda () (note 'b-in))
                             (lambda () (set! done #t) (reenter ka #f))
                             (lambda () (note 'b-out)))))
         (lambda () (note 'outer-out)))
        (reverse trace)))

(test "after thunk runs on error escape" '(in out handled)
      (let ((trace '()))
        (define (note x) (set! trace (cons x trace)))
        (guard (e (#t (note 'handled)))
          (dynamic-wind (lambda () (note 'in))
                        (lambda () (raise 'oops))
                        (lambda () (note 'out))))
        (reverse trace)))

(test "escape runs the after thunk" '(before after)
      (let ((trace '()))
        (call/cc
         (lambda (k)
           (dynamic-wind (lambda () (set! trace (cons 'before trace)))
                         (lambda () (k 'escaped))
                         (lambda () (set! trace (cons 'after trace))))))
        (reverse trace)))

(test "generator through dynamic-wind" '(in out 1 in out 2 in out)
      (let ((trace '()) (return #f) (resume #f))
        (define (note x) (set! trace (cons x trace)))
        (define (next)
          (call/cc (lambda (r)
                     (set! return r)
                     (if resume
                         (reenter resume #f)
                         (dynamic-wind
                          (lambda () (note 'in))
                          (lambda ()
                            (for-each (lambda (x) (call/cc (lambda (k) (set! resume k) (return x))))
                                      '(1 2))
                            (set! resume (lambda (ignored) (return 'end)))
                            (return 'end))
                          (lambda () (note 'out)))))))
        (let* ((a (next)) (b (begin (note a) (next))) (c (begin (note b) (next))))
          (reverse trace))))

;; A continuation captured in a let's init and re-entered: each return makes a fresh vector. The
;; forward pass used to move the init past the allocation (inert code commutes with an expression
;; that returns once, not with one that returns again), so every re-entry shared one vector.
(define (reentry-alloc k) (let ((t (k 0))) (let ((v (vector 0))) (vector-set! v 0 t) v)))
(define reentry-saved #f)
(define reentry-results '())
(let ((v (reentry-alloc (lambda (x) (call/cc (lambda (c) (set! reentry-saved c) x))))))
  (set! reentry-results (cons v reentry-results))
  (if (< (length reentry-results) 3) (reentry-saved (length reentry-results))))
(test "re-entering a let init gives a fresh object each time" '((#(2) #(1) #(0)) #f)
      (list reentry-results (eq? (car reentry-results) (cadr reentry-results))))
;; The same through specialize: the residual's counter cell must be made after the capture point.
(define (reentry-app2 f n) (if (> n 0) (begin (f) (reentry-app2 f (- n 1))) 0))
(define (reentry-cnt start) (let ((n start)) (lambda () (set! n (+ n 1)) n)))
(define (reentry-g s d k)
  (let ((z d)) (set! z (k 0)) (let ((c1 (reentry-cnt s))) (reentry-app2 c1 d) (list (c1) (lambda () z)))))
(define (reentry-run proc)
  (let ((kk #f) (out '()))
    (let ((r (proc 0 (lambda (x) (call/cc (lambda (c) (set! kk c) x))))))
      (set! out (cons (car r) out))
      (if (< (length out) 3) (kk 0) (reverse out)))))
(test "re-entry into a specialized procedure's allocation" '((3 3 3) (3 3 3))
      (list (reentry-run (lambda (d k) (reentry-g 2 d k))) (reentry-run (specialize reentry-g 2))))

;; R7RS letrec evaluates every init before assigning any variable (R5RS pitfall 1.1): a
;; continuation captured in an init and re-entered after the body set the variables must see
;; them assigned afresh from that run's values, not letrec*'s one-at-a-time assignments.
(test "letrec re-entered through call/cc (pitfall 1.1)" 0
      (let ((cont #f))
        (letrec ((x (call-with-current-continuation (lambda (c) (set! cont c) 0)))
                 (y (call-with-current-continuation (lambda (c) (set! cont c) 0))))
          (if cont
              (let ((c cont))
                (set! cont #f)
                (set! x 1)
                (set! y 1)
                (c 0))
              (+ x y)))))
(test "letrec re-entered: the first init's continuation" '(0 5)
      (let ((cont #f) (runs 0))
        (letrec ((x (call-with-current-continuation (lambda (c) (set! cont c) 0)))
                 (y (begin (set! runs (+ runs 1)) 5)))
          (if (= runs 1)
              (begin (set! y 7) (cont 0))
              (list x y)))))
(test "letrec* keeps sequential assignment" 2 (letrec* ((a 1) (b (+ a 1))) b))
(test "letrec inits see the variables (lambdas)" '(#t #f)
      (letrec ((ev? (lambda (n) (if (= n 0) #t (od? (- n 1)))))
               (od? (lambda (n) (if (= n 0) #f (ev? (- n 1)))))
               (z (list 1)))
        (list (ev? 10) (od? 10))))

(test-end)
