;;; 70-ad.scm — the Scheme half of automatic differentiation (lib/ad/README.md): the user
;;; procedures grad, value-and-grad, vjp, and the cotangent helpers the transformed code and the
;;; derivative rules of the primitive table (core/prim.hpp, DerivativeRule) call.
;;;
;;; Provides: grad value-and-grad vjp jvp derivative jacobian hessian
;;; Internal (prefix %ad-): the cotangent algebra below; %ad-j (C++, lib/ad) transforms a
;;; procedure into its reverse-mode form.
;;;
;;; Cotangents. The symbol %ad-zero is the zero of every shape (nothing is built for a value no derivative
;;; reaches). A real's cotangent is a real, a pair's is a pair of cotangents, a vector's a vector
;;; of cotangents, a closure's a vector with one cotangent per free variable of the closure (in
;;; the closure's layout, Proto::free_vars). A pullback returns (dself . dargs): the cotangent of
;;; the procedure itself, and a list with one cotangent per argument (%ad-zero when all are zero). The zero is not the number 0: an exact 0 that arithmetic
;;; computes is an ordinary cotangent, so code differentiating this code (nested derivatives)
;;; never takes the zero's shortcuts on a value whose own derivative is not zero..

;; list->vector and vector->list, written so that the partial evaluator follows them for a
;; short vector of known length (apply of a known list, vector-ref at known indices): the
;; cotangents of a fixed-shape function stay known vectors (lib/ad/README.md, "Residuals").
(define (%ad-l->v l)
  (if (< (length l) 32) (apply vector l) (list->vector l)))
