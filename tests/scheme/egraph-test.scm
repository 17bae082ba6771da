;;; egraph-test.scm — (quasi egraph): building, union and rebuild, constant folding, rules and
;;; conditions, the runner's limits and report, extraction with a cost, Graphviz, errors; and
;;; egg's own tests ported (egraphs-good/egg tests/math.rs and tests/prop.rs: the rules, goals,
;;; a goal that must not be proved, a run that saturates, the 127-class associativity run).
(import (scheme base) (scheme write) (scheme cxr) (scheme process-context) (quasi egraph))
(include "harness.scm")
(include "../../scheme/rules/egg-math.scm")  ; math-rules, not-zero

(define (alist-ref key alist) (cdr (assq key alist)))

;; ---- building -----------------------------------------------------------------------------
(define eg (make-egraph))
(define fx (egraph-add! eg '(f x)))
(define fy (egraph-add! eg '(f y)))
(define x (egraph-add! eg 'x))
(define y (egraph-add! eg 'y))
(test "ids are exact integers" #t (and (exact-integer? fx) (exact-integer? x)))
(test "hash-consing" fx (egraph-add! eg '(f x)))
(test "node count" 4 (egraph-node-count eg))
(test "class count" 4 (egraph-class-count eg))
(test "union says it merged" #t (egraph-union! eg x y))
(test "union again says no" #f (egraph-union! eg x y))
(test "not congruent before rebuild" #f (egraph-equal? eg fx fy))
(egraph-rebuild! eg)
(test "congruent after rebuild" #t (egraph-equal? eg fx fy))
(test "find is canonical" (egraph-find eg fx) (egraph-find eg fy))
(test "class count after" 2 (egraph-class-count eg))
(test "nodes of a leaf class" 2 (length (egraph-nodes eg x)))
(test "nodes of an application class" (list (list 'f (egraph-find eg x))) (egraph-nodes eg fx))

;; ---- constant folding ------------------------------------------------------------------------
(define cf (make-egraph))
(define s (egraph-add! cf '(+ 1 (* 2 3))))
(test "folded" 7 (egraph-constant cf s #f))
(test "pruned to the constant's leaf" '(7) (egraph-nodes cf s))
(test "exact stays exact" 1/3 (egraph-constant cf (egraph-add! cf '(/ 1 3)) #f))
(test "inexact folds inexact" 1.5 (egraph-constant cf (egraph-add! cf '(* 0.5 3)) #f))
(test "a raising fold is not done" 'none (egraph-constant cf (egraph-add! cf '(/ 1 0)) 'none))
(test "unknown leaves: no constant" 'none (egraph-constant cf (egraph-add! cf '(+ a 1)) 'none))
(let* ((e (egraph-add! cf '(* (+ z 1) 2)))
       (z (egraph-add! cf 'z)))
  (egraph-union! cf z (egraph-add! cf 4))
  (egraph-rebuild! cf)
  (test "a union teaches parents their constant" 10 (egraph-constant cf e #f))
  (test "and extraction returns it" 10 (egraph-extract cf e)))
(define nofold (make-egraph '()))
(test "'() folds nothing" #f (egraph-constant nofold (egraph-add! nofold '(+ 1 2)) #f))
(define withexpt (make-egraph (quote (+ expt))))
(test "expt folds when asked" 1024 (egraph-constant withexpt (egraph-add! withexpt '(expt 2 10)) #f))
(test "* is not folded then" #f (egraph-constant withexpt (egraph-add! withexpt '(* 2 10)) #f))
(test "a leaf number is a constant" 5 (egraph-constant nofold (egraph-add! nofold 5) #f))
(test "1 and 1.0 are different leaves" #f
      (egraph-equal? nofold (egraph-add! nofold 1) (egraph-add! nofold 1.0)))
(test "strings and symbols differ" #f
      (egraph-equal? nofold (egraph-add! nofold "a") (egraph-add! nofold 'a)))

;; ---- rules, run, report ----------------------------------------------------------------------
(define comm (rewrite 'comm '(+ ?a ?b) '(+ ?b ?a)))
(define assoc (rewrite 'assoc '(+ ?a (+ ?b ?c)) '(+ (+ ?a ?b) ?c)))
(test "rule name" 'comm (rewrite-name comm))
(test "birewrite makes two" 2 (length (birewrite 'x '(f ?a) '(g ?a))))
(let* ((g (make-egraph '()))
       (r (egraph-add! g '(+ a (+ b c))))
       (report (egraph-run! g (list comm (list assoc)))))
  (test "saturated" 'saturated (alist-ref 'stop-reason report))
  (test "iteration stats per iteration" (alist-ref 'iterations report)
        (length (alist-ref 'iteration-stats report)))
  (test "stats have matches" #t (exact-integer? (alist-ref 'matches (car (alist-ref 'iteration-stats report)))))
  (test "seconds" #t (real? (alist-ref 'seconds report)))
  (test "(+ c (+ b a)) is there" #t (egraph-equal? g r (egraph-add! g '(+ c (+ b a)))))
  (test "report: classes is the class count" (alist-ref 'classes report)
        (egraph-class-count g)))
(let* ((g (make-egraph '()))
       (r (egraph-add! g '(+ a (+ b (+ c (+ d (+ e (+ f (+ g (+ h (+ i (+ j (+ k l)))))))))))))
       (report (egraph-run! g (list comm assoc) '((time-limit . 5.0)))))
  (test "12-term AC blows up to the node limit" 'node-limit (alist-ref 'stop-reason report))
  (test "within the time limit plus 10%" #t (< (alist-ref 'seconds report) 5.5))
  (test "still usable: extraction" 23
        (let count ((t (egraph-extract g r (lambda (op kids) (apply + 1 kids)))))
          (if (pair? t) (apply + 1 (map count (cdr t))) 1)))
  (test "still usable: congruence" #t
        (begin (egraph-union! g (egraph-add! g 'a) (egraph-add! g 'b))
               (egraph-rebuild! g)
               (egraph-equal? g (egraph-add! g '(+ a a)) (egraph-add! g '(+ b b))))))
(let* ((g (make-egraph '()))
       (r (egraph-add! g '(+ a (+ b (+ c d)))))
       (report (egraph-run! g (list comm assoc) '((iter-limit . 2) (scheduler . simple)))))
  (test "iteration limit" 'iteration-limit (alist-ref 'stop-reason report))
  (test "two iterations" 2 (alist-ref 'iterations report)))

;; Conditional rules: the condition sees the e-graph and the match (not-zero is egg-math.scm's).
(define cancel-div (rewrite 'cancel-div '(/ ?a ?a) 1 (not-zero '?a)))
(let* ((g (make-egraph))
       (a (egraph-add! g '(/ x x)))
       (b (egraph-add! g '(/ (- y y) (- y y)))))
  (egraph-union! g (egraph-add! g '(- y y)) (egraph-add! g 0))
  (egraph-run! g (list cancel-div))
  (test "condition true: rewritten" 1 (egraph-extract g a))
  (test "condition false: not rewritten" #f (egraph-equal? g b (egraph-add! g 1))))

;; Extraction with a cost function; (a*2)/2 as in the seed.
(define shift-rules
  (list (rewrite 'mul2-shift '(* ?a 2) '(arithmetic-shift ?a 1))
        (rewrite 'div-mul '(/ (* ?a ?b) ?c) '(* ?a (/ ?b ?c)))
        (rewrite 'div-self '(/ ?a ?a) 1 (not-zero '?a))
        (rewrite 'mul-one '(* ?a 1) '?a)))
(test "(a*2)/2 simplifies to a" 'a (simplify '(/ (* a 2) 2) shift-rules))
;; Greedy rewriting in one direction (mul2-shift first, as a peephole pass would) takes the
;; wrong turn and is stuck: nothing rewrites (/ (arithmetic-shift a 1) 2).
(define (greedy term rules-in-order)
  (define (rw t)
    (cond ((and (pair? t) (eq? (car t) '*) (equal? (caddr t) 2)) (list 'arithmetic-shift (rw (cadr t)) 1))
          ((pair? t) (cons (car t) (map rw (cdr t))))
          (else t)))
  (rw term))
(test "greedy takes the wrong turn" '(/ (arithmetic-shift a 1) 2) (greedy '(/ (* a 2) 2) shift-rules))
(let* ((g (make-egraph '()))
       (e (egraph-add! g '(f (g a) (g a)))))
  (egraph-union! g e (egraph-add! g '(h a a a)))
  (egraph-rebuild! g)
  (test "default cost: smallest" '(h a a a) (egraph-extract g e))
  (test "custom cost: leaves expensive" '(f (g a) (g a))
        (egraph-extract g e (lambda (op kids) (+ (if (null? kids) 10 1) (apply + kids))))))

;; Graphviz
(let* ((g (make-egraph '())) (out (open-output-string)))
  (egraph-add! g '(+ a "str"))
  (egraph->dot g out)
  (let ((text (get-output-string out)))
    (test "dot: a digraph" "digraph" (substring text 0 7))
    (test "dot: clusters" #t
          (let loop ((i 0))
            (and (<= (+ i 8) (string-length text))
                 (or (string=? (substring text i (+ i 8)) "cluster_") (loop (+ i 1))))))))

;; ---- errors ----------------------------------------------------------------------------------
(test-error-message "rhs variable unbound" "?b" (rewrite 'bad '(+ ?a 0) '(+ ?a ?b)))
(test-error-message "rhs variable unbound names the procedure" "rewrite" (rewrite 'bad '(+ ?a 0) '?c))
(test-error-message "pattern not a datum" "not a term" (rewrite 'bad (vector 1) 'x))
(test-error-message "operator not a symbol" "not a term" (egraph-add! eg '((f) x)))
(test-error-message "improper term" "improper" (egraph-add! eg '(f x . y)))
(test-error-message "rules not a list" "egraph-run!" (egraph-run! eg 5))
(test-error-message "unknown option" "unknown option" (egraph-run! eg '() '((iter-limt . 3))))
(test-error-message "bad scheduler" "scheduler" (egraph-run! eg '() '((scheduler . fast))))
(test-error-message "bad id" "e-class id" (egraph-find eg 100000))
(test-error-message "not an e-graph" "e-graph" (egraph-find 5 0))
(test-error-message "unknown fold operator" "no primitive procedure" (make-egraph '(no-such-procedure)))
(test-error "a raising condition propagates"
            (let ((g (make-egraph)))
              (egraph-add! g '(+ a b))
              (egraph-run! g (list (rewrite 'r '(+ ?a ?b) '(+ ?b ?a) (lambda (eg s) (car 5)))))))
(test-error-message "no run from a condition" "being run"
                    (let ((g (make-egraph)))
                      (egraph-add! g '(+ a b))
                      (egraph-run! g (list (rewrite 'r '(+ ?a ?b) '(+ ?b ?a)
                                                    (lambda (eg s) (egraph-run! eg '()) #t))))))

(test-error-message "no change from a condition" "being run"
                    (let ((g (make-egraph)))
                      (egraph-add! g '(+ a b))
                      (egraph-run! g (list (rewrite 'r '(+ ?a ?b) '(+ ?b ?a)
                                                    (lambda (eg s) (egraph-add! eg 'c) #t))))))
(test-error-message "no change from a cost function" "being run"
                    (let* ((g (make-egraph)) (r (egraph-add! g '(+ a b))))
                      (egraph-extract g r (lambda (op kids) (egraph-union! g 0 1) 1))))
(test "the e-graph is usable after an error in a run" #t
      (let ((g (make-egraph)))
        (egraph-add! g '(+ a b))
        (guard (e (#t #f))
          (egraph-run! g (list (rewrite 'r '(+ ?a ?b) '(+ ?b ?a) (lambda (eg s) (car 5))))))
        (egraph-run! g (list comm))
        (egraph-equal? g (egraph-add! g '(+ a b)) (egraph-add! g '(+ b a)))))

;; ---- egg's tests/math.rs ---------------------------------------------------------------------
(define (math-goal name start goal . options)
  (test name #t (apply prove-equal? start goal math-rules options)))

(math-goal "math: simplify add" '(+ x (+ x (+ x x))) '(* 4 x))
(math-goal "math: powers" '(* (pow 2 x) (pow 2 y)) '(pow 2 (+ x y)))
(math-goal "math: simplify const" '(+ 1 (- a (* (- 2 1) a))) 1)
(math-goal "math: simplify root"
           '(/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2))) '(/ 1 (sqrt five))
           '((node-limit . 75000)))
(math-goal "math: simplify factor" '(* (+ x 3) (+ x 1)) '(+ (+ (* x x) (* 4 x)) 3))
(math-goal "math: diff same" '(d x x) 1)
(math-goal "math: diff different" '(d x y) 0)
(math-goal "math: diff simple 1" '(d x (+ 1 (* 2 x))) 2)
(math-goal "math: diff simple 2" '(d x (+ 1 (* y x))) 'y)
(math-goal "math: diff ln" '(d x (ln x)) '(/ 1 x))
(math-goal "math: diff power simple" '(d x (pow x 3)) '(* 3 (pow x 2)))
(math-goal "math: integral one" '(i 1 x) 'x)
(math-goal "math: integral sin" '(i (cos x) x) '(sin x))
(math-goal "math: integral x" '(i (pow x 1) x) '(/ (pow x 2) 2))
(math-goal "math: integral parts 1" '(i (* x (cos x)) x) '(+ (* x (sin x)) (cos x)))
(math-goal "math: integral parts 2" '(i (* (cos x) x) x) '(+ (* x (sin x)) (cos x)))
(math-goal "math: integral parts 3" '(i (ln x) x) '(- (* x (ln x)) x))
(test "math: a goal that must not be proved" #f (prove-equal? '(+ x y) '(/ x y) math-rules))
(let ((g (make-egraph)))
  (egraph-add! g '(* x 1))
  (test "math: (* x 1) saturates" 'saturated
        (alist-ref 'stop-reason (egraph-run! g math-rules '((iter-limit . 3))))))
(let* ((g (make-egraph '()))
       (r (egraph-add! g '(+ 1 (+ 2 (+ 3 (+ 4 (+ 5 (+ 6 7))))))))
       (report (egraph-run! g (list comm assoc) '((iter-limit . 7) (scheduler . simple)))))
  (test "math: associate adds, 127 classes" 127 (egraph-class-count g))
  (test "math: associate adds, goal" #t
        (egraph-equal? g r (egraph-add! g '(+ 7 (+ 6 (+ 5 (+ 4 (+ 3 (+ 2 1))))))))))
(test "math: simplify extracts the smallest" '(* 4 x)
      (let ((t (simplify '(+ x (+ x (+ x x))) math-rules)))
        (if (equal? t '(* x 4)) '(* 4 x) t)))

;; ---- egg's tests/prop.rs (the rules without the multipattern) -----------------------------
(define prop-rules
  (append (birewrite 'def-imply '(-> ?a ?b) '(or (not ?a) ?b))
          (list (rewrite 'double-neg-flip '?a '(not (not ?a)))
                (rewrite 'comm-or '(or ?a ?b) '(or ?b ?a)))))
(for-each
 (lambda (goal)
   (test (string-append "prop: contrapositive to " (let ((o (open-output-string))) (write goal o) (get-output-string o)))
         #t (prove-equal? '(-> x y) goal prop-rules '((iter-limit . 20) (node-limit . 5000)))))
 '((-> x y) (or (not x) y) (or (not x) (not (not y))) (or (not (not y)) (not x)) (-> (not y) (not x))))
(define bool-rules
  (list (rewrite 'and-true '(and ?a #t) '?a) (rewrite 'and-false '(and ?a #f) #f)
        (rewrite 'comm-and '(and ?a ?b) '(and ?b ?a)) (rewrite 'or-false '(or ?a #f) '?a)
        (rewrite 'comm-or '(or ?a ?b) '(or ?b ?a))))
(test "prop: constant folding by rules" #f (simplify '(or (and #f #t) (and #t #f)) bool-rules))

(test-end)
