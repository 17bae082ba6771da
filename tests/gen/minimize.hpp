// minimize.hpp — shrinks a failing program to a small one that fails the same way.
//
// Greedy, on the syntax tree of the body (the wrapper that collects the outcome stays): each
// round tries, for every node, replacing it by one of its own subexpressions or by a plain atom
// (0, #f, '(), ""), and dropping one element of a list of three or more; the first change that
// keeps `still_fails` true is taken, and rounds repeat until none is. The tree carries no types,
// so a candidate may be ill-typed: it is still a closed program, and it is kept only if it still
// shows the mismatch.
#pragma once

#include <functional>

#include "generator.hpp"

namespace quasi_gen {

// The body inside the wrapper the generator puts around it (generator.cpp: wrap).
Sexp& body_of(Program& p);

// Returns the smallest program found; `budget` bounds the number of candidates tried.
Program minimize(const Program& p, const std::function<bool(const Program&)>& still_fails, int budget = 3000);

}  // namespace quasi_gen
