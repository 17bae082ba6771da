;;; callcc-segments-test.scm — continuations that share stack segments.
;;; A capture copies only what changed since the last capture or re-entry and points to the
;;; continuation that holds the rest (lib/vm/stack.cpp). These experiments change the stack below
;;; a capture in every way the VM can (returns, loops rewriting a frame's slots, escapes, errors
;;; caught by guard, dynamic-wind, calls from C++) between captures, then re-enter and compare
;;; with what the program means, computed without continuations.
(include "harness.scm")

(define (sum-range a b) (if (> a b) 0 (+ a (sum-range (+ a 1) b))))

;; A capture at every level of a non-tail recursion, each re-entered after everything returned.
(define (deep-chain n)
  (let ((ks '()) (results '()) (count 0))
    (define (deep i)
      (if (= i 0)
          0
          (+ i (call/cc (lambda (k) (set! ks (cons k ks)) (deep (- i 1)))))))
    (let ((r (deep n)))
      (set! results (cons r results))
      (set! count (+ count 1))
      (if (<= count n)
          ((list-ref ks (- count 1)) 1000)
          (reverse results)))))
(define (deep-chain-expected n)
  (cons (sum-range 1 n)
        (let loop ((c 1))
          (if (> c n) '() (cons (+ 1000 (sum-range c n)) (loop (+ c 1)))))))
(test "every level of a capture chain re-entered" (deep-chain-expected 300) (deep-chain 300))
(test "a short chain" (deep-chain-expected 3) (deep-chain 3))

;; Captures at one level from a loop whose frame slots change between them: each re-entry must
;; resume the loop with the slots of its own capture.
(define (loop-captures)
  (let ((saved '()) (outs '()) (rounds 0))
    (define (h i) (* 10 (call/cc (lambda (k) (set! saved (cons (cons i k) saved)) i))))
    (define (g n)
      (let loop ((i 0) (acc '()))
        (if (= i n) (reverse acc) (loop (+ i 1) (cons (h i) acc)))))
    (let ((r (g 5)))
      (set! outs (cons r outs))
      (set! rounds (+ rounds 1))
      (cond ((= rounds 1) ((cdr (assv 2 saved)) 7))
            ((= rounds 2) ((cdr (assv 4 saved)) 9))
            ((= rounds 3) ((cdr (list-ref saved (- (length saved) 1))) 5))
            (else (reverse outs))))))
(test "loop slots as of each capture"
      '((0 10 20 30 40) (0 10 70 30 40) (0 10 70 30 90) (50 10 20 30 40))
      (loop-captures))

;; Generators over trees (deep non-tail walks), two at once: same-fringe.
(define (make-gen tree)
  (define return #f)
  (define resume #f)
  (lambda ()
    (call/cc
     (lambda (r)
       (set! return r)
       (if resume
           (resume #f)
           (begin
             (let walk ((t tree))
               (cond ((null? t) #f)
                     ((pair? t) (walk (car t)) (walk (cdr t)))
                     (else (call/cc (lambda (k) (set! resume k) (return t))))))
             (return 'done)))))))
(define (gen->list g)
  (let ((v (g))) (if (eq? v 'done) '() (cons v (gen->list g)))))
(define (flatten t)
  (cond ((null? t) '()) ((pair? t) (append (flatten (car t)) (flatten (cdr t)))) (else (list t))))
(define (same-fringe? a b)
  (let ((ga (make-gen a)) (gb (make-gen b)))
    (let loop ()
      (let ((x (ga)) (y (gb)))
        (cond ((not (eqv? x y)) #f) ((eq? x 'done) #t) (else (loop)))))))
(define (nest n x) (if (= n 0) x (list (nest (- n 1) x))))
(define tree-a (list (nest 40 1) (list 2 (nest 7 3)) (nest 60 (list 4 5 (nest 3 6))) 7))
(define tree-b (list 1 (list (list 2 3) (nest 90 4)) (list 5 (list 6 (nest 5 7)))))
(define tree-c (list 1 (list (list 2 3) (nest 90 4)) (list 5 (list 6 (nest 5 8)))))
(test "generator over a deep tree" (flatten tree-a) (gen->list (make-gen tree-a)))
(test "same fringe, different shapes" #t (same-fringe? tree-a tree-b))
(test "different fringe" #f (same-fringe? tree-a tree-c))

;; A deep capture, an escape (guard) below it, a capture after the escape, re-entered.
(define (escape-then-capture)
  (let ((k2 #f) (kd #f) (n 0) (rs '()))
    (define (down i)
      (if (= i 0)
          (begin (call/cc (lambda (k) (set! kd k))) (raise 'bottom))
          (+ 1 (down (- i 1)))))
    (define (level j)
      (if (= j 0)
          (let ((g (guard (e ((eq? e 'bottom) 100)) (down 50))))
            (+ g (call/cc (lambda (k) (set! k2 k) 1))))
          (+ j (level (- j 1)))))
    (let ((r (level 20)))
      (set! rs (cons r rs))
      (set! n (+ n 1))
      (if (< n 3) (k2 (* n 10)) (reverse rs)))))
(test "capture after an escape below a capture" '(311 320 330) (escape-then-capture))

;; An error raised deep and caught by guard, then a capture at the guard's level.
(define (error-then-capture)
  (let ((k #f) (n 0) (rs '()))
    (define (bad i) (if (= i 0) (car '()) (+ 1 (bad (- i 1)))))
    (define (outer j)
      (if (= j 0)
          (let ((g (guard (e ((error-object? e) 7)) (bad 30))))
            (* g (call/cc (lambda (c) (set! k c) 1))))
          (+ 1 (outer (- j 1)))))
    (let ((r (outer 10)))
      (set! rs (cons r rs))
      (set! n (+ n 1))
      (if (< n 3) (k (+ n 1)) (reverse rs)))))
(test "capture after an error caught below" '(17 24 31) (error-then-capture))

;; dynamic-wind around a deep capture, re-entered: the before/after thunks run each time.
(define (wind-chain)
  (let ((trace '()) (k #f) (n 0))
    (define (rec i)
      (if (= i 0)
          (dynamic-wind (lambda () (set! trace (cons 'in trace)))
                        (lambda () (call/cc (lambda (c) (set! k c) 0)))
                        (lambda () (set! trace (cons 'out trace))))
          (+ 1 (rec (- i 1)))))
    (let ((r (rec 30)))
      (set! n (+ n 1))
      (if (< n 3) (k n) (list r (reverse trace))))))
(test "dynamic-wind around re-entered deep captures" '(32 (in out in out in out)) (wind-chain))

;; A capture in tail position (the frame being replaced is not part of it), then re-entry.
(define (tail-capture)
  (let ((k #f) (n 0))
    (define (down i) (if (= i 0) (call/cc (lambda (c) (set! k c) 0)) (down (- i 1))))
    (let ((r (+ 1 (down 100))))
      (set! n (+ n 1))
      (if (< n 4) (k (* r 2)) (list n r)))))
(test "tail-position capture re-entered" '(4 15) (tail-capture))

;; Captures inside a procedure called from C++ (a hash table's hash function), re-entered while
;; that call is still running, after a capture in the calling run.
(define (hash-with-reentry x)
  (let ((n 0) (k #f))
    (call/cc (lambda (c) (set! k c)))
    (set! n (+ n 1))
    (if (< n 3) (k #f) (modulo x 7))))
(test "re-entry inside a call from C++"
      '(0 10 20 30 40 50 60 70 80 90)
      (let ((outer (call/cc (lambda (c) c)))
            (t (make-hash-table = hash-with-reentry)))
        (let loop ((i 0)) (if (< i 10) (begin (hash-table-set! t i (* 10 i)) (loop (+ i 1)))))
        (let loop ((i 0) (acc '()))
          (if (< i 10) (loop (+ i 1) (cons (hash-table-ref/default t i #f) acc)) (reverse acc)))))

;; A capture inside a call from C++ that compiled code made (the hash function below), then
;; returns through compiled frames and a capture above them: that capture must copy the frames
;; the returns went through, which hold values computed after the inner capture.
(define (capture-after-nested-capture rounds)
  (let ((ks '()) (outs '()) (round 0))
    (define t (make-hash-table = (lambda (x) (call/cc (lambda (c) c)) (modulo x 7))))
    (define (work i) (hash-table-set! t i i) (* i 2))
    (define (mid i) (+ 1 (work i)))
    (define (top i)
      (let ((a (mid i)) (b (mid (+ i 1))))
        (list a b (call/cc (lambda (k) (set! ks (cons k ks)) 0)))))
    (let ((r (top 10)))
      (set! outs (cons r outs))
      (set! round (+ round 1))
      (if (< round rounds) ((car ks) round) (reverse outs)))))
(test "capture above frames a nested capture saw" '((21 23 0) (21 23 1) (21 23 2)) (capture-after-nested-capture 3))
(test "and again, warm" '((21 23 0) (21 23 1) (21 23 2)) (capture-after-nested-capture 3))

(test-end)
