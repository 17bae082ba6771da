;;; jit-calls-test.scm — calls and returns between compiled procedures (lib/jit/README.md "Calls
;;; and returns"): the frame record a machine call pushes (Frame: the caller's top is implied),
;;; the one-compare stack check against VmImpl::stack_bound and its out-of-line path, deep
;;; recursion, frames the interpreter or C++ pushed in between (apply, a primitive calling
;;; back), continuations captured and re-entered inside compiled recursion, dynamic-wind, and
;;; errors raised deep inside it. Run in all four modes; every mode must give these answers.

(include "harness.scm")

(define (depth n) (if (= n 0) 0 (+ 1 (depth (- n 1)))))
(define (run-depths)
  ;; deep, shallow, deeper: the stack bound moves up in steps, and stays right after a return
  (list (depth 1000) (depth 200000) (depth 10) (depth 300000) (depth 5)))
(test "deep self recursion, growing" '(1000 200000 10 300000 5) (run-depths))
(test "deep self recursion, again" '(1000 200000 10 300000 5) (run-depths))

;; Non-self known callees through globals, mutually recursive (different frame sizes).
(define (ping n acc) (if (= n 0) acc (+ 1 (pong (- n 1) acc 7))))
(define (pong n acc unused) (if (= n 0) acc (+ 2 (ping (- n 1) (+ acc 0)))))
(test "mutual recursion of known callees" (+ 3 (* 3 50000)) (ping 100000 3))

;; A frame whose top the interpreter raised for an `apply` (the callee's arguments spread
;; above it): after the return the caller's registers are intact.
(define (add3 a b c) (+ a b (* 10 c)))
(define (around-apply x y lst)
  (let* ((r1 (apply add3 lst))
         (r2 (apply depth (list (length lst))))
         (r3 (depth 50)))
    (list x y r1 r2 r3 (+ x y))))
(test "registers after apply" '(2 5 33 3 50 7) (around-apply 2 5 '(1 2 3)))
(define (around-apply2 x y lst)
  (let* ((r1 (apply add3 lst))
         (r2 (depth 20)))
    (list x y r1 r2 (+ y r2))))
(test "registers after apply, twice" '((q 4 33 20 24) (q 4 33 20 24))
      (list (around-apply2 'q 4 '(1 2 3)) (around-apply2 'q 4 '(1 2 3))))

;; A primitive calling back into Scheme (hash tables with user procedures): the barrier frame's
;; top is the one kept, and the primitive's arguments on the stack survive each callback.
(define (my-hash s) (depth (modulo (string-length s) 50)))
(define (my-equiv a b) (and (= (depth (string-length a)) (depth (string-length b))) (string=? a b)))
(define (hash-roundtrip)
  (let ((t (make-hash-table my-equiv my-hash)))
    (hash-table-set! t "alpha" 1)
    (hash-table-set! t "beta" 2)
    (hash-table-set! t "gamma-delta" 3)
    (list (hash-table-ref/default t "alpha" #f)
          (hash-table-ref/default t "beta" #f)
          (hash-table-ref/default t "gamma-delta" #f)
          (hash-table-ref/default t "omega" 'none)
          (depth 1000))))
(test "callbacks from a primitive" '(1 2 3 none 1000) (hash-roundtrip))
(test "callbacks from a primitive, again" '(1 2 3 none 1000) (hash-roundtrip))

;; A continuation captured at the bottom of a compiled recursion, re-entered from outside it:
;; the frames below are restored and return through the slow path.
(define (capture-deep)
  (let ((ks '()) (count 0))
    (define (deep n)
      (if (= n 0)
          (call/cc (lambda (k) (set! ks (cons k ks)) 0))
          (+ 1 (deep (- n 1)))))
    (let ((r (deep 2000)))
      (set! count (+ count 1))
      (if (< count 4) ((car ks) count) (list r count (length ks))))))
(test "re-entering a deep compiled recursion" '(2003 4 1) (capture-deep))
(test "re-entering a deep compiled recursion, again" '(2003 4 1) (capture-deep))

;; Escaping from deep inside, then recursing again over the same frame slots.
(define (escape-deep n)
  (call/cc (lambda (out)
             (let loop ((i n))
               (if (= i 0) (out 'escaped) (+ 1 (loop (- i 1))))))))
(test "escape from a deep recursion" '(escaped 5000 escaped 7000)
      (list (escape-deep 5000) (depth 5000) (escape-deep 3000) (depth 7000)))

;; A generator over a compiled recursion (re-entered many times from a compiled loop).
(define (tree-walk tree yield)
  (cond ((null? tree) 0)
        ((pair? tree) (+ (tree-walk (car tree) yield) (tree-walk (cdr tree) yield)))
        (else (yield tree) 1)))
(define (tree->list-by-generator tree)
  (define return #f)
  (define resume #f)
  (define (next)
    (call/cc (lambda (r)
               (set! return r)
               (if resume
                   (resume #f)
                   (begin (tree-walk tree (lambda (x) (call/cc (lambda (k) (set! resume k) (return x)))))
                          (return 'done))))))
  (let loop ((acc '()))
    (let ((v (next)))
      (if (eq? v 'done) (reverse acc) (loop (cons v acc))))))
(test "generator over a compiled recursion" '(1 2 3 4 5 6)
      (tree->list-by-generator '((1 (2 3)) ((4) 5) 6)))

;; dynamic-wind around the inner part of a recursion, left by an escape.
(define (wind-deep n log)
  (call/cc
   (lambda (out)
     (let rec ((i n))
       (if (= i 0)
           (dynamic-wind (lambda () (set-car! log (+ (car log) 1)))
                         (lambda () (out (depth 100)))
                         (lambda () (set-cdr! log (+ (cdr log) 1))))
           (+ 1 (rec (- i 1))))))))
(test "dynamic-wind inside compiled recursion" '(100 100 (2 . 2))
      (let* ((log (cons 0 0))
             (a (wind-deep 300 log))
             (b (wind-deep 10 log)))
        (list a b log)))

;; Errors deep inside: the guard catches them, the message names the procedure and value, and
;; the recursion works again afterwards.
;; A known callee's global is loaded at the call and compared with the closure at once
;; (x64_emit.cpp, load_known_callee): a global assigned during the recursion, to another
;; closure, a primitive or a non-procedure, takes the general call (or its error). Deep enough
;; that the hot mode compiles the procedure before the assignment.
(define (switcher n)
  (if (= n 0) 0
      (begin (if (= n 50) (set! switcher (lambda (m) (* 1000 m))))
             (+ 1 (switcher (- n 1))))))
(test "a self call whose global is assigned a closure mid-recursion" 49951 (switcher 1000))
(define (tail-switcher n acc)
  (if (= n 0) acc
      (begin (if (= n 50) (set! tail-switcher (lambda (m acc) (list 'other m acc))))
             (tail-switcher (- n 1) (+ acc 1)))))
(test "a self tail call whose global is assigned mid-loop" '(other 49 951) (tail-switcher 1000 0))
(define (to-prim n)
  (if (= n 0) 0
      (begin (if (= n 5) (set! to-prim -))
             (+ 1 (to-prim (- n 1))))))
(test "a self call whose global is assigned a primitive" 992 (to-prim 1000))
(define (to-number n)
  (if (= n 0) 0
      (begin (if (= n 5) (set! to-number 42))
             (+ 1 (to-number (- n 1))))))
(test-error-message "a self call whose global is assigned a number" "expected a procedure" (to-number 1000))
(define (helper-a n) (if (= n 0) 0 (+ 1 (helper-b (- n 1)))))
(define (helper-b n)
  (if (= n 3) (set! helper-a (lambda (m) (* 100 m))))
  (if (= n 0) 0 (+ 1 (helper-a (- n 1)))))
(test "a known call of another procedure whose global changes" 798 (helper-a 600))

;; One compare before a machine call covers the frames' soft limit and the run's machine stack
;; (x64_emit.cpp push_call_frame, kCallsFramesBytes: past 16384 outstanding machine calls a call
;; jumps instead). Deep recursions past that bound, one inside a primitive's callback at depth
;; 20000 (a nested run with its own bound, the outer one's restored after it), and a stack
;; overflow caught inside such a callback (the limits move while the outer run is active).
(define (deep-sum n) (if (= n 0) 0 (+ 1 (deep-sum (- n 1)))))
(define (deep-then n f) (if (= n 0) (f) (+ 1 (deep-then (- n 1) f))))
(test "deep recursion past the machine-call bound" 50000 (deep-sum 50000))
(test "a deep recursion inside a callback of a deep recursion" 80000
      (deep-then 20000 (lambda () (apply + (map (lambda (k) (deep-sum 30000)) '(1 2))))))
(define (runaway n) (+ 1 (runaway n)))
(test "an overflow caught inside a callback, then deeper" '(60001 30000)
      (list (deep-then 20000 (lambda () (+ (car (map (lambda (k) (guard (e (#t 1)) (runaway k))) '(1)))
                                            (deep-sum 40000))))
            (deep-then 10000 (lambda () (deep-sum 20000)))))

(define (fail-at n) (if (= n 0) (car n) (+ 1 (fail-at (- n 1)))))
(test-error-message "error deep in compiled recursion" "car" (fail-at 3000))
(test "recursion after an error" '(caught 3000)
      (list (guard (e (#t 'caught)) (fail-at 3000)) (depth 3000)))

(test-end)
