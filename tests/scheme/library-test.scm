;;; library-test.scm — define-library and import: standard libraries, import sets, and a user
;;; library found as geometry/points.sld relative to this file.
(import (scheme base) (scheme write) (scheme char))
(include "harness.scm")
(import (prefix (only (geometry points) make-point point-x distance2 origin swap-xy!) g:))
(import (rename (only (scheme base) car) (car first)))

(test "imported procedure" 25 (g:distance2 (g:make-point 3 4) g:origin))
(test "renamed export" 0 (g:point-x g:origin))
(test "exported macro" 7 (let ((p (g:make-point 3 7))) (g:swap-xy! p) (g:point-x p)))
(test "rename import set" 1 (first '(1 2)))
(test-error "private helper is not exported" #t (sq 2))
(test-error "only leaves other names out" #t (g:point-y g:origin))
(test "scheme char" #\A (char-upcase #\a))
(test "eval in an environment" 6 (eval '(* 2 3) (environment '(scheme base))))
(test-end)
