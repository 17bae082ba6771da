;;; pe-flow-spec.scm -- partial-evaluation showcase: an imperative flowchart interpreter whose store is
;;; an association list threaded through it as an accumulator (an assignment returns a new store),
;;; with syntax selectors as procedures, running one fixed program on many inputs. Specializing
;;; the interpreter to the program (first Futamura projection) removes the dispatch, the store's
;;; names and the program text.
;;; Work unit: run the fixed program on one input n in 0..99.

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
        (else 0)))

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
          (else 0))))

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

(define run (specialize run-flow flow-program))      ; the first Futamura projection

(define (main reps)
  (let loop ((i reps) (acc 0))
    (if (= i 0)
        acc
        (loop (- i 1)
              (remainder (+ acc (run (remainder i 100))) 1000003)))))

(display (main 20000))
(newline)
