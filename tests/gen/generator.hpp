// generator.hpp — random closed, terminating Scheme programs for differential testing.
//
// A program is one procedure (lambda (a b c d) body) over an exact integer a, a number b, a list
// of integers c and a string d, plus argument tuples to call it with. The body is built by type
// (integers, numbers of every kind, booleans, characters, strings, lists, vectors, procedures
// from integers to integers) from let/let*/letrec/named let, if/cond/case/when/unless, set!,
// call/cc escapes, dynamic-wind, guard/raise/error, apply, map/for-each, closures and calls that
// raise (car of '(), vector-ref out of range, division by zero, exact of +nan.0 ...). Everything
// the body writes goes to a trace (`out`), and the procedure returns (outcome trace), where
// outcome is (value V) or what the raise was: every run of a program is one datum to compare.
//
// Invariants that keep every program terminating and small:
//   - loops run a literal number of times (at most 5), recursion counts down from (modulo x 6);
//     at most two loops nest, and procedure bodies are built as if inside a loop;
//   - inside a loop an operation that can square or double a value's size (*, expt,
//     string-append, append) gets a literal second operand, so sizes grow at most linearly;
//   - a continuation is only called within the extent of its call/cc (lambda bodies that may run
//     later do not see it), so no continuation is ever re-entered.
// Within those rules the same seed always gives the same program (a 64-bit xorshift* stream).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sexp.hpp"

namespace quasi_gen {

struct Program {
  Sexp proc;                                      // (lambda (a b c d) ...)
  std::vector<std::vector<std::string>> args;     // argument tuples, each 4 literals as source
  std::vector<std::vector<int>> static_positions;  // per tuple: the positions given to specialize*
};

constexpr int kParams = 4;

// The program of one seed.
Program generate(uint64_t seed);

// A seed for program `index` of the run with seed `run_seed` (so one program can be rerun alone).
uint64_t program_seed(uint64_t run_seed, uint64_t index);

}  // namespace quasi_gen
