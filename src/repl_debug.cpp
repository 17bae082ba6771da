// repl_debug.cpp — the post-mortem commands: after an uncaught error, ,bt lists the frames the
// error recorded (procedure, file:line:col, argument values), ,frame N selects one and ,locals
// shows the selected frame's parameters by name. The compiler keeps parameters in their own
// registers for the whole call, so those are what a frame can show; other locals are not kept.
#include <iostream>
#include <string>

#include "repl_impl.hpp"

namespace quasi::cli {

void Repl::remember_error(const Error& error) {
  last_error_ = error;
  frame_ = 0;
}

bool Repl::have_frames() {
  if (last_error_ && !last_error_->frames().empty()) return true;
  command_error(last_error_ ? "the last error recorded no Scheme frames" : "no error to inspect yet");
  return false;
}

void Repl::cmd_bt(std::string_view) {
  if (!have_frames()) return;
  fresh_lines();
  const std::vector<Error::Frame>& frames = last_error_->frames();
  std::cout << last_error_->what() << '\n';
  for (size_t i = 0; i < frames.size(); i++) {
    std::cout << (i == frame_ ? "* " : "  ") << i << ": " << frame_call(frames[i]);
    if (!frames[i].location.empty()) std::cout << " at " << frames[i].location;
    if (frames[i].internal) std::cout << "  [prelude]";
    std::cout << '\n';
  }
  if (last_error_->frame_count() > frames.size())
    std::cout << "  ... " << last_error_->frame_count() - frames.size() << " outer frames not recorded\n";
  std::cout << std::flush;
}

void Repl::cmd_frame(std::string_view arg) {
  if (!have_frames()) return;
  const std::vector<Error::Frame>& frames = last_error_->frames();
  if (!trim(arg).empty()) {
    std::string text(trim(arg));
    char* end = nullptr;
    long n = std::strtol(text.c_str(), &end, 10);
    if (*end != '\0' || n < 0 || size_t(n) >= frames.size())
      return command_error(",frame: expected a frame number from 0 to " + std::to_string(frames.size() - 1) +
                           ", got " + text);
    frame_ = size_t(n);
  }
  fresh_lines();
  const Error::Frame& f = frames[frame_];
  std::cout << frame_ << ": " << frame_call(f);
  if (!f.location.empty()) std::cout << " at " << f.location;
  std::cout << std::endl;
}

void Repl::cmd_locals(std::string_view) {
  if (!have_frames()) return;
  fresh_lines();
  const Error::Frame& f = last_error_->frames()[frame_];
  if (f.arguments.empty()) std::cout << "; frame " << frame_ << " has no parameters\n";
  for (size_t i = 0; i < f.arguments.size(); i++) {
    const std::string& name = f.parameters[i].empty() ? "#" + std::to_string(i) : f.parameters[i];
    std::cout << "  " << name << " = " << f.arguments[i] << '\n';
  }
  std::cout << std::flush;
}

}  // namespace quasi::cli
