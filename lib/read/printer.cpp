// printer.cpp — write, display, write-shared, write-simple.
//
// Printing runs on an explicit task stack (no recursion), so long lists and deeply nested data
// never exhaust the C stack. Before printing, a pre-pass finds the objects that need datum
// labels: the targets of back edges (cycles) for write/display, every object reached twice for
// write-shared. With a length limit the pre-pass is bounded too; missing labels then only cause
// repetition, which the limit cuts off.
#include "read/printer.hpp"

#include <cctype>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/alloc_watch.hpp"
#include "core/foreign.hpp"
#include "core/numbers.hpp"
#include "core/object.hpp"
#include "read/reader.hpp"
#include "core/procedure.hpp"

namespace quasi {
namespace {

void append_hex(std::string& out, uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", c);
  out += buf;
}

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0); }

const char* char_name(char32_t c) {
  switch (c) {
    case 0: return "null";
    case 7: return "alarm";
    case 8: return "backspace";
    case 9: return "tab";
    case 10: return "newline";
    case 13: return "return";
    case 27: return "escape";
    case 32: return "space";
    case 127: return "delete";
    default: return nullptr;
  }
}

void write_char(std::string& out, char32_t c) {
  out += "#\\";
  if (const char* name = char_name(c)) {
    out += name;
  } else if (is_control(c) || reader_is_whitespace(static_cast<int32_t>(c)) || c > 0x10FFFF ||
             (c >= 0xD800 && c <= 0xDFFF)) {
    out += 'x';
    append_hex(out, c);
  } else {
    utf8_append(out, c);
  }
}

void write_string_body(std::string& out, const uint32_t* s, int64_t n, bool symbol) {
  for (int64_t i = 0; i < n; i++) {
    char32_t c = s[i];
    switch (c) {
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\t': out += "\\t"; continue;
      case '\r': out += "\\r"; continue;
      case 7: out += "\\a"; continue;
      case 8: out += "\\b"; continue;
      default: break;
    }
    if (c == (symbol ? U'|' : U'"')) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (is_control(c) || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
      out += "\\x";
      append_hex(out, c);
      out += ';';
    } else {
      utf8_append(out, c);
    }
  }
}

// Whether `write` must put a symbol between bars so that it reads back as the same symbol.
bool symbol_needs_bars(Value sym) {
  String* name = sym.as<Symbol>()->name.as<String>();
  int64_t n = name->length();
  const uint32_t* s = name->chars();
  if (n == 0) return true;
  if (s[0] == '#') return true;  // '@' is an initial (R7RS 7.1.1): only after ',' it needs care
  if (n == 1 && s[0] == '.') return true;
  for (int64_t i = 0; i < n; i++) {
    char32_t c = s[i];
    switch (c) {
      case '(': case ')': case '[': case ']': case '"': case ';': case '|': case '\'':
      case '`': case ',': case '\\':
        return true;
      default:
        break;
    }
    if (is_control(c) || reader_is_whitespace(static_cast<int32_t>(c)) || c > 0x10FFFF ||
        (c >= 0xD800 && c <= 0xDFFF))
      return true;
  }
  char32_t c0 = s[0];
  if ((c0 >= '0' && c0 <= '9') || c0 == '+' || c0 == '-' || c0 == '.') {
    if (parse_number(symbol_name(sym), 10) != kFalse) return true;
    // +inf.0 and +nan.0 followed by more: readers that lex the number first would split it.
    if ((c0 == '+' || c0 == '-') && n >= 6) {
      std::string head;
      for (int i = 1; i < 6; i++) head += static_cast<char>(s[i] < 128 ? std::tolower(static_cast<int>(s[i])) : '?');
      if (head == "inf.0" || head == "nan.0") return true;
    }
  }
  return false;
}

void write_symbol(std::string& out, Value sym, bool display) {
  String* name = sym.as<Symbol>()->name.as<String>();
  if (display) {
    for (int64_t i = 0; i < name->length(); i++) utf8_append(out, name->chars()[i]);
  } else if (symbol_needs_bars(sym)) {
    out += '|';
    write_string_body(out, name->chars(), name->length(), true);
    out += '|';
  } else {
    for (int64_t i = 0; i < name->length(); i++) utf8_append(out, name->chars()[i]);
  }
}

