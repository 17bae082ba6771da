;;; pairs-test.scm — pairs as two-word cells (core/value.hpp: a tag, no header): literal pairs
;;; stay immutable, read pairs keep their source locations, and pairs reachable only from the
;;; heap, a closure or the stack survive collections.
(include "harness.scm")

(define (message-of thunk)
  (guard (e ((error-object? e) (error-object-message e))) (thunk) 'no-error))

;; Literals: quoted lists, lists inside quoted vectors, circular literals, lists a macro builds
;; while expanding (plain pairs: the literal is an immutable copy of them).
(test-error-message "set-car! on a quoted list" "literal constant" (set-car! '(1 2) 0))
(test-error-message "set-cdr! on a quoted list's tail" "literal constant" (set-cdr! (cdr '(1 2 3)) 0))
(test-error-message "list-set! on a quoted list" "literal constant" (list-set! '(1 2) 1 0))
(test-error-message "set-car! on a list in a quoted vector" "literal constant"
                    (set-car! (vector-ref '#(1 (2)) 1) 0))
(test-error-message "set-cdr! on a circular literal" "literal constant"
                    (let ((c '#0=(a b . #0#))) (set-cdr! (cdr c) 0)))
(define-syntax built-literal
  (lambda (x)
    (syntax-case x ()
      ((k) (datum->syntax #'k (list 'quote (let ((p (list 1 2))) (list p (cons 3 p)))))))))
(test "a literal a macro builds keeps its contents" '((1 2) (3 1 2)) (built-literal))
(test-error-message "set-car! on a literal a macro builds" "literal constant" (set-car! (built-literal) 0))
(test-error-message "set-cdr! inside a literal a macro builds" "literal constant"
                    (set-cdr! (cadr (built-literal)) 0))
(test "a circular literal stays circular" #t (let ((c '#0=(a b . #0#))) (eq? c (cddr c))))

;; Pairs made at run time, by read, by quasiquote and by list->string's friends are mutable.
(test "set-car! on a fresh list" '(0 2) (let ((l (list 1 2))) (set-car! l 0) l))
(test "set-cdr! on a consed pair" '(1 . 5) (let ((p (cons 1 2))) (set-cdr! p 5) p))
(test "set-car! on read data" '(z (b c))
      (let ((d (read (open-input-string "(a (b c))")))) (set-car! d 'z) d))
(test "set-car! on a copy of a literal" '(9 2) (let ((l (list-copy '(1 2)))) (set-car! l 9) l))
(test "set-cdr! on a quasiquoted list" '(1 . 0) (let ((x 1)) (let ((l `(,x 2))) (set-cdr! l 0) l)))

;; Source locations of read pairs reach error objects.
(define (location-of thunk)
  (guard (e ((error-object? e) (condition-location e))) (thunk) #f))
(define (bad-car x) (car x))
(test-assert "a failing call's location names this file"
             (let ((loc (location-of (lambda () (bad-car 5)))))
               (and (string? loc) (string-contains loc "pairs-test.scm"))))

;; Collections: pairs reachable only from the heap (a vector, a closure, a hash table), from a
;; variable, from the stack of a deep recursion.
(define (iota-list n) (let loop ((i n) (acc '())) (if (= i 0) acc (loop (- i 1) (cons i acc)))))
(define (sum l) (let loop ((l l) (s 0)) (if (pair? l) (loop (cdr l) (+ s (car l))) s)))
(define (churn n) (let loop ((i 0)) (when (< i n) (iota-list 100) (loop (+ i 1)))))
(define holder (vector (iota-list 1000)))
(define keep (let ((l (iota-list 1000))) (lambda () l)))
(define table (make-hash-table equal?))
(hash-table-set! table '(k) (iota-list 1000))
(define (deep n) (if (= n 0) (begin (churn 2000) (gc) '()) (let ((p (cons n n))) (let ((r (deep (- n 1)))) (cons p r)))))
(define stacked (deep 500))
(churn 5000)
(gc)
(gc)
(test "a list held by a vector survives collections" 500500 (sum (vector-ref holder 0)))
(test "a list held by a closure survives collections" 500500 (sum (keep)))
(test "a list held by a hash table survives collections" 500500 (sum (hash-table-ref/default table '(k) '())))
(test "pairs held by the stack survive collections" 125250 (sum (map car stacked)))
(test "an equal? key pair still finds its entry" #t (hash-table-contains? table (list 'k)))

;; eq?, eqv?, equal? and hashing of pairs.
(test "eq? on the same pair" #t (let ((p (cons 1 2))) (eq? p p)))
(test "eqv? on distinct pairs" #f (eqv? (cons 1 2) (cons 1 2)))
(test "equal? on equal lists" #t (equal? (list 1 (list 2 3) (vector 4 '(5))) '(1 (2 3) #(4 (5)))))
(test "equal-hash of equal lists" #t (= (equal-hash (list 1 2 (list 3))) (equal-hash '(1 2 (3)))))
(test "write of shared structure" "(#0=(1) #0#)"
      (let ((p (list 1))) (let ((o (open-output-string))) (write-shared (list p p) o) (get-output-string o))))
(test "pair? of everything else" '(#f #f #f #f #f #f #t)
      (map pair? (list 1 #\a '() #f "s" (vector 1) '(1))))

(test-end)
