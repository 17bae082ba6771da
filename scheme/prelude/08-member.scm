;;; 08-member.scm — member and assoc with the optional compare argument, and the error helpers
;;; the list, sequence and sort files share (loaded into the core environment at start-up).
;;;
;;; Provides: member, assoc (the 2-argument forms stay the C++ primitives, captured as %member2 /
;;; %assoc2); internal helpers %bad-list, %bad-proc.
;;;
;;; Split from 10-lists.scm, which loads on first use: member and assoc replace primitives that
;;; are bound before the prelude, so the file defining them cannot be deferred.

(define %member2 member)
(define %assoc2 assoc)

;; Error helpers. Messages follow the engine's shape: "map: expected a list, got 5".
(define (%bad-list who x)
  (error (string-append who ": expected a list, got") x))
(define (%bad-proc who x)
  (error (string-append who ": expected a procedure, got") x))

;; ---- member / assoc with a compare procedure ----------------------------------------------

(define member
  (case-lambda
    ((x l) (%member2 x l))
    ((x l same?)
     (if (not (procedure? same?)) (%bad-proc "member" same?))
     (let loop ((p l))
       (cond ((pair? p) (if (same? x (car p)) p (loop (cdr p))))
             ((null? p) #f)
             (else (%bad-list "member" l)))))))

(define assoc
  (case-lambda
    ((x l) (%assoc2 x l))
    ((x l same?)
     (if (not (procedure? same?)) (%bad-proc "assoc" same?))
     (let loop ((p l))
       (cond ((pair? p)
              (let ((entry (car p)))
                (if (not (pair? entry))
                    (error "assoc: expected an association list, got" l))
                (if (same? x (car entry)) entry (loop (cdr p)))))
             ((null? p) #f)
             (else (%bad-list "assoc" l)))))))

