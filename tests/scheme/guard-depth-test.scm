;;; guard-depth-test.scm — guard nested deep in a recursion costs O(1) per guard (issue 8: each
;;; guard used to copy the whole stack with call/cc, so depth 10,000 took over a minute and
;;; gigabytes), and guard's escape keeps its meaning: handlers, re-raise through nested guards,
;;; dynamic-wind exits, and re-entry of a full continuation captured inside a guard body. A raise
;;; through many non-matching guards is linear too.
(include "harness.scm")

(define (nest n)
  (if (= n 0) 0 (+ 1 (guard (e (#t 0)) (nest (- n 1))))))
;; At O(depth^2) this alone takes minutes (and the ctest timeout fails it).
(test "40000 nested guards, no raise" 40000 (nest 40000))
(test "again (the first run left nothing behind)" 40000 (nest 40000))

(define (nest-raise n)
  (if (= n 0) (raise 'bottom) (+ 1 (guard (e ((eq? e 'never) 0)) (nest-raise (- n 1))))))
;; The raise at the bottom passes through every guard (no clause matches: each re-raises in the
;; dynamic environment of the raise) and reaches the outermost one. Each re-raise used to re-enter
;; a copy of the whole stack (and leave and re-enter every handler extent): O(depth^2), minutes at
;; this depth.
(test "a raise passes through 10000 non-matching guards" 'bottom
      (guard (e (#t e)) (nest-raise 10000)))

;; The same with a dynamic-wind around the raise: every non-matching guard leaves it (its clauses
;; run in the guard's dynamic environment) and re-enters it (the re-raise runs in the raise's).
(define ins 0)
(define outs 0)
(define (nest-wind n)
  (if (= n 0)
      (dynamic-wind (lambda () (set! ins (+ ins 1)))
                    (lambda () (raise 'bottom))
                    (lambda () (set! outs (+ outs 1))))
      (+ 1 (guard (e ((eq? e 'never) 0)) (nest-wind (- n 1))))))
(test "10000 non-matching guards over a dynamic-wind: each leaves and re-enters it"
      '(bottom 10001 10001)
      (let ((r (guard (e (#t e)) (nest-wind 10000)))) (list r ins outs)))

;; R7RS guard semantics the stack-free re-raise keeps (the results agree with Chez Scheme's).
(define wlog '())
(define (note x) (set! wlog (cons x wlog)))
(test "after and before thunks around a non-matching guard" '(x (in out in out))
      (begin
        (set! wlog '())
        (guard (e (#t (list e (reverse wlog))))
          (guard (e ((eq? e 'no) 0))
            (dynamic-wind (lambda () (note 'in)) (lambda () (raise 'x)) (lambda () (note 'out)))))))
(define prm (make-parameter 'outer))
(test "clause tests see the guard's parameters, the re-raise the raise's" '(inner outer)
      (let ((seen #f))
        (list (with-exception-handler
               (lambda (c) (prm))
               (lambda ()
                 (guard (e ((begin (set! seen (prm)) #f) 0))
                   (parameterize ((prm 'inner)) (raise-continuable 'x)))))
              seen)))
(test "a raise in a clause test goes to the guard's outer handler" '(outer from-test)
      (guard (e2 (#t (list 'outer e2))) (guard (e ((raise 'from-test) 0)) (raise 'x))))
(test "a continuation captured in a clause test, re-entered after the guard returned" '(2 matched)
      (let ((k #f) (n 0))
        (let ((v (guard (e ((call/cc (lambda (c) (set! k c) #f)) 'matched) (#t 'fallback))
                   (raise 'x))))
          (set! n (+ n 1))
          (if (= n 1) (k #t))
          (list n v))))
(test "an escape from a handler restores the handler stack" '(caught z)
      (guard (e (#t (list 'caught e)))
        (call/cc (lambda (k) (with-exception-handler (lambda (e) (k 1)) (lambda () (raise 'x)))))
        (raise 'z)))
(test "=> and test-only clauses" '((#t x) 5 els)
      (list (guard (e ((string? e) e) ((symbol? e) => (lambda (t) (list t e))) ((number? e))) (raise 'x))
            (guard (e ((string? e) e) ((number? e) e)) (raise 5))
            (guard (e ((string? e) e) (else 'els)) (raise 5))))

(define (nest-catch n)
  (if (= n 0) (raise 'bottom) (+ 1 (guard (e ((and (eq? e 'bottom) (= n 500)) 1000)) (nest-catch (- n 1))))))
(test "the matching guard in the middle catches" 1302 (+ 1 (nest-catch 800)))

(test "guard in a loop of 20000 iterations" 20000
      (let loop ((i 0) (acc 0))
        (if (= i 20000) acc
            (loop (+ i 1) (+ acc (guard (e (#t 1)) (if (odd? i) (raise 'x) 1)))))))

(define log '())
(test "dynamic-wind exits run on guard's escape" '(1 out in)
      (begin
        (set! log '())
        (list (guard (e (#t e))
                (dynamic-wind (lambda () (set! log (cons 'in log)))
                              (lambda () (raise 1))
                              (lambda () (set! log (cons 'out log)))))
              (car log) (cadr log))))

(test "guard returns multiple values" '(1 2)
      (call-with-values (lambda () (guard (e (#t 0)) (values 1 2))) list))

(test "raise-continuable through a guard without a matching clause" 42
      (with-exception-handler
       (lambda (c) 41)
       (lambda () (+ 1 (guard (e ((string? e) 0)) (raise-continuable 'x))))))

;; A full continuation captured inside a guard body, re-entered after the guard returned: the
;; body returns through the guard again.
(test "re-entry into a guard body after the guard returned" '(3 2 1)
      (let ((k #f) (results '()))
        (let ((v (guard (e (#t 'caught)) (+ 1 (call/cc (lambda (c) (set! k c) 0))))))
          (set! results (cons v results))
          (if (< (length results) 3) (k (length results))))
        results))

(test "re-entry, then a raise caught by the re-entered guard" '(caught 1)
      (let ((k #f) (results '()))
        (let ((v (guard (e (#t 'caught))
                   (let ((x (call/cc (lambda (c) (set! k c) 0))))
                     (if (= x 1) (raise 'boom) (+ x 1))))))
          (set! results (cons v results))
          (if (< (length results) 2) (k 1)))
        results))

(test "guard inside a handler inside a guard" 'inner
      (guard (e (#t (guard (e2 (#t 'inner)) (raise 'again))))
        (raise 'outer)))

(test-end)
