;;; srfi-format-test.scm — (srfi 28) and (srfi 48): format as the SRFI documents show it. The
;;; implementation (prelude/75-format.scm) has its own tests; these check the libraries export
;;; it with the SRFIs' calling conventions.
(import (scheme base) (scheme write) (scheme process-context) (scheme eval))
(include "harness.scm")
(import (srfi 28))

;; SRFI 28
(test "~a" "Hello, World!" (format "Hello, ~a" "World!"))
(test "~s and ~%" "Error, list is too short: (one \"two\" 3)\n"
      (format "Error, list is too short: ~s~%" '(one "two" 3)))
(test "~~" "100~" (format "~a~~" 100))
(test "no directives" "plain" (format "plain"))
(test-error "too few arguments" (format "~a ~a" 1))

;; SRFI 48, through its own library.
(define f48 (eval 'format (environment '(srfi 48))))
(test "(srfi 48) and (srfi 28) share the binding" #t (eq? f48 format))
(test "destination #f" "x=1" (f48 #f "x=~a" 1))
(test "destination a port" "ab"
      (let ((p (open-output-string))) (f48 p "a~a" "b") (get-output-string p)))
(test "destination #t" "hi"
      (let ((p (open-output-string)))
        (parameterize ((current-output-port p)) (f48 #t "h~a" "i"))
        (get-output-string p)))
(test "~w,dF" "   32.00" (f48 #f "~8,2F" 32))
(test "~,dF rounds" "3.14" (f48 #f "~,2F" 3.14159))
(test "~b ~o ~x ~d" "101 10 ff 42" (f48 #f "~b ~o ~x ~d" 5 8 255 42))
(test "~c" "a" (f48 #f "~c" #\a))
(test "~?" "1 23 4" (f48 #f "~a ~? ~a" 1 "~a~a" '(2 3) 4))
(test "~wA pads on the right" "ab   |" (f48 #f "~5A|" "ab"))

(test-end)
