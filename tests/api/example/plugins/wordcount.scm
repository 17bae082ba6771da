;;; wordcount: counts words per sender, case-insensitively. Its `name`, `on-message` and
;;; `summary` are its own: the other plugins define the same names in their environments.
(import (scheme char))

(define name "wordcount")
(define counts '())  ; ((sender . words) ...)

(define (add! sender n)
  (let ((entry (assoc sender counts)))
    (if entry
        (set-cdr! entry (+ (cdr entry) n))
        (set! counts (cons (cons sender n) counts)))))

(define (on-message msg)
  (add! (message-sender msg) (length (message-words msg)))
  (and (string-ci=? (message-text msg) "STATS")
       (string-append (number->string (total-words)) " words so far")))

(define (total-words) (apply + (map cdr counts)))

(define (summary) (list name 'words (total-words) 'senders (length counts)))
