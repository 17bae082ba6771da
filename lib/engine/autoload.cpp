#include "engine/autoload.hpp"

#include <ctime>
#include <string>

#include "engine/toplevel.hpp"
#include "engine/warnings.hpp"
#include "eval/environment.hpp"
#include "vm/vm.hpp"
#include "vm/vm_impl.hpp"

namespace quasi {

namespace {

int64_t now_ns() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string source_name(const LazyPrelude::File& f) { return std::string("prelude/") + f.name; }

// The names a prelude file's top-level forms define, by a scan of its text much cheaper than
// reading it (start-up would pay for reading what it defers). Each top-level form must be
// (define name ...), (define (name ...) ...), (define-record-type ...) or (define-syntax %name
// ...); the text between them
// whitespace and comments. Anything else (another form, an unusual token) makes the file
// not deferrable: false.
class DefinitionScan {
 public:
  explicit DefinitionScan(std::string_view t) : t_(t) {}

  bool run(std::vector<std::string_view>* names) {
    for (;;) {
      if (!skip_atmosphere()) return false;
      if (i_ == t_.size()) return true;
      if (t_[i_] != '(') return false;
      i_++;
      std::string_view head = token();
      if (head == "define-record-type") {
        if (!record_names(names)) return false;
        continue;
      }
      if (head != "define" && head != "define-syntax") return false;
      if (!skip_atmosphere()) return false;
      int depth = 1;
      while (i_ < t_.size() && t_[i_] == '(') {  // (define (f . args) ...), curried
        i_++;
        depth++;
        if (!skip_atmosphere()) return false;
      }
      std::string_view name = token();
      if (name.empty()) return false;
      if (head == "define-syntax") {
        if (depth > 1 || name[0] != '%') return false;
      } else {
        names->push_back(name);
      }
      if (!skip_form_rest(depth)) return false;
    }
  }

 private:
  // (define-record-type type (ctor field ...) pred (field accessor [modifier]) ...), after its
  // head: the variables its expansion defines (eval/expander.cpp, rw_define_record_type). Each
  // part must be an identifier or a list of identifiers (no #f constructor or predicate).
  bool record_names(std::vector<std::string_view>* names) {
    std::vector<std::vector<std::string_view>> parts;
    for (;;) {
      if (!skip_atmosphere() || i_ == t_.size()) return false;
      if (t_[i_] == ')') {
        i_++;
        break;
      }
      std::vector<std::string_view> part;
      if (t_[i_] == '(') {
        i_++;
        for (;;) {
          if (!skip_atmosphere() || i_ == t_.size()) return false;
          if (t_[i_] == ')') {
            i_++;
            break;
          }
          std::string_view tok = token();
          if (tok.empty()) return false;
          part.push_back(tok);
        }
        if (part.empty()) return false;
      } else {
        std::string_view tok = token();
        if (tok.empty()) return false;
        part.push_back(tok);
      }
      parts.push_back(std::move(part));
    }
    if (parts.size() < 3 || parts[0].size() != 1 || parts[2].size() != 1) return false;
    names->push_back(parts[0][0]);  // the type
    names->push_back(parts[1][0]);  // the constructor
    names->push_back(parts[2][0]);  // the predicate
    for (size_t k = 3; k < parts.size(); k++)
      for (size_t j = 1; j < parts[k].size(); j++) names->push_back(parts[k][j]);  // accessors, modifiers
    return true;
  }

  static bool delimiter(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '(' || c == ')' ||
           c == '"' || c == ';';
  }
  // An identifier as the reader would intern it; empty for anything else.
  std::string_view token() {
    size_t start = i_;
    while (i_ < t_.size() && !delimiter(t_[i_])) i_++;
    std::string_view tok = t_.substr(start, i_ - start);
    for (char c : tok)
      if (c == '|' || c == '#' || c == '\\' || c == '\'' || c == '`' || c == ',' || (c >= 'A' && c <= 'Z') ||
          (unsigned char)c >= 0x80)
        return {};
    if (tok.empty() || (tok[0] >= '0' && tok[0] <= '9') || tok == "." ) return {};
    return tok;
  }
  // Whitespace and comments; false on a datum comment or an unterminated block comment.
  bool skip_atmosphere() {
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        i_++;
      } else if (c == ';') {
        while (i_ < t_.size() && t_[i_] != '\n') i_++;
      } else if (c == '#' && i_ + 1 < t_.size() && t_[i_ + 1] == '|') {
        if (!skip_block_comment()) return false;
      } else if (c == '#' && i_ + 1 < t_.size() && t_[i_ + 1] == ';') {
        return false;
      } else {
        return true;
      }
    }
    return true;
  }
  bool skip_block_comment() {
    int depth = 0;
    while (i_ + 1 < t_.size()) {
      if (t_[i_] == '#' && t_[i_ + 1] == '|') {
        depth++;
        i_ += 2;
      } else if (t_[i_] == '|' && t_[i_ + 1] == '#') {
        depth--;
        i_ += 2;
        if (depth == 0) return true;
      } else {
        i_++;
      }
    }
    return false;
  }
  // The rest of the current top-level form, `depth` lists deep, through its closing parenthesis. Strings, character
  // literals, |symbols| and comments may hold parentheses that do not count.
  bool skip_form_rest(int depth) {
    while (i_ < t_.size()) {
      char c = t_[i_];
      if (c == '(' || c == '[') {
        depth++;
        i_++;
      } else if (c == ')' || c == ']') {
        i_++;
        if (--depth == 0) return true;
      } else if (c == '"' || c == '|') {
        i_++;
        while (i_ < t_.size() && t_[i_] != c) i_ += t_[i_] == '\\' ? 2 : 1;
        if (i_ >= t_.size()) return false;
        i_++;
      } else if (c == ';') {
        while (i_ < t_.size() && t_[i_] != '\n') i_++;
      } else if (c == '#' && i_ + 1 < t_.size() && t_[i_ + 1] == '|') {
        if (!skip_block_comment()) return false;
      } else if (c == '#' && i_ + 1 < t_.size() && t_[i_ + 1] == '\\') {
        i_ += 3;  // #\( #\) #\" #\; and the first character of a longer name
      } else {
        i_++;
      }
    }
    return false;
  }