void print_string(std::string& out, Value str, bool display) {
  String* s = str.as<String>();
  if (display) {
    for (int64_t i = 0; i < s->length(); i++) utf8_append(out, s->chars()[i]);
  } else {
    out += '"';
    write_string_body(out, s->chars(), s->length(), false);
    out += '"';
  }
}

// Objects whose parts the printer descends into (and which may therefore carry labels).
bool is_container(Value v) {
  if (!is_object(v)) return false;
  switch (object_type(v)) {
    case Type::Pair: case Type::Vector: case Type::Record: case Type::Box: case Type::Values:
    case Type::Condition:
      return true;
    default:
      return false;
  }
}

// The i-th part of a container, false past the last.
bool child(Value v, int64_t i, Value* out) {
  switch (object_type(v)) {
    case Type::Pair:
      if (i > 1) return false;
      *out = i == 0 ? car(v) : cdr(v);
      return true;
    case Type::Vector:
      if (i >= v.as<Vector>()->length()) return false;
      *out = v.as<Vector>()->items()[i];
      return true;
    case Type::Record: {
      Record* r = v.as<Record>();
      if (!r->rtd || i >= r->rtd->nfields) return false;
      *out = r->fields()[i];
      return true;
    }
    case Type::Box:
      if (i > 0) return false;
      *out = v.as<Box>()->value;
      return true;
    case Type::Values:
      if (i >= v.as<MultipleValues>()->count()) return false;
      *out = v.as<MultipleValues>()->items()[i];
      return true;
    case Type::Condition:
      if (i > 0) return false;
      *out = v.as<Condition>()->irritants;
      return true;
    default:
      return false;
  }
}

class Printer {
 public:
  Printer(std::string& out, PrintMode mode, size_t limit)
      : out_(out), mode_(mode), limit_(limit), start_(out.size()) {}

  void print(Value root) {
    if (mode_ != PrintMode::WriteSimple && is_container(root)) {
      if (mode_ == PrintMode::WriteShared) find_shared(root);
      else find_cycles(root);
    }
    run(root);
    if (stopped_) {
      size_t cut = start_ + limit_;
      // Do not split a UTF-8 sequence.
      while (cut > start_ && (static_cast<unsigned char>(out_[cut]) & 0xC0) == 0x80) cut--;
      out_.resize(cut);
      out_ += "...";
    }
  }

 private:
  enum class K : uint8_t { Val, ListRest, Items, Fields, Irritants, Lit };
  struct Task {
    K k;
    Value v;
    int64_t i;
    const char* lit;
  };

  bool display() const { return mode_ == PrintMode::Display; }

  static constexpr size_t kChargeBytes = size_t(1) << 20;
  size_t charged_ = 0;  // bytes of out_ counted as allocated so far

  void emit(const char* s) {
    out_ += s;
    check();
  }
  void check() {
    if (limit_ > 0 && out_.size() - start_ > limit_) stopped_ = true;
  }
  bool budget_exhausted() { return limit_ > 0 && ++visited_ > 2 * limit_ + 100; }

  // write / display: label the targets of back edges of a depth-first walk (car before cdr,
  // the order in which printing meets objects).
  void find_cycles(Value root) {
    std::unordered_map<uint64_t, bool> on_path;  // true: still being walked (gray)
    struct Ent {
      Value v;
      int64_t i;
    };
    std::vector<Ent> st;
    on_path[root.bits] = true;
    st.push_back({root, 0});
    while (!st.empty()) {
      Value c;
      Value top = st.back().v;
      if (!child(top, st.back().i++, &c)) {
        on_path[top.bits] = false;
        st.pop_back();
        continue;
      }
      if (!is_container(c)) continue;
      auto [it, fresh] = on_path.try_emplace(c.bits, true);
      if (fresh) {
        if (budget_exhausted()) return;
        st.push_back({c, 0});
      } else if (it->second) {
        labels_.try_emplace(c.bits, -1);
      }
    }
  }

  // write-shared: label every container reached more than once.
  void find_shared(Value root) {
    std::unordered_set<uint64_t> seen{root.bits};
    std::vector<Value> st{root};
    while (!st.empty()) {
      Value top = st.back();
      st.pop_back();
      Value c;
      for (int64_t i = 0; child(top, i, &c); i++) {
        if (!is_container(c)) continue;
        if (seen.insert(c.bits).second) {
          if (budget_exhausted()) return;
          st.push_back(c);
        } else {
          labels_.try_emplace(c.bits, -1);
        }
      }
    }
  }

  bool labelled(Value v) const { return !labels_.empty() && labels_.count(v.bits); }

