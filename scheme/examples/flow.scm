;;; flow.scm — a flowchart-language interpreter specialized to a fixed program (the first
;;; Futamura projection on an imperative language, after the flowchart languages of the
;;; partial-evaluation literature; written anew). The store is an association list threaded
;;; through the interpreter as an accumulator — an assignment returns a new store — and the
;;; syntax is taken apart by selector procedures, not macros. Specialized, the store's names
;;; and the program text disappear: what is left is the program's loop over its variables.
;;; Run: quasi scheme/examples/flow.scm
;;;
;;;   program ::= ((label stmt ...) ...)    the first block is the entry; the input is in n
;;;   stmt    ::= (set x e) | (goto l) | (if e l1 l2) | (return e)
;;;   e       ::= <integer> | <variable> | (op e e)    op: add sub mul lt eq rem

;; Syntax.
(define (stmt-kind s) (car s))
(define (set-var s) (cadr s))
(define (set-expr s) (caddr s))
(define (goto-label s) (cadr s))
(define (if-test s) (cadr s))
(define (if-then s) (caddr s))
(define (if-else s) (cadddr s))
(define (return-expr s) (cadr s))
(define (block-of label prog)
  (if (eq? label (car (car prog))) (cdr (car prog)) (block-of label (cdr prog))))

;; The store: ((name . value) ...), never mutated.
(define (store-ref x store)
  (if (eq? x (car (car store))) (cdr (car store)) (store-ref x (cdr store))))
(define (store-set x v store)
  (if (null? store)
      (list (cons x v))
      (if (eq? x (car (car store)))
          (cons (cons x v) (cdr store))
          (cons (car store) (store-set x v (cdr store))))))

(define (apply-op op a b)
  (cond ((eq? op 'add) (+ a b))
        ((eq? op 'sub) (- a b))
        ((eq? op 'mul) (* a b))
        ((eq? op 'lt) (if (< a b) 1 0))
        ((eq? op 'eq) (if (= a b) 1 0))
        ((eq? op 'rem) (remainder a b))
        (else (error "unknown operator" op))))

(define (eval-expr e store)
  (cond ((number? e) e)
        ((symbol? e) (store-ref e store))
        (else (apply-op (car e) (eval-expr (cadr e) store) (eval-expr (caddr e) store)))))

(define (run-block stmts store prog)
  (let* ((s (car stmts)) (kind (stmt-kind s)))
    (cond ((eq? kind 'set)
           (run-block (cdr stmts) (store-set (set-var s) (eval-expr (set-expr s) store) store) prog))
          ((eq? kind 'goto) (run-block (block-of (goto-label s) prog) store prog))
          ((eq? kind 'if)
           (if (= (eval-expr (if-test s) store) 0)
               (run-block (block-of (if-else s) prog) store prog)
               (run-block (block-of (if-then s) prog) store prog)))
          ((eq? kind 'return) (eval-expr (return-expr s) store))
          (else (error "unknown statement" s)))))

(define (run-flow prog input)
  (run-block (cdr (car prog)) (list (cons 'n input)) prog))

;; Sum over i < n of (i*i mod 7), times 1000, plus how many i are multiples of 3.
(define flow-program
  '((start (set i 0) (set acc 0) (set k 0) (goto test))
    (test (if (lt i n) body done))
    (body (set acc (add acc (rem (mul i i) 7)))
          (if (eq (rem i 3) 0) count next))
    (count (set k (add k 1)) (goto next))
    (next (set i (add i 1)) (goto test))
    (done (return (add (mul acc 1000) k)))))

(define compiled-flow (specialize run-flow flow-program))
(print-residual compiled-flow)
(display (map compiled-flow '(0 1 10 100))) (newline)
(display (map (lambda (n) (run-flow flow-program n)) '(0 1 10 100))) (newline)
