;;; fold-test.scm — programs mean the same with the optimizer's passes (lib/passes/) as without:
;;; values, effects in order, errors at run time where the program raises them. ctest runs every
;;; *-test.scm twice, once with QUASI_PASSES=off, so each line here is a differential test.
(include "harness.scm")

;; ---- folding --------------------------------------------------------------------------------
(test "arithmetic" 42 (* 6 (- 10 3)))
(test "string-length of a literal" 3 (string-length "abc"))
(test "length of a quoted list" 3 (length '(1 2 3)))
(test "big result, computed at run time" #t (= (expt 2 5000) (* (expt 2 2500) (expt 2 2500))))
(test "bignum at the bound" 4096 (let loop ((n (expt 2 4095)) (bits 0))
                                   (if (= n 0) bits (loop (quotient n 2) (+ bits 1)))))
(test "long string" 5000 (string-length (symbol->string (string->symbol (make-string 5000 #\a)))))
(test "eq? on fresh lists" #f (eq? (list 1) (list 1)))
(test "eqv? on the same literal" #t (let ((x '(1))) (eqv? x x)))

;; A fresh mutable result must stay fresh on every call.
(define (fresh-number-string) (number->string 42))
(test "fresh strings" "92" (let ((s (fresh-number-string))) (string-set! s 0 #\9) s))
(test "still fresh" "42" (fresh-number-string))
(test-error "literals stay immutable" (string-set! (symbol->string 'abc) 0 #\x))

;; ---- errors happen at run time, only when reached ----------------------------------------
(define (maybe-car flag) (if flag (car 5) 'ok))
(test "unreached error" 'ok (maybe-car #f))
(test-error-message "reached error" "car" (maybe-car #t))
(test "guarded division" 'caught (guard (e (#t 'caught)) (/ 1 0)))
(test-error-message "error inside an inlined procedure" "car"
                    (let ((f (lambda (p) (car p)))) (f 5)))
(test-error "arity error kept" (let ((f (lambda (x) x))) (f 1 2)))
(test-error "unbound global kept" (begin undefined-variable-of-fold-test 1))

;; ---- effects keep their order and their count ---------------------------------------------
(define (trace-of thunk)
  (let ((p (open-output-string)))
    (thunk p)
    (get-output-string p)))
(test "unused let bindings keep their effects in order" "ab"
      (trace-of (lambda (p) (let ((x (write-char #\a p)) (y (write-char #\b p))) 1))))
(test "operands keep their order when inlined" "12"
      (trace-of (lambda (p)
                  (let ((f (lambda (a b) (list a b))))
                    (f (write-char #\1 p) (write-char #\2 p))))))
(test "shape fold keeps the fill's effect once" 1
      (let ((n 0)) (vector-length (make-vector 10 (begin (set! n (+ n 1)) n))) n))
(test "shape fold value" 10 (let ((x 'fill)) (vector-length (make-vector 10 x))))
(test "list length keeps effects" '(3 1)
      (let ((n 0)) (list (length (list 'a (begin (set! n (+ n 1)) n) 'c)) n)))
(test "dead branch effects never run" 0
      (let ((n 0)) (if #f (set! n 1)) n))
(test "test effects run before the branch" "tb"
      (trace-of (lambda (p) (if (begin (write-char #\t p) #t) (write-char #\b p) (write-char #\x p)))))
(test "(if (not x) a b)" '(b a) (map (lambda (x) (if (not x) 'a 'b)) '(1 #f)))

;; ---- variables --------------------------------------------------------------------------------
(test "assigned variables are not propagated" 2 (let ((x 1)) (set! x 2) x))
(test "captured and assigned" '(1 2)
      (let ((x 1))
        (let ((get (lambda () x)))
          (let ((a (get)))
            (set! x 2)
            (list a (get))))))
(test "local shadowing a builtin" '(2) (let ((car cdr)) (car '(1 2))))
(define (square x) 'mine)
(test "a user definition of a builtin's name" 'mine (square 3))
(test "internal definitions" 81 (let () (define (sq y) (* y y)) (define k 3) (sq (sq k))))
(test "letrec constant" 20 (letrec* ((k 10) (f (lambda () (* k 2)))) (f)))
(test "named let" 15 (let loop ((i 0) (acc 0)) (if (> i 5) acc (loop (+ i 1) (+ acc i)))))
(test "mutable vector" 9 (let ((v (make-vector 3 0))) (vector-set! v 0 9) (vector-ref v 0)))

;; ---- control ----------------------------------------------------------------------------------
(test "call/cc through an inlined procedure" 41
      (call-with-current-continuation
       (lambda (k) (let ((f (lambda (x) (k x)))) (+ 1 (f 41))))))
(test "re-entered continuation sees one location" '(1 2 3)
      (let ((k #f) (out '()))
        (let ((n (call-with-current-continuation (lambda (c) (set! k c) 1))))
          (set! out (cons n out))
          (if (< n 3) (k (+ n 1)) (reverse out)))))
(test "dynamic-wind order" "bda"
      (trace-of (lambda (p)
                  (dynamic-wind (lambda () (write-char #\b p))
                                (lambda () (write-char #\d p))
                                (lambda () (write-char #\a p))))))

(test-end)
