;; (rnrs syntax-case) — R6RS 12: syntax-case and the procedures on syntax objects.
;; The bindings are the engine's own (quasi core); this file only says which names are here.
(define-library (rnrs syntax-case)
  (import (quasi core))
  (export
    syntax-case syntax quasisyntax unsyntax unsyntax-splicing with-syntax
    identifier? bound-identifier=? free-identifier=? datum->syntax syntax->datum
    generate-temporaries syntax-violation ... _))
