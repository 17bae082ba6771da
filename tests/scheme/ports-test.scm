;;; ports-test.scm — string and bytevector ports, read, write (datum labels), files.
(include "harness.scm")

(define (written x) (let ((p (open-output-string))) (write x p) (get-output-string p)))
(define (displayed x) (let ((p (open-output-string))) (display x p) (get-output-string p)))
(define (read-from s) (read (open-input-string s)))
(define (read-all s)
  (let ((p (open-input-string s)))
    (let loop ((acc '()))
      (let ((x (read p)))
        (if (eof-object? x) (reverse acc) (loop (cons x acc)))))))

;; ---- read ------------------------------------------------------------------------------------
(test "read list" '(a b (c)) (read-from "(a b (c))"))
(test "read dotted" '(a . b) (read-from "(a . b)"))
(test "read numbers" '(1 -2 3.5 1/2 #xff) (read-from "(1 -2 3.5 1/2 #xff)"))
(test "read string with escapes" "a\nb\"λ" (read-from "\"a\\nb\\\"\\x3bb;\""))
(test "read chars" '(#\a #\space #\λ #\x41) (read-from "(#\\a #\\space #\\λ #\\x41)"))
(test "read vector" #(1 (2) "x") (read-from "#(1 (2) \"x\")"))
(test "read bytevector" #u8(1 2 255) (read-from "#u8(1 2 255)"))
(test "read booleans" '(#t #f #t #f) (read-from "(#t #f #true #false)"))
(test "read quote forms" '((quote a) (quasiquote (b (unquote c) (unquote-splicing d))))
      (read-from "('a `(b ,c ,@d))"))
(test "read bar symbol" (string->symbol "a b") (read-from "|a b|"))
(test "read several data" '(1 foo "bar" (x)) (read-all "1 foo \"bar\" (x)"))
(test "read skips comments" '(5 6 7) (read-all "; comment\n 5 #| block #| nested |# |# 6 #;(skipped) 7"))
;; A line comment ends at a return alone too (idea: Larceny test/R7RS/Lib/tests/scheme/read.sld).
(test "comments end at \\r, \\r\\n, \\n" '(yes but this is not)
      (read-from "(yes; c1 \nbut;\r\n this is;too\rnot)"))
(test "read eof" #t (eof-object? (read-from "")))
(test "read eof after whitespace" #t (eof-object? (read-from "   ; just a comment\n")))
(test "read datum label" #t (let ((x (read-from "#0=(a . #0#)"))) (eq? x (cdr x))))
(test "read shared datum label" #t (let ((x (read-from "(#1=(x) #1#)"))) (eq? (car x) (cadr x))))
(test "read fold-case directive" '(abc DEF) (read-all "#!fold-case ABC #!no-fold-case DEF"))
(test "read leaves rest of input" '(1 #\space)
      (let ((p (open-input-string "1 2"))) (let* ((a (read p)) (b (read-char p))) (list a b))))
(test-error "read unbalanced" read-error? (read-from "(1 2"))
(test-error "read bad close" read-error? (read-from ")"))
(test-error "read bad dot" read-error? (read-from "(1 . )"))

;; ---- write / display -------------------------------------------------------------------------
(test "write list" "(1 \"a\" #\\b 2.5)" (written '(1 "a" #\b 2.5)))
(test "display list" "(1 a b 2.5)" (displayed '(1 "a" #\b 2.5)))
(test "write basics" '("()" "#t" "#f" "(1 . 2)" "(1 (2 3) . 4)" "#()" "#u8(1 2)" "sym" "\"\"")
      (map written (list '() #t #f (cons 1 2) '(1 (2 3) . 4) (vector) (bytevector 1 2) 'sym "")))
(test "write vector" "#(1 \"x\" #\\y)" (written (vector 1 "x" #\y)))
(test "write numbers" "(1 -1/2 0.25 100000000000000000000)" (written (list 1 -1/2 0.25 (expt 10 20))))
(test "write nested quotes as data" "(a (b c))" (written '(a (b c))))
(test "write cycle" "#0=(1 2 . #0#)"
      (let ((x (list 1 2))) (set-cdr! (cdr x) x) (written x)))
(test "write car cycle" "#0=(#0#)"
      (let ((x (list 1))) (set-car! x x) (written x)))
(test "write vector cycle" "#0=#(1 #0#)"
      (let ((v (vector 1 2))) (vector-set! v 1 v) (written v)))
(test "write cycle inside list" "(a #0=(b . #0#))"
      (let ((x (list 'b))) (set-cdr! x x) (written (list 'a x))))
(test "write shared but acyclic uses no labels" "((1 2) (1 2))"
      (let ((x (list 1 2))) (written (list x x))))
(test "write-shared labels sharing" "(#0=(1 2) #0#)"
      (let ((x (list 1 2)) (p (open-output-string))) (write-shared (list x x) p) (get-output-string p)))
(test "write-shared cycle" "#0=(1 . #0#)"
      (let ((x (list 1)) (p (open-output-string))) (set-cdr! x x) (write-shared x p) (get-output-string p)))
(test "write-simple" "((1 2) (1 2))"
      (let ((x (list 1 2)) (p (open-output-string))) (write-simple (list x x) p) (get-output-string p)))
(test "display cycle terminates" #t
      (let ((x (list 1 2))) (set-cdr! (cdr x) x) (string? (displayed x))))
(test "write/read round trip" '(1 "two\n\"q\"" #\3 (4.5 . sym) #(|s p| 1/3) #u8(7))
      (read-from (written '(1 "two\n\"q\"" #\3 (4.5 . sym) #(|s p| 1/3) #u8(7)))))
(test "write-string and write-char" "abλ!"
      (let ((p (open-output-string))) (write-string "abλ" p) (write-char #\! p) (get-output-string p)))
(test "write-string range" "bc" (let ((p (open-output-string))) (write-string "abcd" p 1 3) (get-output-string p)))
(test "newline" "\n" (let ((p (open-output-string))) (newline p) (get-output-string p)))

;; ---- port objects ----------------------------------------------------------------------------
(test "port predicates" '(#t #f #t #t #f)
      (let ((i (open-input-string "")) (o (open-output-string)))
        (list (input-port? i) (output-port? i) (output-port? o) (textual-port? i) (binary-port? i))))
(test "binary port predicates" '(#t #t #f)
      (let ((b (open-input-bytevector #u8())))
        (list (binary-port? b) (input-port? b) (textual-port? b))))
(test "port?" '(#t #f) (list (port? (open-input-string "")) (port? "x")))
(test "close-port" '(#t #f)
      (let ((p (open-input-string "x")))
        (let ((before (input-port-open? p))) (close-port p) (list before (input-port-open? p)))))
(test "close-output-port" #f
      (let ((p (open-output-string))) (close-output-port p) (output-port-open? p)))
(test-error "read from closed port" (let ((p (open-input-string "x"))) (close-input-port p) (read-char p)))
(test "char-ready?" #t (char-ready? (open-input-string "a")))
(test "current ports are ports" '(#t #t #t)
      (list (input-port? (current-input-port)) (output-port? (current-output-port))
            (output-port? (current-error-port))))
(test "parameterize current-output-port" "hi 42"
      (let ((p (open-output-string)))
        (parameterize ((current-output-port p)) (display "hi ") (write 42))
        (get-output-string p)))
(test "parameterize current-input-port" '(x #\y)
      (parameterize ((current-input-port (open-input-string "x y")))
        (let* ((a (read)) (b (begin (read-char) (read-char)))) (list a b))))

;; ---- bytevector ports ------------------------------------------------------------------------
(test "bytevector output" #u8(1 2 3 4)
      (let ((p (open-output-bytevector)))
        (write-u8 1 p) (write-bytevector #u8(2 3 4) p) (get-output-bytevector p)))
(test "write-bytevector range" #u8(2 3)
      (let ((p (open-output-bytevector))) (write-bytevector #u8(1 2 3 4) p 1 3) (get-output-bytevector p)))
(test "bytevector input" '(1 2 #u8(3 4) #t)
      (let ((p (open-input-bytevector #u8(1 2 3 4))))
        (let* ((a (peek-u8 p)) (b (begin (read-u8 p) (read-u8 p))) (c (read-bytevector 5 p)) (d (eof-object? (read-u8 p))))
          (list a b c d))))
(test "u8-ready?" #t (u8-ready? (open-input-bytevector #u8(1))))
(test "read-bytevector!" '(2 #u8(0 7 8 0))
      (let ((bv (make-bytevector 4 0)) (p (open-input-bytevector #u8(7 8))))
        (let ((n (read-bytevector! bv p 1))) (list n bv))))

;; ---- files -----------------------------------------------------------------------------------
(define tmp-file (string-append "/tmp/quasi-ports-test-" (number->string (current-jiffy)) ".txt"))

(test "call-with-output-file / call-with-input-file" '((data "λ" 42) "second line")
      (begin
        (call-with-output-file tmp-file
          (lambda (p) (write '(data "λ" 42) p) (newline p) (display "second line" p) (newline p)))
        (call-with-input-file tmp-file
          (lambda (p) (let* ((d (read p)) (rest (begin (read-line p) (read-line p)))) (list d rest))))))
(test "file-exists?" #t (file-exists? tmp-file))
(test "with-output-to-file / with-input-from-file" '("hello" "world")
      (begin
        (with-output-to-file tmp-file (lambda () (display "hello\nworld\n")))
        (with-input-from-file tmp-file (lambda () (let* ((a (read-line)) (b (read-line))) (list a b))))))
(test "output restored after with-output-to-file" #t
      (let ((before (current-output-port)))
        (with-output-to-file tmp-file (lambda () (write 'x)))
        (eq? before (current-output-port))))
(test "open-output-file truncates" "new"
      (begin
        (let ((p (open-output-file tmp-file))) (write-string "a longer old content" p) (close-port p))
        (let ((p (open-output-file tmp-file))) (write-string "new" p) (close-port p))
        (call-with-input-file tmp-file (lambda (p) (read-line p)))))
(test "read-char / eof on file" '(#\n #\e #\w #t)
      (call-with-input-file tmp-file
        (lambda (p) (let* ((a (read-char p)) (b (read-char p)) (c (read-char p)) (d (eof-object? (read-char p)))) (list a b c d)))))
(test "binary file round trip" #u8(0 255 10 13 128)
      (begin
        (let ((p (open-binary-output-file tmp-file))) (write-bytevector #u8(0 255 10 13 128) p) (close-port p))
        (let* ((p (open-binary-input-file tmp-file)) (bv (read-bytevector 100 p))) (close-port p) bv)))
(test "call-with-port closes" #f
      (let ((p (open-input-file tmp-file)))
        (call-with-port p (lambda (port) (read-char port)))
        (input-port-open? p)))
;; read-char/write-char have a fast path for buffered ASCII bytes; the UTF-8 path must agree
;; with it however the two interleave, and line buffers and string sinks must grow and flush.
(define mixed-text (string #\a #\x3bb #\newline #\x1F600 #\b #\xe9 #\newline #\z))
(test "write-char / read-char round trip, ASCII and UTF-8 interleaved" (string->list mixed-text)
      (begin
        (call-with-output-file tmp-file
          (lambda (p) (for-each (lambda (c) (write-char c p)) (string->list mixed-text))))
        (call-with-input-file tmp-file
          (lambda (p) (let loop ((acc '()))
                        (let ((c (read-char p)))
                          (if (eof-object? c) (reverse acc) (loop (cons c acc)))))))))
(test "peek-char then read-char across ASCII and UTF-8" '(#\a #\a #\x3bb #\x3bb #\newline)
      (call-with-input-file tmp-file
        (lambda (p) (let* ((a (peek-char p)) (b (read-char p)) (c (peek-char p)) (d (read-char p))
                           (e (read-char p)))
                      (list a b c d e)))))
(test "invalid UTF-8 between ASCII bytes reads as U+FFFD" '(#\a #\xFFFD #\b)
      (begin
        (let ((p (open-binary-output-file tmp-file))) (write-bytevector #u8(97 255 98) p) (close-port p))
        (call-with-input-file tmp-file
          (lambda (p) (let* ((a (read-char p)) (b (read-char p)) (c (read-char p))) (list a b c))))))
(test "write-char into a string port past its first buffer" 5000
      (string-length (call-with-output-string
                       (lambda (p) (do ((i 0 (+ i 1))) ((= i 5000)) (write-char (if (odd? i) #\x3bb #\a) p))))))
(test "write-char of a long file: every byte arrives" 200000
      (begin
        (call-with-output-file tmp-file
          (lambda (p) (do ((i 0 (+ i 1))) ((= i 200000)) (write-char (if (= 0 (modulo i 80)) #\newline #\x) p))))
        (call-with-input-file tmp-file
          (lambda (p) (let loop ((n 0)) (if (eof-object? (read-char p)) n (loop (+ n 1))))))))
(test "delete-file" #f (begin (delete-file tmp-file) (file-exists? tmp-file)))
(test-error "open missing file" file-error? (open-input-file tmp-file))
(test-error "delete missing file" file-error? (delete-file tmp-file))

(test-end)
