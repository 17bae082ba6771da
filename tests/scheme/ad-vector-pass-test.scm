;;; ad-vector-pass-test.scm — a vector the differentiated code makes, written by a procedure it
;;; passes the vector to (a helper held by a global, from straight-line code or a loop) or by the
;;; lambda of a for-each / vector-for-each (lib/ad/README.md, "vector-set! on a vector the code
;;; makes"): each gradient against the same program written without mutation, and finite
;;; differences; what cannot be carried is refused, naming the procedure.
(include "harness.scm")
(include "ad-harness.scm")

(define xs '(0.3 1.0 -1.7 2.5))
;; f and its mutation-free twin g: the same values, the same gradients, finite differences
(define (same name f g)
  (for-each (lambda (x)
              (test-assert (string-append name ": value") (close? (g x) (f x)))
              (test-assert (string-append name ": gradient = mutation-free") (close? ((grad g) x) ((grad f) x)))
              (test-assert (string-append name ": finite differences") (close? (fd f x) ((grad f) x))))
            xs))

(define (fill! v i x) (vector-set! v i x))
(define (scale! v i c) (vector-set! v i (* c (vector-ref v i))))
(define (fill2! v i x) (fill! v i (* 2 x)))
(define (fill-all! v x) (do ((i 0 (+ i 1))) ((= i (vector-length v))) (vector-set! v i (* x (+ i 1)))))
(define (fill-rec! v i x) (if (< i (vector-length v)) (begin (vector-set! v i (* x i)) (fill-rec! v (+ i 1) x))))
(define (fill-ret! v i x) (vector-set! v i x) v)
(define (total v) (let loop ((i 0) (s 0.0)) (if (= i (vector-length v)) s (loop (+ i 1) (+ s (vector-ref v i))))))

;; straight-line: a helper writes, the caller reads
(define (a1 x) (let ((v (make-vector 2 1.0))) (fill! v 0 (* x x)) (+ (vector-ref v 0) (* x (vector-ref v 1)))))
(same "helper writes" a1 (lambda (x) (+ (* x x) x)))
;; the helper reads what it overwrites; the caller writes after it
(define (a2 x)
  (let ((v (vector x 2.0)))
    (scale! v 0 (sin x))
    (vector-set! v 1 (* 3.0 (vector-ref v 0)))
    (+ (vector-ref v 0) (vector-ref v 1))))
(same "helper reads and writes, caller writes after" a2 (lambda (x) (* 4.0 (sin x) x)))
;; the issue's case: a named helper called from a do loop
(define (a3 x)
  (let ((v (make-vector 3 0.0)))
    (do ((i 0 (+ i 1))) ((= i 3)) (fill! v i (* x i)))
    (+ (vector-ref v 2) (* (vector-ref v 1) (vector-ref v 2)))))
(same "helper from a loop" a3 (lambda (x) (+ (* 2 x) (* x 2 x))))
;; a helper that passes the vector on to another helper
(define (a4 x) (let ((v (make-vector 2 0.0))) (fill2! v 1 (exp x)) (* x (vector-ref v 1))))
(same "helper of a helper" a4 (lambda (x) (* x 2 (exp x))))
;; a helper with a loop of its own, then a reader helper
(define (a5 x) (let ((v (make-vector 3 0.0))) (fill-all! v (* x x)) (* (total v) (vector-ref v 2))))
(same "helper with a loop" a5 (lambda (x) (let ((y (* x x))) (* (+ y (* 2 y) (* 3 y)) (* 3 y)))))
;; a helper recursing through its global name
(define (a6 x) (let ((v (make-vector 4 1.0))) (fill-rec! v 1 (sin x)) (* (vector-ref v 0) (vector-ref v 3) (vector-ref v 2))))
(same "recursive helper" a6 (lambda (x) (* 3 (sin x) 2 (sin x))))
;; a helper returning the vector: read through the value and through the name
(define (a7 x) (let ((v (make-vector 2 1.0))) (+ (vector-ref (fill-ret! v 0 (* x x)) 0) (vector-ref v 0) (vector-ref v 1))))
(same "helper returns the vector" a7 (lambda (x) (+ (* 2 x x) 1.0)))
;; a loop calling two helpers on one vector, with a run-time length
(define (a8 x)
  (let* ((n (if (> x 0.0) 4 3)) (v (make-vector n 0.5)))
    (do ((i 0 (+ i 1))) ((= i n)) (fill! v i (* x i)) (scale! v i x))
    (total v)))
(same "two helpers in a loop" a8
      (lambda (x) (let ((n (if (> x 0.0) 4 3))) (let loop ((i 0) (s 0.0)) (if (= i n) s (loop (+ i 1) (+ s (* x x i))))))))

;; vector-for-each and for-each with a lambda writing the vector
(define (b1 x)
  (let ((v (make-vector 3 0.0)))
    (vector-for-each (lambda (i) (vector-set! v i (* x i))) (vector 0 1 2))
    (* (vector-ref v 2) (vector-ref v 1))))
(same "vector-for-each writes" b1 (lambda (x) (* 2 x x)))
(define (b2 x)
  (let ((v (make-vector 3 1.0)))
    (for-each (lambda (i) (vector-set! v i (* x (vector-ref v i) (+ i 1)))) '(0 1 2 1))
    (+ (vector-ref v 1) (vector-ref v 2))))
(same "for-each reads and writes" b2 (lambda (x) (+ (* x x 4) (* 3 x))))
;; the vector iterated over is the one written
(define (b3 x)
  (let ((v (vector x 1.0 2.0)))
    (vector-for-each (lambda (e) (vector-set! v 1 (* e (vector-ref v 1)))) v)
    (vector-ref v 1)))
(same "vector-for-each over the vector it writes" b3 (lambda (x) (* x x 2.0)))
;; for-each's lambda calling a helper, and set! of the caller's variable beside the write
(define (b4 x)
  (let ((v (make-vector 2 0.0)) (s 0.0))
    (for-each (lambda (i) (fill! v i (* x (+ i 1))) (set! s (+ s (vector-ref v i)))) '(0 1))
    (* s (vector-ref v 1))))
(same "for-each: a helper and set!" b4 (lambda (x) (* 3 x 2 x)))
;; map and vector-map (one sequence or two lists) and for-each over two lists: the same iteration
;; as a loop of this code, which carries the vector; the results are the built-ins'
(define (c1 x)
  (let ((v (make-vector 3 1.0)))
    (let ((r (map (lambda (i) (vector-set! v i (* x (vector-ref v i) (+ i 1))) (* i (vector-ref v i))) '(0 1 2))))
      (+ (apply + r) (vector-ref v 0)))))
(same "map writes, its results used" c1 (lambda (x) (+ (* 2 x) (* 2 3 x) x)))
(define (c2 x)
  (let ((v (make-vector 3 0.0)))
    (let ((r (vector-map (lambda (e) (fill! v e (* x x e)) (+ x (vector-ref v e))) (vector 2 0 1))))
      (* (vector-ref r 0) (vector-ref v 1)))))
(same "vector-map with a helper writing" c2 (lambda (x) (* (+ x (* 2 x x)) x x)))
(define (c3 x)
  (let ((v (make-vector 2 0.0)))
    (for-each (lambda (i c) (vector-set! v i (* c x (+ 1.0 (vector-ref v 0))))) '(0 1 1) '(2.0 3.0))
    (vector-ref v 1)))
(same "for-each over two lists (the shorter ends it)" c3 (lambda (x) (* 3.0 x (+ 1.0 (* 2.0 x)))))
(define (c4 x)
  (let ((v (make-vector 2 1.0)))
    (let ((r (map (lambda (i c) (vector-set! v i (* x c (vector-ref v i))) (vector-ref v i)) '(1 0) '(2.0 3.0 4.0))))
      (* (car r) (cadr r) (vector-ref v 1)))))
(same "map over two lists" c4 (lambda (x) (* (* 2.0 x) (* 3.0 x) (* 2.0 x))))
;; the results in the built-ins' order, and their value: value-and-grad against plain evaluation
(define (c5 x)
  (let ((v (make-vector 3 1.0)))
    (let ((r (map (lambda (i) (vector-set! v i (* x (+ i 1))) (* (+ i 1) (vector-ref v i))) '(2 0 1)))
          (w (vector-map (lambda (i) (vector-set! v i (* x (vector-ref v i))) (vector-ref v i)) (vector 0 2))))
      (- (* 100 (car r)) (* 10 (cadr r)) (caddr r) (* 7 (vector-ref w 1))))))
(call-with-values (lambda () ((value-and-grad c5) 1.3))
  (lambda (y g)
    (test "map, vector-map: the built-ins' value" (c5 1.3) y)
    (test-assert "map, vector-map: finite differences" (close? (fd c5 1.3) g))))
(test "map: second derivative" #t (close? (fd (grad c1) 1.2) ((derivative (grad c1)) 1.2)))
(test "vector-map: specialized" ((grad c2) 1.5) ((specialize (grad c2)) 1.5))
(call-with-values (lambda () ((vjp c4) 2.0))
  (lambda (y pb) (test "map over two lists: vjp twice" (pb 1.0) (pb 1.0))))
;; two vectors for vector-map and vector-for-each (the shorter ends it), as for two lists
(define (c6 x)
  (let ((v (make-vector 3 1.0)))
    (let ((r (vector-map (lambda (i c) (vector-set! v i (* x c (vector-ref v i))) (* c (vector-ref v i)))
                         (vector 2 0 1) (vector 2.0 3.0))))
      (+ (vector-ref r 0) (* (vector-ref r 1) (vector-ref v 2))))))
(same "vector-map over two vectors" c6 (lambda (x) (+ (* 4.0 x) (* 9.0 x 2.0 x))))
(test "vector-map over two vectors: the built-in's value" (vector-length (let ((v (make-vector 3 1.0))) (vector-map (lambda (i c) (vector-set! v i c) c) (vector 2 0 1) (vector 2.0 3.0)))) 2)
(call-with-values (lambda () ((value-and-grad c6) 1.3))
  (lambda (y g) (test "vector-map over two vectors: value" (c6 1.3) y)))
(define (c7 x)
  (let ((v (make-vector 2 0.0)))
    (vector-for-each (lambda (i c) (vector-set! v i (* c x (+ 1.0 (vector-ref v 0))))) (vector 0 1 1) (vector 2.0 3.0))
    (vector-ref v 1)))
(same "vector-for-each over two vectors" c7 (lambda (x) (* 3.0 x (+ 1.0 (* 2.0 x)))))
(test-assert "vector-for-each over two vectors: second derivative" (close? (fd (grad c7) 0.9) ((derivative (grad c7)) 0.9)))
(test "vector-map over two vectors: specialized" ((grad c6) 1.5) ((specialize (grad c6)) 1.5))
(test-error-message "vector-map: the second is not a vector" "vector-map: expected a vector, got"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (vector-map (lambda (i j) (vector-set! v 0 x)) (vector 0) (list 0)) (vector-ref v 0)))) 1.0))
(test-error-message "vector-for-each: the first is not a vector" "vector-for-each: expected a vector, got"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (vector-for-each (lambda (i j) (vector-set! v 0 x)) 7 (vector 0)) (vector-ref v 0)))) 1.0))
;; a helper held by a let variable (the optimizer inlines it, QUASI_PASSES=off does not): called in
;; its carrying form like a global helper
(define (l1 x)
  (let ((v (make-vector 2 0.0))
        (put! (lambda (w i y) (vector-set! w i (* y (+ 1.0 (vector-ref w 0)))))))
    (put! v 0 (* x x))
    (put! v 1 (* 3.0 x))
    (put! v 1 (* x (vector-ref v 1)))
    (* (vector-ref v 0) (vector-ref v 1))))
(same "a helper in a let variable" l1
      (lambda (x) (let* ((a (* x x)) (b (* 3.0 x (+ 1.0 a)))) (* a (* x b (+ 1.0 a))))))
(test-assert "a helper in a let variable: second derivative" (close? (fd (grad l1) 1.1) ((derivative (grad l1)) 1.1)))
(test "a helper in a let variable: specialized" ((grad l1) 1.5) ((specialize (grad l1)) 1.5))
(call-with-values (lambda () ((vjp l1) 2.0))
  (lambda (y pb) (test "a helper in a let variable: vjp twice" (pb 1.0) (pb 1.0))))
(define (l2 x)
  (let ((v (make-vector 1 0.0)) (kept '()))
    (let ((keep (lambda (w) (set! kept (cons w kept)) (vector-set! w 0 x))))
      (keep v)
      (keep v)
      (vector-ref v 0))))
(test-error-message "a helper in a let variable that keeps the vector" "vector-set!" ((grad l2) 2.0))
(define (l3 x)
  (let* ((v (make-vector 2 0.0))
         (put! (lambda (w i y) (vector-set! w i y) w)))
    ;; the operator is an expression giving the helper, not its variable
    (let ((w2 ((begin (display "") put!) v 0 (* x x))))
      (vector-set! v 1 x)
      (vector-set! w2 1 x)
      (* (vector-ref w2 0) (vector-ref v 1)))))
(test-error-message "a local helper returning the vector, called through an expression, is named"
                    "(returned by put!)" ((grad l3) 2.0))
;; the built-ins' errors, unchanged
(test-error-message "map over an improper list" "map"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (map (lambda (i) (vector-set! v 0 x)) '(0 . 1)) (vector-ref v 0)))) 1.0))
(test-error-message "for-each: an improper second list" "for-each"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (for-each (lambda (i j) (vector-set! v 0 x)) '(0 1) '(0 . 1)) (vector-ref v 0)))) 1.0))
(test-error-message "vector-map over a list" "vector-map: expected a vector"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (vector-map (lambda (i) (vector-set! v 0 x)) (list 0)) (vector-ref v 0)))) 1.0))
;; still refused, clearly: three lists, the vector passed twice in one call, a case-lambda helper
(test-error-message "for-each over three lists" "vector-set!"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (for-each (lambda (i j k) (vector-set! v 0 (* x i))) '(1) '(2) '(3)) (vector-ref v 0)))) 1.0))
(define (fill-both! v w i x) (vector-set! v i x) (vector-set! w i (* 2 (vector-ref v i))))
(test-error-message "passed twice in one call" "vector-set!"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (fill-both! v v 0 (* x x)) (vector-ref v 0)))) 1.0))
(define fill-c! (case-lambda ((v i x) (vector-set! v i x)) ((v x) (vector-set! v 0 x))))
(test-error-message "a case-lambda helper" "vector-set!"
                    ((grad (lambda (x) (let ((v (make-vector 1 0.0))) (fill-c! v (* x x)) (vector-ref v 0)))) 1.0))

