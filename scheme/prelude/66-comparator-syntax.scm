;;; 66-comparator-syntax.scm — SRFI 128's macros (the procedures are 65-comparators.scm).
;;;
;;; Apart from the comparators' procedures because a keyword cannot wait in a cell: 65 is loaded
;;; on first use (lib/engine/autoload.hpp), and these expand into references to its names, which
;;; load it when a program uses them. After 65 in file order, so nothing refers to its names when
;;; it is deferred.

(define-syntax hash-bound (syntax-rules () ((_) 2305843009213693951)))
(define-syntax hash-salt (syntax-rules () ((_) %hash-salt)))

;; (comparator-if<=> [c] a b less equal greater)
(define-syntax comparator-if<=>
  (syntax-rules ()
    ((_ a b less equal greater)
     (comparator-if<=> (make-default-comparator) a b less equal greater))
    ((_ c a b less equal greater)
     (let ((cmp c) (x a) (y b))
       (cond (((comparator-equality-predicate cmp) x y) equal)
             (((comparator-ordering-predicate cmp) x y) less)
             (else greater))))))
