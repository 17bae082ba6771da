;;; jit-regs-test.scm — the JIT's register allocation (lib/jit/regalloc.hpp): VM registers kept
;;; in machine registers across steps, stored to their frame slots at calls, exits to the
;;; interpreter, continuation captures and errors, and loaded again where code is re-entered.
;;; Run in all four modes; the answers are the interpreter's, so every mode must agree.

(include "harness.scm")

;; Loop variables of a named let (a self tail call) and of a do loop (a backward jump).
(define (sum-to n)
  (let loop ((i 0) (acc 0))
    (if (> i n) acc (loop (+ i 1) (+ acc i)))))
(test "named-let loop variables" 50005000 (sum-to 10000))

(define (do-sum v)
  (do ((i 0 (+ i 1))
       (acc 0 (+ acc (vector-ref v i))))
      ((= i (vector-length v)) acc)))
(test "do loop over a vector" 4950 (do-sum (let ((v (make-vector 100)))
                                             (do ((i 0 (+ i 1))) ((= i 100) v) (vector-set! v i i)))))

;; More live variables than machine registers: some stay in their slots.
(define (pressure n)
  (let loop ((i 0) (a 1) (b 2) (c 3) (d 4) (e 5) (f 6) (g 7))
    (if (= i n)
        (list a b c d e f g)
        (loop (+ i 1) (+ a b) (- b c) (+ c d) (- d e) (+ e f) (- f g) (+ g i)))))
(test "register pressure"
      (let loop ((i 0) (a 1) (b 2) (c 3) (d 4) (e 5) (f 6) (g 7))
        (if (= i 300)
            (list a b c d e f g)
            (loop (+ i 1) (+ a b) (- b c) (+ c d) (- d e) (+ e f) (- f g) (+ g i))))
      (pressure 300))
