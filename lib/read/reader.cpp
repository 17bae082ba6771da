// reader.cpp — R7RS lexical syntax to datums.
//
// The reader is iterative: open lists, vectors, quote abbreviations, datum labels and datum
// comments live on an explicit frame stack, so arbitrarily deep nesting never touches the C
// stack. A completed datum is "delivered" to the innermost frame, which may complete in turn.
#include "read/reader.hpp"

#include <map>
#include <unordered_set>
#include <vector>

#include "core/error.hpp"
#include "core/gc.hpp"
#include "core/numbers.hpp"
#include "core/object.hpp"

namespace quasi {

// ---- character classes -----------------------------------------------------------------------

bool reader_is_whitespace(int32_t c) {
  switch (c) {
    case ' ': case '\t': case '\n': case '\r': case '\f': case '\v':
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000: case 0xFEFF:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool reader_is_delimiter(int32_t c) {
  if (c < 0) return true;
  switch (c) {
    case '(': case ')': case '[': case ']': case '"': case ';': case '|':
      return true;
    default:
      return reader_is_whitespace(c);
  }
}

namespace {

// Simple (one-to-one) Unicode lower-casing for the scripts that have case. Used by #!fold-case.
char32_t unicode_downcase(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  auto even_upper = [&](char32_t lo, char32_t hi) { return c >= lo && c <= hi && (c & 1) == 0; };
  auto odd_upper = [&](char32_t lo, char32_t hi) { return c >= lo && c <= hi && (c & 1) == 1; };
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c < 0x100) return c;
  if (c < 0x180) {
    if (c == 0x130) return 'i';
    if (c == 0x178) return 0xFF;
    if (even_upper(0x100, 0x12F) || even_upper(0x132, 0x137) || even_upper(0x14A, 0x177))
      return c + 1;
    if (odd_upper(0x139, 0x148) || odd_upper(0x179, 0x17E)) return c + 1;
    return c;
  }
  if (c < 0x250) {
    switch (c) {
      case 0x1C4: case 0x1C5: return 0x1C6;
      case 0x1C7: case 0x1C8: return 0x1C9;
      case 0x1CA: case 0x1CB: return 0x1CC;
      case 0x1F1: case 0x1F2: return 0x1F3;
      default: break;
    }
    if (odd_upper(0x1CD, 0x1DB)) return c + 1;
    if (even_upper(0x1DE, 0x1EF) || even_upper(0x1F8, 0x21F) || even_upper(0x222, 0x233))
      return c + 1;
    return c;
  }
  if (c < 0x400) {  // Greek
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
    if (c == 0x3CF) return 0x3D7;
    if (even_upper(0x3D8, 0x3EF)) return c + 1;
    return c;
  }
  if (c < 0x530) {  // Cyrillic
    if (c < 0x410) return c + 0x50;
    if (c < 0x430) return c + 0x20;
    if (even_upper(0x460, 0x481) || even_upper(0x48A, 0x4BF) || even_upper(0x4D0, 0x52F))
      return c + 1;
    if (c == 0x4C0) return 0x4CF;
    if (odd_upper(0x4C1, 0x4CE)) return c + 1;
    return c;
  }
  if (c >= 0x531 && c <= 0x556) return c + 48;                 // Armenian
  if (c >= 0x10A0 && c <= 0x10C5) return c + 0x1C60;           // Georgian
  if (c == 0x10C7 || c == 0x10CD) return c + 0x1C60;
  if (c == 0x1E9E) return 0xDF;
  if (even_upper(0x1E00, 0x1E95) || even_upper(0x1EA0, 0x1EFF)) return c + 1;
  if (c >= 0x2160 && c <= 0x216F) return c + 16;               // Roman numerals
  if (c >= 0x24B6 && c <= 0x24CF) return c + 26;               // circled letters
  if (c >= 0x2C00 && c <= 0x2C2F) return c + 48;               // Glagolitic
  if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;               // fullwidth Latin
  if (c >= 0x10400 && c <= 0x10427) return c + 40;             // Deseret
  return c;
}

std::string downcase_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    int32_t c = utf8_decode(s, i);
    utf8_append(out, c < 0 ? U'\uFFFD' : unicode_downcase(static_cast<char32_t>(c)));
  }
  return out;
}

int hex_digit(int32_t c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool valid_code_point(int64_t c) { return c >= 0 && c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF); }

// Intraline whitespace: whitespace that is not a line ending.
bool is_intraline_space(int32_t c) {
  return reader_is_whitespace(c) && c != '\n' && c != '\r' && c != 0x85 && c != 0x2028 &&
         c != 0x2029 && c != '\f' && c != '\v';
}

struct CharName {
  const char* name;
  char32_t code;
};
const CharName kCharNames[] = {
    {"alarm", 7},   {"backspace", 8}, {"delete", 127}, {"escape", 27}, {"newline", 10},
    {"null", 0},    {"nul", 0},       {"return", 13},  {"space", 32},  {"tab", 9},
};

std::string loc_prefix(SrcLoc loc) {
  return source_file_name(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.col);
}

}  // namespace

