;;; syntax-case-test.scm — procedural macros: syntax-case, syntax, quasisyntax, with-syntax,
;;; datum->syntax and the identifier predicates, er- and ir-macro-transformer.
(include "harness.scm")

;; ---- basics ----------------------------------------------------------------------------------
(define-syntax swap!
  (lambda (x)
    (syntax-case x ()
      ((_ a b) #'(let ((tmp a)) (set! a b) (set! b tmp))))))
(test "swap!" '(2 1) (let ((p 1) (q 2)) (swap! p q) (list p q)))
;; hygiene: the user's `tmp` is not the template's `tmp`
(test "swap! with a variable named tmp" '(2 1) (let ((tmp 1) (q 2)) (swap! tmp q) (list tmp q)))
;; hygiene: the template's `let` and `set!` mean the global ones even where the user rebinds them
(test "template keywords are the definition's" '(2 1)
      (let ((p 1) (q 2) (let 'not-let)) (swap! p q) (list p q)))

(define-syntax my-or
  (lambda (x)
    (syntax-case x ()
      ((_) #'#f)
      ((_ e) #'e)
      ((_ e r ...) #'(let ((t e)) (if t t (my-or r ...)))))))
(test "recursive macro" 3 (my-or #f #f 3))
(test "recursive macro: hygiene of t" 5 (let ((t 5)) (my-or #f t)))
(test "recursive macro: empty" #f (my-or))

;; fenders and literals
(define-syntax classify
  (lambda (x)
    (syntax-case x (zero)
      ((_ zero) #''the-keyword)
      ((_ n) (and (integer? (syntax->datum #'n)) (negative? (syntax->datum #'n))) #''negative)
      ((_ n) (integer? (syntax->datum #'n)) #''integer)
      ((_ _) #''other))))
(test "literal" 'the-keyword (classify zero))
(test "fender" 'negative (classify -4))
(test "fender falls through" 'integer (classify 7))
(test "last clause" 'other (classify "x"))
(test "literal bound locally does not match" 'other (let ((zero 0)) (classify zero)))

;; ellipses, nested, and vectors
(define-syntax my-let*
  (lambda (x)
    (syntax-case x ()
      ((_ () body ...) #'(let () body ...))
      ((_ ((n v) rest ...) body ...) #'(let ((n v)) (my-let* (rest ...) body ...))))))
(test "my-let*" 6 (my-let* ((a 1) (b (+ a 1)) (c (* b 3))) c))
(define-syntax alist
  (lambda (x)
    (syntax-case x ()
      ((_ (k v ...) ...) #''((k . #(v ...)) ...)))))
(test "nested ellipsis and vector template" '((a . #(1 2)) (b . #())) (alist (a 1 2) (b)))

;; ---- breaking hygiene on purpose: datum->syntax -----------------------------------------------
(define-syntax aif
  (lambda (x)
    (syntax-case x ()
      ((k c then else)
       (with-syntax ((it (datum->syntax #'k 'it)))
         #'(let ((it c)) (if it then else)))))))
(test "anaphoric if binds it" 3 (aif (assq 'b '((a . 1) (b . 3))) (cdr it) 'none))
(test "anaphoric if else" 'none (aif #f it 'none))
;; an `it` the macro made itself would not be seen by the user's code
(define-syntax hygienic-aif
  (lambda (x)
    (syntax-case x ()
      ((_ c then else) #'(let ((it c)) (if it then else))))))
(test "without datum->syntax, it is not captured" 'outer
      (let ((it 'outer)) (hygienic-aif 'inner it 'none)))

;; a loop with an exit named by the macro for the user
(define-syntax loop
  (lambda (x)
    (syntax-case x ()
      ((k e ...)
       (with-syntax ((break (datum->syntax #'k 'break)))
         #'(call-with-current-continuation
            (lambda (break) (let f () e ... (f)))))))))
(test "loop with break" 5 (let ((n 0)) (loop (set! n (+ n 1)) (when (= n 5) (break n)))))

;; a macro used inside another macro's template: datum->syntax on the inner use's keyword makes
;; identifiers of the outer expansion, so the outer template's `it` is captured too
(define-syntax aif-twice
  (syntax-rules ()
    ((_ c) (aif c (list it it) #f))))
(test "datum->syntax inside a syntax-rules template" '(7 7) (aif-twice 7))

;; generating names: a record-like macro
(define-syntax define-point-type
  (lambda (x)
    (define (make-id ctx . parts)
      (datum->syntax ctx
        (string->symbol
         (apply string-append
                (map (lambda (p) (if (string? p) p (symbol->string (syntax->datum p)))) parts)))))
    (syntax-case x ()
      ((_ name field ...)
       (with-syntax ((make (make-id #'name "make-" #'name))
                     (pred (make-id #'name #'name "?"))
                     ((getter ...) (map (lambda (f) (make-id f #'name "-" f)) #'(field ...)))
                     ((index ...) (let count ((i 1) (fs #'(field ...)))
                                    (if (null? fs) '() (cons i (count (+ i 1) (cdr fs)))))))
         #'(begin
             (define (make field ...) (vector 'name field ...))
             (define (pred v) (and (vector? v) (> (vector-length v) 0) (eq? (vector-ref v 0) 'name)))
             (define (getter v) (vector-ref v index)) ...))))))
(define-point-type pt x y)
(test "generated constructor and accessors" '(3 4) (let ((p (make-pt 3 4))) (list (pt-x p) (pt-y p))))
(test "generated predicate" '(#t #f) (list (pt? (make-pt 1 2)) (pt? (vector 'other))))

;; ---- quasisyntax ------------------------------------------------------------------------------
(define-syntax unrolled-sum
  (lambda (x)
    (syntax-case x ()
      ((_ n e)
       (let ((count (syntax->datum #'n)))
         #`(+ #,@(let build ((i 0)) (if (= i count) '() (cons #'e (build (+ i 1)))))))))))
(test "quasisyntax with unsyntax-splicing" 12 (unrolled-sum 3 4))
(define-syntax compile-time-square
  (lambda (x)
    (syntax-case x ()
      ((_ k) #`(quote #,(* (syntax->datum #'k) (syntax->datum #'k)))))))
(test "quasisyntax with unsyntax" 49 (compile-time-square 7))
(test "quasisyntax keeps pattern variables" '(1 (2 3) 6)
      (let-syntax ((m (lambda (x)
                        (syntax-case x ()
                          ((_ a b ...) #`(list a '(b ...) #,(+ 1 2 3)))))))
        (m 1 2 3)))
(test "quasisyntax in a vector" #(1 2 3)
      (let-syntax ((m (lambda (x) (syntax-case x () ((_ a) #`#(a #,(+ 1 1) 3))))))
        (m 1)))

;; ---- with-syntax ------------------------------------------------------------------------------
(define-syntax my-cond-count
  (lambda (x)
    (syntax-case x ()
      ((_ c ...)
       (with-syntax ((n (length #'(c ...)))
                     ((q ...) #'((quote c) ...)))
         #'(list n q ...))))))
(test "with-syntax binding a constant and a sequence" '(2 a b) (my-cond-count a b))
(test "with-syntax with no bindings" 1 (let-syntax ((m (lambda (x) (with-syntax () #'1)))) (m)))

;; ---- identifiers ------------------------------------------------------------------------------
(test "identifier?" '(#t #f #f) (list (identifier? #'x) (identifier? #'(x)) (identifier? #'1)))
(test "syntax->datum" '(a (b 1) #(c)) (syntax->datum #'(a (b 1) #(c))))
(test "free-identifier=? on the same binding" #t (free-identifier=? #'car #'car))
(test "free-identifier=? on different bindings" #f (free-identifier=? #'car #'cdr))
(test "bound-identifier=? one identifier" #t (let ((i #'x)) (bound-identifier=? i i)))
(test "bound-identifier=? two introductions" #f (bound-identifier=? #'x #'x))
(define-syntax same-as-else?
  (lambda (x)
    (syntax-case x ()
      ((_ id) (if (free-identifier=? #'id #'else) #'#t #'#f)))))
(test "free-identifier=? with a literal keyword" '(#t #f) (list (same-as-else? else) (same-as-else? other)))
(test "free-identifier=? sees a local shadowing" #f (let ((else 1)) (same-as-else? else)))
(test "generate-temporaries" '(3 #t #f)
      (let ((ts (generate-temporaries '(a b c))))
        (list (length ts) (identifier? (car ts)) (bound-identifier=? (car ts) (cadr ts)))))
(define-syntax my-letrec-values
  (lambda (x)
    (syntax-case x ()
      ((_ ((v e) ...) body)
       (with-syntax (((t ...) (generate-temporaries #'(v ...))))
         #'(let ((v #f) ...) (let ((t e) ...) (set! v t) ... body)))))))
(test "temporaries bound by the macro" '(1 2) (my-letrec-values ((a 1) (b 2)) (list a b)))

;; ---- errors -----------------------------------------------------------------------------------
(test-error-message "no matching clause" "no clause matches"
                    (eval '(let-syntax ((m (lambda (x) (syntax-case x () ((_ a) #'a))))) (m 1 2))
                          (interaction-environment)))
(test-error-message "syntax-violation message" "bad thing"
                    (eval '(let-syntax ((m (lambda (x) (syntax-violation 'm "bad thing" x))))
                             (m 1))
                          (interaction-environment)))
(test-error-message "pattern variable outside syntax" "pattern variable"
                    (eval '(let-syntax ((m (lambda (x) (syntax-case x () ((_ a) a))))) (m 1))
                          (interaction-environment)))
(test-error-message "local variable of the program in a transformer" "not available"
                    (eval '(let ((y 1)) (let-syntax ((m (lambda (x) y))) (m)))
                          (interaction-environment)))
(test-error-message "transformer that is not a procedure" "not a procedure"
                    (eval '(let-syntax ((m 42)) (m)) (interaction-environment)))
(test-error "template variable with the wrong depth"
            (eval '(let-syntax ((m (lambda (x) (syntax-case x () ((_ a ...) #'a))))) (m 1))
                  (interaction-environment)))
(test-error-message "an error inside a transformer" "car"
                    (eval '(let-syntax ((m (lambda (x) (car 5)))) (m)) (interaction-environment)))

;; ---- er- and ir-macro-transformer -------------------------------------------------------------
(define-syntax er-swap!
  (er-macro-transformer
   (lambda (form rename compare)
     (let ((a (cadr form)) (b (caddr form)) (tmp (rename 'tmp)))
       `(,(rename 'let) ((,tmp ,a)) (,(rename 'set!) ,a ,b) (,(rename 'set!) ,b ,tmp))))))
(test "er-macro-transformer swap" '(2 1) (let ((tmp 1) (y 2)) (er-swap! tmp y) (list tmp y)))
(define-syntax er-if-else
  (er-macro-transformer
   (lambda (form rename compare)
     (if (compare (cadr form) (rename 'else)) ''was-else ''not-else))))
(test "er compare" '(was-else not-else) (list (er-if-else else) (er-if-else foo)))
(define-syntax ir-aif
  (ir-macro-transformer
   (lambda (form inject compare)
     `(let ((,(inject 'it) ,(cadr form))) (if ,(inject 'it) ,(caddr form) ,(cadddr form))))))
(test "ir-macro-transformer injects it" 2 (ir-aif (+ 1 1) it 0))
(define-syntax ir-swap!
  (ir-macro-transformer
   (lambda (form inject compare)
     `(let ((tmp ,(cadr form))) (set! ,(cadr form) ,(caddr form)) (set! ,(caddr form) tmp)))))
(test "ir-macro-transformer is hygienic by default" '(2 1) (let ((tmp 1) (y 2)) (ir-swap! tmp y) (list tmp y)))

;; ---- macros defined in bodies and by macros -----------------------------------------------------
(test "internal define-syntax with syntax-case" 10
      (let ()
        (define-syntax twice (lambda (x) (syntax-case x () ((_ e) #'(+ e e)))))
        (define y 5)
        (twice y)))
(define-syntax define-constant-macro
  (syntax-rules ()
    ((_ name value)
     (define-syntax name (lambda (x) (syntax-case x () ((_) #'value)))))))
(define-constant-macro forty-two 42)
(test "syntax-rules defining a syntax-case macro" 42 (forty-two))
(define helper-value 'global)
(define-syntax refers-to-global
  (lambda (x) (syntax-case x () ((_) #'helper-value))))
(test "template refers to the definition's binding" 'global
      (let ((helper-value 'local)) (refers-to-global)))

(test-end)
