;; A user library for library-test.scm: exports a record type, a procedure, a macro and a
;; renamed binding; keeps a private helper.
(define-library (geometry points)
  (export make-point point? point-x point-y distance2 (rename private-origin origin) swap-xy!)
  (import (scheme base))
  (begin
    (define-record-type point (make-point x y) point? (x point-x set-point-x!) (y point-y set-point-y!))
    (define (sq n) (* n n))
    (define (distance2 a b)
      (+ (sq (- (point-x a) (point-x b))) (sq (- (point-y a) (point-y b)))))
    (define private-origin (make-point 0 0))
    (define-syntax swap-xy!
      (syntax-rules ()
        ((_ p) (let ((x (point-x p))) (set-point-x! p (point-y p)) (set-point-y! p x)))))))