  void run(Value root) {
    tasks_.push_back({K::Val, root, 0, nullptr});
    while (!tasks_.empty() && !stopped_) {
      // A hugely shared structure prints as its whole unfolded tree: the evaluation's limits
      // hold here, and the text counts as memory it allocated (core/alloc_watch.hpp).
      limit_tick("write");
      if (out_.size() >= charged_ + kChargeBytes) {
        note_allocation(kChargeBytes);
        charged_ += kChargeBytes;
      }
      Task t = tasks_.back();
      tasks_.pop_back();
      switch (t.k) {
        case K::Lit:
          emit(t.lit);
          break;
        case K::Val:
          print_one(t.v);
          break;
        case K::ListRest:
          if (t.v == kNil) {
            emit(")");
          } else if (is_pair(t.v) && !labelled(t.v)) {
            emit(" ");
            tasks_.push_back({K::ListRest, cdr(t.v), 0, nullptr});
            tasks_.push_back({K::Val, car(t.v), 0, nullptr});
          } else {
            emit(" . ");
            tasks_.push_back({K::Lit, kNil, 0, ")"});
            tasks_.push_back({K::Val, t.v, 0, nullptr});
          }
          break;
        case K::Items:    // vector items, values: separated by spaces
        case K::Fields: {  // record fields: each preceded by a space
          Value c;
          if (!child(t.v, t.i, &c)) {
            if (t.lit) emit(t.lit);
            break;
          }
          if (t.i > 0 || t.k == K::Fields) emit(" ");
          tasks_.push_back({t.k, t.v, t.i + 1, t.lit});
          tasks_.push_back({K::Val, c, 0, nullptr});
          break;
        }
        case K::Irritants:
          if (!is_pair(t.v)) {
            emit(">");
          } else {
            emit(" ");
            tasks_.push_back({K::Irritants, cdr(t.v), 0, nullptr});
            tasks_.push_back({K::Val, car(t.v), 0, nullptr});
          }
          break;
      }
    }
  }

