// error_report.cpp — how the `quasi` executable reports an uncaught error (scripts and REPL).
#include <algorithm>
#include <iostream>

#include "repl.hpp"

namespace quasi::cli {

void print_error(std::ostream& out, const Error& error) {
  std::cout.flush();  // what the program printed before failing comes first
  out << error.what() << '\n';
  const std::vector<std::string>& trace = error.backtrace();
  const size_t shown = std::min(trace.size(), static_cast<size_t>(kMaxBacktraceLines));
  for (size_t i = 0; i < shown; ++i) out << "  in " << trace[i] << '\n';
  if (trace.size() > shown) out << "  ... " << (trace.size() - shown) << " more\n";
  out.flush();
}

}  // namespace quasi::cli
