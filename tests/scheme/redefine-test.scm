;;; redefine-test.scm — a later `define` of an imported name is what the procedures compiled
;;; before it call from then on (the REPL's way, engine/redefinition.hpp), per procedure: other
;;; procedures keep their inline fast paths and machine code. Exercised in environments made by
;;; `environment`, which behave like the REPL's: forms are compiled one at a time.
(include "harness.scm")

(define env (environment '(scheme base) '(quasi)))
(define (ev form) (eval form env))

(ev '(define (first-of x) (car x)))          ; car is inlined into first-of
(ev '(define (inc x) (+ x 1)))                ; so is +
(ev '(define (sum xs) (fold + 0 xs)))         ; fold is an ordinary call
(ev '(define (pair-up x) (cons x x)))
(ev '(define (add3 a b c) (+ a b c)))         ; a chain of inline adds (vm/proto.hpp)
(ev '(define (add-into a b c) (set! a (+ b c a)) a))
(ev '(define (add-many a) (+ a a a a a a a a a a a a a a a a)))
(test "before: the built-ins" '(1 2 6) (ev '(list (first-of '(1 2)) (inc 1) (sum '(1 2 3)))))
(ev '(define (pair-up-twice x) (pair-up (pair-up x))))
(test "a procedure calling another" '((1 . 1) 1 . 1) (ev '(pair-up-twice 1)))

(ev '(define (car x) 'my-car))
(test "an inlined built-in redefined" 'my-car (ev '(first-of '(1 2))))
(ev '(define (+ . xs) (cons 'my-plus xs)))
(test "arithmetic redefined" '(my-plus 1 1) (ev '(inc 1)))
(test "a chain of adds redefined: one call with every operand" '(my-plus 1 2 3) (ev '(add3 1 2 3)))
(test "a chain into an operand's variable, redefined" '(my-plus 2 3 1) (ev '(add-into 1 2 3)))
(test "the longest chain, redefined" (cons 'my-plus (make-list 16 1)) (ev '(add-many 1)))
(ev '(define (fold kons knil xs) 'my-fold))
(test "a called built-in redefined" 'my-fold (ev '(sum '(1 2 3))))
(test "a procedure defined after sees the new definition" 'my-car (ev '((lambda () (car '(1))))))
(test "pair-up untouched" '(2 . 2) (ev '(pair-up 2)))

;; A later redefinition of a user procedure reaches its callers too (as it always did).
(ev '(define (pair-up x) (list 'new x)))
(test "redefining a user procedure" '(new (new 1)) (ev '(pair-up-twice 1)))

;; The program's own environment and the built-ins are untouched.
(define (my-first x) (car x))
(test "the program's car is the built-in" 1 (my-first '(1 2)))
(test "a library's procedures are untouched" '(2 3) (map (lambda (x) (+ x 1)) '(1 2)))

;; Per procedure: the redefinition turned off inline paths and machine code only where the old
;; binding was used.
(define (hot-loop n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc (car '(1)))))))
(test "other code still runs" 1000 (hot-loop 1000))
(when (eq? (jit-mode) 'force)
  (test "other code is still compiled to machine code" #t (jit-compiled? hot-loop))
  (test "code that inlined the redefined car is not" #f (jit-compiled? (ev 'first-of))))

;; The partial evaluator specializes from the moved code.
(ev '(define (scale k xs) (if (null? xs) '() (cons (* k (car xs)) (scale k (cdr xs))))))
(ev '(define (car x) 5))
(test "specialize uses the new definition" '(10 10) ((specialize (ev 'scale) 2) '(1 2)))

;; Code that names cons follows cons, not list (the optimizer once wrote cons chains as list calls).
(ev '(define (two-of a b) (cons a (cons b '()))))
(test "a cons chain" '(1 2) (ev '(two-of 1 2)))
(ev '(define (list . xs) 'my-list))
(test "a cons chain after list is redefined" '(1 2) (ev '(two-of 1 2)))
(ev '(define (cons a b) 'my-cons))
(test "a cons chain after cons is redefined" 'my-cons (ev '(two-of 1 2)))

;; R7RS leaves the order of operator and operands open; Quasi reads a global operator after
;; the operands (vm/compiler.cpp), so the JIT sees the load beside the call. Every mode agrees.
(ev '(define (op-a x) (vector 'a x)))
(ev '(define op op-a))
(ev '(define (call-op x) (op (begin (set! op (lambda (y) (vector 'b y))) x))))
(test "a global operator is read after its operands" '#(b 1) (ev '(call-op 1)))
(ev '(define rem remainder))
(ev '(define (rem-after x) (rem (begin (set! rem (lambda (a b) (vector 'my-rem a b))) x) 4)))
(test "a global holding a built-in, set by an operand" '#(my-rem 7 4) (ev '(rem-after 7)))
;; An unbound global operator too: an operand that raises raises first, in the original and in
;; its residuals alike (fuzz_specialize found them raising different errors).
(ev '(define (call-unbound x) (not-defined-yet (cdr x))))
(test-error-message "an unbound operator is read after its operands" "cdr" (ev '(call-unbound "")))
(test-error-message "and so in a residual" "cdr" (ev '((specialize call-unbound) "")))
(test-error-message "and in a residual with the operand static" "cdr" (ev '((specialize call-unbound ""))))
(test-error-message "an operand that does not raise: the unbound operator" "not-defined-yet" (ev '((specialize call-unbound) '(1 2))))
(ev '(define (call-unbound-2 x) (not-defined-yet (begin (cdr x) 1))))
(test-error-message "an operand whose raise is an effect, in a residual" "cdr" (ev '((specialize call-unbound-2) "")))
;; And under grad (ir/util.hpp operator_read_last: the AD transform keeps the order too).
(ev '(define (grad-unbound x) (not-defined-yet-2 (cdr x))))
(test-error-message "an unbound operator after an operand that raises, under grad" "cdr"
                    (ev '((grad grad-unbound) 2.0)))
(test-error-message "under grad, an operand that does not raise: the unbound operator" "not-defined-yet-2"
                    (ev '((grad (lambda (x) (not-defined-yet-2 (* x x)))) 2.0)))
(test-error-message "under grad of a residual" "cdr" (ev '((grad (specialize grad-unbound)) 2.0)))

;; A redefinition while a procedure's machine code is running deep in its own recursion: the
;; code keeps running in the activations it has, and its self calls stop entering it (they test
;; JitCode::superseded), so the deeper activations call the new car.
(define env3 (environment '(scheme base) '(quasi)))
(eval '(define (walk n l hook)
         (if (= n 0) '()
             (let ((x (car l)))
               (if (= n 5) (hook))
               (cons x (walk (- n 1) l hook)))))
      env3)
(test "a redefinition during a compiled recursion reaches its deeper self calls"
      (append (make-list 296 1) (make-list 4 'new-car))
      ((eval 'walk env3) 300 '(1) (lambda () (eval '(define (car x) 'new-car) env3))))

;; call/cc is compiled inline ((call/cc (lambda (k) body)) runs body in the caller's frame,
;; vm/proto.hpp kCallCC); a later definition of call/cc or call-with-current-continuation gets
;; the lambda as a procedure, in tail and non-tail position, also in code that was hot (compiled
;; to machine code) before. Procedures defined after call the new one directly.
(define env4 (environment '(scheme base) '(quasi)))
(define (ev4 form) (eval form env4))
(ev4 '(define (cc-non-tail x) (list 'got (call/cc (lambda (k) (if (> x 0) (k x) 'body))))))
(ev4 '(define (cc-tail x) (call-with-current-continuation (lambda (k) (k (* 2 x))))))
(ev4 '(define (cc-hot n) (let loop ((i 0) (acc 0)) (if (= i n) acc (loop (+ i 1) (+ acc (call/cc (lambda (k) (k 1)))))))))
(test "before: the built-in call/cc" '((got 3) (got body) 8 1000)
      (ev4 '(list (cc-non-tail 3) (cc-non-tail 0) (cc-tail 4) (cc-hot 1000))))
(ev4 '(define (call/cc f) (f (lambda (v) (list 'my-k v)))))
(test "call/cc redefined: non-tail" '((got (my-k 3)) (got body)) (ev4 '(list (cc-non-tail 3) (cc-non-tail 0))))
(test "call/cc redefined: compiled loop" 'error
      (ev4 '(guard (e (#t 'error)) (cc-hot 10))))
(test "call-with-current-continuation untouched" 8 (ev4 '(cc-tail 4)))
(ev4 '(define (call-with-current-continuation f) (f (lambda (v) (vector 'my-k2 v)))))
(test "call-with-current-continuation redefined: tail" #(my-k2 8) (ev4 '(cc-tail 4)))
(test "defined after: calls the new call/cc" '(my-k 5) (ev4 '((lambda () (call/cc (lambda (k) (k 5)))))))

(test-end)
