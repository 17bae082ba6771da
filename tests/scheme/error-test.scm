;;; error-test.scm — error, raise, raise-continuable, with-exception-handler, guard, error
;;; objects, the errors primitives raise, and deep recursion.
(include "harness.scm")

;; ---- error objects ---------------------------------------------------------------------------
(test "error-object-message" "boom"
      (guard (e (#t (error-object-message e))) (error "boom" 1 2)))
(test "error-object-irritants" '(1 2)
      (guard (e (#t (error-object-irritants e))) (error "boom" 1 2)))
(test "no irritants" '()
      (guard (e (#t (error-object-irritants e))) (error "just a message")))
(test "error-object? on error" #t (guard (e (#t (error-object? e))) (error "x")))
(test "error-object? on other objects" '(#f #f #f)
      (list (error-object? 'sym) (error-object? "str") (error-object? 42)))
(test "irritants keep identity" #t
      (let ((obj (list 1 2)))
        (guard (e (#t (eq? obj (car (error-object-irritants e))))) (error "m" obj))))
(test-error-message "harness text of error" "bad thing: 42 foo" (error "bad thing:" 42 'foo))

;; ---- raise and guard ---------------------------------------------------------------------------
(test "raise symbol" '(sym oops) (guard (e ((symbol? e) (list 'sym e))) (raise 'oops)))
(test "raise number" 42 (guard (e ((number? e) (* e 2))) (raise 21)))
(test "raise list" '(a 1) (guard (e ((pair? e) e)) (raise (list 'a 1))))
(test "guard =>" 42 (guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'a 42)))))
(test "guard test-only clause" '(b . 23)
      (guard (e ((assq 'a e) => cdr) ((assq 'b e))) (raise (list (cons 'b 23)))))
(test "guard else" 'other (guard (e ((string? e) 'string) (else 'other)) (raise 1)))
(test "guard body value" 3 (guard (e (#t 'error)) (+ 1 2)))
(test "guard body multiple values" '(1 2)
      (call-with-values (lambda () (guard (e (#t 'error)) (values 1 2))) list))
(test "guard re-raises to outer guard" '(outer x)
      (guard (e (#t (list 'outer e)))
        (guard (e ((string? e) 'inner)) (raise 'x))))
(test "guard clause body sequence" 'second (guard (e (#t 'first 'second)) (raise 1)))
(test "guard variable scope" 'outer-e
      (let ((e 'outer-e)) (guard (e (#t 'caught)) 'ignored) e))
(test "guard catches error from nested call" "deep"
      (let ()
        (define (f n) (if (= n 0) (error "deep") (+ 1 (f (- n 1)))))
        (guard (e ((error-object? e) (error-object-message e))) (f 100))))
(test "guard unwinds dynamic-wind before clauses" '(in out handler)
      (let ((trace '()))
        (guard (e (#t (set! trace (cons 'handler trace))))
          (dynamic-wind (lambda () (set! trace (cons 'in trace)))
                        (lambda () (raise 'x))
                        (lambda () (set! trace (cons 'out trace)))))
        (reverse trace)))
(test "guard re-raise is continuable in the original context" 11
      (with-exception-handler
       (lambda (c) 10)
       (lambda () (+ 1 (guard (e ((string? e) 0)) (raise-continuable 'not-a-string))))))
(test "error inside guard clause goes outward" 'outer
      (guard (e2 (#t 'outer))
        (guard (e (#t (error "in clause")))
          (raise 'first))))
(test "guard inside loop" 100
      (let loop ((i 0) (caught 0))
        (if (= i 100)
            caught
            (loop (+ i 1) (+ caught (guard (e (#t 1)) (raise i)))))))

;; ---- with-exception-handler ------------------------------------------------------------------
(test "raise-continuable" 65
      (with-exception-handler
       (lambda (c) 42)
       (lambda () (+ (raise-continuable 'c) 23))))
(test "handler receives object" '(got 5)
      (call/cc (lambda (k)
                 (with-exception-handler
                  (lambda (e) (k (list 'got e)))
                  (lambda () (raise 5))))))
(test "handler returning from raise is an error" 'caught
      (guard (e (#t 'caught))
        (with-exception-handler (lambda (e) 'ignored) (lambda () (raise 'boom)))))
(test "handler runs in outer handler context" '(outer (inner x))
      (call/cc
       (lambda (k)
         (with-exception-handler
          (lambda (e) (k (list 'outer e)))
          (lambda ()
            (with-exception-handler
             (lambda (e) (raise (list 'inner e)))
             (lambda () (raise 'x))))))))
(test "nested raise-continuable" 3
      (with-exception-handler
       (lambda (e) (+ e 1))
       (lambda ()
         (with-exception-handler
          (lambda (e) (+ (raise-continuable (+ e 1)) 1))
          (lambda () (raise-continuable 0))))))
(test "handler restored after thunk" 'outer
      (call/cc
       (lambda (k)
         (with-exception-handler
          (lambda (e) (k 'outer))
          (lambda ()
            (with-exception-handler (lambda (e) (k 'inner)) (lambda () 'no-raise))
            (raise 'x))))))
(test "handler restored after escape" 'outer
      (call/cc
       (lambda (k)
         (with-exception-handler
          (lambda (e) (k 'outer))
          (lambda ()
            (call/cc (lambda (esc)
                       (with-exception-handler (lambda (e) (k 'inner)) (lambda () (esc #f)))))
            (raise 'x))))))
(test "with-exception-handler returns thunk value" 7
      (with-exception-handler (lambda (e) 0) (lambda () 7)))
(test "error is catchable by with-exception-handler" "msg"
      (call/cc (lambda (k)
                 (with-exception-handler
                  (lambda (e) (k (error-object-message e)))
                  (lambda () (error "msg" 'a))))))
(test "raise-continuable with guard" 'guarded
      (guard (e ((eq? e 'c) 'guarded)) (raise-continuable 'c)))

;; ---- errors raised by primitives -------------------------------------------------------------
(test-error-message "car of non-pair" "car: expected a pair, got 42" (car 42))
(test-error "car raises an error object" error-object? (car 42))
(test-error "vector-ref out of range" error-object? (vector-ref (vector 1) 5))
(test-error-message "vector-ref names itself" "vector-ref" (vector-ref (vector 1) 5))
(test-error "vector-ref negative" error-object? (vector-ref (vector 1) -1))
(test-error "string-ref out of range" error-object? (string-ref "abc" 3))
(test-error "+ of a string" error-object? (+ 1 "a"))
(test-error-message "+ names itself" "+" (+ 1 "a"))
(test-error "exact division by zero" error-object? (/ 1 0))
(test-error "apply non-list" error-object? (apply + 1))
(test-error "calling a non-procedure" error-object? ((car (list 1)) 2))
(test-error "unbound variable" error-object? quasi-undefined-variable-xyz)
(test-error-message "unbound variable names it" "quasi-undefined-variable-xyz"
                    quasi-undefined-variable-xyz)
(test-error "symbol->string of a string" error-object? (symbol->string "a"))
(test-error "list-tail too far" error-object? (list-tail '(1 2) 3))
(test-error "length of improper list" error-object? (length '(1 2 . 3)))
(test-error "exact of nan" error-object? (exact +nan.0))
(test-error "string->symbol of a number" error-object? (string->symbol 5))
(test-error "make-vector negative" error-object? (make-vector -1))

(define (two-args a b) a)
(test-error "too few arguments" error-object? (two-args 1))
(test-error-message "arity error names the procedure" "two-args" (two-args 1))
(test-error-message "arity error, too many" "two-args" (two-args 1 2 3))
(define (at-least-one a . rest) a)
(test-error-message "variadic arity error" "at-least-one" (at-least-one))
(test-error "lambda arity" error-object? (apply (lambda (x) x) (list)))
(test-error "primitive arity" error-object? (apply car (list)))
(test-error "primitive arity, too many" error-object? (apply cons (list 1 2 3)))

(test-error "read-error?" read-error? (read (open-input-string "(1 2")))
(test "read-error? is specific" #f (guard (e (#t (read-error? e))) (error "x")))
(test-error "file-error?" file-error? (open-input-file "/nonexistent-quasi-dir/no-such-file"))
(test "file-error? is specific" #f (guard (e (#t (file-error? e))) (error "x")))
(test-error "error in map callback propagates" error-object? (map (lambda (x) (car x)) '(1)))

;; ---- deep recursion --------------------------------------------------------------------------
(define (deep n) (if (= n 0) 0 (+ 1 (deep (- n 1)))))
(test "non-tail recursion 100000 deep" 100000 (deep 100000))
(test-assert "non-tail recursion 1000000 deep succeeds or raises"
             (let ((r (guard (e (#t 'raised)) (deep 1000000))))
               (or (eqv? r 1000000) (eq? r 'raised))))
(define (build n) (if (= n 0) '() (cons n (build (- n 1)))))
(test "non-tail list building 100000 deep" 100000 (length (build 100000)))
(test "still works after deep recursion" 10 (deep 10))

(test-end)
