;;; 00-core.scm — control built on the VM's raw primitives: dynamic-wind, call/cc with winding,
;;; call-with-values, exceptions (raise, with-exception-handler) and parameterize.
;;;
;;; call/cc is the VM's: a continuation remembers %winders and %handlers when captured, and
;;; invoking it from another dynamic-wind extent or handler stack first calls %wind-and-continue
;;; (below), which walks %winders to the target extent and then sets %handlers. The handler stack
;;; is not a dynamic-wind extent: a raise passing through n non-matching guards would otherwise
;;; leave and re-enter O(n) handler extents at each guard (O(n^2) in all).

(define %winders '())

(define (call-with-values producer consumer)
  (%apply-values consumer (producer)))

;; A winder is (before after . handlers): the thunks run with the handlers of the dynamic-wind call.
(define (dynamic-wind before thunk after)
  (before)
  (set! %winders (cons (cons before (cons after %handlers)) %winders))
  (%apply-values
   (lambda results
     (set! %winders (cdr %winders))
     (after)
     (apply values results))
   (thunk)))

;; The common tail of two winders lists. An escape usually leaves a few extents (y is one of the
;; first tails of x) or enters a few: found in a few steps, not in time proportional to the
;; nesting (which made escapes from deep nests of guard, each inside a dynamic-wind, quadratic).
(define (%tail-within? x y n)
  (cond ((eq? x y) #t)
        ((or (= n 0) (null? x)) #f)
        (else (%tail-within? (cdr x) y (- n 1)))))

(define (%common-tail x y)
  (cond ((%tail-within? x y 8) y)
        ((%tail-within? y x 8) x)
        (else (%common-tail-by-length x y))))

(define (%common-tail-by-length x y)
  (let ((lx (length x)) (ly (length y)))
    (let loop ((x (if (> lx ly) (list-tail x (- lx ly)) x))
               (y (if (> ly lx) (list-tail y (- ly lx)) y)))
      (if (eq? x y) x (loop (cdr x) (cdr y))))))

;; Leaves the extents of %winders down to the common part, then enters those of target.
(define (%rewind-to target)
  (let ((common (%common-tail %winders target)))
    (let unwind ()
      (if (not (eq? %winders common))
          (let ((w (car %winders)))
            (set! %winders (cdr %winders))
            (set! %handlers (cddr w))
            ((cadr w))
            (unwind))))
    (let rewind ((l target))
      (if (not (eq? l common))
          (begin
            (rewind (cdr l))
            (set! %handlers (cddr (car l)))
            ((car (car l)))
            (set! %winders l))))))

(define (%wind-and-continue k . vals)
  (%rewind-to (%continuation-winders k))
  (set! %handlers (%continuation-handlers k))
  (apply k vals))

;;; Exceptions. A handler runs in the dynamic environment of the raise, minus itself.

(define %handlers '())

;; An escape out of thunk restores %handlers through the continuation it invokes.
(define (%with-handlers handlers thunk)
  (let ((saved %handlers))
    (set! %handlers handlers)
    (%apply-values
     (lambda results
       (set! %handlers saved)
       (apply values results))
     (thunk))))

(define (with-exception-handler handler thunk)
  ;; thunk too: called with the handler installed, a non-procedure would reach the handler
  (if (not (procedure? handler))
      (error "with-exception-handler: expected a procedure, got" handler))
  (if (not (procedure? thunk))
      (error "with-exception-handler: expected a procedure, got" thunk))
  (%with-handlers (cons handler %handlers) thunk))

;; `raise` itself is a C++ primitive: it records where it was called (an error object gets the
;; location and a backtrace) and the VM then calls %raise, as it does for a primitive's error.
(define (%raise obj)
  (let ((handlers %handlers))
    (if (null? handlers) (%uncaught obj))
    (%with-handlers
     (cdr handlers)
     (lambda ()
       ((car handlers) obj)
       (raise (%make-condition 'error #f "exception handler returned from a non-continuable raise"
                               (list obj)))))))

(define (raise-continuable obj)
  (let ((handlers %handlers))
    (if (null? handlers) (%uncaught obj))
    (%with-handlers (cdr handlers) (lambda () ((car handlers) obj)))))

;; guard's handler (the expander's guard): runs `select` on the condition in the dynamic
;; environment of the guard (escape-only continuation k) but on top of the raise's stack, so that
;; no stack is copied. select returns a thunk for the matching clause's body, which runs after the
;; escape to k, or #f: then the condition is re-raised with raise-continuable in the dynamic
;; environment of the raise, as R7RS's guard does. A continuation captured in a clause test
;; resumes the same way (k stays valid in a copy of this stack).
(define (%guard-handle k condition select)
  (let ((raise-winders %winders) (raise-handlers %handlers))
    (%rewind-to (%continuation-winders k))
    (set! %handlers (%continuation-handlers k))
    (let ((body (select condition)))
      (if body
          (k body)
          (begin
            (%rewind-to raise-winders)
            (set! %handlers raise-handlers)
            (raise-continuable condition))))))

;; The body of (case-lambda) with no clause (the expander's sf_case_lambda): every call is an
;; arity error, worded as VmImpl::enter words one for a case-lambda no clause of which fits.
(define (%no-clause-accepts . args)
  (let ((n (length args)))
    (raise (%make-condition 'arity 'case-lambda
                            (string-append "no clause accepts " (number->string n)
                                           (if (= n 1) " argument" " arguments"))
                            '()))))

;;; Parameter objects: the current value lives in the object; parameterize swaps it in and out.

(define (make-parameter init . converter)
  (let ((c (if (pair? converter) (car converter) #f)))
    (if (and c (not (procedure? c)))
        (error "make-parameter: expected a procedure as the converter, got" c))
    (%make-parameter (if c (c init) init) c)))

;; (p v) sets p's current value through its converter: VmImpl::enter (vm/call.cpp) calls this for
;; a parameter that has one (without, it stores v itself). Under parameterize it sets the
;; innermost binding, which the parameterize restores on exit.
(define (%parameter-assign p v)
  (%parameter-set! p ((%parameter-converter p) v)))

(define (%parameterize params values thunk)
  (let loop ((ps params) (vs values) (acc '()))
    (if (pair? ps)
        (let ((c (%parameter-converter (car ps))))
          (loop (cdr ps) (cdr vs) (cons (if c (c (car vs)) (car vs)) acc)))
        (let ((new (reverse acc)))
          (define (swap!)
            (let loop ((ps params) (vs new) (olds '()))
              (if (pair? ps)
                  (let ((old (%parameter-value (car ps))))
                    (%parameter-set! (car ps) (car vs))
                    (loop (cdr ps) (cdr vs) (cons old olds)))
                  (set! new (reverse olds)))))
          (dynamic-wind swap! thunk swap!)))))
