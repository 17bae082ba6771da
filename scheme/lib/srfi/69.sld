;; (srfi 69) — basic hash tables. The bindings are the engine's own (quasi core;
;; builtins/hashtables.cpp and prelude/70-hash-tables.scm): one implementation under SRFI 69,
;; SRFI 125 and R6RS hash tables.
(define-library (srfi 69)
  (import (quasi core))
  (export
    make-hash-table hash-table? alist->hash-table hash-table-equivalence-function
    hash-table-hash-function hash-table-ref hash-table-ref/default hash-table-set!
    hash-table-delete! hash-table-exists? hash-table-update! hash-table-update!/default
    hash-table-size hash-table-keys hash-table-values hash-table-walk hash-table-fold
    hash-table->alist hash-table-copy hash-table-merge! hash string-hash string-ci-hash
    hash-by-identity))
