;;; greeter: answers greetings. Uses only what its environment imports: (scheme base) and the
;;; host library (plugin host).
(define name "greeter")
(define greeted '())

(define (on-message msg)
  (let ((words (message-words msg)))
    (and (pair? words)
         (member (car words) '("hello" "hi" "hey"))
         (begin
           (set! greeted (cons (message-sender msg) greeted))
           (string-append "welcome, " (message-sender msg) "!")))))

(define (summary) (list name 'greeted (length greeted)))
