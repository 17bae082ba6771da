;; (srfi 1) — the list library, every name of the SRFI. The procedures the core already has
;; (prelude/10-lists.scm, builtins/lists.cpp) are re-exported; the rest are defined here. The
;; linear-update variants (take!, append!, filter!, ...) may reuse their arguments' pairs by SRFI 1,
;; and they do (1-body.scm): relinked with set-cdr!, set-car! for map! of one list; append-map!
;; and map! of several lists return fresh pairs.
(define-library (srfi 1)
  (import (quasi core))
  (export
    ;; constructors
    cons list xcons cons* make-list list-tabulate list-copy circular-list iota
    ;; predicates
    pair? null? proper-list? circular-list? dotted-list? not-pair? null-list? list=
    ;; selectors
    car cdr caar cadr cdar cddr caaar caadr cadar caddr cdaar cdadr cddar cdddr caaaar caaadr
    caadar caaddr cadaar cadadr caddar cadddr cdaaar cdaadr cdadar cdaddr cddaar cddadr cdddar
    cddddr list-ref first second third fourth fifth sixth seventh eighth ninth tenth car+cdr
    take drop take-right drop-right take! drop-right! split-at split-at! last last-pair
    ;; miscellaneous
    length length+ append concatenate reverse append! concatenate! reverse! append-reverse
    append-reverse! zip unzip1 unzip2 unzip3 unzip4 unzip5 count
    ;; fold, unfold, map
    fold unfold pair-fold reduce fold-right unfold-right pair-fold-right reduce-right append-map
    append-map! pair-for-each filter-map map-in-order map for-each map!
    ;; filtering and partitioning
    filter partition remove filter! partition! remove!
    ;; searching
    member memq memv find find-tail any every list-index take-while drop-while take-while!
    span break span! break!
    ;; deleting
    delete delete-duplicates delete! delete-duplicates!
    ;; association lists
    assoc assq assv alist-cons alist-copy alist-delete alist-delete!
    ;; lists as sets
    lset<= lset= lset-adjoin lset-union lset-union! lset-intersection lset-intersection!
    lset-difference lset-difference! lset-xor lset-xor! lset-diff+intersection
    lset-diff+intersection!)
  (include "1-body.scm"))
