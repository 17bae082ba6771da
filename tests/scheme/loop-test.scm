;;; loop-test.scm — named lets compiled as loops in their procedure's frame (vm/compiler.cpp,
;;; loop_letrec): a letrec-bound lambda called only in tail position, in tail position itself,
;;; is compiled without a closure; its calls become moves and a backward jump.
;;;
;;; Differential: every program is evaluated twice, as written and with `(set! lt-escape NAME)`
;;; added at the start of the loop's body — a reference that is not a call, so that copy keeps
;;; the closure and the calls. Both must give equal? outcomes on every argument tuple (value, or
;;; error message and irritants). The shapes: parameters swapped, kept and rotated (the moves are
;;; a parallel assignment), closures capturing the parameters of each iteration, set! on a
;;; parameter (a new box per iteration), a letrec body calling the loop from several branches,
;;; nested loops, call/cc captured in the loop and re-entered, dynamic-wind around an escape,
;;; errors raised inside the loop, flonum accumulators, many parameters; and loops that are not
;;; in tail position (an operand, a let's init, an if's test, a sequence for effect, call/cc
;;; re-entering one, inside dynamic-wind), whose tail positions jump past the loop. Run in the four modes
;;; (so also JIT forced, and hot after the warm-up loop below).

(include "harness.scm")
(include "gen-harness.scm")

