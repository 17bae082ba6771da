;; (quasi syntax-case) — procedural macros: (rnrs syntax-case), and explicit- and
;; implicit-renaming transformers (as Chibi and Chicken have them).
(define-library (quasi syntax-case)
  (import (quasi core))
  (export
    syntax-case syntax quasisyntax unsyntax unsyntax-splicing with-syntax
    identifier? bound-identifier=? free-identifier=? datum->syntax syntax->datum
    generate-temporaries syntax-violation ... _
    er-macro-transformer ir-macro-transformer))
