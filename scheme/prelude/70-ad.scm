;;; 70-ad.scm — the Scheme half of automatic differentiation (lib/ad/README.md): the user
;;; procedures grad, value-and-grad, vjp, and the cotangent helpers the transformed code and the
;;; derivative rules of the primitive table (core/prim.hpp, DerivativeRule) call.
;;;
;;; Provides: grad value-and-grad vjp
;;; Internal (prefix %ad-): the cotangent algebra below; %ad-j (C++, lib/ad) transforms a
;;; procedure into its reverse-mode form.
;;;
;;; Cotangents. Exact 0 is the zero of every shape (nothing is built for a value no derivative
;;; reaches). A real's cotangent is a real, a pair's is a pair of cotangents, a vector's a vector
;;; of cotangents, a closure's a vector with one cotangent per free variable of the closure (in
;;; the closure's layout, Proto::free_vars). A pullback returns (dself . dargs): the cotangent of
;;; the procedure itself, and a list with one cotangent per argument (0 when all are zero).

(define (%ad-add a b)
  (cond ((eq? a 0) b)
        ((eq? b 0) a)
        ((number? a) (+ a b))
        ((pair? a) (cons (%ad-add (car a) (%ad-car b)) (%ad-add (cdr a) (%ad-cdr b))))
        ((vector? a)
         (let* ((n (vector-length a)) (v (make-vector n 0)))
           (do ((i 0 (+ i 1))) ((= i n) v)
             (vector-set! v i (%ad-add (vector-ref a i) (%ad-vector-ref b i))))))
        (else b)))

(define (%ad-car d) (if (pair? d) (car d) 0))
(define (%ad-cdr d) (if (pair? d) (cdr d) 0))
(define (%ad-vector-ref d i) (if (vector? d) (vector-ref d i) 0))
(define (%ad-nth d i) (if (= i 0) (%ad-car d) (%ad-nth (%ad-cdr d) (- i 1))))
(define (%ad-tail d k) (if (= k 0) d (%ad-tail (%ad-cdr d) (- k 1))))

;; A cotangent with `d` at index i and zeros elsewhere, for a vector of length (vector-length v).
(define (%ad-onehot v i d)
  (if (eq? d 0)
      0
      (let ((w (make-vector (vector-length v) 0)))
        (vector-set! w i d)
        w)))
(define (%ad-list-onehot i d)
  (if (eq? d 0) 0 (if (= i 0) (cons d 0) (cons 0 (%ad-list-onehot (- i 1) d)))))
