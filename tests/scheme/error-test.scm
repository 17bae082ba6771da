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

;; ---- messages name the procedure and the offending value (same text in every mode) ----------
(test-error-message "/ names its operands" "/: division by zero in (/ 1 0)" (/ 1 0))
(test-error-message "/ of a ratio names it" "/: division by zero in (/ 7/2 0)" (/ 7/2 0))
(test-error-message "quotient names its operands" "quotient: division by zero in (quotient 7 0)" (quotient 7 0))
(test-error-message "modulo of an inexact integer" "modulo: division by zero in (modulo 7.0 0)" (modulo 7.0 0))
(test-error-message "floor/ names its operands" "floor/: division by zero in (floor/ 5 0)" (floor/ 5 0))
(test-error-message "expt 0 to a negative power" "expt: division by zero in (expt 0 -1)" (expt 0 -1))
(test-error-message "atan at +i" "atan: division by zero in (atan +i)" (atan +i))
(test "division by zero is still a divide-by-zero condition" '(0 1)
      (guard (e ((error-object? e) (list (length (error-object-irritants e))
                                         (if (string? (error-object-message e)) 1 0))))
        (/ 1 0)))
(test-error-message "call/cc of a non-procedure names call/cc"
                    "call-with-current-continuation: expected a procedure, got 5" (call/cc 5))
(test-error-message "call-with-current-continuation of a symbol"
                    "call-with-current-continuation: expected a procedure, got a"
                    (call-with-current-continuation 'a))
(test-error-message "apply of a non-procedure names apply" "apply: expected a procedure, got 5" (apply 5 '(1)))
(test-error-message "call-with-values: a producer that is no procedure"
                    "call-with-values: expected a procedure, got 5" (call-with-values 5 list))
(test-error-message "call-with-values: a consumer that is no procedure"
                    "call-with-values: expected a procedure, got 5" (call-with-values (lambda () 1) 5))
(test-error-message "dynamic-wind of non-procedures" "dynamic-wind: expected a procedure, got 1"
                    (dynamic-wind 1 2 3))
(test-error-message "with-exception-handler: the handler" "with-exception-handler: expected a procedure, got 1"
                    (with-exception-handler 1 (lambda () 2)))
(test-error-message "with-exception-handler: the thunk, not through the handler"
                    "with-exception-handler: expected a procedure, got 2"
                    (with-exception-handler (lambda (e) 1) 2))
(test-error-message "an anonymous lambda's arity error names where it is written"
                    "#<procedure at " (map (lambda (a b) a) '(1 2)))
(test-error-message "vector-map with a wrong-arity lambda" "expected 2 arguments, got 1"
                    (vector-map (lambda (a b) a) #(1 2)))
(test-error-message "string-for-each with a wrong-arity lambda" "expected 2 arguments, got 1"
                    (string-for-each (lambda (a b) a) "ab"))
(test-error-message "'at least 1 argument', singular" "expected at least 1 argument, got 0"
                    (apply at-least-one '()))
(test-error-message "hash-table-ref of a non-table names hash-table-ref"
                    "hash-table-ref: expected a hash table, got 5" (hash-table-ref 5 1))
(test-error-message "hash-table-count of a non-table" "hash-table-count: expected a hash table, got 5"
                    (hash-table-count 5))
(test-error-message "hash-table-walk of a non-table" "hash-table-walk: expected a hash table, got 5"
                    (hash-table-walk 5 car))
(test-error-message "hash-table-walk of an empty table with a non-procedure"
                    "hash-table-walk: expected a procedure, got 5" (hash-table-walk (make-hash-table) 5))
(test-error-message "hash-table-update! with a non-procedure updater"
                    "hash-table-update!: expected a procedure, got 5"
                    (let ((t (make-hash-table))) (hash-table-set! t 'x 1) (hash-table-update! t 'x 5)))
(test-error-message "alist->hash-table of a non-list" "alist->hash-table: expected a list, got 5"
                    (alist->hash-table 5))
(test-error-message "alist->hash-table of a list of non-pairs"
                    "alist->hash-table: expected a list of pairs, got (1 2)" (alist->hash-table '(1 2)))
(test-error-message "hash-table with a non-comparator" "hash-table: expected a comparator, got 5"
                    (hash-table 5 1 2))

(test-error-message "max of a non-real, even alone" "max: expected a real number, got +3i" (max +3i))
(test-error-message "min of a non-real" "min: expected a real number, got a" (min 1 'a))

(test-error-message "string->number names itself for a literal it will not build"
                    "string->number: exact number too large" (string->number "#e1e1000001"))
(test-error-message "a radix that is out of range says which radixes"
                    "number->string: expected a radix (2, 8, 10 or 16), got 3" (number->string 10 3))
(test-error-message "string->number radix" "string->number: expected a radix (2, 8, 10 or 16), got 0"
                    (string->number "10" 0))

;; ---- circular lists: an error, not a result that grows until memory runs out ----------------
(define (circular . xs) (let ((l (list-copy xs))) (set-cdr! (last-pair l) l) l))
(test-error-message "map over a circular list" "map: expected a list"
                    (map (lambda (x) x) (circular 1 2 3)))
(test-error-message "map over two circular lists" "map: expected a list"
                    (map + (circular 1 2) (circular 3 4)))
(test "map: one circular list and one finite" '(11 22 13)
      (map + (circular 10 20) '(1 2 3)))
(test "map: one finite list, long, and one circular" 2000
      (length (map + (circular 1 2) (make-list 2000 0))))
(test-error-message "filter of a circular list" "filter: expected a list" (filter odd? (circular 1 3)))
(test-error-message "remove of a circular list" "remove: expected a list" (remove odd? (circular 1 3)))
(test-error-message "partition of a circular list" "partition: expected a list"
                    (partition odd? (circular 1 2)))
(test-error-message "delete from a circular list" "delete: expected a list" (delete 5 (circular 1 2)))
(test-error-message "filter-map of a circular list" "filter-map: expected a list"
                    (filter-map (lambda (x) x) (circular 1 2)))
(test-error-message "fold over a circular list" "fold: expected a list" (fold cons '() (circular 1 2)))
(test-error-message "fold-left over a circular list" "fold-left: expected a list"
                    (fold-left cons '() (circular 1 2)))

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