// ---- StringSource ----------------------------------------------------------------------------

StringSource::StringSource(std::string_view text, uint32_t file_id, uint32_t line, uint32_t col)
    : text_(text), file_(file_id), line_(line), col_(col) {}

int32_t StringSource::peek() {
  if (pos_ >= text_.size()) return -1;
  unsigned char b = static_cast<unsigned char>(text_[pos_]);
  if (b < 0x80) return b;
  size_t i = pos_;
  int32_t c = utf8_decode(text_, i);
  return c < 0 ? -2 : c;
}

int32_t StringSource::next() {
  if (pos_ >= text_.size()) return -1;
  int32_t c = utf8_decode(text_, pos_);  // advances by at least one byte, even when invalid
  if (c < 0) return -2;
  if (c == '\n') {
    line_++;
    col_ = 1;
  } else {
    col_++;
  }
  return c;
}

SrcLoc StringSource::location() const { return SrcLoc{file_, line_, col_}; }

// ---- the reader ------------------------------------------------------------------------------

class Reader::Impl {
 public:
  explicit Impl(Reader& r) : r_(r), src_(r.src_) {}
  Value read_top();

 private:
  enum class FK : uint8_t { List, Vector, Bytes, Abbrev, Label, Skip };
  enum : uint8_t { kNormal, kAfterDot, kDotDone };
  struct Frame {
    FK kind;
    uint8_t state = kNormal;
    int32_t close = ')';
    SrcLoc loc;
    Value head = kNil;  // list: first pair; abbrev: the symbol
    Value tail = kNil;  // last pair
    int64_t n = 0;      // item count (vector, bytevector) or label number
  };
  struct Label {
    Value placeholder;
    Value value;
    bool defined;
    bool used;
  };

  // The location goes on the condition (printed first, as "file:line:col: error: ..."), not
  // into the message.
  [[noreturn]] void fail(SrcLoc loc, const std::string& msg) {
    throw SchemeError{make_condition(intern("read"), kFalse, make_string_utf8(msg), kNil, loc)};
  }
  [[noreturn]] void fail_eof(SrcLoc loc, const std::string& msg) {
    r_.incomplete_ = true;
    fail(loc, msg);
  }
  [[noreturn]] void fail_utf8() { fail(src_.location(), "invalid UTF-8 in input"); }

  int32_t next_checked() {
    int32_t c = src_.next();
    if (c == -2) fail_utf8();
    return c;
  }
  int32_t peek_checked() {
    int32_t c = src_.peek();
    if (c == -2) fail_utf8();
    return c;
  }

  void skip_atmosphere();
  void skip_block_comment(SrcLoc open);
  std::string read_token(std::string prefix = {});
  Value read_string(SrcLoc open);
  Value read_pipe_symbol(SrcLoc open);
  int32_t read_escape(SrcLoc open, bool in_string, bool* skip);
  Value read_char(SrcLoc loc);
  // Handles '#' syntax (the '#' already consumed). Returns true and sets v when it produced a
  // datum; false when it pushed a frame or consumed a comment or directive.
  bool read_hash(SrcLoc loc, Value& v);
  Value number_at(const std::string& tok, SrcLoc loc);
  Value atom_from_token(const std::string& tok, SrcLoc loc);

