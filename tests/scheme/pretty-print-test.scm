;;; pretty-print-test.scm — pretty-print and its parameters (print-length, print-level,
;;; pretty-print-width), fresh-line, procedure-information and documentation.
(include "harness.scm")

(define (pp x) (let ((p (open-output-string))) (pretty-print x p) (get-output-string p)))
(define (lines s)
  (let loop ((cs (string->list s)) (line '()) (acc '()))
    (cond ((null? cs) (reverse (if (null? line) acc (cons (list->string (reverse line)) acc))))
          ((char=? (car cs) #\newline) (loop (cdr cs) '() (cons (list->string (reverse line)) acc)))
          (else (loop (cdr cs) (cons (car cs) line) acc)))))
(define (widest s) (apply max (map string-length (lines s))))

;; ---- layout ----------------------------------------------------------------------------------
(test "short data stay on one line" "(1 2 (3 4) #(5 \"six\"))\n" (pp '(1 2 (3 4) #(5 "six"))))
(test "atoms" "foo\n" (pp 'foo))
(test "quote forms print as prefixes" "'(a `(b ,c ,@d))\n" (pp ''(a `(b ,c ,@d))))
(test "a long list of atoms fills lines" 4 (length (lines (pp (iota 100)))))
(test-assert "no line wider than the width" (<= (widest (pp (iota 300))) 79))
(test "reads back as the same datum" (iota 300) (read (open-input-string (pp (iota 300)))))
(define code
  '(define (f x) (let loop ((i 0) (acc '())) (if (> i x) (reverse acc) (loop (+ i 1) (cons (* i i) acc))))))
(test "a definition indents its body by two"
      "(define (f x)\n  (let loop ((i 0) (acc '()))\n    (if (> i x) (reverse acc) (loop (+ i 1) (cons (* i i) acc)))))\n"
      (pp code))
(test "code reads back" code (read (open-input-string (pp code))))
(test "calls align their arguments under the first"
      "(some-procedure (list 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22)\n                (vector 'a 'b 'c))\n"
      (pp '(some-procedure (list 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22) (vector 'a 'b 'c))))
(test "improper lists" "(1 2 . 3)\n" (pp '(1 2 . 3)))
(test "strings with newlines stay escaped" "\"a\\nb\"\n" (pp "a\nb"))

;; ---- parameters ------------------------------------------------------------------------------
(test "print-length cuts lists" "(0 1 2 ...)\n" (parameterize ((print-length 3)) (pp (iota 10))))
(test "print-length cuts vectors" "#(0 1 ...)\n" (parameterize ((print-length 2)) (pp (list->vector (iota 10)))))
(test "print-length 0" "(...)\n" (parameterize ((print-length 0)) (pp '(1 2))))
(test "print-level cuts nesting" "(1 (2 ...))\n" (parameterize ((print-level 2)) (pp '(1 (2 (3 (4)))))))
(test "print-level 0" "...\n" (parameterize ((print-level 0)) (pp '(1))))
(test "width" 2 (length (lines (parameterize ((pretty-print-width 30)) (pp (iota 20))))))
(test "write ignores the limits" "(0 1 2 3 4)"
      (parameterize ((print-length 2)) (let ((p (open-output-string))) (write (iota 5) p) (get-output-string p))))
(test-error "print-length takes #f or a count" (parameterize ((print-length -1)) 1))
(test-error "pretty-print-width takes a positive count" (parameterize ((pretty-print-width #f)) 1))
(test-error "pretty-print needs an output port" (pretty-print 1 (open-input-string "")))

;; ---- cycles ----------------------------------------------------------------------------------
(define cyc (list 1 2 3))
(set-cdr! (cddr cyc) cyc)
(test "a cycle without limits prints with labels" "#0=(1 2 3 . #0#)\n" (pp cyc))
(test "a cycle with both limits prints up to them" "(1 2 3 1 ...)\n"
      (parameterize ((print-length 4) (print-level 3)) (pp cyc)))
(define deep (let loop ((i 0) (x '())) (if (= i 5000) x (loop (+ i 1) (list x)))))
(test-assert "very deep nesting does not exhaust the stack" (string? (pp deep)))

;; ---- fresh-line ------------------------------------------------------------------------------
(test "fresh-line after text adds a newline" "ab\n"
      (let ((p (open-output-string))) (display "ab" p) (fresh-line p) (get-output-string p)))
(test "fresh-line at the start of a line adds nothing" "ab\n"
      (let ((p (open-output-string))) (display "ab\n" p) (fresh-line p) (get-output-string p)))
(test "fresh-line on a new port adds nothing" ""
      (let ((p (open-output-string))) (fresh-line p) (get-output-string p)))
(test "fresh-line tells whether it wrote" '(#t #f)
      (let ((p (open-output-string))) (display "x" p) (list (fresh-line p) (fresh-line p))))

;; ---- procedure-information and documentation --------------------------------------------------
(define (info p key) (cdr (assq key (procedure-information p))))
(define (three a b . more) (list a b more))
(test "name of a procedure" 'three (info three 'name))
(test "kind of a Scheme procedure" 'procedure (info three 'kind))
(test "arity with a rest parameter" '(2 . #f) (info three 'arity))
(test "parameter names" '(a b . more) (info three 'parameters))
(test-assert "location of a procedure" (string? (info three 'location)))
(test "kind of a built-in" 'primitive (info car 'kind))
(test "arity of a built-in" '(1 . 1) (info car 'arity))
(test "parameters of a built-in" '(pair) (info car 'parameters))
(test-assert "documentation of a built-in" (string? (info car 'documentation)))
(test "case-lambda arity is the union" '(1 . 3) (info (case-lambda ((a) 1) ((a b c) 3)) 'arity))
(test "anonymous procedure" #f (info (lambda (x) x) 'name))
(test "documentation by name" #t (string? (documentation 'car)))
(test "documentation of an unknown name" #f (documentation 'no-such-thing-here))
(test-error "procedure-information needs a procedure" (procedure-information 5))

(test-end)
