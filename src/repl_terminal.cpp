// repl_terminal.cpp — the REPL on a terminal: libedit line editing, a persistent history, and Tab
// completion of
//   - meta-command names after a comma at the start of the line,
//   - file names after ,load and inside a string ("...),
//   - Scheme names bound in the session (Engine::globals), also after ' ` , ,@ and #'.
//
// libedit is opened (dlopen) when the first terminal session starts, not linked: a script never
// needs it, and loading it with the libraries it needs (libtinfo, libbsd, libmd) was about 0.7 ms
// of every start-up. Its header gives the declarations; every use goes through `el`.
#include <dlfcn.h>
#include <editline/readline.h>

#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "repl_impl.hpp"

namespace quasi::cli {

extern volatile sig_atomic_t g_at_prompt;
extern volatile sig_atomic_t g_prompt_interrupted;

namespace {

// What the REPL uses of libedit, resolved from the library at run time.
struct EditLib {
  decltype(&::readline) readline;
  decltype(&::using_history) using_history;
  decltype(&::stifle_history) stifle_history;
  decltype(&::read_history) read_history;
  decltype(&::write_history) write_history;
  decltype(&::add_history) add_history;
  decltype(&::rl_completion_matches) completion_matches;
  decltype(&::rl_filename_completion_function) filename_completion_function;
  decltype(&::rl_readline_name) readline_name;
  decltype(&::rl_line_buffer) line_buffer;
  decltype(&::rl_point) point;
  decltype(&::rl_basic_word_break_characters) basic_word_break_characters;
  decltype(&::rl_completer_word_break_characters) completer_word_break_characters;
  decltype(&::rl_attempted_completion_function) attempted_completion_function;
  decltype(&::rl_attempted_completion_over) attempted_completion_over;
  decltype(&::rl_completion_append_character) completion_append_character;
  decltype(&::rl_catch_signals) catch_signals;
};

// Null (with the reason in *why) when libedit or one of its names is missing.
const EditLib* load_editline(std::string* why) {
  static std::string error;
  static const EditLib* lib = []() -> const EditLib* {
    void* h = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      // The runtime package's name (libedit2) is the one to report; the unversioned name is
      // only a fallback for a library built by hand.
      const char* e = dlerror();
      error = e ? e : "libedit.so.2: cannot open";
      h = dlopen("libedit.so", RTLD_NOW | RTLD_LOCAL);
      if (!h) return nullptr;
    }
    static EditLib el;
    bool ok = true;
    auto get = [&](auto& field, const char* name) {
      field = reinterpret_cast<std::remove_reference_t<decltype(field)>>(dlsym(h, name));
      if (!field && ok) {
        ok = false;
        error = std::string("libedit has no ") + name;
      }
    };
    get(el.readline, "readline");
    get(el.using_history, "using_history");
    get(el.stifle_history, "stifle_history");
    get(el.read_history, "read_history");
    get(el.write_history, "write_history");
    get(el.add_history, "add_history");
    get(el.completion_matches, "rl_completion_matches");
    get(el.filename_completion_function, "rl_filename_completion_function");
    get(el.readline_name, "rl_readline_name");
    get(el.line_buffer, "rl_line_buffer");
    get(el.point, "rl_point");
    get(el.basic_word_break_characters, "rl_basic_word_break_characters");
    get(el.completer_word_break_characters, "rl_completer_word_break_characters");
    get(el.attempted_completion_function, "rl_attempted_completion_function");
    get(el.attempted_completion_over, "rl_attempted_completion_over");
    get(el.completion_append_character, "rl_completion_append_character");
    get(el.catch_signals, "rl_catch_signals");
    return ok ? &el : nullptr;
  }();
  if (!lib && why) *why = error;
  return lib;
}

const EditLib* el = nullptr;  // set before the first EditLineReader

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
  size_t start = *el->point >= int(word.size()) ? size_t(*el->point) - word.size() : 0;
  return trim(std::string_view(*el->line_buffer, start));
}

void find_candidates(std::string_view word) {
  g_candidates.clear();
  g_file_names = false;
  size_t start = *el->point >= int(word.size()) ? size_t(*el->point) - word.size() : 0;
  std::string_view before = line_before(word);
  // ,comm<Tab>
  if (before.empty() && !word.empty() && word.front() == ',') {
    for (const std::string& name : meta_command_names())
      if (name.compare(0, word.size() - 1, word.substr(1)) == 0) g_candidates.push_back("," + name);
    return;
  }
  // ,load fi<Tab>, or "fi<Tab> inside a string
  bool in_string = start > 0 && (*el->line_buffer)[start - 1] == '"';
  if (before == ",load" || in_string) {
    g_file_names = true;
    *el->completion_append_character = in_string ? '"' : ' ';
    return;
  }
  *el->completion_append_character = ' ';
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
  *el->attempted_completion_over = 1;  // no fall-back to file names unless chosen below
  find_candidates(text);
  if (g_file_names) return el->completion_matches(text, el->filename_completion_function);
  if (g_candidates.empty()) return nullptr;
  return el->completion_matches(text, next_candidate);
}

// A terminal: libedit line editing with a persistent history.
class EditLineReader final : public LineReader {
 public:
  explicit EditLineReader(Engine& engine) {
    g_completion_engine = &engine;
    std::setlocale(LC_CTYPE, "");  // libedit decodes multibyte input by the locale
    *el->readline_name = "quasi";
    *el->catch_signals = 0;  // our SIGINT handler decides; libedit must not reinstall its own
    *el->basic_word_break_characters = kWordBreaks;
    *el->completer_word_break_characters = const_cast<char*>(kWordBreaks);
    *el->attempted_completion_function = complete;
    el->using_history();
    el->stifle_history(kHistoryLength);
    if (const char* home = std::getenv("HOME"); home && *home) {
      history_path_ = std::string(home) + "/.quasi_history";
      el->read_history(history_path_.c_str());  // best effort: a missing file is normal
    }
  }

  ReadResult read(const char* prompt) override {
    g_prompt_interrupted = 0;
    g_at_prompt = 1;
    char* raw = el->readline(prompt);
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
    el->add_history(entry.c_str());
    // Written after every entry so a killed session keeps its history; failures are ignored.
    if (!history_path_.empty()) el->write_history(history_path_.c_str());
  }

  bool interactive() const override { return true; }

 private:
  std::string history_path_;
};

}  // namespace

std::unique_ptr<LineReader> make_terminal_reader(Engine& engine) {
  std::string why;
  el = load_editline(&why);
  if (!el) {
    std::cerr << "quasi: no line editing (" << why << ")\n";
    return make_stream_reader(true);
  }
  return std::make_unique<EditLineReader>(engine);
}

}  // namespace quasi::cli
