;;; pe-mp-test.scm — the MP interpreter of scheme/examples/mp.scm (Sestoft's small imperative
;;; language over S-expressions: while-loops, assignments, cons/car/cdr, variables in an
;;; environment of names and values) specialized to fixed MP programs: no interpreter is left in
;;; the residual — no dispatch on commands or expressions, no variable names, no program text —
;;; and every residual agrees with the interpreter, on inputs that raise too.

(include "harness.scm")
(include "../../scheme/examples/mp.scm")

(define (flat x) (if (pair? x) (append (flat (car x)) (flat (cdr x))) (list x)))
(define (quoted-list? x)
  (and (pair? x) (if (eq? (car x) 'quote) (pair? (cadr x)) (or (quoted-list? (car x)) (quoted-list? (cdr x))))))
(define (quoted-symbols x)
  (cond ((not (pair? x)) '())
        ((and (eq? (car x) 'quote) (pair? (cdr x)) (symbol? (cadr x))) (list (cadr x)))
        (else (append (quoted-symbols (car x)) (quoted-symbols (cdr x))))))
(define (no-interpreter-left? name r allowed)
  (test (string-append name ": no program text") #f (quoted-list? r))
  ;; The only quoted symbols left are MP values the program itself makes (t), never variable
  ;; names or command and expression keywords.
  (test (string-append name ": no names or keywords") '()
        (let loop ((l (quoted-symbols r)) (out '()))
          (cond ((null? l) (reverse out))
                ((memq (car l) allowed) (loop (cdr l) out))
                (else (loop (cdr l) (cons (car l) out))))))
  (test (string-append name ": no dispatch, no look-ups") #f
        (let ((all (flat r)))
          (or (and (memq 'eq? all) #t) (and (memq 'error all) #t)))))

(define (outcome thunk) (guard (e (#t 'raised)) (thunk)))
(define (agree name prog compiled inputs)
  (for-each (lambda (in)
              (test (string-append name " agrees")
                    (outcome (lambda () (mp-run2 prog (car in) (cadr in))))
                    (outcome (lambda () (compiled (car in) (cadr in))))))
            inputs))

;; Pseudo-random data, the same every run.
(define seed 12345)
(define (rand k) (set! seed (modulo (+ (* seed 1103515245) 12345) 2147483648)) (modulo (quotient seed 65536) k))
(define (sorted-unary n) ; n numbers in ascending order, each a list of 1s
  (let loop ((i 0) (last 0) (acc '()))
    (if (= i n) (reverse acc)
        (let ((v (+ last (rand 3)))) (loop (+ i 1) v (cons (unary v) acc))))))

;; The example's merge program (nested loops, an if inside a while).
(define r (residual compiled-mp))
(no-interpreter-left? "merge" r '(t))
(define merge-inputs
  (append
   (list (list '() '()) (list '() (list (unary 2))) (list (list (unary 1)) '())
         (list xs ys) (list ys xs)
         ;; not lists of lists of 1s: the original raises or computes; the residual must agree
         (list 5 '()) (list '() 'x) (list (list 3) (list (unary 1))) (list '(()) '(())))
   (let loop ((k 0) (acc '()))
     (if (= k 60) acc (loop (+ k 1) (cons (list (sorted-unary (rand 6)) (sorted-unary (rand 6))) acc))))))
(agree "merge" merge-program compiled-mp merge-inputs)
(test "merge sorts" '(0 1 1 2 2 3 4)
      (map length (compiled-mp (map unary '(1 2 4)) (map unary '(0 1 2 3)))))

;; Equality and atoms: the elements of xs that occur in ys, in order, each paired with whether
;; it is an atom.
(define member-program
  '(program (pars xs ys) (dec out p found)
     ((while xs
        ((:= p ys) (:= found '())
         (while p
           ((if (equal (car p) (car xs)) ((:= found 't) (:= p '())) ((:= p (cdr p))))))
         (if found ((:= out (cons (cons (car xs) (atom (car xs))) out))) ())
         (:= xs (cdr xs))))
      (:= p out) (:= out '())
      (while p ((:= out (cons (car p) out)) (:= p (cdr p)))))))
(define compiled-member (specialize mp-run2 member-program))
(no-interpreter-left? "member" (residual compiled-member) '(t))
(define (random-item) (case (rand 5) ((0) 'a) ((1) 'b) ((2) (list 'a)) ((3) '()) (else (rand 3))))
(define (random-list n) (if (= n 0) '() (cons (random-item) (random-list (- n 1)))))
(agree "member" member-program compiled-member
       (append (list (list '() '()) (list '(a b c) '(c a)) (list '((1) 2 x) '(x (1))) (list '(a) 7) (list 7 '(a)))
               (let loop ((k 0) (acc '()))
                 (if (= k 60) acc (loop (+ k 1) (cons (list (random-list (rand 7)) (random-list (rand 7))) acc))))))

;; The same language interpreted in direct style: a block is a recursive call returning the
;; values after it, so the arms of a residual test return the values (built as a list, which
;; escapes). The names passed next to them do not escape with them (Entry::input_escaped): no
;; names and no dispatch are left either (before, the whole environment escaped and the
;; residual looked names up at run time).
(define (exec-block block names values)
  (if (null? block) values (exec-block (cdr block) names (exec-cmd (car block) names values))))
(define (exec-cmd c names values)
  (let ((kind (cmd-kind c)))
    (cond ((eq? kind ':=) (update (assign-var c) (mp-eval (assign-expr c) names values) names values))
          ((eq? kind 'if)
           (if (null? (mp-eval (test-of c) names values))
               (exec-block (else-of c) names values)
               (exec-block (then-of c) names values)))
          ((eq? kind 'while) (exec-while c names values))
          (else (error "MP: unknown command" c)))))
(define (exec-while c names values)
  (if (null? (mp-eval (test-of c) names values))
      values
      (exec-while c names (exec-block (body-of c) names values))))
(define (mp-run-direct program x y)
  (let ((names (join (program-pars program) (program-decs program))))
    (lookup (car (program-decs program)) names
            (exec-block (program-block program) names (join (list x y) (nils (program-decs program)))))))
(define direct-merge (specialize mp-run-direct merge-program))
(no-interpreter-left? "direct merge" (residual direct-merge) '(t))
(for-each (lambda (in)
            (test "direct merge agrees"
                  (outcome (lambda () (mp-run2 merge-program (car in) (cadr in))))
                  (outcome (lambda () (direct-merge (car in) (cadr in))))))
          merge-inputs)
(define direct-member (specialize mp-run-direct member-program))
(no-interpreter-left? "direct member" (residual direct-member) '(t))
(test "direct member agrees" (mp-run2 member-program '(a (1) b 2) '(2 b (1))) (direct-member '(a (1) b 2) '(2 b (1))))

;; A program that reads an undeclared variable: the interpreter raises, and so does the residual.
(define bad-program '(program (pars xs ys) (dec out) ((:= out (cons zs xs)))))
(test "an unbound MP variable raises in the residual too" 'raised
      (outcome (lambda () ((specialize mp-run2 bad-program) '(1) '(2)))))

(test-end)
