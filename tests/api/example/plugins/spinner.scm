;;; spinner: a broken plugin. Its handler never returns on "spin", and on "peek" it reaches for
;;; a procedure its environment does not have (it imported no (scheme file), and the host would
;;; not let it). The host's time limit and the environment's bounds stop both; the other
;;; plugins go on.
(define name "spinner")

(define (on-message msg)
  (cond ((string=? (message-text msg) "spin")
         (let loop ((i 0)) (loop (+ i 1))))
        ((string=? (message-text msg) "peek")
         (open-input-file "/etc/passwd"))
        (else #f)))

(define (summary) (list name 'never-finished))
