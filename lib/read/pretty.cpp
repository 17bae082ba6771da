// pretty.cpp — the layout of pretty.hpp over the atoms `write` prints.
#include "read/pretty.hpp"

#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/object.hpp"
#include "read/printer.hpp"

namespace quasi {
namespace {

// Deeper nesting is handed to the non-recursive printer (the layout recurses on nesting).
constexpr int kMaxRecursion = 1000;

// Columns taken by UTF-8 text: one per code point.
int64_t columns(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool is_container(Value v) { return is_pair(v) || is_vector(v); }

// True when a walk through pairs and vectors comes back to an object still on its path.
bool has_cycle(Value root) {
  if (!is_container(root)) return false;
  std::unordered_map<uint64_t, bool> on_path;  // true while the object is being walked
  struct Ent {
    Value v;
    int64_t i;
  };
  std::vector<Ent> stack{{root, 0}};
  on_path[root.bits] = true;
  while (!stack.empty()) {
    Ent& top = stack.back();
    Value c;
    bool more;
    if (is_pair(top.v)) {
      more = top.i < 2;
      if (more) c = top.i == 0 ? car(top.v) : cdr(top.v);
    } else {
      Vector* vec = top.v.as<Vector>();
      more = top.i < vec->length();
      if (more) c = vec->items()[top.i];
    }
    if (!more) {
      on_path[top.v.bits] = false;
      stack.pop_back();
      continue;
    }
    top.i++;
    if (!is_container(c)) continue;
    auto [it, fresh] = on_path.try_emplace(c.bits, true);
    if (!fresh) {
      if (it->second) return true;
      continue;  // shared, already walked
    }
    stack.push_back({c, 0});
  }
  return false;
}

// 'x `x ,x ,@x: the prefix when `v` is such a two-element list.
const char* quote_prefix(Value v) {
  if (!is_pair(v) || !is_symbol(car(v)) || !is_pair(cdr(v)) || cdr(cdr(v)) != kNil) return nullptr;
  std::string_view s = symbol_name(car(v));
  if (s == "quote") return "'";
  if (s == "quasiquote") return "`";
  if (s == "unquote") return ",";
  if (s == "unquote-splicing") return ",@";
  return nullptr;
}

// Forms with a body: how many arguments stay on the first line before the body is indented by
// two (-1: not such a form).
int distinguished_arguments(std::string_view head) {
  struct Form {
    std::string_view name;
    int args;
  };
  static constexpr Form kForms[] = {
      {"lambda", 1}, {"define", 1}, {"define-syntax", 1}, {"define-values", 1},
      {"define-record-type", 2}, {"define-library", 1}, {"let", 1}, {"let*", 1}, {"letrec", 1},
      {"letrec*", 1}, {"let-values", 1}, {"let*-values", 1}, {"let-syntax", 1},
      {"letrec-syntax", 1}, {"syntax-rules", 1}, {"when", 1}, {"unless", 1}, {"do", 2},
      {"case", 1}, {"parameterize", 1}, {"guard", 1}, {"receive", 2}, {"begin", 0},
      {"case-lambda", 0}, {"dynamic-wind", 0}, {"delay", 0}, {"delay-force", 0},
      {"make-promise", 0}, {"with-exception-handler", 0}, {"call-with-current-continuation", 0},
      {"call/cc", 0},
  };
  for (const Form& f : kForms)
    if (f.name == head) return f.args;
  return -1;
}

class Pretty {
 public:
  Pretty(std::string& out, const PrettyOptions& o, int64_t column) : out_(out), o_(o), col_(column) {}

  void layout(Value v, int depth) {
    std::string flat_text;
    if (flat(v, depth, o_.width - col_, flat_text)) return emit(flat_text);
    if (depth > kMaxRecursion) return emit(write_to_string(v));
    if (const char* prefix = quote_prefix(v)) {
      emit(prefix);
      return layout(car(cdr(v)), depth + 1);
    }
    if (is_pair(v)) return layout_list(v, depth);
    if (is_vector(v)) return layout_vector(v, depth);
    emit(flat_text);  // an atom wider than the line: as it is
  }

 private:
  bool depth_cut(int depth) const { return o_.max_depth >= 0 && depth >= o_.max_depth; }

  // Appends the one-line form of v to s; false as soon as s is longer than `budget` bytes.
  bool flat(Value v, int depth, int64_t budget, std::string& s) {
    if (!is_container(v)) {
      s += write_to_string(v);
      return int64_t(s.size()) <= budget;
    }
    if (depth_cut(depth)) {
      s += "...";
      return int64_t(s.size()) <= budget;
    }
    if (depth > kMaxRecursion) {
      s += write_to_string(v, size_t(budget > 0 ? budget : 1) + 1);
      return int64_t(s.size()) <= budget;
    }
    if (const char* prefix = quote_prefix(v)) {
      s += prefix;
      return flat(car(cdr(v)), depth + 1, budget, s);
    }
    bool list = is_pair(v);
    s += list ? "(" : "#(";
    int64_t i = 0;
    Value l = v;
    for (;; i++) {
      Value item;
      if (list) {
        if (!is_pair(l)) break;
        item = car(l);
        l = cdr(l);
      } else {
        if (i >= v.as<Vector>()->length()) break;
        item = v.as<Vector>()->items()[i];
      }
      if (i > 0) s += ' ';
      if (o_.max_length >= 0 && i >= o_.max_length) {
        s += "...";
        l = kNil;
        break;
      }
      if (!flat(item, depth + 1, budget, s)) return false;
    }
    if (list && l != kNil) {
      s += " . ";
      if (!flat(l, depth + 1, budget, s)) return false;
    }
    s += ')';
    return int64_t(s.size()) <= budget;
  }

  struct Items {
    std::vector<Value> items;
    bool truncated = false;
    Value tail = kNil;  // improper tail of a list
  };
  Items items_of(Value v) {
    Items r;
    if (is_pair(v)) {
      Value l = v;
      for (; is_pair(l); l = cdr(l)) {
        if (o_.max_length >= 0 && int64_t(r.items.size()) >= o_.max_length) {
          r.truncated = true;
          return r;
        }
        r.items.push_back(car(l));
      }
      r.tail = l;
    } else {
      Vector* vec = v.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) {
        if (o_.max_length >= 0 && i >= o_.max_length) {
          r.truncated = true;
          break;
        }
        r.items.push_back(vec->items()[i]);
      }
    }
    return r;
  }

  bool all_atoms(const Items& it) const {
    for (Value x : it.items)
      if (is_container(x)) return false;
    return true;
  }

  // Items from `from` on, each on its own line at column `indent`, or filled several to a line
  // when they are all atoms; then "..." and the improper tail.
  void rest(const Items& it, size_t from, int64_t indent, int depth, bool fill) {
    for (size_t i = from; i < it.items.size(); i++) {
      if (fill) {
        std::string atom = write_to_string(it.items[i]);
        if (col_ + 1 + columns(atom) <= o_.width) emit(" ");
        else newline(indent);
        emit(atom);
      } else {
        newline(indent);
        layout(it.items[i], depth + 1);
      }
    }
    if (it.truncated) {
      if (fill && col_ + 4 <= o_.width) emit(" ");
      else newline(indent);
      emit("...");
    }
    if (it.tail != kNil) {
      newline(indent);
      emit(". ");
      layout(it.tail, depth + 1);
    }
  }

  void layout_list(Value v, int depth) {
    if (depth_cut(depth)) return emit("...");
    Items it = items_of(v);
    emit("(");
    int64_t base = col_;
    bool atoms = all_atoms(it);
    Value head = it.items.empty() ? kNil : it.items[0];
    if (is_symbol(head) && !atoms) {
      emit(write_to_string(head));
      int body = distinguished_arguments(symbol_name(head));
      if (body == 1 && symbol_name(head) == std::string_view("let") && it.items.size() > 1 &&
          is_symbol(it.items[1]))
        body = 2;  // named let: the name and the bindings
      if (body >= 0) {
        size_t first_line_end = std::min(it.items.size(), size_t(body) + 1);
        for (size_t i = 1; i < first_line_end; i++) {
          emit(" ");
          layout(it.items[i], depth + 1);
        }
        rest(it, first_line_end, base + 1, depth, false);
      } else if (it.items.size() > 1 && col_ + 1 < base + o_.width / 3) {
        emit(" ");
        int64_t arg_col = col_;
        layout(it.items[1], depth + 1);
        rest(it, 2, arg_col, depth, false);
      } else {
        rest(it, 1, base + 1, depth, false);
      }
    } else {
      if (!it.items.empty()) {
        if (atoms) emit(write_to_string(it.items[0]));
        else layout(it.items[0], depth + 1);
      }
      rest(it, 1, base, depth, atoms);
    }
    emit(")");
  }

  void layout_vector(Value v, int depth) {
    if (depth_cut(depth)) return emit("...");
    Items it = items_of(v);
    emit("#(");
    int64_t base = col_;
    bool atoms = all_atoms(it);
    if (!it.items.empty()) {
      if (atoms) emit(write_to_string(it.items[0]));
      else layout(it.items[0], depth + 1);
    }
    rest(it, 1, base, depth, atoms);
    emit(")");
  }

  void emit(std::string_view s) {
    out_ += s;
    size_t nl = s.rfind('\n');
    if (nl == std::string_view::npos) col_ += columns(s);
    else col_ = columns(s.substr(nl + 1));
  }
  void newline(int64_t indent) {
    out_ += '\n';
    out_.append(size_t(indent), ' ');
    col_ = indent;
  }

  std::string& out_;
  const PrettyOptions& o_;
  int64_t col_;
};

}  // namespace

void pretty_print(std::string& out, Value v, const PrettyOptions& options, int64_t column) {
  bool bounded = options.max_length >= 0 && options.max_depth >= 0;
  if (!bounded && has_cycle(v)) {
    out += write_to_string(v);
    return;
  }
  PrettyOptions o = options;
  if (o.width < 20) o.width = 20;
  Pretty(out, o, column).layout(v, 0);
}

}  // namespace quasi
