;;; own-slot-test.scm — assigned variables kept in their closure's own slot (vm/compiler.cpp,
;;; Analysis::own): a variable assigned only inside the one closure its binder's body makes first
;;; (the body itself, or a lambda of a letrec of lambdas there: a memo thunk's `done` and `v`, a
;;; counter's parameter, an internal define) — in its own code or its loops — needs no box; the
;;; closure's slot is the location and set! writes it in place (kSetFree). Also: a lambda without
;;; free variables is one constant closure.
;;;
;;; Differential: every program is evaluated twice, as written and with a never-taken reference
;;; to its state variables in their binder's body before the closure — which keeps the boxes. Both must
;;; give equal? outcomes on every argument tuple (value, or error message and irritants). The
;;; shapes: memo thunks forced repeatedly, counters over parameters and rest lists, case-lambda,
;;; re-entrant recursion through the closure, call/cc captured inside the closure and re-entered
;;; after the state changed, a continuation captured between the binding and the closure (keeps
;;; the box: two closures share it), two closures or the binder reading the variable (boxes),
;;; flonum state, errors raised after an assignment, state read by a loop or a called lambda
;;; inside the closure (boxes).
;;; Run in the four modes (so also JIT forced, and hot after the warm-up calls below).

(include "harness.scm")
(include "gen-harness.scm")

(define os-never #f)     ; never true: the escaping copies' extra reference is never taken
(define os-escape #f)
(gen-seed! 777)

;; A never-taken reference to vars in their binder's body, before the closure, or nothing: the
;; binder's body is then no longer the lambda, so the variables keep their boxes whatever the
;; rule for references inside the closure says.
(define (os-esc esc vars)
  (if esc `((if os-never (set! os-escape (list ,@vars)) #f)) '()))

;; The program shapes: (lambda (esc) program), a procedure of (x y), random choices made once.
(define (os-shape)
  (let ((n (+ 1 (gen-rand 6))) (op (gen-pick '(+ - * max))))
    (case (gen-rand 22)
      ;; A memo thunk (pe-lazy's delay-thunk) forced n times: evaluated once.
      ((0) (lambda (esc)
             `(lambda (x y)
                (define count 0)
                (define (delay-thunk f)
                  (let ((done #f) (v #f))
                    ,@(os-esc esc '(done v))
                    (lambda () (if done v (begin (set! v (f)) (set! done #t) v)))))
                (let ((t (delay-thunk (lambda () (set! count (+ count 1)) (,op x y)))))
                  (let loop ((i 0) (acc '()))
                    (if (= i ,n) (list acc count) (loop (+ i 1) (cons (t) acc))))))))
      ;; A counter over a parameter; two counters are independent.
      ((1) (lambda (esc)
             `(lambda (x y)
                (define (make-counter c) ,@(os-esc esc '(c)) (lambda (d) (set! c (,op c d)) c))
                (let ((a (make-counter x)) (b (make-counter y)))
                  (list (a 1) (b 2) (a 3) (a y) (b x))))))
      ;; A rest list consumed by its closure.
      ((2) (lambda (esc)
             `(lambda (x y)
                (define (make-stream . r)
                  ,@(os-esc esc '(r))
                  (lambda () (if (null? r) 'end (let ((h (car r))) (set! r (cdr r)) h))))
                (let ((s (make-stream x y ,n)))
                  (list (s) (s) (s) (s) (s))))))
      ;; case-lambda: both clauses share the slot.
      ((3) (lambda (esc)
             `(lambda (x y)
                (let ((acc (let ((s x))
                             ,@(os-esc esc '(s))
                             (case-lambda
                               (() s)
                               ((d) (set! s (,op s d)) s)
                               ((d e) (set! s (list s d e)) s)))))
                  (list (acc y) (acc) (acc ,n) (acc 1 2) (acc))))))
      ;; Re-entrant: the closure calls itself while its state is changed and restored.
      ((4) (lambda (esc)
             `(lambda (x y)
                (letrec ((f (let ((depth 0) (peak 0))
                              ,@(os-esc esc '(depth peak))
                              (lambda (k)
                                (set! depth (+ depth 1))
                                (if (> depth peak) (set! peak depth))
                                (let ((r (if (> k 0) (f (- k 1)) (list depth peak))))
                                  (set! depth (- depth 1))
                                  (list r depth peak))))))
                  (list (f ,n) (f 1) (,op x y))))))
      ;; call/cc inside the closure, re-entered after the state changed: the state is shared.
      ((5) (lambda (esc)
             `(lambda (x y)
                (define (make) 
                  (let ((count 0) (seen '()))
                    ,@(os-esc esc '(count seen))
                    (lambda (z)
                      (set! count (+ count 1))
                      (let ((r (call/cc (lambda (c) c))))
                        (set! seen (cons (if (procedure? r) 'first r) seen))
                        (if (and (procedure? r) (< count ,(+ n 2)))
                            (begin (set! count (+ count 10)) (r count))
                            (list count seen z))))))
                (let ((g (make)))
                  (list (g x) (g y) (g 0))))))
      ;; A continuation captured between the binding and the closure, re-entered: two closures
      ;; of one binding share the variable (the box stays: the body is not the lambda).
      ((6) (lambda (esc)
             `(lambda (x y)
                (let ((fs '()) (k0 #f))
                  (let ((v x))
                    ,@(os-esc esc '(v))
                    (call/cc (lambda (k) (set! k0 k)))
                    (set! fs (cons (lambda () (set! v (,op v 1)) v) fs)))
                  (if (< (length fs) 2) (k0 #f) (list ((car fs)) ((cadr fs)) ((car fs))))))))
      ;; The binder reads the variable after making the closure: a box.
      ((7) (lambda (esc)
             `(lambda (x y)
                (let ((v x))
                  ,@(os-esc esc '(v))
                  (let ((f (lambda () (set! v (,op v y)) v)))
                    (f) (f)
                    (list v (f)))))))
      ;; Two closures over one variable: a box.
      ((8) (lambda (esc)
             `(lambda (x y)
                (let ((p (let ((v x)) ,@(os-esc esc '(v)) (cons (lambda () (set! v (,op v y)) v) (lambda () v)))))
                  (list ((car p)) ((cdr p)) ((car p)) ((cdr p)))))))
      ;; Flonum state across several assignments.
      ((9) (lambda (esc)
             `(lambda (x y)
                (define (make s)
                  ,@(os-esc esc '(s))
                  (lambda (d) (set! s (+ (* s 1.5) d)) (set! s (- s 0.25)) (* s 2.0)))
                (let ((g (make 0.5)))
                  (list (g 1.0) (g x) (g 2.5) (g y))))))
      ;; An error after an assignment: the assignment stays.
      ((10) (lambda (esc)
              `(lambda (x y)
                 (define (make n) ,@(os-esc esc '(n)) (lambda (v) (set! n (+ n 1)) (list n (car v))))
                 (let ((g (make ,n)))
                   (list (gen-outcome (lambda () (g x))) (g (list y)) (gen-outcome (lambda () (g 'no))) (g '(1)))))))
      ;; A loop inside the closure reads and writes the variable (a lambda nested in it: a box).
      ((11) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (lambda (k)
                           (let loop ((i 0)) (if (< i k) (begin (set! s (,op s i)) (loop (+ i 1))) s))))
                 (let ((g (make x)))
                   (list (g ,n) (g 2) (g y))))))
      ;; Several state variables, some also captured plainly, a generator.
      ((12) (lambda (esc)
              `(lambda (x y)
                 (define (gen a b lim)
                   (let ((i 0) (prev a) (cur b))
                     ,@(os-esc esc '(i prev cur))
                     (lambda ()
                       (if (>= i lim)
                           'done
                           (let ((out prev))
                             (set! i (+ i 1))
                             (let ((next (,op prev cur)))
                               (set! prev cur)
                               (set! cur next))
                             out)))))
                 (let ((g (gen x y ,n)))
                   (list (g) (g) (g) (g) (g) (g) (g))))))
      ;; The closure handed to higher-order procedures that call it many times.
      ((13) (lambda (esc)
              `(lambda (x y)
                 (define (make-acc t) ,@(os-esc esc '(t)) (lambda (e) (set! t (,op t e)) t))
                 (let ((acc (make-acc x)))
                   (list (map acc (list 1 2 3 y)) (acc 0))))))
      ;; A lambda nested in the closure reads and writes the variable and is called: a box.
      ((15) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (lambda (l) (for-each (lambda (e) (set! s (,op s e))) l) (set! s (list s)) s))
                 (let ((g (make x)))
                   (list (g (list 1 2 ,n)) (gen-outcome (lambda () (g (list y)))))))))
      ;; A counter made by an internal define (the binder's body is a letrec of lambdas).
      ((16) (lambda (esc)
              `(lambda (x y)
                 (define (make-counter c)
                   ,@(os-esc esc '(c))
                   (letrec ((next (lambda (d) (set! c (,op c d)) (if (> d 100) (next (- d 100)) c)))
                            (peek (lambda () (list 'peek (next 0)))))
                     (cons next peek)))
                 (let ((p (make-counter x)))
                   (list ((car p) 1) ((cdr p)) ((car p) y) ((car p) 250) ((cdr p)))))))
      ;; Two lambdas of one letrec both use the variable: a box.
      ((17) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (letrec ((inc (lambda (d) (set! s (,op s d)) s))
                            (get (lambda () s)))
                     (list inc get)))
                 (let ((p (make x)))
                   (list ((car p) y) ((cadr p)) ((car p) ,n) ((cadr p)))))))
      ;; Nested loops inside the closure assign the variable; call/cc captured in the inner loop
      ;; and re-entered after the variable changed.
      ((18) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (lambda (k)
                     (let ((again #f) (rounds 0))
                       (let outer ((i 0))
                         (if (< i k)
                             (begin
                               (let inner ((j 0))
                                 (if (< j i)
                                     (begin (set! s (,op s j))
                                            (if (= j 1) (call/cc (lambda (c) (if (not again) (set! again c)))))
                                            (inner (+ j 1)))
                                     #f))
                               (outer (+ i 1)))
                             #f))
                       (set! rounds (+ rounds 1))
                       (if (and again (< rounds 3)) (again #f) (list s rounds)))))
                 (let ((g (make x)))
                   (list (g ,(+ n 2)) (g 3) (gen-outcome (lambda () (g y))))))))
      ;; A loop inside the closure whose value is used (not in tail position).
      ((19) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (lambda (k) (list (let loop ((i 0)) (if (< i k) (begin (set! s (,op s i)) (loop (+ i 1))) s)) s)))
                 (let ((g (make x)))
                   (list (g ,n) (g 1) (gen-outcome (lambda () (g y))))))))
      ;; A local procedure inside the closure (a letrec that is not a loop) assigns the variable.
      ((20) (lambda (esc)
              `(lambda (x y)
                 (define (make s)
                   ,@(os-esc esc '(s))
                   (lambda (l)
                     (letrec ((bump (lambda (d) (set! s (,op s d)) s)))
                       (bump 1)
                       (list (map bump l) s))))
                 (let ((g (make x)))
                   (list (g (list 1 2 ,n)) (gen-outcome (lambda () (g (list y)))))))))
      ;; dynamic-wind inside the closure, escaping through it with a continuation.
      ((14) (lambda (esc)
              `(lambda (x y)
                 (define (make)
                   (let ((log '()))
                     ,@(os-esc esc '(log))
                     (lambda (v)
                       (set! log (cons v log))
                       (call/cc (lambda (out)
                                  (dynamic-wind
                                   (lambda () #f)
                                   (lambda () (if (eqv? v ,n) (out 'escaped) (list v)))
                                   (lambda () #f))))
                       (set! log (cons 'after log))
                       log)))
                 (let ((g (make)))
                   (list (g x) (g ,n) (g y))))))
      ;; An assigned parameter whose body is the closure, assigned before use by the closure.
      (else (lambda (esc)
              `(lambda (x y)
                 (define (make p q) ,@(os-esc esc '(p q)) (lambda () (set! p (,op p q)) (set! q p) (list p q)))
                 (let ((g (make x y)) (h (make y x)))
                   (list (g) (h) (g) (h)))))))))

(define os-args
  '((0 1) (3 4) (-2 7) (10 -3) (1.5 2) (100 100) (a 1) (2 "s") (1000000000000 3)))

(define (os-check k make)
  (let* ((plain (eval (make #f) (interaction-environment)))
         (boxed (eval (make #t) (interaction-environment))))
    (define (compare-all what)
      (for-each
       (lambda (args)
         (let ((want (gen-outcome (lambda () (apply boxed args))))
               (got (gen-outcome (lambda () (apply plain args)))))
           (if (equal? want got)
               (%test-pass!)
               (%test-fail! (string-append what " " (number->string k))
                            "\n  program:   " (gen-written (make #f))
                            "\n  arguments: " (gen-written args)
                            "\n  boxed:     " (gen-written want)
                            "\n  own slot:  " (gen-written got)))))
       os-args))
    (compare-all "own-slot program")
    ;; Hot: the same calls again after many (the JIT compiles it in 'on mode).
    (let loop ((r 0))
      (if (< r 60)
          (begin (gen-outcome (lambda () (apply plain (car os-args)))) (loop (+ r 1)))))
    (compare-all "hot own-slot program")))

(let loop ((k 0))
  (if (< k 220)
      (begin (os-check k (os-shape)) (loop (+ k 1)))))

;; The slot really is assigned in place: no box, a set-free instruction.
(define (os-count-substring s sub)
  (let loop ((i 0) (n 0))
    (cond ((> (+ i (string-length sub)) (string-length s)) n)
          ((string=? (substring s i (+ i (string-length sub))) sub) (loop (+ i 1) (+ n 1)))
          (else (loop (+ i 1) n)))))
(define (os-delay f)
  (let ((done #f) (v #f))
    (lambda () (if done v (begin (set! v (f)) (set! done #t) v)))))
(define (os-counter n) (lambda () (set! n (+ n 1)) n))
(define (os-shared n) (let ((f (lambda () (set! n (+ n 1)) n))) (f) n))
(test "memo thunk: no box" 0 (os-count-substring (disassemble os-delay) " box"))
(test "memo thunk: two in-place assignments" 2 (os-count-substring (disassemble os-delay) "set-free"))
(test "counter over a parameter: no box" 0 (os-count-substring (disassemble os-counter) " box"))
(test "read by the binder: boxed" 1 (os-count-substring (disassemble os-shared) " box "))
(test "read by the binder: no in-place assignment" 0 (os-count-substring (disassemble os-shared) "set-free"))
(define os-c (os-counter 10))
(test "counter counts" '(11 12 13) (let* ((a (os-c)) (b (os-c)) (c (os-c))) (list a b c)))
(define os-calls 0)
(define os-t (os-delay (lambda () (set! os-calls (+ os-calls 1)) 'v)))
(test "memo thunk evaluates once" '(v v 1) (let* ((a (os-t)) (b (os-t))) (list a b os-calls)))
(define (os-looper s) (lambda (k) (let loop ((i 0)) (if (< i k) (begin (set! s (+ s i)) (loop (+ i 1))) s))))
(define (os-defined n) (define (next) (set! n (+ n 1)) n) next)
(if (not (equal? (get-environment-variable "QUASI_PASSES") "off"))
    (begin
      (test "assigned in a loop of the closure: no box" 0 (os-count-substring (disassemble os-looper) " box"))
      (test "internal define: no box" 0 (os-count-substring (disassemble os-defined) " box"))))
(test "internal define counts" '(1 2) (let* ((c (os-defined 0)) (a (c)) (b (c))) (list a b)))
(test "loop in the closure" '(3 9) (let* ((g (os-looper 0)) (a (g 3)) (b (g 4))) (list a b)))

;; A lambda without free variables is one constant closure; with free variables, a new closure.
(define (os-closed) (lambda (x) (* x 2)))
(define (os-open y) (lambda (x) (* x y)))
(test "closed lambda: no closure instruction" 0 (os-count-substring (disassemble os-closed) " closure "))
(test "closed lambda: one procedure" #t (eq? (os-closed) (os-closed)))
(test "closed lambda works" 14 ((os-closed) 7))
(test "open lambda: new closures" #f (eq? (os-open 1) (os-open 1)))

;; Code that reads free values as constants leaves such a closure alone: the partial evaluator
;; neither inlines it nor runs it while specializing (its state changes at every call).
(define os-tick (os-counter 0))
(define (os-use k x) (+ (* k x) (os-tick)))
(define os-sp (specialize os-use 3))
(test "specialized code calls the counter" '(4 5 6 7) (let* ((a (os-sp 1)) (b (os-sp 1)) (c (os-use 3 1)) (d (os-sp 1))) (list a b c d)))
(define os-tick2 (os-counter 100))
(define (os-use2 k) (+ k (os-tick2)))
(define os-sp2 (specialize os-use2 5))
(test "specialized code is not run ahead" '(106 107) (let* ((a (os-sp2)) (b (os-sp2))) (list a b)))
;; grad differentiates through such a closure as through its boxed twin: J reads and writes the
;; closure's own slot (a slot cell, lib/ad/runtime.cpp), so the closure and its gradient see each
;; other's assignments; a value being differentiated stored there is refused, as for a box.
;; Each program runs on an own-slot closure and on its boxed twin (a reference by the binder).
(define (os-grad-run boxed)
  (let* ((state (if boxed
                    (let ((seen '())) (if os-never (set! os-escape seen)) (lambda (x) (set! seen (cons 'x seen)) (* x (length seen))))
                    (let ((seen '())) (lambda (x) (set! seen (cons 'x seen)) (* x (length seen))))))
         (memo (if boxed
                   (let ((done #f) (tag #f)) (if os-never (set! os-escape (list done tag)))
                     (lambda (x) (if (not done) (begin (set! tag 'ready) (set! done #t))) (if (eq? tag 'ready) (* x x x) x)))
                   (let ((done #f) (tag #f))
                     (lambda (x) (if (not done) (begin (set! tag 'ready) (set! done #t))) (if (eq? tag 'ready) (* x x x) x)))))
         (store (if boxed
                    (let ((n 0.0)) (if os-never (set! os-escape n)) (lambda (x) (set! n (* x x)) n))
                    (let ((n 0.0)) (lambda (x) (set! n (* x x)) n))))
         (a ((grad (lambda (x) (state x))) 2.0))     ; seen has 1 element: d/dx = 1
         (b ((grad state) 2.0))                       ; 2
         (c (state 1.0))                              ; the closure sees the gradient's writes: 3
         (d ((grad (lambda (x) (* x (state x)))) 3.0)) ; 2 * 3 * 4
         (e ((grad memo) 2.0))                        ; 3x^2 = 12
         (f ((specialize (grad (lambda (x) (+ (state x) (memo x))))) 1.0))  ; 5 + 3
         (g (state 0.0))                              ; 6 elements now: 0
         (h (gen-outcome (lambda () ((grad store) 2.0)))))
    (list a b c d e f g (if (eq? (car h) 'error) (os-count-substring (cadr h) "set! of the outside variable n") h))))
(test "own-slot closure under grad: its boxed twin's results" (os-grad-run #t) (os-grad-run #f))
(test "own-slot closure under grad: values" '(1 2 3 24 12 8 0 1) (map (lambda (x) (if (number? x) (exact (round x)) x)) (os-grad-run #f)))
(define os-slotted (let ((seen '())) (lambda (x) (set! seen (cons 'x seen)) (* x (length seen)))))
(test "the own-slot closure assigns in place" 1 (os-count-substring (disassemble os-slotted) "set-free"))
;; its first call (one element): the gradient of (sin x) x 1, against finite differences of that
(test "finite differences through an own-slot closure" #t
      (let ((g ((grad (lambda (x) (* (sin x) (os-slotted x)))) 0.7))
            (fd (/ (- (* (sin 0.701) 0.701) (* (sin 0.699) 0.699)) 0.002)))
        (< (abs (- g fd)) 1e-5)))

(test-end)