  void push(Frame f) { stack_.push_back(f); }
  Value close_frame(int32_t c, SrcLoc loc, SrcLoc& vloc);
  bool deliver(Value& v, SrcLoc& vloc);
  [[noreturn]] void fail_in_frames(SrcLoc loc);

  size_t label_slot(int64_t n) {
    auto it = label_index_.find(n);
    return it == label_index_.end() ? SIZE_MAX : it->second;
  }
  void define_label(int64_t n, Value v, SrcLoc vloc);
  void patch(Value root, Value placeholder, Value value);

  Reader& r_;
  CharSource& src_;
  root_vector<Frame> stack_;
  root_vector<Label> labels_;
  std::map<int64_t, size_t> label_index_;
};

void Reader::Impl::skip_atmosphere() {
  for (;;) {
    int32_t c = peek_checked();
    if (c >= 0 && reader_is_whitespace(c)) {
      src_.next();
    } else if (c == ';') {
      // A line ends at a newline, a return-newline or a lone return (R7RS 7.1.1).
      while ((c = next_checked()) != -1 && c != '\n' && c != '\r') {
      }
    } else {
      return;
    }
  }
}

void Reader::Impl::skip_block_comment(SrcLoc open) {
  int depth = 1;
  while (depth > 0) {
    int32_t c = next_checked();
    if (c == -1)
      fail_eof(src_.location(), "unterminated block comment (opened at " + loc_prefix(open) + ")");
    if (c == '|' && src_.peek() == '#') {
      src_.next();
      depth--;
    } else if (c == '#' && src_.peek() == '|') {
      src_.next();
      depth++;
    }
  }
}

std::string Reader::Impl::read_token(std::string tok) {
  for (;;) {
    int32_t c = peek_checked();
    if (reader_is_delimiter(c)) return tok;
    src_.next();
    utf8_append(tok, static_cast<char32_t>(c));
  }
}

// After a backslash inside a string or |symbol|. Returns the code point, or sets *skip for a
// line continuation (strings only).
int32_t Reader::Impl::read_escape(SrcLoc open, bool in_string, bool* skip) {
  *skip = false;
  SrcLoc at = src_.location();
  int32_t e = next_checked();
  const char* what = in_string ? "unterminated string" : "unterminated |symbol|";
  if (e == -1) fail_eof(at, std::string(what) + " (opened at " + loc_prefix(open) + ")");
  switch (e) {
    case 'a': return 7;
    case 'b': return 8;
    case 't': return 9;
    case 'n': return 10;
    case 'r': return 13;
    case '"': return '"';
    case '\\': return '\\';
    case '|': return '|';
    case 'x': case 'X': {
      int64_t code = 0;
      int digits = 0;
      for (;;) {
        int32_t h = next_checked();
        if (h == -1) fail_eof(at, std::string(what) + " (opened at " + loc_prefix(open) + ")");
        if (h == ';') break;
        int d = hex_digit(h);
        if (d < 0 || ++digits > 8) fail(at, "bad \\x escape (expected hex digits and ';')");
        code = code * 16 + d;
      }
      if (digits == 0 || !valid_code_point(code)) fail(at, "bad \\x escape: invalid code point");
      return static_cast<int32_t>(code);
    }
    default:
      break;
  }
  if (in_string && (is_intraline_space(e) || e == '\n' || e == '\r')) {
    // \<intraline whitespace>*<line ending><intraline whitespace>*
    int32_t c = e;
    while (is_intraline_space(c)) c = next_checked();
    if (c == -1) fail_eof(at, std::string(what) + " (opened at " + loc_prefix(open) + ")");
    if (c == '\r') {
      if (src_.peek() == '\n') src_.next();
    } else if (c != '\n') {
      fail(at, "bad escape in string: backslash followed by whitespace must end the line");
    }
    for (int32_t p = peek_checked(); p >= 0 && is_intraline_space(p); p = peek_checked())
      src_.next();
    *skip = true;
    return 0;
  }
  std::string shown;
  if (e >= 0x20) utf8_append(shown, static_cast<char32_t>(e));
  fail(at, std::string("bad escape in ") + (in_string ? "string" : "symbol") +
               (shown.empty() ? "" : ": \\" + shown));
}

