;;; math-suite.scm — times egg's math suite (tests/math.rs goals) on (quasi egraph), and e-nodes
;;; per second during saturation; writes bench/egraph/nodes.svg, e-nodes over iterations for two
;;; rule sets. Run from the repository root:  build/quasi bench/egraph/math-suite.scm [runs]
;;; Results and egg's figures beside them: bench/README.md ("E-graphs").
(import (scheme base) (scheme write) (scheme time) (scheme process-context) (scheme file)
        (scheme cxr) (quasi egraph))
(include "../../scheme/rules/egg-math.scm")

(define runs
  (let ((args (command-line)))
    (if (> (length args) 1) (string->number (cadr args)) 5)))

(define goals
  '(("simplify-add" (+ x (+ x (+ x x))) (* 4 x))
    ("powers" (* (pow 2 x) (pow 2 y)) (pow 2 (+ x y)))
    ("simplify-const" (+ 1 (- a (* (- 2 1) a))) 1)
    ("simplify-root" (/ 1 (- (/ (+ 1 (sqrt five)) 2) (/ (- 1 (sqrt five)) 2))) (/ 1 (sqrt five)))
    ("simplify-factor" (* (+ x 3) (+ x 1)) (+ (+ (* x x) (* 4 x)) 3))
    ("diff-same" (d x x) 1)
    ("diff-different" (d x y) 0)
    ("diff-simple1" (d x (+ 1 (* 2 x))) 2)
    ("diff-simple2" (d x (+ 1 (* y x))) y)
    ("diff-ln" (d x (ln x)) (/ 1 x))
    ("diff-power-simple" (d x (pow x 3)) (* 3 (pow x 2)))
    ("integ-one" (i 1 x) x)
    ("integ-sin" (i (cos x) x) (sin x))
    ("integ-x" (i (pow x 1) x) (/ (pow x 2) 2))
    ("integ-part1" (i (* x (cos x)) x) (+ (* x (sin x)) (cos x)))
    ("integ-part2" (i (* (cos x) x) x) (+ (* x (sin x)) (cos x)))
    ("integ-part3" (i (ln x) x) (- (* x (ln x)) x))))

(define (now) (/ (current-jiffy) (inexact (jiffies-per-second))))
(define (median xs)
  (let ((v (list->vector (list-sort < xs))))
    (vector-ref v (quotient (vector-length v) 2))))
(define (list-sort < xs)
  (if (null? xs) '()
      (let ((p (car xs)))
        (append (list-sort < (filter (lambda (x) (< x p)) (cdr xs)))
                (list p)
                (list-sort < (filter (lambda (x) (not (< x p))) (cdr xs)))))))
