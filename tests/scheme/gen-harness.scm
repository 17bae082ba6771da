;;; gen-harness.scm — what the generated-program tests share (loop-test, own-slot-test,
;;; jit-diff-test, jit-recipes-test): one deterministic PRNG, `gen-written` and `gen-outcome`.
;;;
;;; A test file includes it after harness.scm. The PRNG is a 64-bit linear congruential
;;; generator on exact integers (Knuth's MMIX constants), so a seed gives the same corpus in
;;; every mode and on every machine; a file sets its seed with (gen-seed! n) before generating.
;;;
;;;   (gen-seed! n)        restart the sequence from seed n
;;;   (gen-rand n)         an exact integer in [0, n)
;;;   (gen-chance percent) true with probability percent/100
;;;   (gen-pick list)      one element of list
;;;   (gen-written x)      x as `write` prints it, a string
;;;   (gen-outcome thunk)  calls thunk: (value V) when it returns V, (error "message"
;;;                        "irritants written") when it raises an error object, (raise OBJ)
;;;                        when it raises anything else. Outcomes compare with equal?, so two
;;;                        ways of running one program agree when their outcomes are equal?.
;;;
;;; Names start with gen- (and %gen- inside) so test files can define anything else.

(define %gen-state 1)

(define (gen-seed! n) (set! %gen-state n))

(define (gen-rand n)
  (set! %gen-state (modulo (+ (* %gen-state 6364136223846793005) 1442695040888963407)
                           18446744073709551616))
  (modulo (quotient %gen-state 4294967296) n))

(define (gen-chance percent) (< (gen-rand 100) percent))

(define (gen-pick l) (list-ref l (gen-rand (length l))))

(define (gen-written x)
  (let ((out (open-output-string)))
    (write x out)
    (get-output-string out)))

(define (gen-outcome thunk)
  (call-with-current-continuation
   (lambda (k)
     (with-exception-handler
      (lambda (e)
        (k (if (error-object? e)
               (list 'error (error-object-message e) (gen-written (error-object-irritants e)))
               (list 'raise e))))
      (lambda () (list 'value (thunk)))))))
