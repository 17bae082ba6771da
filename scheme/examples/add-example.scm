;;; add-example.scm — the smallest specialization: fix the first argument of add.
;;; Run: quasi scheme/examples/add-example.scm

(define (add x y) (+ x y))

(define add1 (specialize add 1))
(display (add1 41)) (newline)                      ; 42
(print-residual add1)                              ; (lambda (y) (+ 1 y))

;; Specializing again on an equal argument returns the very same procedure.
(display (eq? add1 (specialize add 1))) (newline)  ; #t

;; Primitives can be specialized too.
(display ((specialize + 1) 2)) (newline)           ; 3
