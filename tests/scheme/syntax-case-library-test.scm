;;; syntax-case-library-test.scm — procedural macros across a library boundary: a template names
;;; the library's private bindings (hygiene), datum->syntax binds a name for the importer, and
;;; (rnrs syntax-case) / (quasi syntax-case) are enough to write macros in a program.
(import (scheme base) (scheme write) (scheme eval) (scheme process-context) (testlib macros)
        (only (quasi syntax-case) syntax-case syntax with-syntax datum->syntax
              er-macro-transformer))
(include "harness.scm")

(test "library macro uses its private procedure" '(1 2 3) (counted-list 1 2 3))
(define (private-note! n) 'the-programs-own)
(test "the program's own binding of the same name does not capture" '(a) (counted-list 'a))
(test "datum->syntax binds a name for the user" 10 (with-self 5 (* self 2)))
(test "importing only some names: list is (scheme base)'s" '(4) (counted-list 4))
(define-syntax add-one
  (lambda (x) (syntax-case x () ((_ e) #'(+ e 1)))))
(test "syntax-case from an import set" 8 (add-one 7))
(test-error "with-syntax not imported from (rnrs syntax-case) in a fresh environment"
            (eval '(with-syntax () 1) (environment '(scheme base))))
(test "environment with (rnrs syntax-case)" 3
      (eval '(let-syntax ((m (lambda (x) (syntax-case x () ((_ a) #'(+ a 1)))))) (m 2))
            (environment '(scheme base) '(rnrs syntax-case))))

(test-end)
