// repl_terminal.cpp — the REPL on a terminal: libedit line editing, a persistent history, and Tab
// completion of
//   - meta-command names after a comma at the start of the line,
//   - file names after ,load and inside a string ("...),
//   - Scheme names bound in the session (Engine::globals), also after ' ` , ,@ and #'.
#include <editline/readline.h>

#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "repl_impl.hpp"

namespace quasi::cli {

extern volatile sig_atomic_t g_at_prompt;
extern volatile sig_atomic_t g_prompt_interrupted;

namespace {

constexpr int kHistoryLength = 1000;
// Characters that end a Scheme name (and so start the word being completed). The comma is not
// one: a meta-command starts with it, and unquote prefixes are stripped below.
constexpr const char* kWordBreaks = " \t\n\"'`;()[]{}|";

Engine* g_completion_engine = nullptr;

// The candidates of the current completion, computed when it starts (state 0).
std::vector<std::string> g_candidates;
size_t g_next_candidate = 0;
bool g_file_names = false;  // this completion is of file names

// The line before the word being completed, without leading blanks.
std::string_view line_before(std::string_view word) {
  size_t start = rl_point >= int(word.size()) ? size_t(rl_point) - word.size() : 0;
  return trim(std::string_view(rl_line_buffer, start));
}

void find_candidates(std::string_view word) {
  g_candidates.clear();
  g_file_names = false;
  size_t start = rl_point >= int(word.size()) ? size_t(rl_point) - word.size() : 0;
  std::string_view before = line_before(word);
  // ,comm<Tab>
  if (before.empty() && !word.empty() && word.front() == ',') {
    for (const std::string& name : meta_command_names())
      if (name.compare(0, word.size() - 1, word.substr(1)) == 0) g_candidates.push_back("," + name);
    return;
  }
  // ,load fi<Tab>, or "fi<Tab> inside a string
  bool in_string = start > 0 && rl_line_buffer[start - 1] == '"';
  if (before == ",load" || in_string) {
    g_file_names = true;
    rl_completion_append_character = in_string ? '"' : ' ';
    return;
  }
  rl_completion_append_character = ' ';
  // A Scheme name, perhaps after an unquote prefix that belongs to the word.
  std::string prefix;
  if (word.substr(0, 2) == ",@") prefix = ",@";
  else if (word.substr(0, 2) == "#'") prefix = "#'";
  else if (!word.empty() && word.front() == ',') prefix = ",";
  std::string_view name = word.substr(prefix.size());
  if (name.empty() && prefix.empty() && before.empty()) return;  // nothing typed yet
  for (const std::string& n : g_completion_engine->globals(name)) g_candidates.push_back(prefix + n);
}

char* next_candidate(const char*, int state) {
  if (state == 0) g_next_candidate = 0;
  if (g_next_candidate >= g_candidates.size()) return nullptr;
  return strdup(g_candidates[g_next_candidate++].c_str());
}

// libedit's completion entry point (readline's attempted-completion function). libedit of
// Debian 12 rings the bell after every completion made this way; the alternative
// (rl_completion_entry_function) takes a quote before a name for an opening string quote.
char** complete(const char* text, int, int) {
  rl_attempted_completion_over = 1;  // no fall-back to file names unless chosen below
  find_candidates(text);
  if (g_file_names) return rl_completion_matches(text, rl_filename_completion_function);
  if (g_candidates.empty()) return nullptr;
  return rl_completion_matches(text, next_candidate);
}

// A terminal: libedit line editing with a persistent history.
class EditLineReader final : public LineReader {
 public:
  explicit EditLineReader(Engine& engine) {
    g_completion_engine = &engine;
    std::setlocale(LC_CTYPE, "");  // libedit decodes multibyte input by the locale
    rl_readline_name = "quasi";
    rl_catch_signals = 0;  // our SIGINT handler decides; libedit must not reinstall its own
    rl_basic_word_break_characters = kWordBreaks;
    rl_completer_word_break_characters = const_cast<char*>(kWordBreaks);
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(kHistoryLength);
    if (const char* home = std::getenv("HOME"); home && *home) {
      history_path_ = std::string(home) + "/.quasi_history";
      read_history(history_path_.c_str());  // best effort: a missing file is normal
    }
  }

  ReadResult read(const char* prompt) override {
    g_prompt_interrupted = 0;
    g_at_prompt = 1;
    char* raw = readline(prompt);
    g_at_prompt = 0;
    if (raw == nullptr) {
      if (g_prompt_interrupted) {
        g_prompt_interrupted = 0;
        std::fputs("^C\n", stdout);
        std::fflush(stdout);
        return {ReadStatus::kInterrupted, {}};
      }
      std::fputs("\n", stdout);  // leave the terminal on a fresh line after Ctrl-D
      std::fflush(stdout);
      return {ReadStatus::kEnd, {}};
    }
    std::string line(raw);
    std::free(raw);
    return {ReadStatus::kLine, std::move(line)};
  }

  void remember(const std::string& entry) override {
    add_history(entry.c_str());
    // Written after every entry so a killed session keeps its history; failures are ignored.
    if (!history_path_.empty()) write_history(history_path_.c_str());
  }

  bool interactive() const override { return true; }

 private:
  std::string history_path_;
};

}  // namespace

std::unique_ptr<LineReader> make_terminal_reader(Engine& engine) { return std::make_unique<EditLineReader>(engine); }

}  // namespace quasi::cli
