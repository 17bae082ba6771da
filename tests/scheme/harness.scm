;;; harness.scm — the tiny test framework of Quasi's Scheme-level tests.
;;;
;;; A test file starts with (include "harness.scm") and ends with (test-end). It is run with the
;;; working directory tests/scheme.
;;;
;;;   (test name expected expr)          passes when (equal? expected expr); an exception raised
;;;                                      by expr is a failure, not a crash
;;;   (test-assert name expr)            passes when expr is true
;;;   (test-approx name expected expr)   passes when |expected - expr| <= 1e-9 * max(1, |expected|)
;;;   (test-error name expr)             passes when evaluating expr raises anything
;;;   (test-error name pred expr)        ... and the raised object satisfies pred (#t: anything)
;;;   (test-error-message name "sub" expr)
;;;                                      passes when expr raises an object whose text contains
;;;                                      "sub": for an error object, its message displayed then
;;;                                      each irritant displayed after a space; otherwise the
;;;                                      object written
;;;   (test-end)                         prints "N passed, N failed" on its own line and exits
;;;                                      with status 0 when nothing failed, 1 otherwise
;;;
;;; Only failures print a line: "FAIL name: expected X, got Y". expr is evaluated lazily (the
;;; forms are macros wrapping it in a thunk). A continuation captured inside one test's expr
;;; must not be re-entered from another test: keep call/cc experiments inside one expression.
;;;
;;; Names used here start with %test- so test files can define anything else.

(define %test-passed 0)
(define %test-failed 0)

(define (%test-pass!)
  (set! %test-passed (+ %test-passed 1)))

(define (%test-fail! name . parts)
  (set! %test-failed (+ %test-failed 1))
  (let ((out (current-output-port)))
    (display "FAIL " out)
    (display name out)
    (display ": " out)
    (for-each (lambda (p) (display p out)) parts)
    (newline out)
    (flush-output-port out)))

(define (%test-written x)
  (let ((out (open-output-string)))
    (write x out)
    (get-output-string out)))

;; The text of a raised object, as described above.
(define (%test-condition-text e)
  (let ((out (open-output-string)))
    (if (error-object? e)
        (begin
          (display (error-object-message e) out)
          (let ((irritants (error-object-irritants e)))
            (if (list? irritants)
                (for-each (lambda (x) (display " " out) (display x out)) irritants))))
        (write e out))
    (get-output-string out)))

(define (%test-describe-raised e)
  (string-append "raised " (%test-condition-text e)))

;; Calls thunk. Returns (ok . value) when it returns, (raised . object) when it raises.
(define (%test-run thunk)
  (call-with-current-continuation
   (lambda (k)
     (with-exception-handler
      (lambda (e) (k (cons 'raised e)))
      (lambda () (cons 'ok (thunk)))))))

(define (%test-string-contains? s sub)
  (let ((n (string-length s)) (m (string-length sub)))
    (let loop ((i 0))
      (cond ((> (+ i m) n) #f)
            ((string=? (substring s i (+ i m)) sub) #t)
            (else (loop (+ i 1)))))))

(define (%test-check name expected thunk)
  (let ((r (%test-run thunk)))
    (cond ((not (eq? (car r) 'ok))
           (%test-fail! name "expected " (%test-written expected) ", "
                        (%test-describe-raised (cdr r))))
          ((equal? expected (cdr r)) (%test-pass!))
          (else
           (%test-fail! name "expected " (%test-written expected)
                        ", got " (%test-written (cdr r)))))))

(define (%test-check-assert name thunk)
  (let ((r (%test-run thunk)))
    (cond ((not (eq? (car r) 'ok))
           (%test-fail! name "expected a true value, " (%test-describe-raised (cdr r))))
          ((cdr r) (%test-pass!))
          (else (%test-fail! name "expected a true value, got #f")))))

(define (%test-check-approx name expected thunk)
  (let ((r (%test-run thunk)))
    (cond ((not (eq? (car r) 'ok))
           (%test-fail! name "expected about " (%test-written expected) ", "
                        (%test-describe-raised (cdr r))))
          ((and (real? (cdr r))
                (<= (abs (- expected (cdr r)))
                    (* 1e-9 (max 1 (abs expected)))))
           (%test-pass!))
          (else
           (%test-fail! name "expected about " (%test-written expected)
                        ", got " (%test-written (cdr r)))))))

(define (%test-check-error name pred thunk)
  (let ((r (%test-run thunk)))
    (cond ((eq? (car r) 'ok)
           (%test-fail! name "expected an exception, got " (%test-written (cdr r))))
          ((or (eq? pred #t) (pred (cdr r))) (%test-pass!))
          (else
           (%test-fail! name "the raised object does not satisfy the predicate: "
                        (%test-written (cdr r)))))))

(define (%test-check-error-message name sub thunk)
  (let ((r (%test-run thunk)))
    (if (eq? (car r) 'ok)
        (%test-fail! name "expected an exception with \"" sub "\", got "
                     (%test-written (cdr r)))
        (let ((text (%test-condition-text (cdr r))))
          (if (%test-string-contains? text sub)
              (%test-pass!)
              (%test-fail! name "expected an exception with \"" sub "\", "
                           (%test-describe-raised (cdr r))))))))

(define-syntax test
  (syntax-rules ()
    ((_ name expected expr)
     (%test-check name expected (lambda () expr)))))

(define-syntax test-assert
  (syntax-rules ()
    ((_ name expr)
     (%test-check-assert name (lambda () expr)))))

(define-syntax test-approx
  (syntax-rules ()
    ((_ name expected expr)
     (%test-check-approx name expected (lambda () expr)))))

(define-syntax test-error
  (syntax-rules ()
    ((_ name expr)
     (%test-check-error name #t (lambda () expr)))
    ((_ name pred expr)
     (%test-check-error name pred (lambda () expr)))))

(define-syntax test-error-message
  (syntax-rules ()
    ((_ name sub expr)
     (%test-check-error-message name sub (lambda () expr)))))

(define (test-end)
  (display %test-passed)
  (display " passed, ")
  (display %test-failed)
  (display " failed")
  (newline)
  (flush-output-port)
  (exit (if (= %test-failed 0) 0 1)))
