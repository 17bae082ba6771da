;;; pe-scale-test.scm — bounded static data stays static however large (lib/pe/whistle.hpp): an
;;; interpreter specialized to a chain of 64 (or 256) functions leaves no interpreter in the residual (the
;;; old fixed whistle depth of 16 pending helpers left all of it from 17 functions on), and the
;;; KMP example's matcher specialized to a 40-character pattern still reads each text character
;;; at most twice. Data that grows is still generalized. Every residual is compared with the
;;; original.

(include "harness.scm")
(include "../../scheme/examples/interp.scm")
(include "../../scheme/examples/kmp.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (mentions? code names) (let ((all (flat code))) (let loop ((n names)) (and (pair? n) (or (memq (car n) all) (loop (cdr n)))))))

;; ((f1 (n) (if (lt n 1) 0 (add 1 (call f2 (sub n 1))))) ... (fk (n) n)), built by the program:
;; freeze makes it data the specializer may read.
(define (fname k) (string->symbol (string-append "f" (number->string k))))
(define (chain k)
  (let loop ((i k) (acc (list (list (fname k) '(n) 'n))))
    (if (= i 1)
        acc
        (loop (- i 1)
              (cons (list (fname (- i 1)) '(n)
                          (list 'if (list 'lt 'n 1) 0 (list 'add 1 (list 'call (fname i) (list 'sub 'n 1)))))
                    acc)))))
(define (chain-check k)
  (let* ((p (freeze (chain k))) (c (specialize run-program p)) (r (residual c)))
    (test (string-append "chain " (number->string k) ": no interpreter left") #f
          (mentions? r '(quote lookup find-fun ev-args number? symbol?)))
    (for-each (lambda (n) (test (string-append "chain " (number->string k) " on " (number->string n))
                                (run-program p n) (c n)))
              (list 0 1 3 (- k 1) k (+ k 5) 200))))
(for-each chain-check '(4 16 17 32 64 256))

;; The KMP example's matcher on long patterns (its states are (position, known text) pairs: about
;; m*m/4 helpers; 64 characters take about 0.6 s on a quiet machine): a residual that reads each text character at most
;; twice (KMP), and no generic matcher left (no string-ref of the pattern).
(define (pattern-of k) (let loop ((i 0) (acc '())) (if (= i k) (list->string acc) (loop (+ i 1) (cons (if (= (remainder (* i 7) 5) 0) #\b #\a) acc)))))
(define (text-of n) (let loop ((i 0) (acc '())) (if (= i n) (list->string acc) (loop (+ i 1) (cons (if (= (remainder (* i i) 11) 3) #\b #\a) acc)))))
(define (kmp-check k)
  (let* ((pat (freeze (pattern-of k))) (m (specialize count-occurrences pat)) (r (residual m)))
    (test (string-append "kmp " (number->string k) ": the pattern is compiled away") #f
          (mentions? r '(prefix-chars append)))
    (for-each (lambda (t) (test (string-append "kmp " (number->string k) " agrees")
                                (count-occurrences pat t) (m t)))
              (list "" pat (string-append pat pat) (text-of 300) (string-append (text-of 50) pat (text-of 20))))))
(for-each kmp-check '(8 16 24 40 64))

;; Growing static data is still generalized: a list that grows under a dynamic test.
(define (grow l x) (if (> x 0) (grow (cons 1 l) (- x 1)) (length l)))
(test "growing list" 50 ((specialize grow '()) 50))
(define (count-to n x) (if (= n 100000) 'far (if (> x 0) (count-to (+ n 1) (- x 1)) n)))
(test "inspected counter" 70 ((specialize count-to 0) 70))

(test-end)
