;;; mp.scm — an interpreter for MP, the small imperative language over S-expressions that
;;; Sestoft used to show a self-applicable partial evaluator at work (while-loops, assignments,
;;; cons/car/cdr; written anew from the language's description, not from any published code),
;;; specialized to a fixed MP program: the first Futamura projection. The interpreter keeps its
;;; variables in an environment — a list of names and a parallel list of values, threaded
;;; through it; an assignment returns new values — and takes the syntax apart with selector
;;; procedures. Specialized, the names, the dispatch and the program text disappear: what is
;;; left is the program's own loops over its variables.
;;; Run: quasi scheme/examples/mp.scm
;;;
;;;   program ::= (program (pars x ...) (dec y ...) block)   the result is the first y's value
;;;   block   ::= (cmd ...)
;;;   cmd     ::= (:= x e) | (if e block block) | (while e block)
;;;   e       ::= x | (quote s) | (car e) | (cdr e) | (cons e e) | (atom e) | (equal e e)
;;; Values are S-expressions; () is false, anything else true; atom and equal give t or ().
;;; Parameters are bound to the inputs, declared variables start as ().

;; Syntax.
(define (program-pars p) (cdr (cadr p)))
(define (program-decs p) (cdr (caddr p)))
(define (program-block p) (cadddr p))
(define (cmd-kind c) (car c))
(define (assign-var c) (cadr c))
(define (assign-expr c) (caddr c))
(define (test-of c) (cadr c))
(define (then-of c) (caddr c))
(define (else-of c) (cadddr c))
(define (body-of c) (caddr c))

;; The environment: names (static) and values, in the same order.
(define (lookup x names values)
  (cond ((null? names) (error "MP: unbound variable" x))
        ((eq? x (car names)) (car values))
        (else (lookup x (cdr names) (cdr values)))))
(define (update x v names values)
  (cond ((null? names) (error "MP: unbound variable" x))
        ((eq? x (car names)) (cons v (cdr values)))
        (else (cons (car values) (update x v (cdr names) (cdr values))))))

(define (truth b) (if b 't '()))

(define (mp-eval e names values)
  (cond ((symbol? e) (lookup e names values))
        ((eq? (car e) 'quote) (cadr e))
        ((eq? (car e) 'car) (car (mp-eval (cadr e) names values)))
        ((eq? (car e) 'cdr) (cdr (mp-eval (cadr e) names values)))
        ((eq? (car e) 'cons) (cons (mp-eval (cadr e) names values) (mp-eval (caddr e) names values)))
        ((eq? (car e) 'atom) (truth (not (pair? (mp-eval (cadr e) names values)))))
        ((eq? (car e) 'equal) (truth (equal? (mp-eval (cadr e) names values) (mp-eval (caddr e) names values))))
        (else (error "MP: unknown expression" e))))

;; Control: the rest of the current block, and a stack of the rest of the blocks around it (a
;; while pushes itself before its body, an if what follows it before its arm). Every call is a
;; tail call, so the values are an accumulator, never returned from the arms of a test; and
;; the program points are pieces of the program text, taken whole. (Interpreting a block by a
;; recursive call that returns the values after it also leaves no names and no dispatch in the
;; residual, but the values that the arms of a residual test return are built as a list: see
;; tests/scheme/pe-mp-test.scm.) At the end, the result: the value of the first declared variable.
(define (run block stack names values result)
  (cond ((pair? block)
         (let* ((c (car block)) (kind (cmd-kind c)))
           (cond ((eq? kind ':=)
                  (run (cdr block) stack names
                       (update (assign-var c) (mp-eval (assign-expr c) names values) names values) result))
                 ((eq? kind 'if)
                  (if (null? (mp-eval (test-of c) names values))
                      (run (else-of c) (cons (cdr block) stack) names values result)
                      (run (then-of c) (cons (cdr block) stack) names values result)))
                 ((eq? kind 'while)
                  (if (null? (mp-eval (test-of c) names values))
                      (run (cdr block) stack names values result)
                      (run (body-of c) (cons block stack) names values result)))
                 (else (error "MP: unknown command" c)))))
        ((pair? stack) (run (car stack) (cdr stack) names values result))
        (else (lookup result names values))))

(define (nils l) (if (null? l) '() (cons '() (nils (cdr l)))))
(define (join a b) (if (null? a) b (cons (car a) (join (cdr a) b))))

(define (mp-run program inputs)
  (let ((names (join (program-pars program) (program-decs program))))
    (run (program-block program) '() names (join inputs (nils (program-decs program))) (car (program-decs program)))))

;; Two inputs: the interpreter specialized to a two-parameter program is a procedure of two.
(define (mp-run2 program x y) (mp-run program (list x y)))

;; Merges two lists of numbers written in unary (lists of 1s), each sorted, into one sorted
;; list: nested loops; two numbers are compared by walking them down together.
(define merge-program
  '(program (pars xs ys) (dec out a r i j k go)
     ((:= go 't)
      (while go
        ((if xs
             ((if ys
                  ((:= i (car xs)) (:= j (car ys)) (:= k 't)
                   (while k
                     ((if i
                          ((if j ((:= i (cdr i)) (:= j (cdr j))) ((:= k '()))))
                          ((:= k '())))))
                   (if i
                       ((:= r (car ys)) (:= ys (cdr ys)))
                       ((:= r (car xs)) (:= xs (cdr xs)))))
                  ((:= r (car xs)) (:= xs (cdr xs)))))
             ((if ys ((:= r (car ys)) (:= ys (cdr ys))) ((:= go '())))))
         (if go ((:= out (cons r out))) ())))
      (:= a out)
      (:= out '())
      (while a ((:= out (cons (car a) out)) (:= a (cdr a)))))))

(define compiled-mp (specialize mp-run2 merge-program))
(print-residual compiled-mp)
(define (unary k) (if (= k 0) '() (cons 1 (unary (- k 1)))))
(define xs (map unary '(0 2 3 7)))
(define ys (map unary '(1 2 5)))
(display (map length (compiled-mp xs ys))) (newline)
(display (map length (mp-run2 merge-program xs ys))) (newline)
