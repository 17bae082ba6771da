// repl_scheme.hpp — the Scheme half of the REPL: small procedures the loop makes once per session
// (before any user code runs, so they see the built-ins even if the user redefines them) and calls
// through Engine::call. Printing goes through the engine's own ports, so a session served on a
// socket prints there, and `fresh-line` knows where the cursor is.
#pragma once

namespace quasi::cli::scheme {

// (print value width length depth): every value of `value` (several when it is multiple values),
// pretty-printed one per line, on a fresh line; length and depth #f for no limit.
inline constexpr const char* kPrint = R"scheme(
(lambda (v width len depth)
  (fresh-line (current-error-port))
  (fresh-line)
  (call-with-values (lambda () v)
    (lambda vals
      (parameterize ((pretty-print-width width) (print-length len) (print-level depth))
        (for-each pretty-print vals)))))
)scheme";

// (fresh-lines): puts both output ports at the start of a line (before a prompt or a report).
inline constexpr const char* kFreshLines = R"scheme(
(lambda ()
  (fresh-line (current-error-port))
  (fresh-line))
)scheme";

}  // namespace quasi::cli::scheme

namespace quasi::cli::scheme {

// (make-tracer name proc): a procedure that behaves as proc and prints each call and each
// return, indented by the depth of traced calls in progress (one depth for all traced
// procedures), values cut short by print-length/print-level. An escape out of a traced call
// (an error, a continuation) unwinds the depth with it.
inline constexpr const char* kMakeTracer = R"scheme(
(let ((depth 0))
  (define (show prefix x)
    (write-string (make-string (* 2 (min depth 30)) #\space))
    (write-string prefix)
    (parameterize ((print-length 12) (print-level 4) (pretty-print-width 100000))
      (pretty-print x)))
  (lambda (name proc)
    (lambda args
      (show "" (cons name args))
      (call-with-values
        (lambda ()
          (dynamic-wind
            (lambda () (set! depth (+ depth 1)))
            (lambda () (apply proc args))
            (lambda () (set! depth (- depth 1)))))
        (lambda results
          (if (null? results) (show "=> " 'no-values) (for-each (lambda (r) (show "=> " r)) results))
          (apply values results))))))
)scheme";

}  // namespace quasi::cli::scheme