;; The first n elements of list cotangent d as a list (d may end early in 0).
(define (%ad-take d n)
  (if (= n 0) '() (cons (%ad-car d) (%ad-take (%ad-cdr d) (- n 1)))))
(define (%ad-drop d n) (%ad-tail d n))
(define (%ad-reverse d n)
  (if (eq? d 0) 0 (reverse (%ad-take d n))))
(define (%ad-list->vector d n)
  (if (eq? d 0) 0 (list->vector (%ad-take d n))))
(define (%ad-vector->list d n)
  (if (eq? d 0)
      0
      (let loop ((i (- n 1)) (acc '()))
        (if (< i 0) acc (loop (- i 1) (cons (%ad-vector-ref d i) acc))))))

;; 1/x, with the convention that the derivative at a point where it is infinite is +inf.0
;; (sqrt, asin, acos, log at their boundary) instead of an exact division by zero.
(define (%ad-recip x)
  (if (and (exact? x) (zero? x)) +inf.0 (/ 1 x)))

;; Whether cotangent d is zero everywhere.
(define (%ad-zero? d)
  (cond ((number? d) (zero? d))
        ((pair? d) (and (%ad-zero? (car d)) (%ad-zero? (cdr d))))
        ((vector? d)
         (let loop ((i 0))
           (or (= i (vector-length d)) (and (%ad-zero? (vector-ref d i)) (loop (+ i 1))))))
        (else #t)))
;; Whether x is, or holds in its pairs and vectors, a real number.
(define (%ad-has-real? x)
  (cond ((real? x) #t)
        ((pair? x) (or (%ad-has-real? (car x)) (%ad-has-real? (cdr x))))
        ((vector? x)
         (let loop ((i 0))
           (and (< i (vector-length x)) (or (%ad-has-real? (vector-ref x i)) (loop (+ i 1))))))
        (else #f)))

(define (%ad-fail prim what in)
  (error (string-append "grad: " what " " (symbol->string prim) " in "
                        (if (symbol? in) (symbol->string in) "an anonymous procedure"))))

;; A primitive without a derivative rule, called on a value being differentiated: fine while
;; no derivative flows through it.
(define (%ad-no-derivative in prim d args)
  (if (not (%ad-zero? d))
      (%ad-fail prim "no derivative for" in)))
;; An effectful primitive without a rule (vector-set!, set-car!, ...): refused when it could
;; store a number being differentiated into an object (the gradient through the object would
;; be lost); output of a plain number (display x) is allowed.
(define (%ad-check-effect in prim args)
  (if (and (pair? args)
           (or (pair? (car args)) (vector? (car args)) (not (number? (car args))))
           (%ad-has-real? (cdr args))
           (not (and (pair? (cdr args)) (output-port? (cadr args)))))
      (%ad-fail prim "cannot differentiate through the mutation" in)))

;; The gradient of argument x from its cotangent g: shaped like x, zeros where g is 0.
(define (%ad-fill x g zero)
  (cond ((pair? x) (cons (%ad-fill (car x) (%ad-car g) zero) (%ad-fill (cdr x) (%ad-cdr g) zero)))
        ((vector? x)
         (let* ((n (vector-length x)) (v (make-vector n 0)))
           (do ((i 0 (+ i 1))) ((= i n) v)
             (vector-set! v i (%ad-fill (vector-ref x i) (%ad-vector-ref g i) zero)))))
        ((null? x) '())
        ((eq? g 0) (if (and (number? x) (exact? x)) zero (if (number? x) 0.0 g)))
        (else g)))

;; Which arguments a gradient is taken with respect to: #f (all), an index, or a list of indices.
(define (%ad-check-wrt who wrt)
  (cond ((null? wrt) #f)
        ((not (null? (cdr wrt))) (error (string-append who ": expected one argument selection, got") wrt))
        ((and (exact-integer? (car wrt)) (>= (car wrt) 0)) (car wrt))
        ((and (list? (car wrt)) (every (lambda (k) (and (exact-integer? k) (>= k 0))) (car wrt))) (car wrt))
        (else (error (string-append who ": expected an argument index or a list of indices, got") (car wrt)))))

(define (%ad-select who sel args grads zero)
  (let ((n (length args)))
    (define (one k)
      (if (>= k n)
          (error (string-append who ": no argument at position") k)
          (%ad-fill (list-ref args k) (%ad-nth grads k) zero)))
    (cond ((not sel) (if (= n 1) (one 0) (let loop ((k 0)) (if (= k n) '() (cons (one k) (loop (+ k 1)))))))
          ((integer? sel) (one sel))
          (else (map one sel)))))

;; f's value and gradient at args: one forward run, one backward run.
(define (%ad-value-and-grad who f sel args)
  (let* ((r (apply (%ad-j f) args))
         (y (car r)))
    (if (not (real? y))
        (error (string-append who ": the function must return a real number, got") y))
    (let ((g ((cdr r) (if (exact? y) 1 1.0))))
      (values y (%ad-select who sel args (cdr g) (if (exact? y) 0 0.0))))))

(define (value-and-grad f . wrt)
  (if (not (procedure? f)) (%bad-proc "value-and-grad" f))
  (let ((sel (%ad-check-wrt "value-and-grad" wrt)))
    (lambda args (%ad-value-and-grad "value-and-grad" f sel args))))

(define (grad f . wrt)
  (if (not (procedure? f)) (%bad-proc "grad" f))
  (let ((sel (%ad-check-wrt "grad" wrt)))
    (lambda args
      (call-with-values (lambda () (%ad-value-and-grad "grad" f sel args))
        (lambda (y g) g)))))

;; f's value at args and its pullback: a procedure from a cotangent shaped like the value to the
;; list of gradients, one per argument.
(define (vjp f)
  (if (not (procedure? f)) (%bad-proc "vjp" f))
  (lambda args
    (let ((r (apply (%ad-j f) args)))
      (values (car r)
              (lambda (ct)
                (let ((g (cdr ((cdr r) ct))))
                  (let loop ((k 0) (as args))
                    (if (null? as)
                        '()
                        (cons (%ad-fill (car as) (%ad-nth g k) 0) (loop (+ k 1) (cdr as)))))))))))

;; J of a primitive: the transformed eta-expansion for the argument count of each call.
(define (%ad-jprim p)
  (lambda args (apply (%ad-jprim-n p (length args)) args)))