(define lt-escape #f)
(gen-seed! 424242)

;; (NAME BINDINGS BODY...) -> the named let, with the escaping reference when esc.
(define (lt-named esc name bindings . body)
  (if esc
      `(let ,name ,bindings (set! lt-escape ,name) ,@body)
      `(let ,name ,bindings ,@body)))

;; The program shapes: (lambda (esc) program) with the random choices made once, outside.
(define (lt-shape)
  (let ((n (+ 1 (gen-rand 12))) (m (gen-rand 8)) (op (gen-pick '(+ - * max))))
    (case (gen-rand 18)
      ;; Accumulate; the test and the update vary.
      ((0) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop '((i 0) (acc x))
                           `(if (>= i ,n) (list i acc) (loop (+ i 1) (,op acc (* i y))))))))
      ;; Swapped and kept parameters (a parallel assignment).
      ((1) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop `((a x) (b y) (k ,n))
                           `(cond ((= k 0) (list a b))
                                  ((odd? k) (loop b a (- k 1)))
                                  (else (loop a (,op a b) (- k 1))))))))
      ;; Rotation through five parameters.
      ((2) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop `((a x) (b y) (c 3) (d 4) (e 5) (k ,n))
                           `(if (= k 0) (list a b c d e) (loop e a b c (,op d 1) (- k 1)))))))
      ;; Closures over each iteration's parameters.
      ((3) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop '((i 0) (fs '()))
                           `(if (= i ,n)
                                (map (lambda (f) (f)) fs)
                                (loop (+ i 1) (cons (lambda () (,op i x)) fs)))))))
      ;; set! on a parameter, captured before and after the assignment.
      ((4) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop '((i 0) (acc '()))
                           `(if (>= i ,(* 10 n))
                                (map (lambda (f) (f)) acc)
                                (let ((before (lambda () i)))
                                  (set! i (+ i 10))
                                  (loop (- i 9) (cons before (cons (lambda () (list i x)) acc)))))))))
      ;; A letrec whose body calls the loop from two branches (not the named-let shape).
      ((5) (lambda (esc)
             `(lambda (x y)
                (letrec ((walk (lambda (i acc)
                                 ,@(if esc '((set! lt-escape walk)) '())
                                 (if (> i ,n) acc (walk (+ i 1) (,op acc i))))))
                  (if (< x y) (walk 0 x) (walk ,m y))))))
      ;; Nested loops: the inner one is in tail position of the outer one's body.
      ((6) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'outer '((i 0) (acc '()))
                           `(if (= i ,n)
                                (reverse acc)
                                ,(lt-named esc 'inner '((j 0) (acc acc))
                                           `(if (>= j i) (outer (+ i 1) acc) (inner (+ j 1) (cons (,op i j x) acc)))))))))
      ;; call/cc in the loop, re-entered twice from outside.
      ((7) (lambda (esc)
             `(lambda (x y)
                (let ((k0 #f) (count 0))
                  (define (walk)
                    ,(lt-named esc 'loop '((i 0) (acc '()))
                               `(if (= i ,n)
                                    acc
                                    (loop (+ i 1) (cons (call/cc (lambda (k) (if (= i ,(min m (- n 1))) (set! k0 k)) (,op i x)))
                                                        acc)))))
                  (let ((r (walk)))
                    (set! count (+ count 1))
                    (if (< count 3) (k0 (* count y)) (list r count)))))))
      ;; dynamic-wind in the loop body, left by an escape.
      ((8) (lambda (esc)
             `(lambda (x y)
                (let ((trace '()))
                  (define (walk out)
                    ,(lt-named esc 'loop '((i 0))
                               `(if (= i ,n)
                                    'done
                                    (begin
                                      (dynamic-wind
                                       (lambda () (set! trace (cons i trace)))
                                       (lambda () (if (= i ,m) (out (list 'out i x))))
                                       (lambda () (set! trace (cons (- -1 i) trace))))
                                      (loop (+ i 1))))))
                  (list (call/cc walk) (reverse trace))))))
      ;; An error in the loop (car of a number, or arithmetic on a non-number argument).
      ((9) (lambda (esc)
             `(lambda (x y)
                ,(lt-named esc 'loop '((i 0) (acc y))
                           `(cond ((= i ,n) acc)
                                  ((= i ,m) (car (+ acc x)))
                                  (else (loop (+ i 1) (,op acc x))))))))
      ;; Flonum accumulators.
      ((10) (lambda (esc)
              `(lambda (x y)
                 ,(lt-named esc 'loop '((a 0.5) (b 1.5) (k 0))
                            `(if (= k ,n) (list a b) (loop (* b 1.25) (+ a b (* x 0.5)) (+ k 1)))))))
      ;; A loop in a procedure called non-tail by another loop (a machine call in the loop).
      ((11) (lambda (esc)
              `(lambda (x y)
                 (define (sum-to k)
                   ,(lt-named esc 'loop '((j 0) (s 0)) `(if (> j k) s (loop (+ j 1) (+ s j)))))
                 ,(lt-named esc 'loop '((i 0) (acc '()))
                            `(if (= i ,n) acc (loop (+ i 1) (cons (,op (sum-to i) x) acc)))))))
      ;; The loop value returned as a closure that is called later.
      ((12) (lambda (esc)
              `(lambda (x y)
                 (let ((f ,(list 'lambda '() (lt-named esc 'loop '((i 0) (acc x))
                                                         `(if (= i ,n) (lambda (z) (list z acc i)) (loop (+ i 1) (,op acc y)))))))
                   ((f) 'done)))))
      ;; Loops not in tail position: an operand, a let's init, an if's test, a sequence.
      ((13) (lambda (esc)
              `(lambda (x y)
                 (list (+ 1 ,(lt-named esc 'loop '((i 0) (acc x)) `(if (= i ,n) acc (loop (+ i 1) (,op acc y)))))
                       (let ((v ,(lt-named esc 'loop `((i ,m)) `(if (> i ,n) (* i x) (loop (+ i 2))))))
                         (list v x))
                       (if ,(lt-named esc 'loop '((l (list x y 3))) '(cond ((null? l) #f) ((eq? (car l) 3) #t) (else (loop (cdr l)))))
                           'found
                           'not)))))
      ;; A sieve-like sequence of loops for effect, then one whose tail positions call procedures.
      ((14) (lambda (esc)
              `(lambda (x y)
                 (let ((v (make-vector ,(+ n 2) 0)) (calls 0))
                   (define (note! k) (set! calls (+ calls 1)) (* k 2))
                   ,(lt-named esc 'fill '((i 0)) `(if (< i ,(+ n 2)) (begin (vector-set! v i (,op i x)) (fill (+ i 1))) #f))
                   (let ((r ,(lt-named esc 'walk '((i 0) (acc 0))
                                       `(cond ((= i ,n) (note! acc))
                                              ((= i ,m) (list 'stop (note! i) (vector-ref v i)))
                                              (else (walk (+ i 1) (+ acc (vector-ref v i))))))))
                     (list r calls (vector->list v)))))))
      ;; Non-tail loops with an inner tail loop, and call/cc re-entering a non-tail loop.
      ((15) (lambda (esc)
              `(lambda (x y)
                 (let ((k0 #f) (count 0) (outs '()))
                   (let ((r (* 2 ,(lt-named esc 'outer '((i 0) (acc 0))
                                            `(if (= i ,n)
                                                 acc
                                                 ,(lt-named esc 'inner '((j 0) (acc acc))
                                                            `(if (> j i)
                                                                 (outer (+ i 1) (+ acc (call/cc (lambda (k) (if (= i ,(min m (- n 1))) (set! k0 k)) j))))
                                                                 (inner (+ j 1) (,op acc j)))))))))
                     (set! outs (cons r outs))
                     (set! count (+ count 1))
                     (if (and k0 (< count 3)) (k0 (* count 100)) (list outs x)))))))
      ;; A non-tail letrec loop called from both branches of its body, inside dynamic-wind.
      ((16) (lambda (esc)
              `(lambda (x y)
                 (let ((trace '()))
                   (let ((r (dynamic-wind
                             (lambda () (set! trace (cons 'in trace)))
                             (lambda ()
                               (+ 1 (letrec ((walk (lambda (i acc)
                                                     ,@(if esc '((set! lt-escape walk)) '())
                                                     (if (> i ,n) acc (walk (+ i 1) (,op acc i x))))))
                                      (if (< x y) (walk 0 x) (walk ,m y)))))
                             (lambda () (set! trace (cons 'out trace))))))
                     (list r trace))))))
      ;; A call with a different argument count somewhere: stays a closure, the error is the same.
      (else (lambda (esc)
              `(lambda (x y)
                 ,(lt-named esc 'loop '((i 0) (acc x))
                            `(cond ((= i ,n) acc)
                                   ((= i ,(+ n 5)) (loop i))
                                   (else (loop (+ i 1) (,op acc y)))))))))))

(define lt-args
  '((0 1) (3 4) (-2 7) (10 -3) (1.5 2) (100 100) (a 1) (2 "s") (1000000000000 3)))

(define (lt-check k make)
  (let* ((plain (eval (make #f) (interaction-environment)))
         (escaping (eval (make #t) (interaction-environment))))
    (define (compare-all what)
      (for-each
       (lambda (args)
         (let ((want (gen-outcome (lambda () (apply escaping args))))
               (got (gen-outcome (lambda () (apply plain args)))))
           (if (equal? want got)
               (%test-pass!)
               (%test-fail! (string-append what " " (number->string k))
                            "\n  program:   " (gen-written (make #f))
                            "\n  arguments: " (gen-written args)
                            "\n  closure:   " (gen-written want)
                            "\n  loop:      " (gen-written got)))))
       lt-args))
    (compare-all "loop program")
    ;; Hot: the same calls again after many (the JIT compiles it in 'on mode).
    (let loop ((r 0))
      (if (< r 60)
          (begin (gen-outcome (lambda () (apply plain (car lt-args)))) (loop (+ r 1)))))
    (compare-all "hot loop program")))

(let loop ((k 0))
  (if (< k 200)
      (begin (lt-check k (lt-shape)) (loop (+ k 1)))))

;; The loop really is compiled in the frame when the optimizer runs (its forward pass gives the
;; named let its (letrec ((f ...)) (f e ...)) shape): no closure instruction.
(define (lt-count-substring s sub)
  (let loop ((i 0) (n 0))
    (cond ((> (+ i (string-length sub)) (string-length s)) n)
          ((string=? (substring s i (+ i (string-length sub))) sub) (loop (+ i 1) (+ n 1)))
          (else (loop (+ i 1) n)))))
(define (lt-count-to n) (let loop ((i 0)) (if (= i n) i (loop (+ i 1)))))
(define (lt-escapes n) (let loop ((i 0)) (if (= i n) loop (loop (+ i 1)))))
(define (lt-non-tail n) (+ 1 (let loop ((i 0)) (if (= i n) i (loop (+ i 1))))))
(if (not (equal? (get-environment-variable "QUASI_PASSES") "off"))
    (begin
      (test "no closure for a loop" 0 (lt-count-substring (disassemble lt-count-to) "closure"))
      (test "a closure for an escaping loop" 1 (lt-count-substring (disassemble lt-escapes) " closure"))
      (test "no closure for a loop in an operand" 0 (lt-count-substring (disassemble lt-non-tail) "closure"))))
(test "non-tail loop value" 100001 (lt-non-tail 100000))
(test "loop value" 100000 (lt-count-to 100000))
(test "escaping loop value" #t (procedure? (lt-escapes 3)))

(test-end)
