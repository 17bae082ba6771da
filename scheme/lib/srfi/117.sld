;; (srfi 117) — list queues: a list plus a pointer to its last pair, so adding at either end
;; and removing at the front are O(1) (removing at the back is O(n)). The queue's list is
;; shared, not copied, by list-queue-list and make-list-queue, as the SRFI allows.
(define-library (srfi 117)
  (import (scheme base) (scheme case-lambda))
  (export make-list-queue list-queue list-queue-copy list-queue-unfold list-queue-unfold-right
          list-queue? list-queue-empty? list-queue-front list-queue-back list-queue-list
          list-queue-first-last list-queue-add-front! list-queue-add-back!
          list-queue-remove-front! list-queue-remove-back! list-queue-remove-all!
          list-queue-set-list! list-queue-append list-queue-append! list-queue-concatenate
          list-queue-map list-queue-map! list-queue-for-each)
  (begin
    ;; Invariant: last is the last pair of first, or '() when first is '().
    (define-record-type <list-queue>
      (%make-queue first last) list-queue?
      (first %first %set-first!)
      (last %last %set-last!))

    (define (last-pair-of l)
      (if (null? l) '() (let loop ((p l)) (if (pair? (cdr p)) (loop (cdr p)) p))))

    (define make-list-queue
      (case-lambda
        ((l) (%make-queue l (last-pair-of l)))
        ((l last) (%make-queue l last))))
    (define (list-queue . elements) (make-list-queue elements))
    (define (check q who)
      (if (not (list-queue? q)) (error (string-append who ": expected a list queue, got") q)))
    (define (list-queue-copy q)
      (check q "list-queue-copy")
      (make-list-queue (list-copy (%first q))))
    (define (list-queue-empty? q) (check q "list-queue-empty?") (null? (%first q)))
    (define (list-queue-front q)
      (check q "list-queue-front")
      (if (null? (%first q)) (error "list-queue-front: the queue is empty" q))
      (car (%first q)))
    (define (list-queue-back q)
      (check q "list-queue-back")
      (if (null? (%first q)) (error "list-queue-back: the queue is empty" q))
      (car (%last q)))
    (define (list-queue-list q) (check q "list-queue-list") (%first q))
    (define (list-queue-first-last q)
      (check q "list-queue-first-last")
      (values (%first q) (%last q)))

    (define (list-queue-add-front! q x)
      (check q "list-queue-add-front!")
      (let ((p (cons x (%first q))))
        (if (null? (%first q)) (%set-last! q p))
        (%set-first! q p)))
    (define (list-queue-add-back! q x)
      (check q "list-queue-add-back!")
      (let ((p (list x)))
        (if (null? (%first q)) (%set-first! q p) (set-cdr! (%last q) p))
        (%set-last! q p)))
    (define (list-queue-remove-front! q)
      (check q "list-queue-remove-front!")
      (let ((l (%first q)))
        (if (null? l) (error "list-queue-remove-front!: the queue is empty" q))
        (%set-first! q (cdr l))
        (if (null? (cdr l)) (%set-last! q '()))
        (car l)))
    (define (list-queue-remove-back! q)
      (check q "list-queue-remove-back!")
      (let ((l (%first q)))
        (cond ((null? l) (error "list-queue-remove-back!: the queue is empty" q))
              ((null? (cdr l)) (%set-first! q '()) (%set-last! q '()) (car l))
              (else
               (let loop ((p l))
                 (if (pair? (cddr p))
                     (loop (cdr p))
                     (let ((x (cadr p)))
                       (set-cdr! p '())
                       (%set-last! q p)
                       x)))))))
    (define (list-queue-remove-all! q)
      (check q "list-queue-remove-all!")
      (let ((l (%first q)))
        (%set-first! q '())
        (%set-last! q '())
        l))
    (define list-queue-set-list!
      (case-lambda
        ((q l) (check q "list-queue-set-list!") (%set-first! q l) (%set-last! q (last-pair-of l)))
        ((q l last) (check q "list-queue-set-list!") (%set-first! q l) (%set-last! q last))))

    (define (list-queue-append . qs)
      (for-each (lambda (q) (check q "list-queue-append")) qs)
      (make-list-queue (apply append (map (lambda (q) (list-copy (%first q))) qs))))
    ;; Links the queues' lists together; the arguments must not be used afterwards.
    (define (list-queue-append! . qs)
      (for-each (lambda (q) (check q "list-queue-append!")) qs)
      (let ((result (list-queue)))
        (for-each (lambda (q)
                    (unless (null? (%first q))
                      (if (null? (%first result))
                          (%set-first! result (%first q))
                          (set-cdr! (%last result) (%first q)))
                      (%set-last! result (%last q))))
                  qs)
        result))
    (define (list-queue-concatenate qs) (apply list-queue-append qs))

    (define list-queue-unfold
      (case-lambda
        ((stop? mapper successor seed) (list-queue-unfold stop? mapper successor seed (list-queue)))
        ((stop? mapper successor seed q)
         ;; Values in seed order, in front of q's elements.
         (let loop ((seed seed) (acc '()))
           (if (stop? seed)
               (begin (for-each (lambda (x) (list-queue-add-front! q x)) acc) q)
               (loop (successor seed) (cons (mapper seed) acc)))))))
    (define list-queue-unfold-right
      (case-lambda
        ((stop? mapper successor seed)
         (list-queue-unfold-right stop? mapper successor seed (list-queue)))
        ((stop? mapper successor seed q)
         ;; q's elements, then the values in reverse seed order.
         (let loop ((seed seed) (acc '()))
           (if (stop? seed)
               (begin (for-each (lambda (x) (list-queue-add-back! q x)) acc) q)
               (loop (successor seed) (cons (mapper seed) acc)))))))

    (define (list-queue-map f q)
      (check q "list-queue-map")
      (make-list-queue (map f (%first q))))
    (define (list-queue-map! f q)
      (check q "list-queue-map!")
      (let loop ((p (%first q)))
        (when (pair? p) (set-car! p (f (car p))) (loop (cdr p)))))
    (define (list-queue-for-each f q)
      (check q "list-queue-for-each")
      (for-each f (%first q)))))
