;;; 40-promises.scm — force, with the iterative R7RS semantics.
;;;
;;; Provides: force
;;;
;;; Uses the C++ promise primitives: (%promise-done? p), (%promise-value p) (the value when
;;; done, else the thunk), (%promise-update! p done? value).
;;;
;;; Contract with the expander: (delay-force e) is (%make-lazy-promise (lambda () e)), whose
;;; thunk returns a promise; (delay e) is a lazy promise whose thunk returns a *done* promise
;;; holding e's value, even when that value is itself a promise (so not R7RS make-promise,
;;; which returns a promise argument unchanged). A thunk that returns a non-promise is taken as
;;; the final value, so an expansion of delay as (%make-lazy-promise (lambda () e)) still works
;;; except for expressions whose value is a promise.
;;;
;;; A chain of delay-force promises runs in constant space: the promise being forced takes
;;; over the state of the promise its thunk returned, and the latter is redirected to the
;;; former (its thunk becomes (lambda () p)), so forcing it later shares the memoized result
;;; instead of recomputing it, without keeping the chain alive.

(define (force p)
  (if (promise? p)
      (let loop ()
        (if (%promise-done? p)
            (%promise-value p)
            (let ((p2 ((%promise-value p))))
              (cond ((%promise-done? p)
                     ;; Forced again while the thunk ran (re-entrant force): first result wins.
                     (loop))
                    ((not (promise? p2))
                     (%promise-update! p #t p2)
                     p2)
                    ((eq? p2 p) (loop))
                    ((%promise-done? p2)
                     (%promise-update! p #t (%promise-value p2))
                     (loop))
                    (else
                     (%promise-update! p #f (%promise-value p2))
                     (%promise-update! p2 #f (lambda () p))
                     (loop))))))
      p))