Value Reader::Impl::read_string(SrcLoc open) {
  src_.next();  // "
  std::u32string buf;
  for (;;) {
    int32_t c = next_checked();
    if (c == -1) fail_eof(src_.location(), "unterminated string (opened at " + loc_prefix(open) + ")");
    if (c == '"') break;
    if (c == '\\') {
      bool skip;
      int32_t e = read_escape(open, true, &skip);
      if (!skip) buf.push_back(static_cast<char32_t>(e));
    } else {
      buf.push_back(static_cast<char32_t>(c));
    }
  }
  return make_string_utf32(buf.data(), static_cast<int64_t>(buf.size()));
}

Value Reader::Impl::read_pipe_symbol(SrcLoc open) {
  src_.next();  // |
  std::string name;
  for (;;) {
    int32_t c = next_checked();
    if (c == -1)
      fail_eof(src_.location(), "unterminated |symbol| (opened at " + loc_prefix(open) + ")");
    if (c == '|') break;
    if (c == '\\') {
      bool skip;
      c = read_escape(open, false, &skip);
    }
    utf8_append(name, static_cast<char32_t>(c));
  }
  return intern(name);
}

Value Reader::Impl::read_char(SrcLoc loc) {
  src_.next();  // the backslash
  int32_t c = next_checked();
  if (c == -1) fail_eof(loc, "end of input after #\\");
  if (reader_is_delimiter(c) || reader_is_delimiter(src_.peek())) {
    if (src_.peek() == -2) fail_utf8();
    return make_char(static_cast<char32_t>(c));
  }
  std::string name;
  utf8_append(name, static_cast<char32_t>(c));
  name = read_token(name);
  if ((name[0] == 'x' || name[0] == 'X') && name.size() > 1 && name.size() <= 9) {
    int64_t code = 0;
    bool ok = true;
    for (size_t i = 1; i < name.size(); i++) {
      int d = hex_digit(static_cast<unsigned char>(name[i]));
      if (d < 0) {
        ok = false;
        break;
      }
      code = code * 16 + d;
    }
    if (ok) {
      if (!valid_code_point(code)) fail(loc, "bad character code: #\\" + name);
      return make_char(static_cast<char32_t>(code));
    }
  }
  std::string key = r_.fold_case_ ? downcase_utf8(name) : name;
  for (const CharName& cn : kCharNames)
    if (key == cn.name) return make_char(cn.code);
  fail(loc, "unknown character name: #\\" + name);
}

// parse_number's own errors (a well-formed number over a limit) carry no location: the token's.
Value Reader::Impl::number_at(const std::string& tok, SrcLoc loc) {
  try {
    return parse_number(tok, 10);
  } catch (SchemeError& e) {
    if (is_condition(e.payload) && e.payload.as<Condition>()->loc == 0)
      e.payload.as<Condition>()->loc = loc.pack();
    throw;
  }
}

Value Reader::Impl::atom_from_token(const std::string& tok, SrcLoc loc) {
  Value n = number_at(tok, loc);
  if (n != kFalse) return n;
  return intern(r_.fold_case_ ? downcase_utf8(tok) : tok);
}

