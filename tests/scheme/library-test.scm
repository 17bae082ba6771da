;;; library-test.scm — define-library and import: standard libraries, import sets, a library's
;;; own environment, load-time checks, and a program's one scope. The libraries used are found
;;; relative to this file (geometry/points.sld, testlib/*.sld).
(import (scheme base) (scheme write) (scheme char) (scheme eval) (scheme process-context)
        (scheme r5rs))
(include "harness.scm")
(import (prefix (only (geometry points) make-point point-x distance2 origin swap-xy!) g:))
(import (rename (only (scheme base) car) (car first)))
(import (except (testlib x) x))
(import (testlib counter) (testlib narrow))

(test "imported procedure" 25 (g:distance2 (g:make-point 3 4) g:origin))
(test "renamed export" 0 (g:point-x g:origin))
(test "exported macro" 7 (let ((p (g:make-point 3 7))) (g:swap-xy! p) (g:point-x p)))
(test "rename import set" 1 (first '(1 2)))
(test "rename in an export spec" '(2) (tail '(1 2)))
(test-error "private helper is not exported" #t (sq 2))
(test-error "only leaves other names out" #t (g:point-y g:origin))
(test "scheme char" #\A (char-upcase #\a))

;; A library's body runs once, in its own environment, and sees only what it imports.
(test "a library body runs once" 1 runs)
(test "importing again does not run it again" 1
      (eval 'runs (environment '(testlib counter))))
(test "its procedures keep working on its state" 2 (bump!))
(test-error-message "a library importing (scheme base) has no display" "unbound variable: display"
                    (try-display))
(test "the library's other procedures work" 6 (twice 3))

;; Two libraries exporting one binding do not conflict; different bindings of one name do.
(test "a shared binding is no conflict" 1
      (eval '(car '(1)) (environment '(scheme base) '(testlib x))))
(test-error-message "two bindings of one name" "x is imported with two different bindings"
                    (environment '(testlib x) '(testlib other-x)))
(test-error-message "only: a name that is not exported" "nosuch is not exported"
                    (environment '(only (scheme base) car nosuch)))
(test-error-message "an unknown library" "library (testlib nosuch) not found"
                    (environment '(testlib nosuch)))
(test "prefix and except together" '(1 . 2)
      (eval '(b:cons 1 2) (environment '(prefix (except (scheme base) car) b:))))
(test-error "except removes the name" (eval '(b:car '(1)) (environment '(prefix (except (scheme base) car) b:))))

;; include-library-declarations and cond-expand declarations take their own place in the
;; library: a later begin sees their definitions (they were appended after every declaration).
(test "declarations spliced in place" '(4 5 11)
      (eval '(list from-decls after-decls after-cond-expand) (environment '(scheme base) '(testlib ordered))))
;; cond-expand's (library ...) agrees with import.
(test "cond-expand: an imported library" 'yes (cond-expand ((library (geometry points)) 'yes) (else 'no)))
(test "cond-expand: a library on the path, not yet imported" 'yes
      (cond-expand ((library (testlib other-x)) 'yes) (else 'no)))
(test "cond-expand: a built-in library" 'yes (cond-expand ((library (scheme lazy)) 'yes) (else 'no)))
(test "cond-expand: a missing library" 'no (cond-expand ((library (srfi 9999)) 'yes) (else 'no)))
(test "cond-expand: a bad library name is no library" 'no
      (cond-expand ((library ("str")) 'yes) (else 'no)))

;; eval, environment, and the R5RS environments.
(test "eval in an environment" 6 (eval '(* 2 3) (environment '(scheme base))))
(test "definitions in an environment" 42
      (let ((env (environment '(scheme base))))
        (eval '(define answer 42) env)
        (eval 'answer env)))
(test "scheme-report-environment 5" 21 (eval '(* 7 3) (scheme-report-environment 5)))
(test "null-environment 5 has the syntax" 20
      ((eval '(lambda (f x) (f x x)) (null-environment 5)) + 10))
(test-error "null-environment 5 has no procedures" (eval '(car '(1)) (null-environment 5)))
(test-error "only version 5" (null-environment 7))
(test-error "(scheme base) has no display" (eval '(display 1) (environment '(scheme base))))

;; A program's own definitions are in scope in its whole body, also in procedures defined
;; before them: these names are also built-ins of the core environment.
(define (split xs) (partition 2 xs '() '()))
(define (partition n xs small big)
  (cond ((null? xs) (list (reverse small) (reverse big)))
        ((< (car xs) n) (partition n (cdr xs) (cons (car xs) small) big))
        (else (partition n (cdr xs) small (cons (car xs) big)))))
(test "a later definition of a built-in's name is the one used" '((1 0) (3 2)) (split '(1 3 0 2)))
(define (uses-fold) (fold 1 2))
(define (fold a b) (list 'mine a b))
(test "the same for fold" '(mine 1 2) (uses-fold))

(test-end)
