;;; callcc-resume-test.scm — where a re-entered continuation resumes: the stack top it resumes
;;; with (implied by the resume point, Continuation::resume_top), tail-position captures that
;;; deliver by returning from the frame they restore, captures inside compiled loops and
;;; recursions (generators, a continuation per call as in ctak and fibc), chains of captures
;;; deeper than 2^16 links, and re-entry after the stack grew far past the capture, and the
;;; inline call/cc ((call/cc (lambda (k) body)) compiled in its caller's frame, vm/proto.hpp
;;; kCallCC) in every position it can take. Each answer is computed here without continuations
;;; too. Run in all four modes (tests/CMakeLists.txt).
(include "harness.scm")

;; ---- generators re-entered from compiled loops ---------------------------------------------

;; (make-generator walk): walk calls (yield x) for each element; every call of the generator
;; resumes walk where its last yield left it, and gives 'done once walk returned.
(define (make-generator walk)
  (define return #f)
  (define resume #f)
  (define (yield x) (call/cc (lambda (k) (set! resume k) (return x))))
  (lambda ()
    (call/cc (lambda (r)
               (set! return r)
               (cond (resume (resume #f))
                     (else (walk yield) (set! resume (lambda (ignored) (return 'done))) (return 'done)))))))

(define (counting n)
  (lambda (yield)
    (let loop ((i 1))
      (if (<= i n) (begin (yield i) (loop (+ i 1))) #f))))
(define (walking lst) (lambda (yield) (for-each yield lst)))

(define (drain gen acc)
  (let ((v (gen)))
    (if (eq? v 'done) acc (drain gen (+ acc v)))))

(test "a generator drained 50 times from a loop" (* 50 (/ (* 500 501) 2))
      (let loop ((i 0) (acc 0))
        (if (= i 50) acc (loop (+ i 1) (+ acc (drain (make-generator (counting 500)) 0))))))

;; Two generators interleaved: each resume re-enters a continuation the other one's capture did
;; not make, so nothing of the shared stack may be taken from the wrong one.
(test "two generators interleaved" '(2 4 6 8 done)
      (let ((g1 (make-generator (walking '(1 2 3 4))))
            (g2 (make-generator (counting 4))))
        (let loop ((acc '()))
          (let* ((a (g1)) (b (g2)))
            (if (eq? a 'done)
                (reverse (cons a acc))
                (loop (cons (+ a b) acc)))))))

;; ---- a continuation per call ----------------------------------------------------------------

(define (ctak x y z)
  (call-with-current-continuation (lambda (k) (ctak-aux k x y z))))
(define (ctak-aux k x y z)
  (if (not (< y x))
      (k z)
      (call-with-current-continuation
       (lambda (k)
         (ctak-aux k
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- x 1) y z)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- y 1) z x)))
                   (call-with-current-continuation (lambda (k) (ctak-aux k (- z 1) x y))))))))
(define (tak x y z)
  (if (not (< y x)) z (tak (tak (- x 1) y z) (tak (- y 1) z x) (tak (- z 1) x y))))
(test "ctak" (tak 18 12 6) (ctak 18 12 6))

(define (fibc x c)
  (define (addc x y k) (if (zero? y) (k x) (addc (+ x 1) (- y 1) k)))
  (if (zero? x)
      (c 0)
      (if (zero? (- x 1))
          (c 1)
          (addc (call/cc (lambda (c) (fibc (- x 1) c)))
                (call/cc (lambda (c) (fibc (- x 2) c)))
                c))))
(test "fibc" '(610 610 610) (list (fibc 15 (lambda (x) x)) (fibc 15 (lambda (x) x)) (fibc 15 (lambda (x) x))))

;; ---- where the resumed code goes on ---------------------------------------------------------

;; A call/cc in tail position delivers by returning from the frame it restores: the caller's
;; registers (live across the call) come back with it, on every re-entry.
(define saved-tail #f)
(define (tail-capture) (call/cc (lambda (k) (set! saved-tail k) 1)))
(test "tail-position capture re-entered" '((1 10 100 1000 1) (1 10 100 1000 2) (1 10 100 1000 3))
      (let ((results '()) (n 0))
        (let* ((a 1) (b 10) (c 100) (d 1000))
          (let ((r (list a b c d (tail-capture))))
            (set! results (cons r results))
            (set! n (+ n 1))
            (if (< n 3) (saved-tail (+ n 1)) (reverse results))))))

;; A capture through apply (the interpreter raised the caller's top for the spread arguments),
;; re-entered after the frame returned and other calls reused the stack above it.
(define saved-apply #f)
(test "capture through apply re-entered" '((2 . 7) (11 . 7) (21 . 7))
      (let ((results '()) (n 0) (x 7))
        (let ((r (+ 1 (apply call/cc (list (lambda (k) (set! saved-apply k) 1))))))
          (set! results (cons (cons r x) results))
          (set! n (+ n 1))
          (list 1 2 3 4 5 6 7 8 9 10)
          (if (< n 3) (saved-apply (* 10 n)) (reverse results)))))

;; Escapes (guard makes an escape-only continuation) from tail position and from inside a
;; compiled loop, many times: each resumes the loop with its own registers.
(define (guarded i)
  (guard (e ((symbol? e) (list e i)))
    (if (odd? i) (raise 'odd) i)))
(test "guard escapes inside a loop" '(2450 (odd 99))
      (let loop ((i 0) (acc 0) (last #f))
        (if (= i 100)
            (list acc last)
            (let ((r (guarded i)))
              (if (pair? r) (loop (+ i 1) acc r) (loop (+ i 1) (+ acc i) last))))))

(test "escape from tail position of a deep recursion" 100000
      (call/cc (lambda (out)
                 (let down ((i 0))
                   (if (= i 100000) (out i) (down (+ i 1)))))))

(test "escape from a deep non-tail recursion" 'out
      (call/cc (lambda (out)
                 (let down ((i 0))
                   (if (= i 100000) (out 'out) (+ 1 (down (+ i 1))))))))

;; ---- long chains and a grown stack ----------------------------------------------------------

;; A capture at every level of a recursion 70000 deep (more links than 16 bits count), three of
;; them re-entered after everything returned.
(define (chain-sums n picks)
  (let ((ks (make-vector (+ n 1) #f)) (results '()) (todo picks))
    (define (deep i)
      (if (= i 0)
          0
          (+ 1 (call/cc (lambda (k) (vector-set! ks i k) (deep (- i 1)))))))
    (let ((r (deep n)))
      (set! results (cons r results))
      (if (null? todo)
          (reverse results)
          (let ((i (car todo)))
            (set! todo (cdr todo))
            ((vector-ref ks i) 1000000))))))
;; Re-entering level i with v: that level returns 1 + v, and the n - i levels above it add one each.
(test "a 70000-link chain re-entered at three levels"
      (list 70000 (+ 1000000 1) (+ 1000000 35000) (+ 1000000 70000))
      (chain-sums 70000 '(70000 35001 1)))

;; Captured near the bottom of the stack, invoked from a recursion 200000 deep (the stack grew far
;; past the capture), and then the recursion runs again from there.
(define (deep-sum n) (if (= n 0) 0 (+ n (deep-sum (- n 1)))))
(test "re-entry from a stack grown far past the capture" (list 'first (list 'again (deep-sum 200000)))
      (let ((k0 #f) (round 0))
        (let ((v (call/cc (lambda (k) (set! k0 k) 'first))))
          (set! round (+ round 1))
          (cond ((= round 1)
                 (let down ((i 0))
                   (if (= i 200000) (k0 (list 'again (deep-sum 200000))) (+ 1 (down (+ i 1))))))
                (else (list 'first v))))))

;; ---- the inline call/cc: (call/cc (lambda (k) body)) in the caller's frame -----------------

;; Non-tail, with live registers around it, the body returning normally and k escaping.
(define (around x)
  (let ((a (* x 2)) (b (+ x 3)))
    (list a (call/cc (lambda (k) (if (odd? x) (k (+ a b)) (* a b)))) b)))
(test "non-tail: the body's value and an escape through k" '((4 20 5) (6 12 6)) (list (around 2) (around 3)))

;; Tail position: k is the continuation of the procedure's caller.
(define (tail-cc x) (call-with-current-continuation (lambda (k) (if (> x 0) (k (list 'k x)) (list 'body x)))))
(test "tail: through k and through the body" '((k 1) (body 0) (1 (k 2)))
      (list (tail-cc 1) (tail-cc 0) (list 1 (tail-cc 2))))

;; k re-entered many times after the body returned, each time with the frame's registers as
;; they were at the capture; the loop around it goes on.
(define (reenter-many n)
  (let ((saved #f) (count 0) (seen '()))
    (let* ((base 1000) (v (+ base (call/cc (lambda (k) (set! saved k) 0)))))
      (set! seen (cons v seen))
      (set! count (+ count 1))
      (if (< count n) (saved count) (list (length seen) (car seen) (apply + seen))))))
(test "k re-entered 2000 times after the body returned" (list 2000 2999 (+ (* 2000 1000) (/ (* 1999 2000) 2)))
      (reenter-many 2000))

;; Inside a compiled loop: a capture per iteration; after the loop, the last iteration is
;; re-entered (the loop ends again), then the one before (which captures again at the last).
(define (loop-captures n)
  (let ((ks (make-vector n #f)) (acc '()) (round 0))
    (let loop ((i 0))
      (if (< i n)
          (let ((r (call/cc (lambda (k) (vector-set! ks i k) i))))
            (set! acc (cons r acc))
            (loop (+ i 1)))))
    (set! round (+ round 1))
    (if (<= round 2) ((vector-ref ks (- n round)) (* 100 round)) (reverse acc))))
(test "captures in a loop, re-entered from outside it" '(0 1 2 3 4 5 100 200 5)
      (loop-captures 6))

;; An escape from a deep recursion inside the body, and one from a non-tail call/cc at every level.
(define (find-deep n)
  (call/cc (lambda (out)
             (let down ((i 0))
               (if (= i n) (out (list 'found i)) (+ 1 (down (+ i 1))))))))
(test "escape from a recursion 50000 deep in the body" '(found 50000) (find-deep 50000))
(define (nested-levels n)
  (if (= n 0)
      0
      (+ 1 (call/cc (lambda (k) (if (= n 1) (k 100) (nested-levels (- n 1))))))))
(test "a non-tail call/cc at each of 1000 levels" 1100 (nested-levels 1000))

;; dynamic-wind: leaving through k runs the after thunks, re-entering runs the befores again,
;; and a capture inside the extent resumes inside it.
(define (wind-trace)
  (let ((trace '()) (k-in #f) (n 0))
    (define (note x) (set! trace (cons x trace)))
    (let ((r (call/cc (lambda (out)
                        (dynamic-wind
                         (lambda () (note 'in))
                         (lambda ()
                           (let ((v (call/cc (lambda (k) (set! k-in k) 'first))))
                             (note v)
                             (out v)))
                         (lambda () (note 'out)))))))
      (set! n (+ n 1))
      (if (< n 3) (k-in n) (list r (reverse trace))))))
(test "dynamic-wind in/out balance around inline captures"
      '(2 (in first out in 1 out in 2 out))
      (wind-trace))

;; Multiple values through k, in tail and non-tail position, also re-entered later.
(test "multiple values through k in tail position" '(1 2)
      (call-with-values (lambda () (call/cc (lambda (k) (k 1 2)))) list))
(test "multiple values from the body" '(3 4)
      (call-with-values (lambda () (call/cc (lambda (k) (values 3 4)))) list))
(define saved-values #f)
(test "multiple values through k re-entered after it returned" '((a) (5 6 7))
      (let ((results '()))
        (call-with-values
         (lambda () (call/cc (lambda (k) (set! saved-values k) 'a)))
         (lambda vals (set! results (cons vals results))))
        (if (= (length results) 1) (saved-values 5 6 7) (reverse results))))

;; k assigned, captured by a closure, the body defining procedures (a letrec of lambdas, compiled
;; twice: inline and in the slow code's closure), call/cc nested deeper than the inline limit.
(define (k-assigned x)
  (call/cc (lambda (k)
             (let ((f (lambda (v) (k (list 'via-closure v)))))
               (set! k (lambda (v) (list 'reassigned v)))
               (list (k x) (f x))))))
(test "k assigned in the body and captured by a closure: one location" '((reassigned 7) (reassigned (via-closure 7)))
      (k-assigned 7))
(define (letrec-in-body n)
  (call/cc (lambda (k)
             (letrec ((ev? (lambda (i) (if (= i 0) #t (od? (- i 1)))))
                      (od? (lambda (i) (if (= i 0) #f (ev? (- i 1))))))
               (if (ev? n) (k 'even) 'odd)))))
(test "a letrec of lambdas in the body" '(even odd) (list (letrec-in-body 10) (letrec-in-body 7)))
(define (nested-12 x)
  (call/cc (lambda (k1) (+ 1 (call/cc (lambda (k2) (+ 1 (call/cc (lambda (k3) (+ 1 (call/cc (lambda (k4) (+ 1 (call/cc (lambda (k5) (+ 1 (call/cc (lambda (k6) (+ 1 (call/cc (lambda (k7) (+ 1 (call/cc (lambda (k8) (+ 1 (call/cc (lambda (k9) (+ 1 (call/cc (lambda (k10) (+ 1 (call/cc (lambda (k11) (+ 1 (call/cc (lambda (k12) (if (> x 0) (k6 x) (k12 x))))))))))))))))))))))))))))))))))))))
(test "call/cc nested 12 deep" '(11 10) (list (nested-12 0) (nested-12 5)))
(test "call/cc of a lambda taking any arguments (not inlined)" '(rest 1)
      (call/cc (lambda args (list 'rest (length args)))))
(test "call/cc of a procedure value" 'v (call/cc (let ((f (lambda (k) (k 'v)))) f)))
(test "call/cc of a non-procedure is an error" #t
      (guard (e (#t (error-object? e))) (call/cc 5)))
(test "call/cc and call-with-current-continuation are one procedure" #t
      (eq? call/cc call-with-current-continuation))

;; A continuation keeps the stack up to its call's base only (VmImpl::capture): the operands
;; computed before it, right below that base, come back on every re-entry, after deep calls
;; wrote the stack above.
(define (operands-below kind)
  (let ((saved #f) (n 0) (results '()))
    (let ((r (list 'a (* n 1) 'c (if (eq? kind 'inline)
                                      (call/cc (lambda (k) (set! saved k) 0))
                                      (call/cc (let ((f (lambda (k) (set! saved k) 0))) f))))))
      (set! results (cons r results))
      (set! n (+ n 1))
      (deep-sum 1000)
      (if (< n 3) (saved (* 10 n)) (reverse results)))))
(test "operands below an inline capture's base survive re-entry" '((a 0 c 0) (a 0 c 10) (a 0 c 20))
      (operands-below 'inline))
(test "operands below a call/cc call's base survive re-entry" '((a 0 c 0) (a 0 c 10) (a 0 c 20))
      (operands-below 'call))

;; (call/cc f) in tail position where f is the caller's own parameter: machine code skipped moving
;; the argument down (R[1] already held f) after the capture had replaced it by k, so f was called
;; with itself (review D6: under QUASI_JIT=force, re-entering through `saved` called gk again).
(define (return-arg x) x)
(define (tail-cc f) (call/cc f))
(test "tail (call/cc f) of a parameter passes k, hot" #t
      (let loop ((i 0))
        (cond ((= i 3000) #t)
              ((eq? (tail-cc return-arg) return-arg) #f)
              (else (loop (+ i 1))))))
(define d6-saved #f)
(define (d6-keep k) (set! d6-saved k) 0)
(d6-keep 1)
(define (d6-through) (tail-cc d6-keep))
(define (d6-reenter)
  (let ((n 0) (results '()))
    (let ((r (list 'a (d6-through) 'e)))
      (set! results (cons r results))
      (set! n (+ n 1))
      (if (< n 3) (d6-saved (* 10 n)) (reverse results)))))
(test "re-entry through a tail (call/cc f) of a parameter" '((a 0 e) (a 10 e) (a 20 e)) (d6-reenter))
(test "and again, compiled" '((a 0 e) (a 10 e) (a 20 e)) (d6-reenter))

;; ---- the shapes reinstate takes without walking the chains (vm/stack.cpp) ---------------------

;; Three continuations captured at the bottom of recursions of different depths, each frame with
;; its own registers; then re-entered in `order` with a deep call reusing the stack before each
;; re-entry. Re-entering the one made or entered last (k == shared_k, also twice in a row) and
;; the others (siblings: their chains meet one link up) must each bring back exactly its own
;; frames. `wind?`: the captures are inside dynamic-wind extents, so each re-entry from outside
;; leaves and enters extents first (trace). Expected values come from plain-level, which computes
;; the same lists without continuations.
(define (plain-level d tag v)
  (if (= d 0) (list tag v) (cons (+ (* 10 d) tag) (plain-level (- d 1) tag v))))
(define (reentry-shapes order wind?)
  (let ((ks (make-vector 3 #f)) (results '()) (trace '()) (todo order))
    (define (note x) (set! trace (cons x trace)))
    (define (bottom tag)
      (call/cc (lambda (k) (if (not (vector-ref ks tag)) (vector-set! ks tag k)) 0)))
    (define (level d tag)
      (if (= d 0)
          (list tag (if wind?
                        (dynamic-wind (lambda () (note (list 'in tag)))
                                      (lambda () (bottom tag))
                                      (lambda () (note (list 'out tag))))
                        (bottom tag)))
          (let* ((a (+ (* 10 d) tag)) (r (level (- d 1) tag)))
            (cons a r))))
    (define (record! r) (set! results (cons r results)))
    (if (not (vector-ref ks 0)) (record! (level 3 0)))
    (if (not (vector-ref ks 1)) (record! (level 2 1)))
    (if (not (vector-ref ks 2)) (record! (level 4 2)))
    (if (pair? todo)
        (let ((i (car todo)))
          (set! todo (cdr todo))
          (deep-sum 300)
          ((vector-ref ks i) (+ 100 (length todo))))
        (list (reverse results) (length trace)))))
(define (reentry-shapes-expected order wind?)
  (let loop ((o order) (acc (list (plain-level 4 2 0) (plain-level 2 1 0) (plain-level 3 0 0))))
    (if (null? o)
        (list (reverse acc) (if wind? (* 2 (+ 3 (length order))) 0))
        (loop (cdr o) (cons (plain-level (case (car o) ((0) 3) ((1) 2) (else 4)) (car o) (+ 100 (length (cdr o)))) acc)))))
(define shapes-order '(2 2 1 1 0 2 0 1 2 2 0 0 1))
(test "re-entry: the last k again, twice in a row, and its siblings"
      (reentry-shapes-expected shapes-order #f) (reentry-shapes shapes-order #f))
(test "the same, compiled" (reentry-shapes-expected shapes-order #f) (reentry-shapes shapes-order #f))
(test "the same with the captures inside dynamic-wind extents"
      (reentry-shapes-expected shapes-order #t) (reentry-shapes shapes-order #t))
(test "a 200-step order, hot" (reentry-shapes-expected (map (lambda (i) (modulo (* i i 7) 3)) (iota 200)) #f)
      (reentry-shapes (map (lambda (i) (modulo (* i i 7) 3)) (iota 200)) #f))

;; A k re-entered from inside the body that made it (k == shared_k, nothing returned since) and
;; from a deeper frame of the body (the frames above k's were pushed since), in a loop.
(define (reenter-own n)
  (let loop ((i 0) (acc 0))
    (if (= i n)
        acc
        (let* ((x (* i 3))
               (v (call/cc (lambda (k) (if (even? i) (k (+ x 1)) (+ 1 (deep-call k x 20)))))))
          (loop (+ i 1) (+ acc v x))))))
(define (deep-call k x d) (if (= d 0) (k (+ x 2)) (+ 1 (deep-call k x (- d 1)))))
(test "k re-entered from its own body and from deeper frames" 
      (let loop ((i 0) (acc 0)) (if (= i 500) acc (loop (+ i 1) (+ acc (* 2 (* i 3)) (if (even? i) 1 2)))))
      (reenter-own 500))

;; ---- the context a continuation shares with the captures before it ------------------------
;; (Continuation::context: winders, handlers and run, one vector reused while they stay the same.)

;; Captured inside a with-exception-handler extent right after captures outside it: re-entered
;; from outside, the handler stack comes back with it.
(define (handler-context)
  (let ((k #f) (n 0) (seen '()))
    (call/cc (lambda (c) 'outside))
    (with-exception-handler
      (lambda (e) (set! seen (cons (list 'h1 e) seen)) 10)
      (lambda ()
        (let ((v (call/cc (lambda (c) (set! k c) 0))))
          (set! seen (cons (+ v (raise-continuable 'x)) seen)))))
    (set! n (+ n 1))
    (if (< n 3) (k n) (reverse seen))))
(test "a continuation brings back the handler stack it was captured with"
      '((h1 x) 10 (h1 x) 11 (h1 x) 12) (handler-context))

;; Captures alternating between dynamic-wind extents and outside them, re-entered in turn.
(define (two-contexts)
  (let ((ks '()) (trace '()) (n 0))
    (define (note x) (set! trace (cons x trace)))
    (define (cap tag) (call/cc (lambda (k) (set! ks (cons (cons tag k) ks)) tag)))
    (let* ((a (dynamic-wind (lambda () (note 'in)) (lambda () (cap 'inside)) (lambda () (note 'out))))
           (b (cap 'outside))
           (c (dynamic-wind (lambda () (note 'in2)) (lambda () (cap 'inside2)) (lambda () (note 'out2)))))
      (set! n (+ n 1))
      (note (list a b c))
      (cond ((= n 1) ((cdr (assq 'inside ks)) 'again))
            ((= n 2) ((cdr (assq 'outside ks)) 'again2))
            (else (reverse trace))))))
(test "captures alternating between extents"
      '(in out in2 out2 (inside outside inside2) in out in2 out2 (again outside inside2) in2 out2 (again again2 inside2))
      (two-contexts))

(test-end)