  // Prints an atom completely, or the start of a container (pushing tasks for the rest).
  void print_one(Value v) {
    if (v.is_fixnum()) {
      out_ += std::to_string(v.fixnum());
      return check();
    }
    if (v.is_char()) {
      if (display()) utf8_append(out_, v.char_code());
      else write_char(out_, v.char_code());
      return check();
    }
    if (!is_object(v)) {
      switch (v.bits) {
        case kFalse.bits: return emit("#f");
        case kTrue.bits: return emit("#t");
        case kNil.bits: return emit("()");
        case kUnspecified.bits: return emit("#!unspecified");
        case kEof.bits: return emit("#!eof");
        case kDefault.bits: return emit("#!default");
        case kUnbound.bits: return emit("#!unbound");
        default: return emit("#<object>");
      }
    }
    if (labelled(v)) {
      int64_t& n = labels_[v.bits];
      if (n >= 0) {
        out_ += "#" + std::to_string(n) + "#";
        return check();
      }
      n = next_label_++;
      out_ += "#" + std::to_string(n) + "=";
      check();
    }
    switch (object_type(v)) {
      case Type::Pair: {
        static const Value kQuote = intern("quote"), kQuasi = intern("quasiquote"),
                           kUnquote = intern("unquote"), kSplice = intern("unquote-splicing");
        Value a = car(v), d = cdr(v);
        if (is_symbol(a) && is_pair(d) && cdr(d) == kNil && !labelled(d)) {
          const char* prefix = a == kQuote ? "'" : a == kQuasi ? "`" : a == kUnquote ? ","
                               : a == kSplice ? ",@" : nullptr;
          if (prefix) {
            emit(prefix);
            // ,@x would read as unquote-splicing: (unquote @x) is written , @x.
            if (a == kUnquote && is_symbol(car(d)) && symbol_name(car(d))[0] == '@') emit(" ");
            tasks_.push_back({K::Val, car(d), 0, nullptr});
            return;
          }
        }
        emit("(");
        tasks_.push_back({K::ListRest, d, 0, nullptr});
        tasks_.push_back({K::Val, a, 0, nullptr});
        return;
      }
      case Type::Symbol:
        write_symbol(out_, v, display());
        return check();
      case Type::String:
        print_string(out_, v, display());
        return check();
      case Type::Vector:
        emit("#(");
        tasks_.push_back({K::Items, v, 0, ")"});
        return;
      case Type::Bytevector: {
        Bytevector* b = v.as<Bytevector>();
        out_ += "#u8(";
        for (int64_t i = 0; i < b->length() && !stopped_; i++) {
          if (i) out_ += ' ';
          out_ += std::to_string(b->bytes()[i]);
          check();
        }
        return emit(")");
      }
      case Type::Flonum:
      case Type::Bignum:
      case Type::Ratnum:
      case Type::Compnum:
        out_ += number_to_string(v, 10);
        return check();
      case Type::Primitive:
        out_ += "#<procedure ";
        out_ += v.as<Primitive>()->name ? v.as<Primitive>()->name : "?";
        return emit(">");
      case Type::Closure: {
        std::string name = procedure_name(v);
        out_ += name.empty() ? "#<procedure" : "#<procedure " + name;
        return emit(">");
      }
      case Type::Record: {
        RecordType* rtd = v.as<Record>()->rtd;
        out_ += "#<";
        if (rtd && is_symbol(rtd->name)) write_symbol(out_, rtd->name, true);
        else out_ += "record";
        check();
        tasks_.push_back({K::Fields, v, 0, ">"});
        return;
      }
      case Type::RecordType: {
        out_ += "#<record-type ";
        Value name = v.as<RecordType>()->name;
        if (is_symbol(name)) write_symbol(out_, name, true);
        return emit(">");
      }
      case Type::Condition: {
        Condition* c = v.as<Condition>();
        out_ += "#<condition ";
        if (is_symbol(c->kind)) write_symbol(out_, c->kind, true);
        out_ += ":";
        if (is_symbol(c->who)) {
          out_ += " ";
          write_symbol(out_, c->who, true);
          out_ += ":";
        }
        if (is_string(c->message)) {
          out_ += " ";
          print_string(out_, c->message, true);
        }
        check();
        Value irr = c->irritants;
        bool plain = list_length(irr) >= 0;
        for (Value l = irr; plain && is_pair(l); l = cdr(l))
          if (labelled(l)) plain = false;
        if (plain) {
          tasks_.push_back({K::Irritants, irr, 0, nullptr});
        } else {
          tasks_.push_back({K::Lit, kNil, 0, ">"});
          tasks_.push_back({K::Val, irr, 0, nullptr});
          emit(" ");
        }
        return;
      }
      case Type::Box:
        emit("#<box ");
        tasks_.push_back({K::Lit, kNil, 0, ">"});
        tasks_.push_back({K::Val, v.as<Box>()->value, 0, nullptr});
        return;
      case Type::Values:
        tasks_.push_back({K::Items, v, 0, nullptr});
        return;
      case Type::GlobalCell: {
        out_ += "#<global ";
        Value name = v.as<GlobalCell>()->name;
        if (is_symbol(name)) write_symbol(out_, name, true);
        return emit(">");
      }
      case Type::Continuation: return emit("#<continuation>");
      case Type::Parameter: return emit("#<parameter>");
      case Type::Promise: return emit("#<promise>");
      case Type::Port: return emit("#<port>");
      case Type::Environment: return emit("#<environment>");
      case Type::HashTable: return emit("#<hash-table>");
      case Type::Identifier: return emit("#<identifier>");
      case Type::Macro: return emit("#<macro>");
      case Type::Proto: return emit("#<code>");
      case Type::Foreign:  // a C++ object from the embedding API: its printer, or #<its type name>
        if (print_foreign(v.as<Foreign>(), out_)) return emit("");
        out_ += "#<";
        write_symbol(out_, v.as<Foreign>()->name, true);
        return emit(">");
      case Type::WeakBox: return emit("#<weak-box>");
      default: return emit("#<object>");
    }
  }

  std::string& out_;
  PrintMode mode_;
  size_t limit_;
  size_t start_;
  bool stopped_ = false;
  size_t visited_ = 0;
  int64_t next_label_ = 0;
  std::unordered_map<uint64_t, int64_t> labels_;  // object -> label number, -1 until printed
  std::vector<Task> tasks_;
};

}  // namespace

void print_value(std::string& out, Value v, PrintMode mode) { Printer(out, mode, 0).print(v); }

std::string write_to_string(Value v, size_t limit) {
  std::string out;
  Printer(out, PrintMode::Write, limit).print(v);
  return out;
}

std::string display_to_string(Value v) {
  std::string out;
  print_value(out, v, PrintMode::Display);
  return out;
}

}  // namespace quasi
