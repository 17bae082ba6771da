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

;; ---- call/cc and continuation calls made by machine code (jit/x64_emit.cpp: control_call) ----
;; In 'force and hot 'on modes these run without handing over to the interpreter: a capture marks
;; the frames machine calls pushed in that run, whose returns then lower the shared mark.

;; A capture in tail position of mk-g, called from a compiled loop (top-level procedures, so
;; the calls are machine calls and not inlined): mk-g's frame record returns into the loop (a
;; marked frame), whose slots then change before the next capture at the same depth. Each
;; re-entry must resume the loop with the slots of its own capture.
(define mk-ks '())
(define (mk-g i) (call/cc (lambda (k) (set! mk-ks (cons k mk-ks)) i)))
(define (mk-f n)
  (let loop ((i 0) (acc '()))
    (if (= i n) (reverse acc) (loop (+ i 1) (cons (+ 100 (mk-g i)) acc)))))
(define (loop-marked-captures n)
  (set! mk-ks '())
  (let ((outs '()) (round 0))
    (let ((r (mk-f n)))
      (set! outs (cons r outs))
      (set! round (+ round 1))
      (if (<= round n) ((list-ref (reverse mk-ks) (- round 1)) (* 1000 round)) (reverse outs)))))
(define (list-head l k) (if (= k 0) '() (cons (car l) (list-head (cdr l) (- k 1)))))
(define (loop-marked-expected n)
  (let ((base (let loop ((i 0)) (if (= i n) '() (cons (+ 100 i) (loop (+ i 1)))))))
    (cons base
          (let rounds ((r 1))
            (if (> r n)
                '()
                (cons (append (list-head base (- r 1)) (list (+ 100 (* 1000 r))) (list-tail base r))
                      (rounds (+ r 1))))))))
(test "captures in a compiled loop, each re-entered" (loop-marked-expected 6) (loop-marked-captures 6))
(test "and hot" (loop-marked-expected 6)
      (let warm ((i 0)) (if (< i 300) (begin (loop-marked-captures 6) (warm (+ i 1))) (loop-marked-captures 6))))

;; The same with a non-tail capture two machine calls deep: the marked frames are returned
;; through with `ret`, then the caller's slots change, then a capture at the same depth.
(define nm-ks '())
(define (nm-h i) (* 2 (call/cc (lambda (k) (set! nm-ks (cons k nm-ks)) i))))
(define (nm-g i) (+ 1 (nm-h i)))
(define (nm-f n)
  (let loop ((i 0) (acc 0))
    (if (= i n) acc (loop (+ i 1) (+ (* acc 10) (nm-g i))))))
(define (nested-marked n)
  (set! nm-ks '())
  (let ((outs '()) (round 0))
    (let ((r (nm-f n)))
      (set! outs (cons r outs))
      (set! round (+ round 1))
      (if (<= round n) ((list-ref (reverse nm-ks) (- round 1)) round) (reverse outs)))))
(define (nested-marked-expected n)
  (define (run sub)  ; the digits with element `sub` (if any) replaced by its re-entry value
    (let loop ((i 0) (acc 0))
      (if (= i n) acc (loop (+ i 1) (+ (* acc 10) (+ 1 (* 2 (if (= i (- sub 1)) sub i))))))))
  (let loop ((r 0)) (if (> r n) '() (cons (run r) (loop (+ r 1))))))
(test "non-tail captures under nested machine calls" (nested-marked-expected 4) (nested-marked 4))
(test "and hot" (nested-marked-expected 4)
      (let warm ((i 0)) (if (< i 300) (begin (nested-marked 4) (warm (+ i 1))) (nested-marked 4))))

;; The generator of bench/programs/callcc.scm: two continuations per element, each re-entered
;; from compiled code, the consumer's frames below rewritten between them.
(define (make-gen lst)
  (define return #f)
  (define resume #f)
  (define (start)
    (let loop ((l lst))
      (if (pair? l)
          (begin (call/cc (lambda (k) (set! resume k) (return (car l))))
                 (loop (cdr l)))
          #f))
    (return 'done))
  (lambda ()
    (call/cc (lambda (r) (set! return r) (if resume (resume #f) (start))))))
(define (drain-gen gen acc)
  (let ((v (gen))) (if (eq? v 'done) (reverse acc) (drain-gen gen (cons (* v v) acc)))))
(define (iota-from a n) (if (= n 0) '() (cons a (iota-from (+ a 1) (- n 1)))))
(test "generator through two continuations" (map (lambda (x) (* x x)) (iota-from 1 50))
      (drain-gen (make-gen (iota-from 1 50)) '()))
(test "generator, hot" 5050
      (let warm ((i 0) (s 0))
        (if (< i 200) (warm (+ i 1) (apply + (map (lambda (x) (quotient x x)) (drain-gen (make-gen (iota-from 1 100)) '()))))
            (let loop ((g (make-gen (iota-from 1 100))) (s 0))
              (let ((v (g))) (if (eq? v 'done) s (loop g (+ s v))))))))

;; One continuation re-entered many times from a compiled loop, with multiple values too.
(define (reenter-many n)
  (let ((k #f) (count 0) (acc 0))
    (let ((v (call/cc (lambda (c) (set! k c) 0))))
      (set! count (+ count 1))
      (set! acc (+ acc v))
      (if (< count n) (k count) (list count acc)))))
(test "a continuation re-entered 5000 times" '(5000 12497500) (reenter-many 5000))
(test "values through a continuation" '(1 2 3)
      (call-with-values (lambda () (call/cc (lambda (k) (k 1 2 3)))) list))
(test "no values through a continuation" '()
      (call-with-values (lambda () (call/cc (lambda (k) (k)))) list))

;; Escapes across the C++ barrier: out of a procedure that C++ calls (a hash table's hash and
;; equivalence functions), from compiled code on both sides.
(define (escape-from-hash keys bad)
  (call/cc
   (lambda (k)
     (let ((t (make-hash-table = (lambda (x) (if (= x bad) (k (list 'out x)) (modulo x 5))))))
       (let loop ((l keys) (n 0))
         (if (null? l) n (begin (hash-table-set! t (car l) n) (loop (cdr l) (+ n 1)))))))))
(test "escape out of a hash function" '(out 3) (escape-from-hash '(1 2 3 4) 3))
(test "no escape" 4 (escape-from-hash '(1 2 3 4) 7))
(test "escape out of an equivalence function" 'stopped
      (call/cc (lambda (k)
                 (let ((t (make-hash-table (lambda (a b) (if (or (= a 6) (= b 6)) (k 'stopped) (= a b))) (lambda (x) 0))))
                   (hash-table-set! t 1 1)
                   (hash-table-set! t 6 2)
                   'kept))))
;; A capture inside the hash function, re-entered while it still runs: stays inside.
(test "re-entry inside a hash function" '(3 3 3)
      (let* ((count 0)
             (t (make-hash-table = (lambda (x)
                                     (let ((n 0) (k #f))
                                       (call/cc (lambda (c) (set! k c)))
                                       (set! n (+ n 1))
                                       (if (< n 3) (k #f) (begin (set! count n) 0)))))))
        (let loop ((i 0) (acc '()))
          (if (= i 3) acc (begin (hash-table-set! t i i) (loop (+ i 1) (cons count acc)))))))
;; Re-entering the hash function's continuation after the C++ call returned is an error.
(test-error-message "continuation of a finished C++ call" "cannot resume"
      (let* ((saved #f) (n 0)
             (t (make-hash-table = (lambda (x) (call/cc (lambda (c) (set! saved c))) 0))))
        (hash-table-set! t 1 1)
        (set! n (+ n 1))
        (if (> n 1) 'reentered (saved 1))))

;; Deep recursion, then a capture at the bottom, re-entered after everything returned.
(define (deep-capture depth)
  (let ((k #f) (n 0))
    (define (down i) (if (= i 0) (call/cc (lambda (c) (set! k c) 0)) (+ 1 (down (- i 1)))))
    (let ((r (down depth)))
      (set! n (+ n 1))
      (if (< n 3) (k (* 1000000 n)) (list n r)))))
(test "capture under 100000 frames, re-entered" '(3 2100000) (deep-capture 100000))

;; call/cc's argument checked as the interpreter checks it.
(test "call/cc of a non-procedure" 'caught (guard (e (#t 'caught)) (call/cc 5)))
(test "call/cc of a procedure of no arguments" 'caught (guard (e (#t 'caught)) (call/cc (lambda () 1))))
(test "call/cc calling call/cc" #t (procedure? (call/cc call/cc)))

(test-end)