(define (%ad-v->l v)
  (let ((n (vector-length v)))
    (if (< n 32)
        (let loop ((i (- n 1)) (acc '()))
          (if (< i 0) acc (loop (- i 1) (cons (vector-ref v i) acc))))
        (vector->list v))))

(define (%ad-add a b)
  ;; two numbers first: the common case, and the one the partial evaluator decides for
  ;; cotangents it knows are numbers (lib/ad/README.md, "Residuals")
  (cond ((and (number? a) (number? b)) (+ a b))
        ((eq? a '%ad-zero) b)
        ((eq? b '%ad-zero) a)
        ((number? a) (+ a b))
        ((pair? a) (cons (%ad-add (car a) (%ad-car b)) (%ad-add (cdr a) (%ad-cdr b))))
        ((vector? a) (%ad-l->v (%ad-add-list (%ad-v->l a) b 0)))
        (else b)))
;; The elements of vector cotangent b from index i on, added to the list l.
(define (%ad-add-list l b i)
  (if (null? l) '() (cons (%ad-add (car l) (%ad-vector-ref b i)) (%ad-add-list (cdr l) b (+ i 1)))))

(define (%ad-car d) (if (pair? d) (car d) '%ad-zero))
(define (%ad-cdr d) (if (pair? d) (cdr d) '%ad-zero))
(define (%ad-vector-ref d i) (if (vector? d) (vector-ref d i) '%ad-zero))
;; A vector cotangent d with slot i the zero: what reaches a vector's contents before
;; (vector-set! v i e) from what reaches them after (lib/ad/README.md, "vector-set!").
(define (%ad-vector-clear d i)
  (if (vector? d)
      (%ad-l->v (let loop ((l (%ad-v->l d)) (k 0))
                  (if (null? l) '() (cons (if (= k i) '%ad-zero (car l)) (loop (cdr l) (+ k 1))))))
      d))
;; The sum of a vector cotangent's slots: the cotangent of (make-vector n fill)'s fill.
(define (%ad-vector-sum d)
  (if (vector? d)
      (let loop ((l (%ad-v->l d)) (acc '%ad-zero)) (if (null? l) acc (loop (cdr l) (%ad-add acc (car l)))))
      d))
(define (%ad-nth d i) (if (= i 0) (%ad-car d) (%ad-nth (%ad-cdr d) (- i 1))))
(define (%ad-tail d k) (if (= k 0) d (%ad-tail (%ad-cdr d) (- k 1))))

;; A cotangent with `d` at index i and zeros elsewhere, for a vector of length (vector-length v).
(define (%ad-onehot v i d)
  (if (eq? d '%ad-zero) d (%ad-l->v (%ad-take (%ad-list-onehot i d) (vector-length v)))))
(define (%ad-list-onehot i d)
  (if (eq? d '%ad-zero) d (if (= i 0) (cons d '%ad-zero) (cons '%ad-zero (%ad-list-onehot (- i 1) d)))))
;; The first n elements of list cotangent d as a list (d may end early in the zero).
(define (%ad-take d n)
  (if (= n 0) '() (cons (%ad-car d) (%ad-take (%ad-cdr d) (- n 1)))))
(define (%ad-drop d n) (%ad-tail d n))
(define (%ad-reverse d n)
  (if (eq? d '%ad-zero) d (reverse (%ad-take d n))))
(define (%ad-list->vector d n)
  (if (eq? d '%ad-zero) d (%ad-l->v (%ad-take d n))))
(define (%ad-vector->list d n)
  (if (eq? d '%ad-zero)
      d
      (let loop ((i (- n 1)) (acc '()))
        (if (< i 0) acc (loop (- i 1) (cons (%ad-vector-ref d i) acc))))))

;; 1/x, with the convention that the derivative at a point where it is infinite is +inf.0
;; (sqrt, asin, acos, log at their boundary) instead of an exact division by zero.
;; (An exact zero is the fixnum 0: (eqv? x 0) is that test for a number, done inline by the JIT,
;; where exact? is a call.)
(define (%ad-recip x)
  (if (eqv? x 0) +inf.0 (/ 1 x)))
;; d times (%ad-recip x), as the backward code writes it (reverse.cpp, over_rule): one division.
;; At an exact 0, d/0.0 is d times +inf.0 (+inf.0, -inf.0, or +nan.0 for a zero d, exact or not).
;; The division outermost: the partial evaluator knows its result is a number.
(define (%ad-over d x)
  (/ d (if (eqv? x 0) 0.0 x)))

;; Whether cotangent d is zero everywhere.
(define (%ad-zero? d)
  (cond ((number? d) (zero? d))
        ((pair? d) (and (%ad-zero? (car d)) (%ad-zero? (cdr d))))
        ((vector? d)
         (let loop ((i 0))
           (or (= i (vector-length d)) (and (%ad-zero? (vector-ref d i)) (loop (+ i 1))))))
        (else #t)))
;; Whether a derivative may flow through x: x is, or holds in its pairs and vectors, a real number
;; or a procedure (a closure the differentiated code made may capture reals: stored in a box and
;; called later, its derivative would be lost as a stored number's would).
(define (%ad-has-real? x)
  (cond ((real? x) #t)
        ((procedure? x) #t)
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
;; An effectful primitive without a rule (vector-set!, set-car!, hash-table-set!, ...) given
;; values being differentiated (`args`): refused when one holds a number, since the derivative
;; through what it stores would be lost. When the caller made the `target` vector and it escaped
;; there before this call (%ad-note-escape!), the message says where: that is what to change.
(define (%ad-check-effect in prim target args)
  (if (%ad-has-real? args)
      (let ((noted (%ad-escape-note target)))
        (if noted
            (error (string-append "grad: cannot differentiate through " (symbol->string prim)
                                  " of a vector that escaped before the write (" noted ") in "
                                  (if (symbol? in) (symbol->string in) "an anonymous procedure")))
            (%ad-fail prim "cannot differentiate through the mutation" in)))))

;; vector-set! of a value being differentiated into a vector the differentiated code made but
;; that escaped before the write (passed to a procedure, stored in a structure, captured by a
;; closure, or returned by a loop as its value): code holding it elsewhere would not see the
;; write's version of it. `how` says where it escaped ("passed to keep!"), #f when this code did
;; not see it (a parameter): then the caller's note for this vector names it (%ad-note-escape!).
(define (%ad-check-escaped-write in vec how args)
  (if (%ad-has-real? args)
      (let ((in (if (symbol? in) (symbol->string in) "an anonymous procedure"))
            (noted (%ad-escape-note vec)))
        (error (string-append "grad: cannot differentiate through vector-set! of a vector that escaped before the write ("
                              (cond (how how)
                                    (noted noted)
                                    (else "passed to a procedure, stored, captured by a closure, or returned by a loop"))
                              ") in " in)))))

;; Loops that write vectors (lib/ad/README.md, "vector-set!"): a loop carries the vectors it
;; writes as extra arguments and returns (vector value vector ...). %ad-own marks the vector a
;; transformed procedure owns from then on (the identity); (%ad-unpack t k [#t]) is t's value
;; (#t: the loop may return one of the vectors as its value).
(define (%ad-own v) v)
(define (%ad-unpack t k . aliased) (vector-ref t 0))

;; The cotangents of the outer free variables of a letrec group whose procedures call each other
;; (mutual recursion), from the cotangents cs of its procedures: each a vector in its closure's
;; layout lays[k], whose slot is an outer variable's index, or -1-j for the group's procedure j,
;; whose cotangent (built by the calls of j in k's code) is sent on the same way. Without
;; mutation (nested derivatives).
(define (%ad-group-cot cs lays m)
  (let loop ((work (let l ((k 0)) (if (= k (vector-length cs)) '() (cons (cons k (vector-ref cs k)) (l (+ k 1))))))
             (acc (let l ((i 0)) (if (= i m) '() (cons '%ad-zero (l (+ i 1)))))))
    (if (null? work)
        (%ad-l->v acc)
        (let ((k (car (car work))) (c (cdr (car work))))
          (if (not (vector? c))
              (loop (cdr work) acc)
              (let ((lay (vector-ref lays k)))
                (let slots ((s 0) (work (cdr work)) (acc acc))
                  (if (= s (vector-length lay))
                      (loop work acc)
                      (let ((j (vector-ref lay s)) (d (vector-ref c s)))
                        (if (< j 0)
                            (slots (+ s 1) (cons (cons (- -1 j) d) work) acc)
                            (slots (+ s 1) work
                                   (let add ((l acc) (i 0))
                                     (if (= i j) (cons (%ad-add (car l) d) (cdr l)) (cons (car l) (add (cdr l) (+ i 1))))))))))))))))

;; The cotangent of the values `vals` a consumer received (call-with-values), from the list of
;; the consumer's argument cotangents: that list for several values, its first for one value.
(define (%ad-values-cot vals d)
  (if (%ad-values? vals) d (%ad-car d)))

;; ---- cells: set! of local variables (lib/ad/README.md, "set!") ----
;; A variable the differentiated code assigns lives in a cell (%ad-cell, C++); its adjoint is a
;; cell too (%ad-cell-adj), which the backward sweep updates in reverse order: a read adds the
;; read value's cotangent, a write (and the cell's making) takes the adjoint for the value
;; stored and leaves the zero. Written with the cell primitives only, so that the backward
;; sweep can itself be differentiated (forward mode).
(define (%ad-cell-accum! c d)
  (if (and (%ad-cell? c) (not (eq? d '%ad-zero)))
      (%ad-cell-set! c (%ad-add (%ad-cell-ref c) d))))
(define (%ad-cell-take! c)
  (if (%ad-cell? c)
      (let ((v (%ad-cell-ref c)))
        (%ad-cell-set! c '%ad-zero)
        v)
      '%ad-zero))
;; A write of a value being differentiated to a variable bound outside the differentiated code
;; (the compiler's box, no adjoint): refused when the value holds a number.
(define (%ad-check-cell-set in var c v)
  (if (and (not (%ad-cell? c)) (%ad-has-real? v))
      (%ad-fail var "cannot differentiate through set! of the outside variable" in)))

;; The gradient of argument x from its cotangent g: shaped like x, zeros where g is 0 (exact
;; zero for an exact leaf when `zero` is exact, else 0.0). Without mutation, so that code using
;; it can itself be differentiated (nested derivatives).
(define (%ad-fill x g zero)
  ;; a number's cotangent is a number: known without looking at x (the partial evaluator
  ;; knows arithmetic's results are numbers, so a fixed-shape gradient has no shape walk left)
  (cond ((number? g) g)
        ((pair? x) (cons (%ad-fill (car x) (%ad-car g) zero) (%ad-fill (cdr x) (%ad-cdr g) zero)))
        ((vector? x) (%ad-l->v (%ad-fill-list (%ad-v->l x) g 0 zero)))
        ((null? x) '())
        ;; a leaf that is not a number (a symbol, string, character, boolean, procedure) has no
        ;; derivative: #f holds its place (the private zero must not reach the user)
        ((eq? g '%ad-zero) (if (number? x) (if (exact? x) zero 0.0) #f))
        (else g)))
(define (%ad-fill-list l g i zero)
  (if (null? l)
      '()
      (cons (%ad-fill (car l) (%ad-vector-ref g i) zero) (%ad-fill-list (cdr l) g (+ i 1) zero))))

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
          ;; not map: its result is built in reverse, and a residual `reverse` hides the list's
          ;; length from the partial evaluator (and from code differentiating this residual)
          (else (let loop ((s sel)) (if (null? s) '() (cons (one (car s)) (loop (cdr s)))))))))

;; f's value and gradient at args, as a pair: one forward run, one backward run. (No multiple
;; values on this path: code that calls grad can itself be differentiated.)
(define (%ad-vg who f sel args)
  (let* ((r (apply (%ad-j f) args))
         (y (car r)))
    (if (not (real? y))
        (error (string-append who ": the function must return a real number, got") y))
    (let ((g ((cdr r) (if (exact? y) 1 1.0))))
      (cons y (%ad-select who sel args (cdr g) (if (exact? y) 0 0.0))))))

;; A procedure taking f's arguments as k does (a list): of f's own parameters when f takes a fixed
;; number of them (up to 4), so that the partial evaluator knows the list's length and a gradient
;; of a fixed-shape function specializes to straight-line code, with no shape walk left
;; (lib/ad/README.md, "Residuals"); of a rest list otherwise.
(define (%ad-like f k)
  (case (%ad-arity f)
    ((1) (lambda (a) (k (list a))))
    ((2) (lambda (a b) (k (list a b))))
    ((3) (lambda (a b c) (k (list a b c))))
    ((4) (lambda (a b c d) (k (list a b c d))))
    (else (lambda args (k args)))))

(define (value-and-grad f . wrt)
  (if (not (procedure? f)) (%bad-proc "value-and-grad" f))
  (let ((sel (%ad-check-wrt "value-and-grad" wrt)))
    (%ad-like f (lambda (args)
                  (let ((p (%ad-vg "value-and-grad" f sel args)))
                    (values (car p) (cdr p)))))))

(define (grad f . wrt)
  (if (not (procedure? f)) (%bad-proc "grad" f))
  (let ((sel (%ad-check-wrt "grad" wrt)))
    (%ad-like f (lambda (args) (cdr (%ad-vg "grad" f sel args))))))

;; f's value at args and its pullback: a procedure from a cotangent shaped like the value to the
;; list of gradients, one per argument.
(define (vjp f)
  (if (not (procedure? f)) (%bad-proc "vjp" f))
  (%ad-like f (lambda (args)
    (let ((r (apply (%ad-j f) args)))
      (values (car r)
              (lambda (ct)
                (let ((g (cdr ((cdr r) ct))))
                  (let loop ((k 0) (as args))
                    (if (null? as)
                        '()
                        (cons (%ad-fill (car as) (%ad-nth g k) 0) (loop (+ k 1) (cdr as))))))))))))

;; The cotangent of f from the cotangent d of J(f) = (%ad-j f) (the derivative rule of %ad-j,
;; for derivatives of code that itself differentiates): J's free slots are f's own free values
;; and f itself (%ad-j-layout says which is which).
(define (%ad-j-adjoint j d)
  (if (eq? d '%ad-zero)
      d
      (let* ((lay (%ad-j-layout j)) (n (vector-ref lay 0)) (m (- (vector-length lay) 1)))
        (let loop ((k 0) (fv '%ad-zero) (whole '%ad-zero))
          (if (= k m)
              (%ad-add (if (eq? fv '%ad-zero) fv (%ad-l->v (%ad-take fv n))) whole)
              (let ((s (vector-ref lay (+ k 1))) (c (%ad-vector-ref d k)))
                (cond ((= s -1) (loop (+ k 1) fv (%ad-add whole c)))
                      ((= s -2) (loop (+ k 1) fv whole))
                      (else (loop (+ k 1) (%ad-add fv (%ad-list-onehot s c)) whole)))))))))

;; J of a primitive: the transformed eta-expansion for the argument count of each call.
(define (%ad-jprim p)
  (lambda args (apply (%ad-jprim-n p (length args)) args)))

;; ---- forward mode, from reverse mode ----------------------------------------------------------
;; A pullback pb is linear: pb(u) = J^T u. So J t, the directional derivative along t, is the
;; gradient with respect to u of <pb(u), t> — reverse mode applied to the pullback (the
;; transformation of transformed code, as for any nested derivative). Costs one forward run and
;; two backward runs, for any number of outputs.

;; <a, b> for two cotangents or tangents of one shape (0 is zero).
(define (%ad-dot a b)
  (cond ((or (eq? a '%ad-zero) (eq? b '%ad-zero)) 0)
        ((number? a) (* a b))
        ((pair? a) (+ (%ad-dot (car a) (%ad-car b)) (%ad-dot (cdr a) (%ad-cdr b))))
        ((vector? a)
         (let loop ((i 0) (s 0))
           (if (= i (vector-length a)) s (loop (+ i 1) (+ s (%ad-dot (vector-ref a i) (%ad-vector-ref b i)))))))
        (else 0)))
(define (%ad-dot-args gs ts)
  (if (null? ts) 0 (+ (%ad-dot (%ad-car gs) (car ts)) (%ad-dot-args (%ad-cdr gs) (cdr ts)))))

;; A value shaped like x with 1 (1.0 for an inexact number) at every number.
(define (%ad-ones x)
  (cond ((pair? x) (cons (%ad-ones (car x)) (%ad-ones (cdr x))))
        ((vector? x) (list->vector (map %ad-ones (vector->list x))))
        ((number? x) (if (exact? x) 1 1.0))
        (else x)))

;; The directional derivative of the value y of a call whose pullback is pb, along ts.
(define (%ad-push y pb ts)
  ;; u = 1 everywhere (any u gives the same gradient, pb being linear).
  (let* ((u (%ad-ones y))
         (r ((%ad-j (lambda (u) (%ad-dot-args (cdr (pb u)) ts))) u)))
    (%ad-fill u (%ad-car (cdr ((cdr r) 1))) 0)))

(define (%ad-check-list who x)
  (if (not (list? x)) (error (string-append who ": expected a list, got") x)))

;; A tangent fits its argument when it has the argument's shape: a real for a number, a pair
;; for a pair and a vector of the same length for a vector, all the way down (other values are
;; not differentiated: any tangent fits them).
(define (%ad-tangent-fits? x t)
  (cond ((number? x) (real? t))
        ((pair? x) (and (pair? t) (%ad-tangent-fits? (car x) (car t)) (%ad-tangent-fits? (cdr x) (cdr t))))
        ((vector? x)
         (and (vector? t) (= (vector-length x) (vector-length t))
              (let loop ((i 0))
                (or (= i (vector-length x))
                    (and (%ad-tangent-fits? (vector-ref x i) (vector-ref t i)) (loop (+ i 1)))))))
        ((null? x) (null? t))
        (else #t)))

;; ((jvp f) (list x ...) (list t ...)): f's value and its derivative along the tangents. For real
;; arguments, by f's forward form when it has one (%ad-fwd-try, lib/ad/forward.hpp): value and
;; tangent computed together, no pullback; else by reverse mode.
(define (jvp f)
  (if (not (procedure? f)) (%bad-proc "jvp" f))
  (lambda (xs ts)
    (%ad-check-list "jvp" xs)
    (%ad-check-list "jvp" ts)
    (if (not (= (length xs) (length ts)))
        (error "jvp: expected as many tangents as arguments, got" ts))
    (for-each (lambda (x t)
                (if (not (%ad-tangent-fits? x t))
                    (error "jvp: expected a tangent shaped like its argument, got" t x)))
              xs ts)
    (let* ((n (length xs))
           (mask (- (expt 2 n) 1))
           (ff (and (<= n 30) (every real? xs) (%ad-fwd-try f mask n)))
           (r (and ff (apply ff (%ad-interleave xs ts)))))
      (cond ((and r (%ad-fwd-number? f mask n))
             (values (car r) (%ad-fwd-number-tangent (car r) (cdr r))))
            ((and r (not (procedure? (car r))))
             (values (car r) (%ad-fwd-tangent (car r) (cdr r))))
            (else
             (let* ((r (apply (%ad-j f) xs)) (y (car r)))
               (values y (if (number? y) (%ad-jvp-number y (cdr r) ts) (%ad-push y (cdr r) ts)))))))))

(define (%ad-interleave xs ts)
  (if (null? xs) '() (cons (car xs) (cons (car ts) (%ad-interleave (cdr xs) (cdr ts))))))

;; The derivative a forward form computed, d, of its value y, as reverse mode gives it: a number
;; inexact when y is; in a shape, a number per number of y (0 where nothing reached it), #f at
;; any other leaf.
(define (%ad-fwd-tangent y d)
  (cond ((number? y) (if (number? d) (%ad-fwd-number-tangent y d) 0))
        ((or (pair? y) (vector? y)) (%ad-zip-shape %ad-fwd-tangent y d))
        ((null? y) y)
        (else #f)))

;; The same for a number y (whose tangent d is a number).
(define (%ad-fwd-number-tangent y d) (if (and (exact? d) (not (exact? y))) (inexact d) d))

;; The pair or vector x with (f part t) at each part, t the same part of t when t has it, else
;; forward code's zero, the exact 0.
(define (%ad-zip-shape f x t)
  (if (pair? x)
      (cons (f (car x) (if (pair? t) (car t) 0)) (f (cdr x) (if (pair? t) (cdr t) 0)))
      (let ((v (make-vector (vector-length x) 0)))
        (let loop ((i 0))
          (if (= i (vector-length x))
              v
              (begin
                (vector-set! v i (f (vector-ref x i) (if (and (vector? t) (< i (vector-length t))) (vector-ref t i) 0)))
                (loop (+ i 1))))))))

;; A procedure's forward form from jvp, for a call in forward code of a procedure that has none
;; (%ad-fwd): its arguments with a tangent after each one in mask; returns (value . tangent).
(define (%ad-fwd-adapter f mask n)
  (lambda args
    (let loop ((as args) (k 0) (xs '()) (ts '()))
      (if (null? as)
          (call-with-values (lambda () ((jvp f) (reverse xs) (reverse ts)))
            (lambda (y dy)
              (if (%ad-holds-procedure? y)
                  (error "derivative: forward mode cannot follow a procedure returned by" f))
              (cons y dy)))
          (if (odd? (quotient mask (expt 2 k)))
              (loop (cddr as) (+ k 1) (cons (car as) xs) (cons (%ad-tangent-like (car as) (cadr as)) ts))
              (loop (cdr as) (+ k 1) (cons (car as) xs) (cons (%ad-tangent-like (car as) 0) ts)))))))

;; t completed to x's shape (forward code's zero, and a zero part, is the exact 0).
(define (%ad-tangent-like x t)
  (cond ((number? x) (if (real? t) t 0))
        ((or (pair? x) (vector? x)) (%ad-zip-shape %ad-tangent-like x t))
        (else x)))

(define (%ad-holds-procedure? y)
  (cond ((procedure? y) #t)
        ((pair? y) (or (%ad-holds-procedure? (car y)) (%ad-holds-procedure? (cdr y))))
        ((vector? y) (let loop ((i 0))
                       (and (< i (vector-length y))
                            (or (%ad-holds-procedure? (vector-ref y i)) (loop (+ i 1))))))
        (else #f)))

;; The derivative along ts of a number-valued f whose pullback is pb and value y: <grad f, ts>,
;; one backward run (pb is linear: what %ad-push computes, with its zero, 0 or 0.0 as y is exact,
;; when no argument reaches the value).
(define (%ad-jvp-number y pb ts)
  (let ((g (cdr (pb 1))))
    (if (let loop ((g g)) (or (null? g) (and (pair? g) (eq? (car g) '%ad-zero) (loop (cdr g)))))
        (if (exact? y) 0 0.0)
        (%ad-dot-args g ts))))

;; df/dx from the pullback pb of a number-valued f at the real x (value y): the pullback at 1,
;; times the tangent 1 or 1.0 as x is exact, the zero shaped like y (what %ad-push computes).
(define (%ad-derivative-number x y pb)
  (let ((g (%ad-car (cdr (pb (if (exact? y) 1 1.0))))))
    (if (eq? g '%ad-zero) (if (exact? y) 0 0.0) (* g (if (exact? x) 1 1.0)))))

;; ((derivative f) x): df/dx at the real x; shaped like f's value. A function-valued f has a
;; function-valued derivative: ((derivative f) x) is (lambda args ((derivative (lambda (x)
;; (apply (f x) args))) x)), so derivatives of higher-order results stay correct.
(define (derivative f)
  (if (not (procedure? f)) (%bad-proc "derivative" f))
  (lambda (x)
    (if (not (real? x)) (error "derivative: expected a real number, got" x))
    (if (%ad-fwd-number? f 1 1)
        ;; f's forward form (lib/ad/forward.hpp), which returns numbers: value and tangent together
        (let ((r ((%ad-fwd-try f 1 1) x (if (exact? x) 1 1.0))))
          (%ad-fwd-number-tangent (car r) (cdr r)))
        (let* ((ff (%ad-fwd-try f 1 1)) (r (if ff (ff x (if (exact? x) 1 1.0)) ((%ad-j f) x))) (y (car r)))
          (cond ((procedure? y) (lambda args ((derivative (lambda (x) (apply (f x) args))) x)))
                (ff (%ad-fwd-tangent y (cdr r)))
                ;; a number-valued function of a real: one backward run, the pullback at 1 (what
                ;; %ad-push computes, with the same exactness: df/dx times the tangent 1 or 1.0,
                ;; the zero shaped like y), instead of the backward code differentiated again.
                ;; (number?, not real?: the partial evaluator knows arithmetic returns numbers.)
                ((number? y) (%ad-derivative-number x y (cdr r)))
                (else (%ad-push y (cdr r) (list (if (exact? x) 1 1.0)))))))))

;; ((jacobian f) x): x a vector of reals, f returning a vector: the vector of row vectors
;; d f_i / d x_j, one backward run per row.
(define (jacobian f)
  (if (not (procedure? f)) (%bad-proc "jacobian" f))
  (lambda (x)
    (if (not (vector? x)) (error "jacobian: expected a vector, got" x))
    (let* ((r ((%ad-j f) x)) (y (car r)) (pb (cdr r)))
      (if (not (vector? y)) (error "jacobian: the function must return a vector, got" y))
      (let ((m (vector-length y)))
        (let loop ((i 0) (rows '()))
          (if (= i m)
              (list->vector (reverse rows))
              (let ((e (%ad-onehot y i (if (exact? (vector-ref y i)) 1 1.0))))
                (loop (+ i 1) (cons (%ad-fill x (%ad-car (cdr (pb e))) 0) rows)))))))))

;; ((hessian f) x): x a vector, f real-valued: the Jacobian of its gradient.
(define (hessian f)
  (if (not (procedure? f)) (%bad-proc "hessian" f))
  (jacobian (grad f)))
