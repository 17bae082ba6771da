;; (srfi 64) — a test framework: test suites and groups, the test forms, skipping and expected
;; failures by specifier, and test runners whose event handlers decide what is reported.
;;
;; The runner is a record. Its counts say how the tests went; its handlers (on-test-begin,
;; on-test-end, on-group-begin, on-group-end, on-final, on-bad-count, on-bad-end-name) are
;; called at those events. test-runner-simple reports failures and unexpected passes on the
;; current output port as they happen, and a summary of the counts when the outermost group
;; ends; it writes no log file (so it works in an engine without file access).
;;
;; Each group (test-begin/test-end, test-group) has a frame: its name, the count it was told to
;; expect, how many tests and nested groups ran in it, and the skip and expect-fail specifiers
;; that were in force when it began (restored when it ends, so a test-skip inside a group stops
;; at the group's end).
;;
;; A specifier is a procedure of the runner, a string (matching the test's name), an integer n
;; (the next n tests) or #t (every test). Every specifier in force is called once per test, so
;; the ones that count (test-match-nth) count every test.
(define-library (srfi 64)
  (import (scheme base) (scheme write) (scheme read) (scheme eval) (scheme repl))
  (export
    test-begin test-end test-group test-group-with-cleanup
    test-assert test-eqv test-eq test-equal test-approximate test-error
    test-read-eval-string test-apply test-with-runner
    test-match-nth test-match-name test-match-all test-match-any test-skip test-expect-fail
    test-runner? test-runner-current test-runner-get test-runner-simple test-runner-null
    test-runner-create test-runner-factory
    test-result-kind test-passed? test-result-ref test-result-set! test-result-remove
    test-result-clear test-result-alist
    test-runner-pass-count test-runner-fail-count test-runner-xpass-count
    test-runner-xfail-count test-runner-skip-count test-runner-test-name
    test-runner-group-path test-runner-group-stack test-runner-aux-value
    test-runner-aux-value! test-runner-reset
    test-runner-on-test-begin test-runner-on-test-begin! test-runner-on-test-end
    test-runner-on-test-end! test-runner-on-group-begin test-runner-on-group-begin!
    test-runner-on-group-end test-runner-on-group-end! test-runner-on-final
    test-runner-on-final! test-runner-on-bad-count test-runner-on-bad-count!
    test-runner-on-bad-end-name test-runner-on-bad-end-name!
    test-on-test-begin-simple test-on-test-end-simple test-on-group-begin-simple
    test-on-group-end-simple test-on-final-simple test-on-bad-count-simple
    test-on-bad-end-name-simple)
  (begin
    (define-record-type <test-runner>
      (%make-runner) test-runner?
      (pass test-runner-pass-count %set-pass!)
      (fail test-runner-fail-count %set-fail!)
      (xpass test-runner-xpass-count %set-xpass!)
      (xfail test-runner-xfail-count %set-xfail!)
      (skip test-runner-skip-count %set-skip!)
      (name test-runner-test-name %set-name!)
      (results test-result-alist %set-results!)
      (frames %frames %set-frames!)          ; innermost first
      (skips %skips %set-skips!)             ; specifiers in force
      (fails %fails %set-fails!)
      (run-list %run-list %set-run-list!)    ; #t, or the specifiers of test-apply
      (aux test-runner-aux-value test-runner-aux-value!)
      (on-test-begin test-runner-on-test-begin test-runner-on-test-begin!)
      (on-test-end test-runner-on-test-end test-runner-on-test-end!)
      (on-group-begin test-runner-on-group-begin test-runner-on-group-begin!)
      (on-group-end test-runner-on-group-end test-runner-on-group-end!)
      (on-final test-runner-on-final test-runner-on-final!)
      (on-bad-count test-runner-on-bad-count test-runner-on-bad-count!)
      (on-bad-end-name test-runner-on-bad-end-name test-runner-on-bad-end-name!))

    ;; A group's frame (see the header).
    (define-record-type <test-frame>
      (%make-frame name expected ran skips fails) %frame?
      (name %frame-name)
      (expected %frame-expected)
      (ran %frame-ran %set-frame-ran!)
      (skips %frame-skips)
      (fails %frame-fails))

    (define (test-runner-reset r)
      (%set-pass! r 0) (%set-fail! r 0) (%set-xpass! r 0) (%set-xfail! r 0) (%set-skip! r 0)
      (%set-name! r "") (%set-results! r '()) (%set-frames! r '())
      (%set-skips! r '()) (%set-fails! r '()) (%set-run-list! r #t))

    (define (test-runner-group-stack r) (map %frame-name (%frames r)))
    (define (test-runner-group-path r) (reverse (test-runner-group-stack r)))

    (define (ignore . args) #f)
    (define (test-runner-null)
      (let ((r (%make-runner)))
        (test-runner-reset r)
        (test-runner-aux-value! r #f)
        (for-each (lambda (set!) (set! r ignore))
                  (list test-runner-on-test-begin! test-runner-on-test-end!
                        test-runner-on-group-begin! test-runner-on-group-end!
                        test-runner-on-final! test-runner-on-bad-count!
                        test-runner-on-bad-end-name!))
        r))

    ;; ---- the simple runner's handlers ----

    (define (say . parts)
      (let ((out (current-output-port)))
        (for-each (lambda (p) (display p out)) parts)
        (newline out)))
    (define (written x)
      (let ((o (open-output-string))) (write x o) (get-output-string o)))
    (define (error-text e)
      (if (error-object? e)
          (let ((o (open-output-string)))
            (display (error-object-message e) o)
            (for-each (lambda (x) (display " " o) (write x o)) (error-object-irritants e))
            (get-output-string o))
          (written e)))

    (define (test-on-test-begin-simple r) #f)
    (define (test-on-group-begin-simple r name count) #f)
    (define (test-on-group-end-simple r) #f)

    (define (test-on-test-end-simple r)
      (let ((kind (test-result-kind r)))
        (when (memq kind '(fail xpass))
          (let ((name (test-runner-test-name r))
                (path (test-runner-group-path r)))
            (say (if (eq? kind 'fail) "FAIL " "XPASS ")
                 (if (null? path) "" (string-append (join path ": ") ": "))
                 (if (equal? name "") (written (test-result-ref r 'source-form "")) name))
            (when (eq? kind 'fail)
              (let ((missing (list 'missing)))
                (define (show key label text)
                  (let ((v (test-result-ref r key missing)))
                    (unless (eq? v missing) (say "  " label (text v)))))
                (show 'expected-value "expected: " written)
                (show 'actual-value "actual:   " written)
                (show 'expected-error "expected an error satisfying " written)
                (show 'actual-error "raised:   " error-text)))))))

    (define (join strings sep)
      (if (null? strings)
          ""
          (let loop ((acc (car strings)) (l (cdr strings)))
            (if (null? l) acc (loop (string-append acc sep (car l)) (cdr l))))))

    (define (test-on-final-simple r)
      (define (line label n)
        (unless (zero? n)
          (say label (number->string n))))
      (line "# of expected passes      " (test-runner-pass-count r))
      (line "# of expected failures    " (test-runner-xfail-count r))
      (line "# of unexpected successes " (test-runner-xpass-count r))
      (line "# of unexpected failures  " (test-runner-fail-count r))
      (line "# of skipped tests        " (test-runner-skip-count r)))

    (define (test-on-bad-count-simple r actual expected)
      (say "*** " (number->string actual) " tests ran in group "
           (written (car (test-runner-group-stack r))) ", but "
           (number->string expected) " were expected. ***"))

    (define (test-on-bad-end-name-simple r begin-name end-name)
      (error "test-end: the name does not match the test-begin's" end-name begin-name))

    (define (test-runner-simple)
      (let ((r (test-runner-null)))
        (test-runner-on-test-begin! r test-on-test-begin-simple)
        (test-runner-on-test-end! r test-on-test-end-simple)
        (test-runner-on-group-begin! r test-on-group-begin-simple)
        (test-runner-on-group-end! r test-on-group-end-simple)
        (test-runner-on-final! r test-on-final-simple)
        (test-runner-on-bad-count! r test-on-bad-count-simple)
        (test-runner-on-bad-end-name! r test-on-bad-end-name-simple)
        r))

    ;; ---- the current runner and the factory ----

    (define current-runner #f)
    (define made-by-test-begin #f)   ; the current runner, when test-begin made it
    (define (test-runner-current . new)
      (if (null? new) current-runner (set! current-runner (car new))))
    (define (test-runner-get)
      (or current-runner (error "test-runner-get: there is no current test runner")))
    (define factory test-runner-simple)
    (define (test-runner-factory . new)
      (if (null? new) factory (set! factory (car new))))
    (define (test-runner-create) (factory))

    ;; The current runner, made by the factory when there is none (a test outside any group).
    (define (runner-for-test)
      (or current-runner
          (let ((r (test-runner-create)))
            (set! current-runner r)
            r)))

    (define (test-with-runner* r thunk)
      (let ((saved #f))
        (dynamic-wind
         (lambda () (set! saved current-runner) (set! current-runner r))
         thunk
         (lambda () (set! r current-runner) (set! current-runner saved)))))
    (define-syntax test-with-runner
      (syntax-rules ()
        ((_ r body ...) (test-with-runner* r (lambda () body ...)))))

    ;; ---- results ----

    (define (test-result-ref r key . default)
      (let ((p (assq key (test-result-alist r))))
        (cond (p (cdr p))
              ((pair? default) (car default))
              (else #f))))
    (define (test-result-set! r key value)
      (let ((p (assq key (test-result-alist r))))
        (if p
            (set-cdr! p value)
            (%set-results! r (cons (cons key value) (test-result-alist r))))))
    (define (test-result-remove r key)
      (%set-results! r (let loop ((l (test-result-alist r)))
                         (cond ((null? l) '())
                               ((eq? (car (car l)) key) (loop (cdr l)))
                               (else (cons (car l) (loop (cdr l))))))))
    (define (test-result-clear r) (%set-results! r '()))
    (define (test-result-kind . r)
      (test-result-ref (if (pair? r) (car r) (test-runner-get)) 'result-kind))
    (define (test-passed? . r)
      (and (memq (apply test-result-kind r) '(pass xpass)) #t))

    ;; ---- specifiers ----

    (define (test-match-name name)
      (lambda (r) (equal? name (test-runner-test-name r))))
    (define (test-match-nth n . count)
      (let ((i 0) (last (+ n (if (pair? count) (car count) 1))))
        (lambda (r)
          (set! i (+ i 1))
          (and (>= i n) (< i last)))))
    (define (specifier s)
      (cond ((procedure? s) s)
            ((string? s) (test-match-name s))
            ((and (exact-integer? s) (>= s 0)) (test-match-nth 1 s))
            ((eq? s #t) (lambda (r) #t))
            (else (error "test specifier: expected a procedure, string, count or #t" s))))
    ;; Calls every specifier (they may count); true when any matched.
    (define (call-all specs r)
      (let loop ((l specs) (any #f))
        (if (null? l) any (loop (cdr l) (or ((car l) r) any)))))
    (define (test-match-all . specs)
      (let ((specs (map specifier specs)))
        (lambda (r)
          (let loop ((l specs) (all #t))
            (if (null? l) all (loop (cdr l) (and ((car l) r) all)))))))
    (define (test-match-any . specs)
      (let ((specs (map specifier specs)))
        (lambda (r) (call-all specs r))))
    (define (test-skip . specs)
      (let ((r (runner-for-test)))
        (%set-skips! r (cons (apply test-match-any specs) (%skips r)))))
    (define (test-expect-fail . specs)
      (let ((r (runner-for-test)))
        (%set-fails! r (cons (apply test-match-any specs) (%fails r)))))

    ;; (test-apply [runner] specifier ... procedure): runs procedure with only the tests that
    ;; match one of the specifiers enabled.
    (define (test-apply first . rest)
      (let* ((r (if (test-runner? first) first (runner-for-test)))
             (args (if (test-runner? first) rest (cons first rest)))
             (proc (let loop ((l args)) (if (null? (cdr l)) (car l) (loop (cdr l)))))
             (specs (let loop ((l args)) (if (null? (cdr l)) '() (cons (car l) (loop (cdr l))))))
             (saved (%run-list r)))
        (test-with-runner* r
          (lambda ()
            (dynamic-wind
             (lambda () (%set-run-list! r (list (apply test-match-any specs))))
             proc
             (lambda () (%set-run-list! r saved)))))))

    ;; ---- groups ----

    (define (count-in-group! r)
      (let ((frames (%frames r)))
        (if (pair? frames)
            (%set-frame-ran! (car frames) (+ 1 (%frame-ran (car frames)))))))

    (define (test-begin name . count)
      (let ((r (or current-runner
                   (let ((r (test-runner-create)))
                     (set! current-runner r)
                     (set! made-by-test-begin r)
                     r))))
        (count-in-group! r)
        ((test-runner-on-group-begin r) r name (if (pair? count) (car count) #f))
        (%set-frames! r (cons (%make-frame name (if (pair? count) (car count) #f) 0
                                           (%skips r) (%fails r))
                              (%frames r)))))

    (define (test-end . name)
      (let* ((r (test-runner-get))
             (frames (%frames r)))
        (if (null? frames) (error "test-end: no test-begin is open"))
        (let ((frame (car frames)))
          (if (and (pair? name) (not (equal? (car name) (%frame-name frame))))
              ((test-runner-on-bad-end-name r) r (%frame-name frame) (car name)))
          (if (and (%frame-expected frame) (not (= (%frame-expected frame) (%frame-ran frame))))
              ((test-runner-on-bad-count r) r (%frame-ran frame) (%frame-expected frame)))
          ((test-runner-on-group-end r) r)
          (%set-frames! r (cdr frames))
          (%set-skips! r (%frame-skips frame))
          (%set-fails! r (%frame-fails frame))
          (when (null? (cdr frames))
            ((test-runner-on-final r) r)
            ;; The outermost group is over: a runner test-begin made is dropped, so the next
            ;; suite starts with fresh counts; one installed by test-with-runner stays.
            (when (eq? r made-by-test-begin)
              (set! made-by-test-begin #f)
              (set! current-runner #f))))))

    ;; A group is skipped as a whole when a skip specifier matches its name.
    (define (group-skipped? r name)
      (%set-name! r name)
      (call-all (%skips r) r))

    (define (test-group* name thunk cleanup)
      (let ((r (runner-for-test)))
        (if (group-skipped? r name)
            (begin (test-result-clear r) (test-result-set! r 'result-kind 'skip))
            (dynamic-wind
             (lambda () (test-begin name))
             (lambda () (thunk))
             (lambda () (cleanup) (test-end name))))))
    (define-syntax test-group
      (syntax-rules ()
        ;; The body may be empty or end in a definition: the group's value is unspecified.
        ((_ name body ...) (test-group* name (lambda () body ... (if #f #f)) (lambda () #f)))))
    (define-syntax test-group-with-cleanup
      (syntax-rules ()
        ((_ name form ... cleanup)
         (test-group* name (lambda () form ...) (lambda () cleanup)))))

    ;; ---- running one test ----

    ;; check is called with the runner unless the test is skipped; it returns true for a pass
    ;; and records expected-value/actual-value itself. An exception it raises is a failure.
    (define (run-test name form check)
      (let ((r (runner-for-test)))
        (%set-name! r name)
        (test-result-clear r)
        (test-result-set! r 'source-form form)
        (count-in-group! r)
        (let* ((skip (call-all (%skips r) r))
               (enabled (or (eq? (%run-list r) #t) (call-all (%run-list r) r)))
               (xfail (call-all (%fails r) r)))
          ((test-runner-on-test-begin r) r)
          (let ((kind (if (or skip (not enabled))
                          'skip
                          (let ((ok (call-with-current-continuation
                                     (lambda (k)
                                       (with-exception-handler
                                        (lambda (e)
                                          (test-result-set! r 'actual-error e)
                                          (k #f))
                                        (lambda () (check r)))))))
                            (if ok (if xfail 'xpass 'pass) (if xfail 'xfail 'fail))))))
            (test-result-set! r 'result-kind kind)
            (case kind
              ((pass) (%set-pass! r (+ 1 (test-runner-pass-count r))))
              ((fail) (%set-fail! r (+ 1 (test-runner-fail-count r))))
              ((xpass) (%set-xpass! r (+ 1 (test-runner-xpass-count r))))
              ((xfail) (%set-xfail! r (+ 1 (test-runner-xfail-count r))))
              (else (%set-skip! r (+ 1 (test-runner-skip-count r)))))
            ((test-runner-on-test-end r) r)
            (memq kind '(pass xpass))))))

    (define (compare-check same? expected-thunk actual-thunk)
      (lambda (r)
        (let ((expected (expected-thunk)))
          (test-result-set! r 'expected-value expected)
          (let ((actual (actual-thunk)))
            (test-result-set! r 'actual-value actual)
            (same? expected actual)))))

    (define-syntax test-assert
      (syntax-rules ()
        ((_ name expr)
         (run-test name 'expr
                   (lambda (r) (let ((v expr)) (test-result-set! r 'actual-value v) v))))
        ((_ expr) (test-assert "" expr))))

    (define-syntax %test-compare
      (syntax-rules ()
        ((_ same? name expected expr)
         (run-test name 'expr (compare-check same? (lambda () expected) (lambda () expr))))))
    (define-syntax test-equal
      (syntax-rules ()
        ((_ name expected expr) (%test-compare equal? name expected expr))
        ((_ expected expr) (%test-compare equal? "" expected expr))))
    (define-syntax test-eqv
      (syntax-rules ()
        ((_ name expected expr) (%test-compare eqv? name expected expr))
        ((_ expected expr) (%test-compare eqv? "" expected expr))))
    (define-syntax test-eq
      (syntax-rules ()
        ((_ name expected expr) (%test-compare eq? name expected expr))
        ((_ expected expr) (%test-compare eq? "" expected expr))))

    (define (within error)
      (lambda (expected actual)
        (and (number? actual) (<= (abs (- expected actual)) error))))
    (define-syntax test-approximate
      (syntax-rules ()
        ((_ name expected expr error) (%test-compare (within error) name expected expr))
        ((_ expected expr error) (%test-compare (within error) "" expected expr))))

    ;; error-type: #t (anything raised), a predicate on the raised object, or anything else
    ;; (a condition-type name from another Scheme), which matches anything raised.
    (define (error-check type thunk)
      (lambda (r)
        (test-result-set! r 'expected-error type)
        (call-with-current-continuation
         (lambda (k)
           (with-exception-handler
            (lambda (e)
              (test-result-set! r 'actual-error e)
              (k (if (procedure? type) (and (type e) #t) #t)))
            (lambda ()
              (let ((v (thunk)))
                (test-result-set! r 'actual-value v)
                #f)))))))
    (define-syntax test-error
      (syntax-rules ()
        ((_ name type expr) (run-test name 'expr (error-check type (lambda () expr))))
        ((_ type expr) (test-error "" type expr))
        ((_ expr) (test-error "" #t expr))))

    (define (test-read-eval-string s)
      (let* ((port (open-input-string s))
             (form (read port)))
        (if (not (eof-object? (read port)))
            (error "test-read-eval-string: more than one datum in" s))
        (eval form (interaction-environment))))))
