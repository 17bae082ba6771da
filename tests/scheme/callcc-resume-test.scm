;;; callcc-resume-test.scm — where a re-entered continuation resumes: the stack top it resumes
;;; with (implied by the resume point, Continuation::resume_top), tail-position captures that
;;; deliver by returning from the frame they restore, captures inside compiled loops and
;;; recursions (generators, a continuation per call as in ctak and fibc), chains of captures
;;; deeper than 2^16 links, and re-entry after the stack grew far past the capture. Each answer
;;; is computed here without continuations too. Run in all four modes (tests/CMakeLists.txt).
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

(test-end)
