;;; eqsat-arith.scm — the rule set of the eqsat pass (lib/passes/eqsat.cpp), kept as data.
;;;
;;;   (cost OP N)                      what a call of primitive OP costs in extraction (default 2;
;;;                                    constants and variables are free): shifts and adds are
;;;                                    cheaper than multiplies, which are cheaper than divisions
;;;   (rule NAME LHS RHS CONDITION ...) a rewrite; operators are primitive names, ?x variables
;;;
;;; Conditions (every variable of a rule must be covered by (exact ...), or the pass refuses the
;;; rule set):
;;;   (exact ?x ...)    the class is an exact integer whenever it returns (the type lattice of
;;;                     lib/egraph/lattice.hpp, from PrimFacts::num_result): what licenses
;;;                     reassociation and changing an operation — no flonum and no value of
;;;                     unknown type is ever touched, and + - * on exact integers cannot raise
;;;   (total ?x ...)    computing the class cannot raise (PrimFacts::exact_total over total exact
;;;                     operands; constants and variables): required of every variable a rule
;;;                     drops, or moves before another operand. A rule that keeps its variables
;;;                     in order (assoc, distribute) needs only exact: the first operand to raise
;;;                     still raises first, with the same error
;;;   (nonzero ?x ...)  the class is a known exact non-zero constant
;;;
;;; No rule here applies to flonums or to values of unknown type: flonum arithmetic is not
;;; associative, and (- x x) → 0 would drop the error a non-number raises.
(cost + 1)
(cost - 1)
(cost arithmetic-shift 1)
(cost * 4)
(cost square 4)
(cost quotient 20)
(cost / 20)
(cost = 1)
(cost < 1)
(cost > 1)
(cost <= 1)
(cost >= 1)

(rule comm-add (+ ?a ?b) (+ ?b ?a) (exact ?a ?b) (total ?a ?b))
(rule comm-mul (* ?a ?b) (* ?b ?a) (exact ?a ?b) (total ?a ?b))
(rule assoc-add (+ ?a (+ ?b ?c)) (+ (+ ?a ?b) ?c) (exact ?a ?b ?c))
(rule assoc-add-r (+ (+ ?a ?b) ?c) (+ ?a (+ ?b ?c)) (exact ?a ?b ?c))
(rule assoc-mul (* ?a (* ?b ?c)) (* (* ?a ?b) ?c) (exact ?a ?b ?c))
(rule assoc-mul-r (* (* ?a ?b) ?c) (* ?a (* ?b ?c)) (exact ?a ?b ?c))
(rule sub-add (- (+ ?a ?b) ?b) ?a (exact ?a ?b) (total ?b))
(rule add-sub (+ (- ?a ?b) ?b) ?a (exact ?a ?b) (total ?b))
(rule sub-assoc (- (+ ?a ?b) ?c) (+ ?a (- ?b ?c)) (exact ?a ?b ?c))
(rule sub-self (- ?a ?a) 0 (exact ?a) (total ?a))
(rule add-zero (+ ?a 0) ?a (exact ?a))
(rule sub-zero (- ?a 0) ?a (exact ?a))
(rule mul-one (* ?a 1) ?a (exact ?a))
(rule mul-zero (* ?a 0) 0 (exact ?a) (total ?a))
(rule double (+ ?a ?a) (* ?a 2) (exact ?a))
(rule mul2-shift (* ?a 2) (arithmetic-shift ?a 1) (exact ?a))
(rule distribute (* ?a (+ ?b ?c)) (+ (* ?a ?b) (* ?a ?c)) (exact ?a ?b ?c))
(rule factor (+ (* ?a ?b) (* ?a ?c)) (* ?a (+ ?b ?c)) (exact ?a ?b ?c))
(rule div-cancel (/ (* ?a ?b) ?b) ?a (exact ?a) (nonzero ?b))
(rule square-mul (square ?a) (* ?a ?a) (exact ?a))
(rule lt-shift (< (+ ?a ?c) (+ ?b ?c)) (< ?a ?b) (exact ?a ?b ?c) (total ?c))
(rule eq-shift (= (+ ?a ?c) (+ ?b ?c)) (= ?a ?b) (exact ?a ?b ?c) (total ?c))
(rule eq-self (= ?a ?a) #t (exact ?a) (total ?a))
(rule lt-self (< ?a ?a) #f (exact ?a) (total ?a))