  std::string_view t_;
  size_t i_ = 0;
};

void flag_cells(Vm& vm, const LazyPrelude::File& f) {
  for (Value sym : f.names) {
    Value cell = vm.core_env->cell_for(sym);
    if (cell.as<GlobalCell>()->value == kUnbound) cell.obj()->header |= kAutoloadCell;
  }
}

void load(Vm& vm, LazyPrelude::File& f) {
  f.loaded = true;
  for (Value sym : f.names) {
    Value b = vm.core_env->lookup(sym);
    if (has_type(b, Type::GlobalCell)) b.obj()->header &= ~kAutoloadCell;
  }
  // As at start-up: no limits, no warnings, the core environment as the interaction environment.
  // The work is the engine's, so the evaluation's steps, allocations and time do not count it.
  uint64_t steps = vm.steps, step_limit = vm.step_limit, alloc_limit = vm.alloc_limit;
  int64_t deadline = vm.deadline_ns;
  uint64_t allocated = tl_allocated_bytes;
  int64_t start = now_ns();
  Environment* interaction = vm.interaction_env;
  unsigned warning_kinds = vm.warning_kinds;
  vm.step_limit = 0;
  vm.alloc_limit = 0;
  vm.deadline_ns = 0;
  vm.warning_kinds = 0;
  vm.interaction_env = vm.core_env;
  auto restore = [&] {
    vm.steps = steps;
    vm.step_limit = step_limit;
    vm.alloc_limit = alloc_limit;
    vm.alloc_base += tl_allocated_bytes - allocated;
    vm.deadline_ns = deadline ? deadline + (now_ns() - start) : 0;
    vm.warning_kinds = warning_kinds;
    vm.interaction_env = interaction;
    if (vm.impl) vm.impl->rearm_poll();
  };
  try {
    WarningsSuspended quiet(vm);
    eval_source(vm, f.text, source_name(f), vm.core_env);
  } catch (...) {
    // Interrupted part-way: what is still unbound loads with the file again next time.
    restore();
    f.loaded = false;
    flag_cells(vm, f);
    throw;
  }
  restore();
}

}  // namespace

bool defer_prelude_file(Vm& vm, const char* name, std::string_view text) {
  LazyPrelude* lazy = vm.lazy_prelude;
  if (!lazy) return false;
  LazyPrelude::File f{name, text, {}, false};
  std::vector<std::string_view> names;
  if (!DefinitionScan(text).run(&names)) return false;
  for (std::string_view n : names) {
    Value sym = intern(n);
    // A name something already binds or refers to (an earlier file's compiled code holds its
    // cell) would be read before the file loads.
    if (vm.core_env->lookup(sym) != kUnbound) return false;
    f.names.push_back(sym);
  }
  flag_cells(vm, f);
  lazy->files.push_back(std::move(f));
  return true;
}

void autoload_cell(Vm& vm, Value cell) {
  if (!(cell.obj()->header & kAutoloadCell)) return;
  Value sym = cell.as<GlobalCell>()->name;
  if (LazyPrelude* lazy = vm.lazy_prelude)
    for (LazyPrelude::File& f : lazy->files)
      if (!f.loaded)
        for (Value n : f.names)
          if (n == sym && vm.core_env->lookup(sym) == cell) return load(vm, f);
  cell.obj()->header &= ~kAutoloadCell;  // not a deferred file's (a stale flag): nothing to load
}

}  // namespace quasi