bool Reader::Impl::read_hash(SrcLoc loc, Value& v) {
  int32_t c = peek_checked();
  switch (c) {
    case -1:
      fail(loc, "bad # syntax: #");
    case '(':
      src_.next();
      push(Frame{FK::Vector, kNormal, ')', loc});
      return false;
    case '|':
      src_.next();
      skip_block_comment(loc);
      return false;
    case ';':
      src_.next();
      push(Frame{FK::Skip, kNormal, 0, loc});
      return false;
    case '\\':
      v = read_char(loc);
      return true;
    case '\'':
    case '`':
    case ',': {  // #'x #`x #,x #,@x: (syntax x) (quasisyntax x) (unsyntax x) (unsyntax-splicing x)
      static const Value kSyntax = intern("syntax"), kQuasisyntax = intern("quasisyntax"),
                         kUnsyntax = intern("unsyntax"),
                         kUnsyntaxSplicing = intern("unsyntax-splicing");
      src_.next();
      Value sym = c == '\'' ? kSyntax : c == '`' ? kQuasisyntax : kUnsyntax;
      if (c == ',' && src_.peek() == '@') {
        src_.next();
        sym = kUnsyntaxSplicing;
      }
      Frame f{FK::Abbrev, kNormal, 0, loc};
      f.head = sym;
      push(f);
      return false;
    }
    case 'u': case 'U': {
      src_.next();
      std::string tok(1, static_cast<char>(c));
      if (src_.peek() == '8') {
        src_.next();
        tok += '8';
        if (src_.peek() == '(') {
          src_.next();
          push(Frame{FK::Bytes, kNormal, ')', loc});
          return false;
        }
      }
      fail(loc, "bad # syntax: #" + read_token(tok));
    }
    case '!': {
      src_.next();
      int32_t p = peek_checked();
      if (loc.line == 1 && loc.col == 1 && (p == '/' || p == ' ')) {  // #! script line
        while ((p = next_checked()) != -1 && p != '\n') {
        }
        return false;
      }
      std::string tok = read_token();
      if (tok == "fold-case") {
        r_.fold_case_ = true;
        return false;
      }
      if (tok == "no-fold-case") {
        r_.fold_case_ = false;
        return false;
      }
      if (tok == "eof") { v = kEof; return true; }
      if (tok == "default") { v = kDefault; return true; }
      if (tok == "unspecified") { v = kUnspecified; return true; }
      fail(loc, "bad # syntax: #!" + tok);
    }
    default:
      break;
  }
  if (c >= '0' && c <= '9') {
    int64_t n = 0;
    int digits = 0;
    std::string text;
    while ((c = peek_checked()) >= '0' && c <= '9') {
      src_.next();
      text += static_cast<char>(c);
      if (++digits > 15) fail(loc, "datum label too large: #" + read_token(text));
      n = n * 10 + (c - '0');
    }
    if (c == '=') {
      src_.next();
      if (label_slot(n) != SIZE_MAX) fail(loc, "datum label #" + text + "= defined twice");
      label_index_[n] = labels_.size();
      labels_.push_back(Label{make_box(make_fixnum(n)), kFalse, false, false});
      Frame f{FK::Label, kNormal, 0, loc};
      f.n = n;
      push(f);
      return false;
    }
    if (c == '#') {
      src_.next();
      size_t slot = label_slot(n);
      if (slot == SIZE_MAX) fail(loc, "datum label #" + text + "# not defined");
      Label& l = labels_[slot];
      if (l.defined) {
        v = l.value;
      } else {
        l.used = true;
        v = l.placeholder;
      }
      return true;
    }
    fail(loc, "bad # syntax: #" + read_token(text));
  }
  std::string tok = read_token("#");
  std::string lower = downcase_utf8(tok);
  if (lower == "#t" || lower == "#true") { v = kTrue; return true; }
  if (lower == "#f" || lower == "#false") { v = kFalse; return true; }
  switch (c) {
    case 'x': case 'X': case 'b': case 'B': case 'o': case 'O':
    case 'd': case 'D': case 'e': case 'E': case 'i': case 'I':
      v = number_at(tok, loc);
      if (v == kFalse) fail(loc, "bad number syntax: " + tok);
      return true;
    default:
      break;
  }
  if (tok.size() == 1) {  // a delimiter right after '#': show it
    src_.next();
    if (c >= 0x20) utf8_append(tok, static_cast<char32_t>(c));
  }
  fail(loc, "bad # syntax: " + tok);
}