(define (filter keep? xs)
  (cond ((null? xs) '()) ((keep? (car xs)) (cons (car xs) (filter keep? (cdr xs)))) (else (filter keep? (cdr xs)))))
(define (fmt-ms s) (number->string (/ (round (* s 100000)) 100.0)))

(define (options-for name) (if (string=? name "simplify-root") '((node-limit . 75000)) '()))

;; ---- the suite: each goal proved (run stops once start and goal meet) ---------------------------
(display "goal                 median ms   proved\n")
(define total 0)
(define worst 0)
(for-each
 (lambda (g)
   (let* ((name (car g)) (start (cadr g)) (goal (caddr g))
          (times '()) (ok #t))
     (do ((r 0 (+ r 1))) ((= r runs))
       (let ((t0 (now)))
         (set! ok (and (apply prove-equal? start goal math-rules (list (options-for name))) ok))
         (set! times (cons (- (now) t0) times))))
     (let ((m (median times)))
       (set! total (+ total m))
       (set! worst (max worst m))
       (display name)
       (display (make-string (max 1 (- 21 (string-length name))) #\space))
       (display (fmt-ms m)) (display (make-string 6 #\space)) (display ok) (newline))))
 goals)
(display "suite total (sum of medians): ") (display (fmt-ms total)) (display " ms; slowest goal ")
(display (fmt-ms worst)) (display " ms\n")

;; ---- e-nodes per second: saturation runs to their stop reason -----------------------------------
(define (saturation-rate start rules opts)
  (let* ((eg (make-egraph)) (_ (egraph-add! eg start)) (n0 (egraph-node-count eg))
         (report (egraph-run! eg rules opts)))
    (list (cdr (assq 'stop-reason report)) (cdr (assq 'nodes report)) (cdr (assq 'seconds report))
          (cdr (assq 'iteration-stats report)))))
(define comm (rewrite 'comm '(+ ?a ?b) '(+ ?b ?a)))
(define assoc (rewrite 'assoc '(+ ?a (+ ?b ?c)) '(+ (+ ?a ?b) ?c)))
(define sum12 '(+ a (+ b (+ c (+ d (+ e (+ f (+ g (+ h (+ i (+ j (+ k l))))))))))))
(define math-run (saturation-rate '(i (ln x) x) math-rules '((iter-limit . 30) (node-limit . 100000))))
(define ac-run (saturation-rate sum12 (list comm assoc) '()))
(for-each
 (lambda (label r)
   (display label) (display ": stop ") (display (car r)) (display ", ") (display (cadr r))
   (display " e-nodes in ") (display (fmt-ms (caddr r))) (display " ms = ")
   (display (round (/ (cadr r) (caddr r)))) (display " e-nodes/s\n"))
 '("math rules on (i (ln x) x), node limit 100000" "AC on a 12-term sum, default limits")
 (list math-run ac-run))

;; ---- plot: e-nodes over iterations ------------------------------------------------------------
(define (series r) (map (lambda (it) (cdr (assq 'nodes it))) (cadddr r)))
(define (ln1 y) ; log(1+y) without (scheme inexact): bits of y, enough for a log-scale axis
  (let loop ((y (+ 1 y)) (n 0)) (if (< y 2) (+ n (- y 1)) (loop (/ y 2) (+ n 1)))))
(define (svg-plot file named-series)
  (let* ((w 640) (h 360) (m 50)
         (ymax (apply max 1 (apply append (map cadr named-series))))
         (xmax (apply max 1 (map (lambda (s) (- (length (cadr s)) 1)) named-series)))
         (colors '("#1f77b4" "#d62728")))
    (call-with-output-file file
      (lambda (out)
        (define (px x) (+ m (* (- w (* 2 m)) (/ x xmax))))
        (define (py y) (- h m (* (- h (* 2 m)) (/ (ln1 y) (ln1 ymax)))))
        (define (num x) (number->string (/ (round (* 10 (inexact x))) 10)))
        (display "<svg xmlns='http://www.w3.org/2000/svg' width='640' height='360' font-family='sans-serif' font-size='12'>\n" out)
        (display "<rect width='640' height='360' fill='white'/>\n" out)
        (display (string-append "<text x='320' y='20' text-anchor='middle'>e-nodes over iterations (log scale, max "
                                (number->string ymax) ")</text>\n") out)
        (display (string-append "<line x1='" (num m) "' y1='" (num (- h m)) "' x2='" (num (- w m)) "' y2='" (num (- h m))
                                "' stroke='black'/><line x1='" (num m) "' y1='" (num m) "' x2='" (num m) "' y2='"
                                (num (- h m)) "' stroke='black'/>\n") out)
        (display (string-append "<text x='320' y='" (num (- h 15)) "' text-anchor='middle'>iteration (0.." (number->string xmax)
                                ")</text>\n") out)
        (let loop ((ss named-series) (cs colors) (k 0))
          (unless (null? ss)
            (let ((pts (let l ((ys (cadr (car ss))) (i 0))
                         (if (null? ys) ""
                             (string-append (num (px i)) "," (num (py (car ys))) " " (l (cdr ys) (+ i 1)))))))
              (display (string-append "<polyline fill='none' stroke-width='2' stroke='" (car cs) "' points='" pts "'/>\n") out)
              (display (string-append "<text x='" (num (+ m 10)) "' y='" (num (+ m 15 (* 16 k))) "' fill='" (car cs) "'>"
                                      (car (car ss)) "</text>\n") out))
            (loop (cdr ss) (cdr cs) (+ k 1))))
        (display "</svg>\n" out)))))
(svg-plot "bench/egraph/nodes.svg"
          (list (list "math rules, (i (ln x) x)" (series math-run))
                (list "comm + assoc, 12-term sum" (series ac-run))))
(display "wrote bench/egraph/nodes.svg\n")
