;;; pe-identity-test.scm — closure identity through specialized helpers (issue 13 item 6): a
;;; closure passed to a helper is rebuilt there from the helper's key, but if it escapes there
;;; (is returned, stored, passed to unknown code) the helper uses the caller's closure object,
;;; passed in, so eq? on it agrees with the original. The same for the callee itself (a named
;;; let that returns its own procedure). Before, the helper made a new procedure object.

(include "harness.scm")

(define (agree name f)
  (let ((sf (specialize f 1)))
    (for-each (lambda (d) (test (string-append name ": agrees") (f 1 d) (sf d))) '(0 1 2 3 7))))

;; returned through a loop: the same object the caller holds
(define (pass f d) (if (> d 0) (pass f (- d 1)) f))
(define (same x d) (let ((k (lambda () x))) (eq? k (pass k d))))
(agree "a closure returned by a helper is the caller's" same)
;; the callee returns itself
(define (self-loop x d) (letrec ((loop (lambda (i) (if (> i 0) (loop (- i 1)) loop)))) (eq? (loop d) loop)))
(agree "a named let returning its own procedure" self-loop)
;; compared inside the helper: the same object twice, two objects
(define (cmp f g d) (if (> d 0) (cmp f g (- d 1)) (eq? f g)))
(define (pairs x d) (let ((k (lambda () x)) (j (lambda () x))) (list (cmp k k d) (cmp k j d))))
(agree "eq? inside the helper" pairs)
;; stored in a list the helper builds and returns
(define (keep f d acc) (if (> d 0) (keep f (- d 1) (cons f acc)) acc))
(define (stored x d) (let ((k (lambda () x))) (let ((l (keep k d '()))) (and (pair? l) (eq? (car l) k) (eq? (car l) (car (reverse l)))))))
(agree "stored by the helper" stored)
;; handed to unknown code inside the helper, which keeps it
(define seen '())
(define (note! f) (set! seen (cons f seen)))
(define (hand f d) (if (> d 0) (begin (note! f) (hand f (- d 1))) 'done))
(define (handed x d) (set! seen '()) (let ((k (lambda () x))) (hand k d) (map (lambda (g) (eq? g k)) seen)))
(agree "passed to unknown code by the helper" handed)
;; a counter over set! passed through a helper and called there: one object, one count
(define (tick f d) (if (> d 0) (begin (f) (tick f (- d 1))) (f)))
(define (counter x d) (let ((n x)) (let ((c (lambda () (set! n (+ n 1)) n))) (let ((r (tick c d))) (list r n (eq? c (pass c d)))))))
(agree "a counter through a helper" counter)

(test-end)
