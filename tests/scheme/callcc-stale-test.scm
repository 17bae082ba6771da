;;; callcc-stale-test.scm — a continuation captured inside a call from C++ that has returned (here a
;;; SRFI 69 hash procedure, run by hash-table-set!) cannot be resumed. The error is raised where
;;; the continuation is called, in the caller's dynamic state: a guard around the call catches it
;;; and no dynamic-wind extent is left for it (it was raised only after unwinding to the
;;; continuation's state, where no handler was: review D7). Hot loops run the calls from compiled
;;; code too; all four modes must agree.
(include "harness.scm")

(define saved #f)
(define (capturing-hash x . rest) (call/cc (lambda (k) (if (not saved) (set! saved k)) 7)))
(define table (make-hash-table equal? capturing-hash))
(hash-table-set! table 'a 1)

(define (message e) (if (error-object? e) (error-object-message e) e))
(define stale-message "continuation: cannot resume a continuation captured inside a C++ call that has returned")

(define (call-stale)
  (let ((log '()))
    (let ((r (guard (e (#t (list 'outer (message e))))
               (dynamic-wind (lambda () (set! log (cons 'before log)))
                             (lambda () (guard (e (#t (list 'inner (message e)))) (saved 7)))
                             (lambda () (set! log (cons 'after log)))))))
      (list r (reverse log)))))
(test "caught by the guard around the call, inside the extent"
      (list (list 'inner stale-message) '(before after))
      (call-stale))
(define (repeat n thunk) (let loop ((i 0) (r #f)) (if (= i n) r (loop (+ i 1) (thunk)))))
(test "the same from a hot loop" (list (list 'inner stale-message) '(before after)) (repeat 300 call-stale))
(test "with-exception-handler around the call"
      (list 'handled stale-message)
      (call/cc (lambda (out)
                 (with-exception-handler (lambda (e) (out (list 'handled (message e))))
                   (lambda () (saved 1))))))

(test-end)