;; nested derivatives, vjp twice, specialize
(define (a3-pure x) (+ (* 2 x) (* x 2 x)))
(test-assert "helper from a loop: second derivative" (close? (fd (grad a3-pure) 1.5) ((derivative (grad a3)) 1.5)))
(test-assert "helper from a loop: hessian"
  (close? 4.0 (vector-ref (vector-ref ((hessian (lambda (v) (a3 (vector-ref v 0)))) (vector 1.5)) 0) 0)))
(test "helper from a loop: specialized" ((grad a3) 1.5) ((specialize (grad a3)) 1.5))
(test "vector-for-each: specialized" ((grad b1) 1.5) ((specialize (grad b1)) 1.5))
(call-with-values (lambda () ((vjp a1) 2.0))
  (lambda (y pb) (test "vjp twice" (pb 1.0) (pb 1.0))))

;; refused: a helper that keeps the vector, then a write
(define (keep! v) (cons v '()))  ; the vector in a pair the caller could keep
(define (r1 x) (let ((v (make-vector 1 0.0))) (keep! v) (fill! v 0 (* x x)) (vector-ref v 0)))
;; the refusal names where the vector escaped (keep!, in r1), the place to change, not only the
;; writer (fill!)
(test-error-message "kept by a helper, then written" "vector-set!" ((grad r1) 2.0))
(test-error-message "kept by a helper, then written by a helper: names the keeper" "passed to keep! in r1) in fill!" ((grad r1) 2.0))
(define (r1-direct x) (let ((v (make-vector 1 0.0))) (keep! v) (vector-set! v 0 (* x x)) (vector-ref v 0)))
(test-error-message "kept by a helper, then written here: names the keeper" "(passed to keep!) in r1-direct" ((grad r1-direct) 2.0))
(define (r1-stored x) (let* ((v (make-vector 1 0.0)) (p (cons v '()))) (fill! v 0 (* x x)) (+ (vector-ref v 0) (length p))))
(test-error-message "stored in a pair, then written by a helper" "(given to cons in r1-stored) in fill!" ((grad r1-stored) 2.0))
(define (r1-if x)
  (let* ((v (make-vector 1 0.0)) (w (if (> x 0) v (vector 1.0))))
    (vector-set! v 0 (* x x))
    (+ (vector-ref v 0) (vector-ref w 0))))
(test-error-message "the value of an if, then written" "(returned by an if) in r1-if" ((grad r1-if) 2.0))
;; a helper that only reads an escaped vector is no reason to refuse
(define (r1-read x) (let ((v (make-vector 1 x))) (keep! v) (* x (total v))))
(test "kept, then read by a helper: 2x" 4.0 ((grad r1-read) 2.0))
(define (r2 x)
  (let ((v (make-vector 2 0.0)))
    (for-each (lambda (i) (keep! v) (vector-set! v i (* x i))) '(0 1))
    (vector-ref v 1)))
(test-error-message "for-each's lambda keeps it" "vector-set!" ((grad r2) 2.0))
(test-error-message "for-each's lambda keeps it: names the keeper" "(passed to keep! in a loop of r2)" ((grad r2) 2.0))
(define (r2-pair x)
  (let ((v (make-vector 2 0.0)))
    (do ((i 0 (+ i 1))) ((= i 2)) (vector-set! v i (* x i (length (vector->list v)))))
    (vector-ref v 1)))
(test-error-message "a do loop gives it to a primitive: names it" "(given to vector->list in a loop of r2-pair)" ((grad r2-pair) 2.0))
;; a loop that only reads a vector it cannot carry: no refusal
(define (r2-read x)
  (let ((v (make-vector 2 x)))
    (for-each (lambda (i) (keep! v) (vector-ref v i)) '(0 1))
    (* x (vector-ref v 1))))
(test "a loop keeps and reads it: 2x" 4.0 ((grad r2-read) 2.0))
;; the helper's global holds a procedure that keeps the vector by the time the gradient runs
(define (put! v i x) (vector-set! v i x))
(define (r3 x) (let ((v (make-vector 1 0.0))) (put! v 0 (* x x)) (vector-ref v 0)))
(test "a helper: 2x" 4.0 ((grad r3) 2.0))
(define (put! v i x) (keep! v) (vector-set! v i x))
(test-error-message "the helper changed to one that keeps it" "put!" ((grad r3) 2.0))

(test-end)
