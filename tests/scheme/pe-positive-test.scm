;;; pe-positive-test.scm — positive information (lib/pe/facts.cpp): after a residual test of a
;;; dynamic value against a constant (eq?, eqv?, equal?, char=?, case, memv), each arm knows
;;; what the value is or is not; after residual code read (car x), a later (car x) is that value
;;; while nothing could have changed the pair. That is what makes the naive list matcher below
;;; — not rewritten in any way — a KMP automaton once the pattern is static: a restart after a
;;; mismatch finds the text it already read, so the residual reads each text position at most
;;; twice. Every residual agrees with the original, mutation between reads included.

(include "harness.scm")

(define (walk x) (if (pair? x) (append (walk (car x)) (walk (cdr x))) (list x)))
(define (mentions? code names)
  (let ((all (walk code))) (let loop ((n names)) (and (pair? n) (or (memq (car n) all) (loop (cdr n)))))))
(define (quoted-list? x)
  (and (pair? x) (if (eq? (car x) 'quote) (pair? (cadr x)) (or (quoted-list? (car x)) (quoted-list? (cdr x))))))
(define (agree name f sf inputs)
  (for-each (lambda (x) (test name (guard (e (#t 'raised)) (f x)) (guard (e (#t 'raised)) (sf x)))) inputs))
(define inputs (list 'a 'b 'c 1 2.5 "a" #\a #\x #\y '() #f #t (list 'a)))

;; The then arm knows x is a; the else arm knows it is not.
(define (f x) (if (eqv? x 'a) (list x (eq? x 'a) (symbol? x)) (if (eqv? x 'a) 'impossible 'other)))
(define sf (specialize f))
(test "eqv?: no test repeated, no type test left" #f (mentions? (residual sf) '(impossible symbol? eq?)))
(agree "eqv? agrees" f sf inputs)

(define (g x) (case x ((a) 1) ((b c) 2) (else (case x ((a b) 'no) (else (if (eq? x 'c) 'no 3))))))
(define sg (specialize g))
(test "case: the else arm knows x is none of a, b, c" #f (mentions? (residual sg) '(no)))
(agree "case agrees" g sg inputs)

(define (h c) (if (char=? c #\x) (char->integer c) (if (equal? c #\x) 'no (if (equal? c 'y) (list c) 0))))
(define sh (specialize h))
(test "char=?: x is #\\x in the then arm" #t (and (memv 120 (walk (residual sh))) #t))
(test "char=?: and not #\\x in the else arm" #f (mentions? (residual sh) '(no)))
(agree "char=?/equal? agree" h sh inputs)

(define (k x) (if x (if x 1 'no) (not x)))
(define sk (specialize k))
(test "if: the else arm knows x is #f" '(lambda (x) (if x 1 #t)) (residual sk))
(agree "if agrees" k sk inputs)

;; Constants that are not identities are not substituted (a string equal? to "ab" is not
;; that string; a flonum eqv? to 2.5 need not be eq? to it).
(define (st x y) (if (equal? x "ab") (list (eq? x y) (string? x)) (if (eqv? x 2.5) (eq? x y) 'no)))
(define sst (specialize st))
(for-each (lambda (x) (test "non-identity constants agree" (st x x) (sst x x)) (test "... with a copy" (st x (if (string? x) (string-copy x) (+ x 0.0))) (sst x (if (string? x) (string-copy x) (+ x 0.0)))))
          (list "ab" 2.5 "cd" 1.5))

;; Reads are reused only while nothing could change the pair.
(define (mut l) (let ((a (car l))) (set-car! l 'z) (list a (car l) (eq? (car l) a))))
(test "set-car! between two reads" (mut (list 'q 2)) ((specialize mut) (list 'q 2)))
(define (unk l k) (let ((a (car l))) (k l) (list a (car l))))
(test "an unknown call between two reads" (unk (list 'q) (lambda (p) (set-car! p 'w)))
      ((specialize unk) (list 'q) (lambda (p) (set-car! p 'w))))
(define (br l c) (let ((a (car l))) (if c (set-car! l 'v) #f) (list a (car l))))
(test "a mutation in one arm of an if" (br (list 'q) #t) ((specialize br) (list 'q) #t))
(test "... the other arm" (br (list 'q) #f) ((specialize br) (list 'q) #f))
(define (lam l) (let* ((a (car l)) (f (lambda () (car l)))) (set-car! l 'u) (list a (f))))
(test "a read inside a lambda that runs later" (lam (list 'q)) ((specialize lam) (list 'q)))
(define (cdrs l) (if (pair? l) (if (pair? (cdr l)) (list (cadr l) (car (cdr l)) (null? l)) 'short) 'none))
(agree "cadr and car of cdr agree" cdrs (specialize cdrs) (list '() '(1) '(1 2) '(1 2 3) 5))

;; The naive matcher: after a mismatch it restarts one position further with the whole pattern.
(define (m pp ss op os)
  (cond ((null? pp) #t)
        ((null? ss) #f)
        ((eqv? (car pp) (car ss)) (m (cdr pp) (cdr ss) op os))
        (else (n op os))))
(define (n op os) (if (null? os) #f (m op (cdr os) op (cdr os))))
(define (match p s) (m p s p s))

;; Text reads (car of a text pair) counted by running the residual code with car replaced.
(define reads '())
(define (counted-car p)
  (let ((e (assq p reads)))
    (if e (set-cdr! e (+ (cdr e) 1)) (set! reads (cons (cons p 1) reads)))
    (car p)))
(define (count-cars x)
  (cond ((not (pair? x)) x)
        ((eq? (car x) 'quote) x)
        ((eq? (car x) 'car) (cons 'counted-car (count-cars (cdr x))))
        (else (cons (count-cars (car x)) (count-cars (cdr x))))))
(define (counting p) (eval (count-cars (residual p)) (interaction-environment)))
(define (reads-of f text)
  (set! reads '())
  (f text)
  (let loop ((r reads) (total 0) (most 0))
    (if (null? r) (list total most) (loop (cdr r) (+ total (cdar r)) (max most (cdar r))))))

(define (pat k) (let loop ((i 0) (acc '())) (if (= i k) acc (loop (+ i 1) (cons (if (= (remainder (* i 7) 5) 0) 'b 'a) acc)))))
(define (text k) (let loop ((i 0) (acc '())) (if (= i k) acc (loop (+ i 1) (cons (if (= (remainder (* i i) 11) 3) 'b 'a) acc)))))
(define (repeat x k) (if (= k 0) '() (cons x (repeat x (- k 1)))))

;; The naive matcher itself re-reads: pattern a...ab on a text of a's.
(define (naive-reads p t)
  (set! reads '())
  (let m ((pp p) (ss t) (os t))
    (cond ((null? pp) #t)
          ((null? ss) #f)
          ((eqv? (car pp) (counted-car ss)) (m (cdr pp) (cdr ss) os))
          ((null? os) #f)
          (else (m p (cdr os) (cdr os)))))
  (let loop ((r reads) (total 0)) (if (null? r) total (loop (cdr r) (+ total (cdar r))))))
(test-assert "the naive matcher reads a text position many times" (> (naive-reads (append (repeat 'a 7) '(b)) (repeat 'a 100)) 600))


;; Tests of a value against a constant that an enclosing test in the same procedure already
;; made: (if (eqv? 'b t) X (if (eqv? 'b t) ...)). The else arm knows t is not b, and so must a
;; helper called from there (helper keys carry what a value is not), whose code inline-small
;; may put in place.
(define (constant-test? t)
  (and (pair? t) (memq (car t) '(eq? eqv? equal? char=?)) (= (length t) 3)
       (let ((a (cadr t)) (b (caddr t)))
         (or (and (pair? a) (eq? (car a) 'quote) (symbol? b)) (and (pair? b) (eq? (car b) 'quote) (symbol? a))))))
(define (repeated-tests code)
  (let walk ((x code) (tests '()))
    (cond ((not (pair? x)) '())
          ((eq? (car x) 'quote) '())
          ((memq (car x) '(lambda case-lambda)) (walk (cdr x) '()))
          ((and (eq? (car x) 'if) (= (length x) 4) (constant-test? (cadr x)))
           (let ((t (cadr x)))
             (append (if (member t tests) (list t) '())
                     (walk (caddr x) (cons t tests)) (walk (cadddr x) (cons t tests)))))
          (else (let loop ((l x) (out '()))
                  (if (pair? l) (loop (cdr l) (append out (walk (car l) tests))) out))))))
(test "the checker finds a repeated test" '((eqv? 'b t))
      (repeated-tests '(lambda (s) (if (eqv? 'b t) 1 (let ((u 2)) (if (eqv? 'b t) u 3))))))
(define (rec x d) (if (> d 0) (rec x (- d 1)) (if (eqv? x 'a) 'yes 'no)))
(define (two x d) (list (if (eqv? x 'a) 0 (rec x d)) (rec x d)))
(define s-two (specialize two))
(test "a helper knowing x is not a is not used where x may be a" '(0 yes) (s-two 'a 3))
(test "... it agrees" (two 'b 3) (s-two 'b 3))
(test "... the helper called where x is not a decides the test: two tests in all" 2
      (let loop ((l (walk (residual s-two))) (n 0)) (if (null? l) n (loop (cdr l) (if (eq? (car l) 'eqv?) (+ n 1) n)))))
(test "the matcher on aabaaaab: no test repeated" '()
      (repeated-tests (residual (specialize match (freeze '(a a b a a a a b))))))

(define (kmp-check p)
  (let* ((sm (specialize match (freeze p))) (cm (counting sm)) (k (length p)))
    (test (string-append "matcher " (number->string k) ": no pattern list left") #f (quoted-list? (residual sm)))
    (test (string-append "matcher " (number->string k) ": no test repeated") '() (repeated-tests (residual sm)))
    (for-each
     (lambda (t)
       (let ((r (reads-of cm t)) (n (length t)))
         (test (string-append "matcher " (number->string k) " agrees") (match p t) (sm t))
         (test (string-append "matcher " (number->string k) " agrees when counted") (match p t) (cm t))
         (test-assert (string-append "matcher " (number->string k) ": at most 2n reads, 2 per position")
                      (and (<= (car r) (* 2 n)) (<= (cadr r) 2)))))
     (list '() p (append p p) (text 300) (append (text 50) p (text 20)) (repeat 'a 200)
           (append (repeat 'a 100) p) (append (reverse p) p)))))
;; a...ab: every restart after a mismatch runs on through the text it knows to the restart one
;; position earlier (lib/pe/README.md: the else arm first, and a call with the key of a helper
;; enters it); it gave up at 52 characters when each restart unfolded all of them again. The
;; restarts after a character that is neither a nor b still unfold about m^2/2 deep: past 91
;; characters (4096 nested unfoldings) the request gave up; now the limit is 16384 and an
;; undone unfolding no longer counts, so a^99b is KMP too. The cascade is tail calls, unfolded
;; by one loop (lib/pe/unfold.cpp) that no depth budget limits, and a key holds up to 512 items
;; (two per known character): a^149b is KMP (lib/pe/README.md says where budgets bite).
(for-each kmp-check (list '(a a b) '(a b a b a c) '(a a b a a a a b) (pat 8) (pat 16) (pat 32) (pat 64)
                          (append (repeat 'a 63) '(b)) (append (repeat 'a 99) '(b)) (append (repeat 'a 149) '(b))))
(test "a text that is not a list raises as the original does"
      (guard (e (#t 'raised)) (match '(a) 5)) (guard (e (#t 'raised)) ((specialize match '(a)) 5)))

(test-end)