(test "register pressure, known values" '(3 -1 7 -1 11 -1 7) (pressure 1))

;; Fixnums overflowing to bignums, flonums and rationals mid-loop (the slow paths save the
;; machine registers around the runtime).
(define (mixed-sum n x)
  (let loop ((i 0) (acc 0))
    (if (= i n) acc (loop (+ i 1) (+ acc x)))))
(test "fixnum to bignum" (* 1000 (expt 2 60)) (mixed-sum 1000 (expt 2 60)))
(test "flonum accumulator" 250.0 (mixed-sum 1000 0.25))
(test "rational accumulator" 1000/3 (mixed-sum 1000 1/3))
(define (fact-loop n)
  (let loop ((i 1) (acc 1))
    (if (> i n) acc (loop (+ i 1) (* acc i)))))
(test "factorial through bignums" 93326215443944152681699238856266700490715968264381621468592963895217599993229915608941463976156518286253697920827223758251185210916864000000000000000000000000 (fact-loop 100))

;; Pairs built in a loop: allocation (and collections) while loop values are in registers.
(define (build n)
  (let loop ((i 0) (lst '()) (len 0))
    (if (= i n) (cons len (length lst)) (loop (+ i 1) (cons (* i i) lst) (+ len 1)))))
(test "cons in a loop" '(200000 . 200000) (build 200000))
(define (alist n)
  (let loop ((i 0) (acc '()))
    (if (= i n)
        (let sum ((l acc) (s 0.0))
          (if (null? l) s (sum (cdr l) (+ s (cdar l)))))
        (loop (+ i 1) (cons (cons i (* 0.5 i)) acc)))))
(test "pairs of flonums" 2499975000.0 (alist 100000))

;; Calls in the loop: the loop variables are stored before each call and reloaded after.
(define (square x) (* x x))
(define (sum-squares n)
  (let loop ((i 0) (acc 0))
    (if (= i n) acc (loop (+ i 1) (+ acc (square i))))))
(test "calls in a loop" 332833500 (sum-squares 1000))
(define (count-if pred lst)
  (let loop ((l lst) (k 0))
    (if (null? l) k (loop (cdr l) (if (pred (car l)) (+ k 1) k)))))
(test "calls through a parameter" 500 (count-if even? (iota 1000)))
(test "calls to a primitive" 3 (count-if string? '(1 "a" b "c" #\d "e")))

;; A flonum loop (mandelbrot-like) with an early escape.
(define (escape cr ci limit)
  (let loop ((zr 0.0) (zi 0.0) (k 0))
    (cond ((= k limit) k)
          ((> (+ (* zr zr) (* zi zi)) 4.0) k)
          (else (loop (+ (- (* zr zr) (* zi zi)) cr) (+ (* 2.0 zr zi) ci) (+ k 1))))))
(test "flonum loop escapes" '(1 3 100 100) (list (escape 2.0 2.0 100) (escape 1.0 0.0 100)
                                                  (escape 0.0 0.0 100) (escape -1.0 0.0 100)))

;; Flonum arithmetic on free variables (a loop closure's captured parameters): computed in SSE
;; registers with the captured flonums; a captured fixnum, rational or non-number takes the
;; step-by-step path; a captured flonum that lives on is the very same object.
(define (scaled-sum c n acc0)
  (let loop ((i 0) (acc acc0))
    (if (= i n) acc (loop (+ i 1) (+ acc (* c c))))))
(test "free flonum in a group" 225.0 (scaled-sum 1.5 100 0.0))
(test "free fixnum in a group" 900 (scaled-sum 3 100 0))
(test "free rational in a group" 400/9 (scaled-sum 2/3 100 0))
(test "free bignum in a group" (* 100 (expt 2 80)) (scaled-sum (expt 2 40) 100 0))
(test-error-message "free non-number in a group" "*" (scaled-sum 'x 100 0))
(define (keep-free c n)
  (let loop ((i 0) (acc 0.0) (last #f))
    (if (= i n)
        (list acc (eq? last c))
        (let ((d c))
          (loop (+ i 1) (+ acc (* d d)) d)))))
(test "free flonum kept as itself" '(400.0 #t) (keep-free 2.0 100))
(define (affine a b x0 n)
  (let loop ((i 0) (x x0))
    (if (= i n) x (loop (+ i 1) (+ (* a x) b)))))
(test "two free flonums in a recurrence" 1023.0 (affine 2.0 1.0 0.0 10))
(test "two free fixnums in a recurrence" 1023 (affine 2 1 0 10))
(test "free flonums, exact start" 1023.0 (affine 2.0 1.0 0 10))

;; call/cc escaping from inside a compiled loop, and re-entered.
(define (find-first pred lst)
  (call-with-current-continuation
   (lambda (return)
     (let loop ((l lst) (i 0))
       (cond ((null? l) #f)
             ((pred (car l)) (return (cons i (car l))))
             (else (loop (cdr l) (+ i 1))))))))
(test "call/cc escape from a loop" '(700 . 700) (find-first (lambda (x) (> x 699)) (iota 1000)))
(test "call/cc escape, none found" #f (find-first (lambda (x) (> x 5000)) (iota 1000)))

(define (reenter)
  (let ((k #f) (visits 0) (out '()))
    (let loop ((i 0) (acc 0))
      (when (= i 5)
        (call-with-current-continuation (lambda (c) (set! k c))))
      (if (< i 10)
          (loop (+ i 1) (+ acc i))
          (begin
            (set! out (cons acc out))
            (set! visits (+ visits 1))
            (when (< visits 3) (k #t)))))
    out))
(test "continuation re-entered inside a loop" '(45 45 45) (reenter))

(define (generator-sum n)
  ;; A loop whose body captures a continuation on every iteration.
  (let loop ((i 0) (acc 0))
    (if (= i n)
        acc
        (loop (+ i 1) (+ acc (call-with-current-continuation (lambda (k) (k i))))))))
(test "capture on every iteration" 499500 (generator-sum 1000))

;; dynamic-wind around and inside loops.
(define (wind-count n)
  (let ((entered 0) (left 0))
    (let loop ((i 0) (acc 0))
      (if (= i n)
          (list acc entered left)
          (loop (+ i 1)
                (+ acc (dynamic-wind
                        (lambda () (set! entered (+ entered 1)))
                        (lambda () (* i 2))
                        (lambda () (set! left (+ left 1))))))))))
(test "dynamic-wind in a loop" '(9900 100 100) (wind-count 100))
(define (wind-escape)
  (let ((trace '()))
    (call-with-current-continuation
     (lambda (k)
       (dynamic-wind
        (lambda () (set! trace (cons 'in trace)))
        (lambda () (let loop ((i 0)) (if (= i 500) (k i) (loop (+ i 1)))))
        (lambda () (set! trace (cons 'out trace))))))
    (reverse trace)))
(test "escape through dynamic-wind from a loop" '(in out) (wind-escape))

;; Errors raised mid-loop: the interpreter reports them with the same message, and the values
;; the handler sees are the loop's current ones.
(define (car-all lst)
  (let loop ((l lst) (acc 0))
    (if (null? l) acc (loop (cdr l) (+ acc (car (car l)))))))
(test-error-message "car of a non-pair mid-loop" "car" (car-all (list '(1) '(2) 3 '(4))))
(test-error-message "+ of a non-number mid-loop" "+"
                    (let loop ((i 0) (acc 0))
                      (if (= i 10) acc (loop (+ i 1) (+ acc (if (= i 7) (quote seven) i))))))
(define (vector-walk v)
  (let loop ((i 0) (acc 0))
    (if (> i (vector-length v)) acc (loop (+ i 1) (+ acc (vector-ref v i))))))
(test-error-message "vector-ref out of range mid-loop" "vector-ref" (vector-walk (make-vector 300 1)))
(test "loop state seen by a handler"
      '(caught 7)
      (let ((seen #f))
        (guard (e (#t (list 'caught seen)))
          (let loop ((i 0))
            (set! seen i)
            (if (= i 7) (raise 'stop) (loop (+ i 1)))))))
(test "loop resumes after a handled error in its body" 45
      (let loop ((i 0) (acc 0))
        (if (= i 10)
            acc
            (loop (+ i 1) (+ acc (guard (e (#t i)) (if (odd? i) (raise i) i)))))))

;; Deep recursion with loop variables live across the recursive call.
(define (deep n)
  (if (= n 0) 0 (+ 1 (deep (- n 1)))))
(test "deep recursion" 100000 (deep 100000))
(define (deep-loop n)
  (let loop ((i 0) (acc 0))
    (if (= i 3) acc (loop (+ i 1) (+ acc (deep n))))))
(test "deep recursion inside a loop" 150000 (deep-loop 50000))
(define (tree-sum d)
  (if (= d 0) 1 (let ((a (tree-sum (- d 1))) (b (tree-sum (- d 1)))) (+ a b d))))
(test "values live across two calls" 1525 (tree-sum 9))

;; Closures capturing loop variables (their slots must be current for the capture).
(define (make-adders n)
  (let loop ((i 0) (acc '()))
    (if (= i n) acc (loop (+ i 1) (cons (lambda (x) (+ x i)) acc)))))
(test "closures capture loop variables" '(109 108 107) (let ((l (map (lambda (f) (f 100)) (make-adders 10)))) (list (car l) (cadr l) (caddr l))))
(define (boxes n)
  (let ((total 0))
    (let loop ((i 0))
      (when (< i n)
        (set! total (+ total i))
        (loop (+ i 1))))
    total))
(test "assigned variable in a loop" 4950 (boxes 100))

;; A nested loop: the inner loop's variables and the outer one's.
(define (matrix-sum n)
  (let outer ((i 0) (acc 0))
    (if (= i n)
        acc
        (outer (+ i 1)
               (let inner ((j 0) (s acc))
                 (if (= j n) s (inner (+ j 1) (+ s (* i j)))))))))
(test "nested loops" 24502500 (matrix-sum 100))

;; Strings and characters in a loop.
(define (count-char s c)
  (let loop ((i 0) (k 0))
    (if (= i (string-length s)) k (loop (+ i 1) (if (char=? (string-ref s i) c) (+ k 1) k)))))
(test "string loop" 4 (count-char "mississippi" #\s))

;; A call of a primitive done inline through a global that holds it (jit: the call reads the
;; global itself; only the fallback stores the callee): the global changes between calls, to
;; another inline primitive, to a closure, back; the operand set-up between the global's load
;; and the call is moves and constants, in different orders.
(define jr-op car)
(define (jr-apply-op x y) (jr-op (if (pair? x) x y)))
(define (jr-apply-op2 x y) (let ((a y) (b x)) (jr-op b)))
(define (jr-run n)
  (let loop ((i 0) (acc '()))
    (if (= i n)
        (reverse acc)
        (begin
          (set! jr-op (case (modulo i 4) ((0) car) ((1) cdr) ((2) (lambda (p) (list 'closure p))) (else cadr)))
          (loop (+ i 1) (cons (list (jr-apply-op (list i 'b 'c) 0) (jr-apply-op2 (list 'x i) 1)) acc))))))
(let ((r (jr-run 400)))
  (test "inline primitive through a changing global, length" 400 (length r))
  (test "inline primitive through a changing global"
        #t
        (let check ((i 0) (l r))
          (or (null? l)
              (and (equal? (car l)
                           (case (modulo i 4)
                             ((0) (list i 'x))
                             ((1) (list '(b c) (list i)))
                             ((2) (list (list 'closure (list i 'b 'c)) (list 'closure (list 'x i))))
                             (else (list 'b i))))
                   (check (+ i 1) (cdr l)))))))
;; The primitive's error still comes from the call, with the primitive's message.
(define jr-op3 cadr)
(define (jr-cadr x) (jr-op3 x))
(let loop ((i 0)) (if (< i 300) (begin (jr-cadr '(1 2)) (loop (+ i 1)))))
(test-error "cadr of a short list through a global" error-object? (jr-cadr '(1)))

;; Predicates done inline whose boolean a branch tests (the JIT branches without making it),
;; and the same predicates whose value is kept.
(define (jr-classify x)
  (cond ((number? x) 'number)
        ((symbol? x) 'symbol)
        ((string? x) 'string)
        ((char? x) (if (char<? x #\m) 'low-char 'high-char))
        ((boolean? x) 'boolean)
        ((vector? x) 'vector)
        (else 'other)))
(define (jr-keep x) (let ((n (number? x)) (s (symbol? x))) (list n s (if n 1 2) (if s 3 4))))
(define jr-values (list 1 2.5 'a "s" #\a #\z #t #f '#(1) '(1) (expt 2 70) 1/2))
(let loop ((i 0))
  (if (< i 300) (begin (map jr-classify jr-values) (map jr-keep jr-values) (loop (+ i 1)))))
(test "inline predicates in branches"
      '(number number symbol string low-char high-char boolean boolean vector other number number)
      (map jr-classify jr-values))
(test "inline predicates kept"
      '((#t #f 1 4) (#f #t 2 3) (#f #f 2 4))
      (list (jr-keep 5) (jr-keep 'q) (jr-keep "x")))

;; A known callee that is compiled after its caller, then replaced by another procedure; tail
;; calls passing their own arguments on unchanged (they are not copied again).
(define (jr-callee a b c) (list a b c))
(define (jr-caller a b c) (cons 'r (jr-callee a b c)))
(define (jr-tail a b c) (jr-callee a b (+ c 1)))
(define (jr-tail-swap a b c) (jr-callee b a c))
(define (jr-drive n)
  (let loop ((i 0) (acc '()))
    (if (= i n)
        acc
        (loop (+ i 1) (list (jr-caller i 'b 'c) (jr-tail i 'b i) (jr-tail-swap i 'y 'z))))))
(test "known callee compiled later" '((r 299 b c) (299 b 300) (y 299 z)) (jr-drive 300))
(set! jr-callee (lambda (a b c) (vector a b c)))
(test "known callee replaced" '((r . #(299 b c)) #(299 b 300) #(y 299 z)) (jr-drive 300))
(define (jr-self-tail n a b acc) (if (= n 0) (list a b acc) (jr-self-tail (- n 1) a b (+ acc a b))))
(test "self tail call keeping arguments" '(2 3 5000) (jr-self-tail 1000 2 3 0))

;; Tail calls between procedures of different frame sizes (a call into a frame no larger than
;; the caller's is not checked against the stack limit: it needs no new stack), allocating so
;; that the collector runs meanwhile, and deep non-tail recursion still reaching the limit.
(define (jr-big n acc)
  (let ((a (+ n 1)) (b (+ n 2)) (c (+ n 3)) (d (list n)))
    (if (= n 0) (length acc) (jr-small (- n 1) (cons (+ a b c (car d)) acc)))))
(define (jr-small n acc) (if (= n 0) (length acc) (jr-big (- n 1) acc)))
(test "tail calls between frame sizes" 50000 (jr-big 100000 '()))
(define ((jr-k n) x) (if (= n 0) x ((jr-k (- n 1)) (+ x 1))))
(test "tail calls of closures" 20000 ((jr-k 20000) 0))
(define (jr-deep n) (if (= n 0) 0 (+ 1 (jr-deep (- n 1)))))
(test-error "deep recursion still overflows" error-object? (jr-deep 100000000))
(test "and runs again after" 1000 (jr-deep 1000))

;; A call through a free variable bound by a letrec of lambdas (cpstak's continuations calling
;; tak) is guarded as a known callee by its Proto (Proto::free_protos): the closure's type and
;; Proto are compared, not looked up.
(define (make-free-caller n)
  (define (f x y) (if (= x 0) y (f (- x 1) (+ y n))))
  (lambda (a) (+ 0 (f a 1))))
(define (make-free-tail-caller n)
  (define (f x y) (if (= x 0) y (f (- x 1) (+ y n))))
  (lambda (a) (f a 1)))
(define free-caller (make-free-caller 2))
(define free-tail-caller (make-free-tail-caller 3))
(jit-compile! free-caller)
(jit-compile! free-tail-caller)
(define (listing-has? s pat)
  (let ((n (string-length s)) (m (string-length pat)))
    (let loop ((i 0))
      (cond ((> (+ i m) n) #f)
            ((string=? (substring s i (+ i m)) pat) #t)
            (else (loop (+ i 1)))))))
(test "call through a letrec-bound free variable" 11 (free-caller 5))
(test "tail call through a letrec-bound free variable" 16 (free-tail-caller 5))
(test-assert "the call's guard compares the closure's Proto"
             (listing-has? (jit-disassemble free-caller) "cmp qword ptr [rax+8], rcx"))
(test-assert "the tail call's guard compares the closure's Proto"
             (listing-has? (jit-disassemble free-tail-caller) "cmp qword ptr [rax+8], rcx"))
;; Mutually recursive letrec lambdas reach each other through their free slots.
(define (parity n)
  (define (ev? k) (if (= k 0) #t (od? (- k 1))))
  (define (od? k) (if (= k 0) #f (ev? (- k 1))))
  (list (ev? n) (od? n)))
(test "mutual letrec through free slots" '(#f #t) (parity 1001))

;; Tail calls do not store the machine registers first (lib/jit/README.md "Register
;; allocation"): the callee's arguments are copied from them, swapped, in place, from a loop;
;; into an unknown procedure, a known one, a larger frame at a new stack depth (the slow stack
;; check stores and reloads them), call/cc (a primitive path that retries the call), and a
;; procedure that does not exist (the hand-over stores them for the interpreter's error).
(define (three a b c) (list a b c))
(define (tail-swapped f n)
  (let loop ((i 0) (a 1) (b 2))
    (if (= i n) (f b a i) (loop (+ i 1) (+ a i) (- b i)))))
(test "tail call from a loop, arguments swapped" '((-43 46 10) (-43 46 10))
      (list (tail-swapped three 10) (tail-swapped (lambda (x y z) (list x y z)) 10)))
(define (tail-in-place f x y)
  (let loop ((k 0) (s 0)) (if (< k 10) (loop (+ k 1) (+ s k)) (f x y s))))
(test "tail call, arguments in place" '((a b 45) (a b 45)) (list (tail-in-place three 'a 'b) (tail-in-place list 'a 'b)))
(define (tail-known n)
  (let loop ((i 0) (a 0) (b 1)) (if (< i n) (loop (+ i 1) b (+ a b)) (three b a i))))
(test "known tail call from a loop" '(89 55 10) (tail-known 10))
(define (wide a b c d e f g h) (let* ((x (+ a b)) (y (* c d)) (z (- e f))) (list a b c d e f g h x y z (+ x y z))))
(define (deep-tail n)
  (if (= n 0)
      (let loop ((i 0) (s 0)) (if (< i 3) (loop (+ i 1) (+ s i)) (wide s i n 1 2 3 4 5)))
      (car (list (deep-tail (- n 1))))))
(test "tail call into a larger frame, deeper each time" '((3 3 0 1 2 3 4 5 6 0 -1 5) (3 3 0 1 2 3 4 5 6 0 -1 5))
      (list (deep-tail 1000) (deep-tail 30000)))
(define (tail-callcc f n)
  (let loop ((i 0) (acc 0)) (if (< i n) (loop (+ i 1) (+ acc i)) (call/cc f))))
(test "tail call of call/cc from a loop" '(7 7)
      (list (tail-callcc (lambda (k) (k 7)) 20) (tail-callcc (lambda (k) 7) 20)))
(define (tail-not-procedure f n)
  (let loop ((i 0) (acc 1)) (if (< i n) (loop (+ i 1) (* acc 2)) (f acc i))))
(test-error-message "tail call of a non-procedure from a loop" "expected a procedure" (tail-not-procedure 5 10))
(test "tail call after the error" '(1024 10) (tail-not-procedure list 10))

(test-end)
