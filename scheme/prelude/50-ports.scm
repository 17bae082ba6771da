;;; 50-ports.scm — port procedures written in Scheme.
;;;
;;; Provides:
;;;   call-with-port, call-with-input-file, call-with-output-file,
;;;   with-input-from-file, with-output-to-file        (R7RS)
;;;   call-with-output-string, with-output-to-string,
;;;   call-with-input-string, with-input-from-string   (common extensions)
;;;
;;; with-input-from-file / with-output-to-file bind current-input-port / current-output-port
;;; with parameterize and close the file when the thunk returns or is escaped from
;;; (dynamic-wind), so re-entering the thunk's continuation later finds the port closed.

;; Calls (proc port); closes port when proc returns and returns proc's values.
(define (call-with-port port proc)
  (if (not (port? port)) (error "call-with-port: expected a port, got" port))
  (if (not (procedure? proc)) (%bad-proc "call-with-port" proc))
  (call-with-values
      (lambda () (proc port))
    (case-lambda
      ((v) (close-port port) v)
      (vs (close-port port) (apply values vs)))))

(define (call-with-input-file filename proc)
  (if (not (procedure? proc)) (%bad-proc "call-with-input-file" proc))
  (call-with-port (open-input-file filename) proc))

(define (call-with-output-file filename proc)
  (if (not (procedure? proc)) (%bad-proc "call-with-output-file" proc))
  (call-with-port (open-output-file filename) proc))

(define (with-input-from-file filename thunk)
  (if (not (procedure? thunk)) (%bad-proc "with-input-from-file" thunk))
  (let ((port (open-input-file filename)))
    (dynamic-wind
      (lambda () #f)
      (lambda () (parameterize ((current-input-port port)) (thunk)))
      (lambda () (close-port port)))))

(define (with-output-to-file filename thunk)
  (if (not (procedure? thunk)) (%bad-proc "with-output-to-file" thunk))
  (let ((port (open-output-file filename)))
    (dynamic-wind
      (lambda () #f)
      (lambda () (parameterize ((current-output-port port)) (thunk)))
      (lambda () (close-port port)))))

;; (call-with-output-string proc): calls (proc port) and returns what it wrote.
(define (call-with-output-string proc)
  (if (not (procedure? proc)) (%bad-proc "call-with-output-string" proc))
  (let ((port (open-output-string)))
    (proc port)
    (get-output-string port)))

;; (with-output-to-string thunk): what thunk wrote to (current-output-port).
(define (with-output-to-string thunk)
  (if (not (procedure? thunk)) (%bad-proc "with-output-to-string" thunk))
  (let ((port (open-output-string)))
    (parameterize ((current-output-port port)) (thunk))
    (get-output-string port)))

;; (call-with-input-string string proc): calls (proc port) on a port reading string.
(define (call-with-input-string s proc)
  (if (not (procedure? proc)) (%bad-proc "call-with-input-string" proc))
  (proc (open-input-string s)))

;; (with-input-from-string string thunk): thunk reads from string as (current-input-port).
(define (with-input-from-string s thunk)
  (if (not (procedure? thunk)) (%bad-proc "with-input-from-string" thunk))
  (parameterize ((current-input-port (open-input-string s))) (thunk)))
