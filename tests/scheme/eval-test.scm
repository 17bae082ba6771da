;;; eval-test.scm — eval, environment, interaction-environment.
(include "harness.scm")

(define base (environment '(scheme base)))

(test "eval arithmetic" 3 (eval '(+ 1 2) base))
(test "eval constructed form" 21 (eval (list '* 3 7) base))
(test "eval let" 10 (eval '(let ((x 1)) (* x 10)) base))
(test "eval self-evaluating" "s" (eval "s" base))
(test "eval quote" '(a b) (eval ''(a b) base))
(test "eval returns procedure" 25 ((eval '(lambda (x) (* x x)) base) 5))
(test "eval procedure value" #t (procedure? (eval 'car base)))
(test "eval procedure is the same" #t (eq? car (eval 'car base)))
(test "eval local macro" 42
      (eval '(let-syntax ((m (syntax-rules () ((_ x) (* x 2))))) (m 21)) base))
(test "eval named let" 120 (eval '(let f ((n 5)) (if (= n 0) 1 (* n (f (- n 1))))) base))
(test "eval several libraries" #\A (eval '(char-upcase #\a) (environment '(scheme base) '(scheme char))))
(test "eval internal define" 3 (eval '(let () (define a 1) (define b 2) (+ a b)) base))
(test-error "eval error propagates" error-object? (eval '(car 1) base))
(test-error "eval syntax error" (eval '(if) base))
(test "eval result with multiple values" '(1 2)
      (call-with-values (lambda () (eval '(values 1 2) base)) list))
(test "eval does not see test-file definitions" #t
      (guard (e (#t #t)) (eval 'base base) #f))
(test "environment is reusable" '(1 2) (list (eval 1 base) (eval '(car '(2)) base)))

(define ie (interaction-environment))
(test "interaction-environment define and use" 42
      (begin (eval '(define eval-test-var 42) ie) (eval 'eval-test-var ie)))
(test "interaction-environment set!" 43
      (begin (eval '(set! eval-test-var (+ eval-test-var 1)) ie) (eval 'eval-test-var ie)))
(test "interaction-environment procedure" 9
      (begin (eval '(define (eval-test-sq x) (* x x)) ie) (eval '(eval-test-sq 3) ie)))
(test "interaction-environment macro" 'yes
      (begin (eval '(define-syntax eval-test-mac (syntax-rules () ((_) 'yes))) ie)
             (eval '(eval-test-mac) ie)))

;; (begin (import ...) ...) at the top of eval is spliced: the import is a declaration (foment's
;; R7RS eval tests; it was "unbound variable: scheme").
(test "begin with an import, then a use" 3
      (eval '(begin (import (scheme cxr)) (caddr '(1 2 3))) (environment '(scheme base))))
(test "the import stays for later forms" 'c
      (let ((e (environment '(scheme base))))
        (eval '(begin (import (only (scheme cxr) cadddr))) e)
        (eval '(cadddr '(a b c c)) e)))
(test "begin with an import in the interaction environment of a program" 6
      (eval '(begin (import (only (scheme cxr) cdddr)) (length (cdddr '(1 2 3 4 5 6 7 8 9))))
            (interaction-environment)))
(test "import after a reference to a variable named import" 3
      (let ((e (environment '(scheme base))))
        (eval '(define (uses-import) (import (scheme cxr))) e)  ; makes an unset cell `import`
        (eval '(import (scheme cxr)) e)
        (eval '(caddr '(1 2 3)) e)))
(test "begin without an import is unchanged" 2 (eval '(begin 1 2) (environment '(scheme base))))
(test-error "begin with a bad import raises" error-object?
            (eval '(begin (import (no such library here)) 1) (environment '(scheme base))))

(test-end)