// A closing parenthesis: completes the innermost list, vector or bytevector.
Value Reader::Impl::close_frame(int32_t c, SrcLoc loc, SrcLoc& vloc) {
  std::string what = c == ')' ? "')'" : "']'";
  if (stack_.empty()) fail(loc, "unexpected " + what);
  Frame& f = stack_.back();
  Value v;
  switch (f.kind) {
    case FK::List:
      if (f.state == kAfterDot) fail(loc, "missing datum after '.' before " + what);
      if (c != f.close)
        fail(loc, "unexpected " + what + " (list opened with '" + (f.close == ')' ? "(" : "[") +
                      "' at " + loc_prefix(f.loc) + ")");
      v = f.head;
      break;
    case FK::Vector: {
      if (c != ')') fail(loc, "unexpected " + what + " (vector opened at " + loc_prefix(f.loc) + ")");
      v = make_vector(f.n, kFalse);
      Value* items = v.as<Vector>()->items();
      int64_t i = 0;
      for (Value l = f.head; is_pair(l); l = cdr(l)) items[i++] = car(l);
      break;
    }
    case FK::Bytes: {
      if (c != ')')
        fail(loc, "unexpected " + what + " (bytevector opened at " + loc_prefix(f.loc) + ")");
      v = make_bytevector(f.n, 0);
      uint8_t* bytes = v.as<Bytevector>()->bytes();
      int64_t i = 0;
      for (Value l = f.head; is_pair(l); l = cdr(l)) bytes[i++] = static_cast<uint8_t>(car(l).fixnum());
      break;
    }
    default:
      fail(loc, "unexpected " + what);
  }
  vloc = f.loc;
  stack_.pop_back();
  return v;
}

// Hands a completed datum to the innermost frame. True when it completes the top-level datum.
bool Reader::Impl::deliver(Value& v, SrcLoc& vloc) {
  for (;;) {
    if (stack_.empty()) return true;
    Frame& f = stack_.back();
    switch (f.kind) {
      case FK::List: {
        if (f.state == kAfterDot) {
          f.tail.as<Pair>()->cdr = v;
          f.state = kDotDone;
          return false;
        }
        if (f.state == kDotDone) fail(vloc, "more than one datum after '.' in list");
        // Every pair of a list records where its element starts (the first, where the list
        // does): a PairInfo cell, 32 bytes as a plain pair of the old layout was.
        Value p = cons_at(v, kNil, f.head == kNil ? f.loc : vloc);
        if (f.head == kNil) f.head = p;
        else f.tail.as<Pair>()->cdr = p;
        f.tail = p;
        return false;
      }
      case FK::Vector:
      case FK::Bytes: {
        if (f.kind == FK::Bytes && !(v.is_fixnum() && v.fixnum() >= 0 && v.fixnum() <= 255))
          fail(vloc, "bytevector element must be an exact integer in 0..255");
        Value p = cons(v, kNil);
        if (f.head == kNil) f.head = p;
        else f.tail.as<Pair>()->cdr = p;
        f.tail = p;
        f.n++;
        return false;
      }
      case FK::Abbrev: {
        Value sym = f.head;
        SrcLoc at = f.loc;
        stack_.pop_back();
        v = cons_at(sym, cons_at(v, kNil, vloc), at);
        vloc = at;
        continue;
      }
      case FK::Label: {
        int64_t n = f.n;
        SrcLoc at = f.loc;
        stack_.pop_back();
        define_label(n, v, at);
        vloc = at;
        continue;
      }
      case FK::Skip:
        stack_.pop_back();
        return false;
    }
  }
}

void Reader::Impl::define_label(int64_t n, Value v, SrcLoc loc) {
  Label& l = labels_[label_slot(n)];
  if (v == l.placeholder)
    fail(loc, "datum label #" + std::to_string(n) + "= labels only a reference to itself");
  l.value = v;
  l.defined = true;
  if (l.used) patch(v, l.placeholder, v);
}

