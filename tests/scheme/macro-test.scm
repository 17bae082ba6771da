;;; macro-test.scm — syntax-rules, let-syntax, letrec-syntax and hygiene.
(include "harness.scm")

;; ---- patterns --------------------------------------------------------------------------------
(define-syntax my-if
  (syntax-rules (then else)
    ((_ c then t else e) (if c t e))
    ((_ c then t) (if c t #f))))
(test "literals" 'yes (my-if #t then 'yes else 'no))
(test "literals else branch" 'no (my-if #f then 'yes else 'no))
(test "literals short form" #f (my-if #f then 'yes))
(test-error "literal mismatch is a syntax error"
            (eval '(let-syntax ((m (syntax-rules (then) ((_ then) 1)))) (m other))
                  (environment '(scheme base))))

(define-syntax my-let*
  (syntax-rules ()
    ((_ () body ...) (let () body ...))
    ((_ ((x v) rest ...) body ...) (let ((x v)) (my-let* (rest ...) body ...)))))
(test "recursive macro" 6 (my-let* ((a 1) (b (+ a 1)) (c (* b 3))) c))

(define-syntax pairs->alist
  (syntax-rules ()
    ((_ (k v ...) ...) '((k v ...) ...))))
(test "nested ellipsis" '((a 1 2) (b) (c 3)) (pairs->alist (a 1 2) (b) (c 3)))

(define-syntax flatten-args
  (syntax-rules ()
    ((_ (a ...) ...) '(a ... ...))))
(test "ellipsis ellipsis in template" '(1 2 3 4 5) (flatten-args (1 2) () (3 4 5)))

(define-syntax my-let
  (syntax-rules ()
    ((_ ((name val) ...) body1 body2 ...)
     ((lambda (name ...) body1 body2 ...) val ...))))
(test "my-let" 3 (my-let ((x 1) (y 2)) (+ x y)))

(define-syntax tail-pattern
  (syntax-rules ()
    ((_ a ... z) '(z a ...))))
(test "ellipsis followed by pattern" '(3 1 2) (tail-pattern 1 2 3))
(test "ellipsis followed by pattern, one item" '(9) (tail-pattern 9))

(define-syntax middle
  (syntax-rules ()
    ((_ first mid ... last) '(first (mid ...) last))))
(test "ellipsis in the middle" '(1 (2 3 4) 5) (middle 1 2 3 4 5))

(define-syntax dotted
  (syntax-rules ()
    ((_ a . rest) '(a rest))))
(test "dotted pattern" '(1 (2 3)) (dotted 1 2 3))
(test "dotted pattern empty rest" '(1 ()) (dotted 1))

(define-syntax dotted-inner
  (syntax-rules ()
    ((_ (a . b)) '(a b))))
(test "dotted inner pattern" '(1 2) (dotted-inner (1 . 2)))
(test "dotted inner list" '(1 (2 3)) (dotted-inner (1 2 3)))

(define-syntax ellipsis-then-dot
  (syntax-rules ()
    ((_ (a ... . r)) '((a ...) r))))
(test "ellipsis with dotted tail" '((1 2) 3) (ellipsis-then-dot (1 2 . 3)))
(test "ellipsis with empty dotted tail" '((1 2) ()) (ellipsis-then-dot (1 2)))

(define-syntax vec-sum
  (syntax-rules ()
    ((_ #(a ...)) (+ a ...))))
(test "vector pattern" 6 (vec-sum #(1 2 3)))

(define-syntax vec-swap
  (syntax-rules ()
    ((_ #(a b)) '#(b a))))
(test "vector pattern fixed" #(2 1) (vec-swap #(1 2)))

(define-syntax to-vector
  (syntax-rules ()
    ((_ a ...) #(a ...))))
(test "vector template" #(1 2 3) (to-vector 1 2 3))

(define-syntax underscore
  (syntax-rules ()
    ((_ _ b) 'b)))
(test "underscore wildcard" 'second (underscore first second))

(define-syntax zero-or-other
  (syntax-rules ()
    ((_ 0) 'zero)
    ((_ "s") 'string)
    ((_ #\c) 'char)
    ((_ x) 'other)))
(test "constant patterns" '(zero string char other)
      (list (zero-or-other 0) (zero-or-other "s") (zero-or-other #\c) (zero-or-other 1)))

(define-syntax my-list
  (syntax-rules ::: ()
    ((_ x :::) (list x :::))))
(test "custom ellipsis" '(1 2 3) (my-list 1 2 3))

(define-syntax literal-dots
  (syntax-rules ()
    ((_ a) '(a (... ...)))))
(test "escaped ellipsis" '(1 ...) (literal-dots 1))

(define-syntax count-args
  (syntax-rules ()
    ((_) 0)
    ((_ x rest ...) (+ 1 (count-args rest ...)))))
(test "counting" 4 (count-args a b c d))

(define-syntax while
  (syntax-rules ()
    ((_ cond body ...)
     (let lp () (when cond body ... (lp))))))
(test "while loop" 10 (let ((i 0)) (while (< i 10) (set! i (+ i 1))) i))

(define-syntax my-cond
  (syntax-rules (else)
    ((_ (else e ...)) (begin e ...))
    ((_ (c e ...) clause ...) (if c (begin e ...) (my-cond clause ...)))))
(test "else literal" 'two (my-cond (#f 'one) (else 'two)))

;; ---- hygiene ---------------------------------------------------------------------------------
(define-syntax my-or
  (syntax-rules ()
    ((_) #f)
    ((_ e) e)
    ((_ e r ...) (let ((t e)) (if t t (my-or r ...))))))
(test "my-or" 2 (my-or #f 2 3))
(test "my-or temp not captured" 5 (let ((t 5)) (my-or #f t)))
(test "shadowed if at use site" 1 (let ((if list)) (my-or #f 1)))

(define-syntax make-pair-list
  (syntax-rules ()
    ((_ a b) (list a b))))
(test "shadowed list at use site" '(1 2) (let ((list vector)) (make-pair-list 1 2)))

(define-syntax swap!
  (syntax-rules ()
    ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(test "swap!" '(2 1) (let ((x 1) (y 2)) (swap! x y) (list x y)))
(test "swap! with tmp" '(2 1) (let ((tmp 1) (other 2)) (swap! tmp other) (list tmp other)))

(define-syntax inc!
  (syntax-rules ()
    ((_ v) (set! v (+ v 1)))))
(test "shadowed + at use site" 6 (let ((+ -) (n 5)) (inc! n) n))

(test "free identifier refers to definition site" 'outer
      (let ((x 'outer))
        (let-syntax ((m (syntax-rules () ((m) x))))
          (let ((x 'inner))
            (m)))))

(test "r7rs letrec-syntax my-or" 7
      (letrec-syntax
          ((my-or (syntax-rules ()
                    ((my-or) #f)
                    ((my-or e) e)
                    ((my-or e1 e2 ...)
                     (let ((temp e1))
                       (if temp temp (my-or e2 ...)))))))
        (let ((x #f) (y 7) (temp 8) (let odd?) (if even?))
          (my-or x (let temp) (if y) y))))

(test "let-syntax" 'now
      (let-syntax ((given-that (syntax-rules ()
                                 ((_ test stmt1 stmt2 ...)
                                  (if test (begin stmt1 stmt2 ...))))))
        (let ((if #t))
          (given-that if (set! if 'now))
          if)))

(test "let-syntax bindings do not see each other" 'outer
      (let ((v 'outer))
        (let-syntax ((a (syntax-rules () ((_) v))))
          (let-syntax ((a (syntax-rules () ((_) 'inner)))
                       (b (syntax-rules () ((_) (a)))))
            (b)))))

(test "letrec-syntax mutual" '(#t #f)
      (letrec-syntax ((ev? (syntax-rules () ((_) #t) ((_ x . r) (od? . r))))
                      (od? (syntax-rules () ((_) #f) ((_ x . r) (ev? . r)))))
        (list (ev? 1 2) (ev? 1 2 3))))

(define-syntax foo-macro (syntax-rules () ((_) 'macro)))
(test "local variable shadows macro" 'variable
      (let ((foo-macro (lambda () 'variable))) (foo-macro)))

(define hyg-helper (lambda () 'global-helper))
(define-syntax call-helper (syntax-rules () ((_) (hyg-helper))))
(test "macro reference to global ignores local" 'global-helper
      (let ((hyg-helper (lambda () 'local))) (call-helper)))

(define-syntax bind-x-to
  (syntax-rules ()
    ((_ v body) (let ((x v)) body))))
(test "introduced binding invisible to body" 'free
      (let ((x 'free)) (bind-x-to 'bound x)))

(define-syntax my-define-getter
  (syntax-rules ()
    ((_ name v) (define (name) v))))
(my-define-getter get-seven 7)
(test "macro expanding to define" 7 (get-seven))
(test "macro define in body" 3
      (let () (my-define-getter g1 1) (my-define-getter g2 2) (+ (g1) (g2))))

(define-syntax define-two
  (syntax-rules ()
    ((_ a b v) (begin (define a v) (define b v)))))
(define-two two-a two-b 3)
(test "macro expanding to begin of defines" '(3 3) (list two-a two-b))
(test "begin of defines in body" 2 (let () (define-two p q 1) (+ p q)))

;; ---- macro-defining macros -------------------------------------------------------------------
(define-syntax def-getter
  (syntax-rules ()
    ((_ name val) (define-syntax name (syntax-rules () ((_) val))))))
(def-getter get-five 5)
(test "macro-defining macro" 5 (get-five))

(define-syntax def-lister
  (syntax-rules ()
    ((_ name)
     (define-syntax name
       (syntax-rules ()
         ((_ x (... ...)) (list x (... ...))))))))
(def-lister my-list2)
(test "macro-defining macro with escaped ellipsis" '(1 2 3) (my-list2 1 2 3))

(define-syntax def-with-custom-ellipsis
  (syntax-rules ()
    ((_ name)
     (define-syntax name
       (syntax-rules ::: ()
         ((_ x :::) (vector x :::)))))))
(def-with-custom-ellipsis my-vec)
(test "macro-defining macro with custom ellipsis" #(1 2) (my-vec 1 2))

(define-syntax def-adder
  (syntax-rules ()
    ((_ name k)
     (define-syntax name
       (syntax-rules ()
         ((_ x) (+ x k)))))))
(def-adder add10 10)
(test "generated macro uses outer pattern variable" 15 (add10 5))

(test "local macro in body" 20
      (let ()
        (define-syntax double (syntax-rules () ((_ e) (* 2 e))))
        (define y 10)
        (double y)))

(test "macro generating named let" '(2 1 0)
      (let-syntax ((collect-down (syntax-rules ()
                                   ((_ n) (let loop ((i 0) (acc '()))
                                            (if (= i n) acc (loop (+ i 1) (cons i acc))))))))
        (collect-down 3)))

(test "macro generating lambda with introduced and user params" 7
      (let-syntax ((make-adder (syntax-rules ()
                                 ((_ y) (lambda (x) (+ x y))))))
        (let ((x 3))
          ((make-adder x) 4))))

(test "nested quasiquote in template" '(a 3)
      (let-syntax ((qq (syntax-rules () ((_ e) `(a ,e)))))
        (qq (+ 1 2))))

(test "string and number constants in templates" '("s" 1 #\c)
      (let-syntax ((consts (syntax-rules () ((_) (list "s" 1 #\c)))))
        (consts)))

;; R7RS 4.3.2: `...` is the ellipsis only where it means the ellipsis. Bound as a variable (or
;; keyword) around the macro, it is an ordinary identifier: a pattern variable, a reference
;; (Chez and Guile agree). (... ...) escapes it; a custom ellipsis leaves `...` ordinary; a
;; literal `...` wins over the ellipsis.
(test "... bound as a variable: a reference in the template" '(1 v)
      (let ((... 'v))
        (let-syntax ((m (syntax-rules () ((_ a) (list a ...)))))
          (m 1))))
(test "... bound as a variable: a pattern variable" '(1 2)
      (let ((... 'v))
        (let-syntax ((m (syntax-rules () ((_ a ...) (list a ...)))))
          (m 1 2))))
(test "... bound as a variable: not an ellipsis in the pattern" 'no
      (let ((... 'v))
        (let-syntax ((m (syntax-rules () ((_ a ...) 'yes) ((_ . r) 'no))))
          (m 1 2 3))))
(test "... bound, custom ellipsis" '(1 2 v)
      (let ((... 'v))
        (let-syntax ((m (syntax-rules ::: () ((_ a :::) (list a ::: ...)))))
          (m 1 2))))
(test "... bound as a keyword" 1
      (let-syntax ((... (syntax-rules () ((_ x) 'x))))
        (let-syntax ((m (syntax-rules () ((_ a) (... a)))))
          (m 1))))
(test "... unbound again inside: the ellipsis" '(1 2 3)
      (let ()
        (define-syntax m (syntax-rules () ((_ a ...) '(a ...))))
        (m 1 2 3)))
(define-syntax bind-dots
  (syntax-rules ()
    ((_ x) (let (((... ...) x)) (... ...)))))
(test "(... ...) binds ... in the output" 5 (bind-dots 5))
(define-syntax dots-literal
  (syntax-rules ::: (...)
    ((_ a ... b :::) '(a b :::))
    ((_ . r) 'other)))
(test "custom ellipsis with ... as a literal" '((1 2 3) other)
      (list (dots-literal 1 ... 2 3) (dots-literal 1 2 3)))
(define-syntax dots-symbol
  (syntax-rules ::: () ((_ a :::) '((a ...) :::))))
(test "custom ellipsis: ... in the template is a symbol" '((1 ...) (2 ...)) (dots-symbol 1 2))
(define-syntax def-seq
  (syntax-rules ()
    ((_ name x ...)
     (define-syntax name (syntax-rules dots () ((_ e dots) (list x ... e dots)))))))
(def-seq seq 10 20)
(test "outer ... and inner custom ellipsis" '(10 20 1 2) (seq 1 2))

(test-end)
