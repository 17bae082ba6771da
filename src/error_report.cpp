// error_report.cpp — how the `quasi` executable reports an uncaught error (scripts and REPL).
#include <algorithm>
#include <iostream>

#include "repl.hpp"

namespace quasi::cli {

std::string frame_call(const Error::Frame& f) {
  std::string call = "(" + (f.procedure.empty() ? std::string("#<procedure>") : f.procedure);
  // A rest list is spread, as the caller wrote the call: (append! 5 (1)), not (append! (5 (1))).
  size_t fixed = f.has_rest ? f.arguments.size() - 1 : f.arguments.size();
  for (size_t i = 0; i < fixed; i++) call += " " + f.arguments[i];
  if (f.has_rest)
    for (const std::string& a : f.rest) call += " " + a;
  if (f.rest_more) call += " ...";
  return call + ")";
}

void print_frame(std::ostream& out, const Error::Frame& f) {
  out << "  in " << frame_call(f);
  if (!f.location.empty()) out << " at " << f.location;
  out << '\n';
}

void print_error(std::ostream& out, const Error& error, bool verbose) {
  std::cout.flush();  // what the program printed before failing comes first
  out << error.what() << '\n';
  const std::vector<Error::Frame>& frames = error.frames();
  size_t shown = 0, examined = 0;
  for (; examined < frames.size() && shown < size_t(kMaxBacktraceLines); examined++) {
    if (frames[examined].internal && !verbose) continue;
    print_frame(out, frames[examined]);
    shown++;
  }
  // Frames past the last one printed, hidden internals among them; internals before it are not
  // "more" frames the user is missing.
  size_t rest = error.frame_count() - examined;
  if (shown == size_t(kMaxBacktraceLines) && rest > 0) out << "  ... " << rest << " more frames\n";
  out.flush();
}

}  // namespace quasi::cli