// Replaces every occurrence of `placeholder` inside `root` (pairs and vectors) by `value`.
void Reader::Impl::patch(Value root, Value placeholder, Value value) {
  std::vector<Value> todo{root};
  std::unordered_set<uint64_t> seen;
  auto fix = [&](Value& slot) {
    if (slot == placeholder) slot = value;
    else if (is_pair(slot) || is_vector(slot)) todo.push_back(slot);
  };
  while (!todo.empty()) {
    Value x = todo.back();
    todo.pop_back();
    if (!seen.insert(x.bits).second) continue;
    if (is_pair(x)) {
      fix(x.as<Pair>()->car);
      fix(x.as<Pair>()->cdr);
    } else if (is_vector(x)) {
      Vector* vec = x.as<Vector>();
      for (int64_t i = 0; i < vec->length(); i++) fix(vec->items()[i]);
    }
  }
}

void Reader::Impl::fail_in_frames(SrcLoc loc) {
  const Frame& top = stack_.back();
  switch (top.kind) {
    case FK::Abbrev:
      fail_eof(loc, "end of input after '" + std::string(symbol_name(top.head)) + "' abbreviation");
    case FK::Label:
      fail_eof(loc, "end of input after datum label #" + std::to_string(top.n) + "=");
    case FK::Skip:
      fail_eof(loc, "end of input after #; (datum comment)");
    case FK::List:
      fail_eof(loc, "unterminated list (opened at " + loc_prefix(top.loc) + ")");
    case FK::Vector:
      fail_eof(loc, "unterminated vector (opened at " + loc_prefix(top.loc) + ")");
    case FK::Bytes:
      fail_eof(loc, "unterminated bytevector (opened at " + loc_prefix(top.loc) + ")");
  }
  fail_eof(loc, "unexpected end of input");
}

Value Reader::Impl::read_top() {
  static const Value kQuote = intern("quote"), kQuasi = intern("quasiquote"),
                     kUnquote = intern("unquote"), kSplice = intern("unquote-splicing");
  for (;;) {
    skip_atmosphere();
    SrcLoc loc = src_.location();
    if (stack_.empty()) r_.datum_start_ = loc;
    int32_t c = peek_checked();
    Value v = kUnspecified;
    SrcLoc vloc = loc;
    switch (c) {
      case -1:
        if (stack_.empty()) return kEof;
        fail_in_frames(loc);
      case '(':
      case '[':
        src_.next();
        push(Frame{FK::List, kNormal, c == '(' ? ')' : ']', loc});
        continue;
      case ')':
      case ']':
        src_.next();
        v = close_frame(c, loc, vloc);
        break;
      case '\'':
      case '`':
      case ',': {
        src_.next();
        Value sym = c == '\'' ? kQuote : c == '`' ? kQuasi : kUnquote;
        if (c == ',' && src_.peek() == '@') {
          src_.next();
          sym = kSplice;
        }
        Frame f{FK::Abbrev, kNormal, 0, loc};
        f.head = sym;
        push(f);
        continue;
      }
      case '"':
        v = read_string(loc);
        break;
      case '|':
        v = read_pipe_symbol(loc);
        break;
      case '#':
        src_.next();
        if (!read_hash(loc, v)) continue;
        break;
      default: {
        std::string tok = read_token();
        if (tok == ".") {
          if (!stack_.empty()) {
            Frame& f = stack_.back();
            if (f.kind == FK::List && f.state == kNormal && f.head != kNil) {
              f.state = kAfterDot;
              continue;
            }
          }
          fail(loc, "unexpected '.'");
        }
        v = atom_from_token(tok, loc);
        break;
      }
    }
    if (deliver(v, vloc)) return v;
  }
}

Reader::Reader(CharSource& src) : src_(src) {}

Value Reader::read() {
  incomplete_ = false;
  Impl impl(*this);
  return impl.read_top();
}

bool datum_incomplete(std::string_view text) {
  StringSource src(text, intern_source_file("<input>"));
  Reader reader(src);
  try {
    while (reader.read() != kEof) {
    }
    return false;
  } catch (const SchemeError&) {
    return reader.incomplete();
  }
}

}  // namespace quasi
