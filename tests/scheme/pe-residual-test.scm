;;; pe-residual-test.scm — residual polish (issue 13 item 9): procedures read from user globals
;;; appear by the global's name, so (residual p) written and read back is the same datum and
;;; evaluates to a procedure that agrees with p; no dead parameters are threaded through loops.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (printable? x)  ; no #<...> objects: written, it reads back
  (let ((s (let ((p (open-output-string))) (write x p) (get-output-string p))))
    (equal? x (read (open-input-string s)))))

;; A global procedure the specializer cannot look into (it closes over a set! variable).
(define counter (let ((n 0)) (lambda () (set! n (+ n 1)) n)))
(define (f x) (if (> x 0) (+ x (counter)) (counter)))
(define sf (specialize f))
(test "a global procedure appears by its name" #t (and (memq 'counter (walk (residual sf))) #t))
(test "the residual reads back" #t (printable? (residual sf)))
(define ef (eval (residual sf) (interaction-environment)))
(test "... and evaluates to the same procedure" (+ 5 (+ 1 (counter))) (ef 5))
(test "... on the other branch" (+ 1 (counter)) (ef -1))

;; Passed as a static argument, read from the global: called by name too.
(define (g k x) (list (k) x))
(define sg (specialize g counter))
(test "a static procedure argument is not named (no global was read)" #t (procedure? sg))
(test "it agrees" (list (+ 1 (counter)) 7) (sg 7))

;; The global is redefined: the residual (by name) and the original agree.
(define (h x) (if (pair? x) (counter) 0))
(define sh (specialize h))
(set! counter (lambda () 'new))
(test "after a redefinition the specialization follows the global" 'new (sh '(1)))

;; No dead parameter threaded through a loop: u is passed along by the two loops but never used.
(define (lp n acc u) (if (= n 0) acc (lp2 (- n 1) (+ acc n) u)))
(define (lp2 n acc u) (if (= n 0) acc (lp (- n 1) (* acc 2) u)))
(define (top s k u) (lp k s u))
(define st (specialize top 1))
(test "the unused parameter is not threaded" 2 (let ((l (cadr (caddr (residual st)))))  ; letrec* bindings
                                                  (apply max (map (lambda (b) (length (cadr (cadr b)))) l))))
(test "the loops agree" (top 1 9 'z) (st 9 'z))
(test "the residual reads back" #t (printable? (residual st)))

;; No peeled first iteration: when specializing unfolds a call whose loop becomes a helper of
;; the same procedure (with this call's key or a more general one), the residual enters the
;; loop instead of keeping an unfolded copy of its first iteration.
(define (loop-body code)  ; the body of the residual's letrec*, or #f
  (let ((b (caddr code))) (and (pair? b) (eq? (car b) 'letrec*) (caddr b))))
(define (helper-names code) (map car (cadr (caddr code))))
(define (enters-loop? p)
  (let ((body (loop-body (residual p))))
    (and (pair? body) (memq (car body) (helper-names (residual p))) #t)))
(define (pw n x) (if (= n 0) 1 (* x (pw (- n 1) x))))
(define (pw-loop n x) (pw (dynamic n) x))
(define spw (specialize pw-loop 5))
(test "a loop over a dynamic exponent is entered, not peeled" #t (enters-loop? spw))
(for-each (lambda (x) (test "... and agrees" (pw-loop 5 x) (spw x))) '(0 1 2 -3 1/2 2.5))
(define (w s t) (cond ((null? s) t) ((eqv? (car s) (car t)) (w (cdr s) t)) (else (w (cdr s) (cdr t)))))
(define (w0 t s) (w s t))
(define sw (specialize w0 '(a b c)))
(test "a matcher enters its first state" #t (enters-loop? sw))
(for-each (lambda (s) (test "... and agrees" (guard (e (#t 'raised)) (w0 '(a b c) s)) (guard (e (#t 'raised)) (sw s))))
          '(() (a) (b) (a b c) (c c c) (a a b b c c) (z z z z)))
(define (rev l r) (if (null? l) r (rev (cdr l) (cons (car l) r))))
(define srev (specialize* rev '((1 . ()))))
(test "an accumulator loop is entered with the initial value" #t (enters-loop? srev))
(test "... and agrees" (rev '(1 2 3) '()) (srev '(1 2 3)))
;; A named let is entered too (its closure refers to itself: that is not read knowledge).
(define (sum-to text k) (let loop ((s 0) (c 0)) (if (>= s k) c (loop (+ s 1) (+ c s (string-length text))))))
(define ssum (specialize sum-to))
(test "a named let over static counters is entered" #t (enters-loop? ssum))
(for-each (lambda (k) (test "... and agrees" (sum-to "ab" k) (ssum "ab" k))) '(0 1 2 10))
(define (count-a text)
  (let ((last (string-length text)))
    (let loop ((s 0) (c 0)) (if (>= s last) c (loop (+ s 1) (if (char=? (string-ref text s) #\a) (+ c 1) c))))))
(define scount (specialize count-a))
(test "a named let reading a string is entered" #t (enters-loop? scount))
(for-each (lambda (t) (test "... and agrees" (count-a t) (scount t))) '("" "a" "b" "abca" "aaa"))
;; Effects of the first iteration happen once, in the loop.
(define (shout l out) (if (null? l) out (begin (write-char (car l) out) (shout (cdr l) out))))
(define sshout (specialize shout))
(test "effects of the first iteration happen once" "abc"
      (let ((o (open-output-string))) (sshout '(#\a #\b #\c) o) (get-output-string o)))

;; An interpreter's loop: the interpreted `if`'s arm is specialized at the *call expression* of
;; the recursion (a helper per arm) and that helper unfolds the callee's body — the same body the
;; first, unfolded, call is unfolding in an outer world. That repeat is made a helper of its own,
;; which the first call then enters: no test of the interpreted loop is left outside it.
(define (lookup x names vals) (if (eq? x (car names)) (car vals) (lookup x (cdr names) (cdr vals))))
(define (find-fun f prog) (if (eq? f (car (car prog))) (car prog) (find-fun f (cdr prog))))
(define (ev-args args names vals prog)
  (if (null? args) '() (cons (ev (car args) names vals prog) (ev-args (cdr args) names vals prog))))
(define (ev e names vals prog)
  (cond ((number? e) e)
        ((symbol? e) (lookup e names vals))
        (else
         (let ((op (car e)))
           (cond ((eq? op 'add) (+ (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'sub) (- (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)))
                 ((eq? op 'lt) (if (< (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'eq) (if (= (ev (cadr e) names vals prog) (ev (caddr e) names vals prog)) 1 0))
                 ((eq? op 'if) (if (= (ev (cadr e) names vals prog) 0)
                                   (ev (cadddr e) names vals prog)
                                   (ev (caddr e) names vals prog)))
                 ((eq? op 'call) (let ((fun (find-fun (cadr e) prog)))
                                   (ev (caddr fun) (cadr fun) (ev-args (cddr e) names vals prog) prog)))
                 (else 0))))))
(define (run-program prog input) (let ((entry (car prog))) (ev (caddr entry) (cadr entry) (list input) prog)))
(define (no-if-outside-helpers? p)  ; the residual's body (inside the letrec*) tests nothing
  (let ((body (loop-body (residual p)))) (and body (not (memq 'if (walk body))))))
(define mod-prog '((main (n) (call mod n 12)) (mod (a b) (if (lt a b) a (call mod (sub a b) b)))))
(define smod (specialize run-program mod-prog))
(test "an interpreted loop is entered, not peeled" #t (enters-loop? smod))
(test "... one helper: the loop" 1 (length (helper-names (residual smod))))
(for-each (lambda (n) (test "... and agrees" (run-program mod-prog n) (smod n))) '(0 5 11 12 13 30 100 1000))
(define fib-prog '((main (n) (add (call fib (call mod n 12)) (call sumto n 0)))
                   (fib (n) (if (lt n 2) n (add (call fib (sub n 1)) (call fib (sub n 2)))))
                   (sumto (n acc) (if (eq n 0) acc (call sumto (sub n 1) (add acc n))))
                   (mod (a b) (if (lt a b) a (call mod (sub a b) b)))))
(define sfib (specialize run-program fib-prog))
(test "three interpreted loops, none peeled" #t (no-if-outside-helpers? sfib))
(test "... three helpers" 3 (length (helper-names (residual sfib))))
(for-each (lambda (n) (test "... and agrees" (run-program fib-prog n) (sfib n))) '(0 1 2 11 12 25 49))
(test "... and raises as the original on a bad input" 'raised (guard (e (#t 'raised)) (sfib 'x)))

(test-end)
