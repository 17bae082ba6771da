// chars_strings.cpp — characters and strings, Unicode-aware.
//
// Character classes and simple case mappings beyond ASCII come from glibc's C.UTF-8 locale
// (towupper_l, iswalpha_l, ...), opened once; if that locale is missing only ASCII is mapped.
// Corrections on top of glibc:
//   - char-numeric? / digit-value use a table of the Unicode Nd (decimal digit) ranges, and
//     char-alphabetic? excludes those digits (glibc's "alpha" class includes them);
//   - char-whitespace? is the Unicode White_Space property (glibc omits no-break spaces);
//   - char-foldcase is simple case folding: lower(upper(c)), except dotless/dotted i (kept) and
//     Cherokee (folds to the uppercase letters).
// String case conversion applies Unicode's unconditional special casing (SpecialCasing.txt):
// ß upcases to "SS", ǰ to "J̌", ﬁ to "FI", ᾳ to "ΑΙ" ...; İ downcases to "i̇"; string-foldcase
// folds those in full (CaseFolding.txt's F entries: ß and ẞ to "ss", ﬁ to "fi", ...); and
// string-downcase turns Σ into final ς at the end of a word. char-upcase and friends stay simple
// (one character in, one out), as R7RS says.
// utf8->string replaces each invalid UTF-8 sequence by U+FFFD.
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "builtins/args.hpp"
#include "builtins/chars.hpp"
#include "builtins/registry.hpp"
#include "core/numbers.hpp"
#include "read/printer.hpp"

namespace quasi {

namespace {

// ---- Unicode character properties -------------------------------------------------------------
locale_t utf8_locale() {
  static locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(0));
  return loc;
}

// First code point (the zero) of every Unicode 15 Nd range; each range holds ten digits.
constexpr char32_t kDigitZeros[] = {
    0x0030,  0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,
    0x0C66,  0x0CE6,  0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,
    0x1810,  0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,
    0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066,
    0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0,
    0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8,
    0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
};

// The decimal value of a Unicode decimal digit (general category Nd), or -1.
int digit_value_of(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') ? static_cast<int>(c - '0') : -1;
  const char32_t* end = kDigitZeros + sizeof(kDigitZeros) / sizeof(kDigitZeros[0]);
  const char32_t* it = std::upper_bound(kDigitZeros, end, c);  // first zero > c
  if (it == kDigitZeros) return -1;
  char32_t zero = *(it - 1);
  return c - zero < 10 ? static_cast<int>(c - zero) : -1;
}

bool is_whitespace(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D);
  switch (c) {
    case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool is_alphabetic(char32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  locale_t l = utf8_locale();
  return l && iswalpha_l(c, l) && digit_value_of(c) < 0;
}

// The titlecase letters (general category Lt, Unicode 15): glibc counts them both upper and lower
// case because they have both mappings, but they have neither the Uppercase nor the Lowercase
// property that char-upper-case?/char-lower-case? ask for (R7RS 6.6).
bool is_titlecase(char32_t c) {
  if (c < 0x1C5 || c > 0x1FFC) return false;
  return c == 0x1C5 || c == 0x1C8 || c == 0x1CB || c == 0x1F2 || (c >= 0x1F88 && c <= 0x1F8F) ||
         (c >= 0x1F98 && c <= 0x1F9F) || (c >= 0x1FA8 && c <= 0x1FAF) || c == 0x1FBC || c == 0x1FCC ||
         c == 0x1FFC;
}

bool is_upper(char32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  locale_t l = utf8_locale();
  return l && iswupper_l(c, l) && !is_titlecase(c);
}

bool is_lower(char32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  locale_t l = utf8_locale();
  return l && iswlower_l(c, l) && !is_titlecase(c);
}

char32_t upcase(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') ? c - 32 : c;
  locale_t l = utf8_locale();
  return l ? static_cast<char32_t>(towupper_l(c, l)) : c;
}

char32_t downcase(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  locale_t l = utf8_locale();
  return l ? static_cast<char32_t>(towlower_l(c, l)) : c;
}

char32_t foldcase(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  if (c == 0x130 || c == 0x131) return c;            // İ ı: only Turkic folding maps them
  if (c >= 0x13A0 && c <= 0x13F5) return c;          // Cherokee folds to its capitals
  if (c >= 0x13F8 && c <= 0x13FD) return c - 8;
  if (c >= 0xAB70 && c <= 0xABBF) return c - 0xAB70 + 0x13A0;
  return downcase(upcase(c));
}

// ---- Unicode special casing (SpecialCasing.txt, unconditional mappings) ----------------------
// The characters whose uppercase is several characters, with that expansion. Their full case
// folding is the simple folding of each character of it (CaseFolding.txt's F entries agree).
struct SpecialUpper {
  char32_t c;
  char32_t to[3];  // 0-terminated when shorter
};
constexpr SpecialUpper kSpecialUpper[] = {
    {0x0149, {0x02BC, 0x004E}}, {0x01F0, {0x004A, 0x030C}}, {0x0390, {0x0399, 0x0308, 0x0301}},
    {0x03B0, {0x03A5, 0x0308, 0x0301}}, {0x0587, {0x0535, 0x0552}}, {0x1E96, {0x0048, 0x0331}},
    {0x1E97, {0x0054, 0x0308}}, {0x1E98, {0x0057, 0x030A}}, {0x1E99, {0x0059, 0x030A}},
    {0x1E9A, {0x0041, 0x02BE}}, {0x1F50, {0x03A5, 0x0313}}, {0x1F52, {0x03A5, 0x0313, 0x0300}},
    {0x1F54, {0x03A5, 0x0313, 0x0301}}, {0x1F56, {0x03A5, 0x0313, 0x0342}},
    {0x1FB2, {0x1FBA, 0x0399}}, {0x1FB3, {0x0391, 0x0399}}, {0x1FB4, {0x0386, 0x0399}},
    {0x1FB6, {0x0391, 0x0342}}, {0x1FB7, {0x0391, 0x0342, 0x0399}}, {0x1FBC, {0x0391, 0x0399}},
    {0x1FC2, {0x1FCA, 0x0399}}, {0x1FC3, {0x0397, 0x0399}}, {0x1FC4, {0x0389, 0x0399}},
    {0x1FC6, {0x0397, 0x0342}}, {0x1FC7, {0x0397, 0x0342, 0x0399}}, {0x1FCC, {0x0397, 0x0399}},
    {0x1FD2, {0x0399, 0x0308, 0x0300}}, {0x1FD3, {0x0399, 0x0308, 0x0301}},
    {0x1FD6, {0x0399, 0x0342}}, {0x1FD7, {0x0399, 0x0308, 0x0342}},
    {0x1FE2, {0x03A5, 0x0308, 0x0300}}, {0x1FE3, {0x03A5, 0x0308, 0x0301}},
    {0x1FE4, {0x03A1, 0x0313}}, {0x1FE6, {0x03A5, 0x0342}}, {0x1FE7, {0x03A5, 0x0308, 0x0342}},
    {0x1FF2, {0x1FFA, 0x0399}}, {0x1FF3, {0x03A9, 0x0399}}, {0x1FF4, {0x038F, 0x0399}},
    {0x1FF6, {0x03A9, 0x0342}}, {0x1FF7, {0x03A9, 0x0342, 0x0399}}, {0x1FFC, {0x03A9, 0x0399}},
    {0xFB00, {0x0046, 0x0046}}, {0xFB01, {0x0046, 0x0049}}, {0xFB02, {0x0046, 0x004C}},
    {0xFB03, {0x0046, 0x0046, 0x0049}}, {0xFB04, {0x0046, 0x0046, 0x004C}},
    {0xFB05, {0x0053, 0x0054}}, {0xFB06, {0x0053, 0x0054}}, {0xFB13, {0x0544, 0x0546}},
    {0xFB14, {0x0544, 0x0535}}, {0xFB15, {0x0544, 0x053B}}, {0xFB16, {0x054E, 0x0546}},
    {0xFB17, {0x0544, 0x053D}},
};

// Appends c's full uppercase when it has several characters; false when it has not.
bool special_upcase_into(std::u32string& out, char32_t c) {
  if (c == 0xDF) {
    out += U"SS";
    return true;
  }
  // Greek with ypogegrammeni / prosgegrammeni, 1F80-1FAF: capital (with its breathing) + Ι.
  if (c >= 0x1F80 && c <= 0x1FAF) {
    static constexpr char32_t kBase[3] = {0x1F08, 0x1F28, 0x1F68};
    out += kBase[(c - 0x1F80) / 16] + (c & 7);
    out += 0x0399;
    return true;
  }
  const SpecialUpper* end = kSpecialUpper + sizeof kSpecialUpper / sizeof kSpecialUpper[0];
  const SpecialUpper* e = std::lower_bound(kSpecialUpper, end, c,
                                           [](const SpecialUpper& x, char32_t k) { return x.c < k; });
  if (e == end || e->c != c) return false;
  for (char32_t t : e->to)
    if (t) out += t;
  return true;
}

// Full folding of one character into `out`: ß and ẞ become "ss", İ "i̇", and the characters with
// a multi-character uppercase the simple folding of its characters (ǰ, ﬁ, ᾳ, ...).
void foldcase_into(std::u32string& out, char32_t c) {
  if (c == 0xDF || c == 0x1E9E) {
    out += U"ss";
    return;
  }
  if (c == 0x130) {
    out += U"i\u0307";
    return;
  }
  std::u32string up;
  if (c >= 0x80 && special_upcase_into(up, c)) {
    for (char32_t u : up) out += foldcase(u);
    return;
  }
  out += foldcase(c);
}

// ---- argument checks -------------------------------------------------------------------------
String* check_string(const char* who, Value v) {
  if (!is_string(v)) type_error(who, "a string", v);
  return v.as<String>();
}

char32_t check_char(const char* who, Value v) {
  if (!v.is_char()) type_error(who, "a character", v);
  return v.char_code();
}

constexpr int64_t kMaxLength = (int64_t(1) << 40) / sizeof(uint32_t);

int64_t check_length(const char* who, Value v) {
  if (!v.is_fixnum() || v.fixnum() < 0) {
    if (is_bignum(v) && mpz_sgn(&v.as<Bignum>()->z) > 0) range_error(who, "length", v);
    type_error(who, "a non-negative exact integer", v);
  }
  if (v.fixnum() > kMaxLength) range_error(who, "length", v);
  return v.fixnum();
}

Value new_string(const uint32_t* src, int64_t n) {
  Value s = make_string_uninit(n);
  if (n) std::memcpy(s.as<String>()->chars(), src, sizeof(uint32_t) * n);
  return s;
}

Value new_string(const std::u32string& s) {
  return make_string_utf32(s.data(), static_cast<int64_t>(s.size()));
}

// ---- characters ------------------------------------------------------------------------------
QUASI_PRIM(p_charp) { return make_bool(argv[0].is_char()); }

QUASI_PRIM(p_char_to_integer) {
  return make_fixnum(check_char("char->integer", argv[0]));
}

QUASI_PRIM(p_integer_to_char) {
  Value v = argv[0];
  if (!v.is_fixnum()) {
    if (is_bignum(v)) range_error("integer->char", "code point", v);
    type_error("integer->char", "an exact integer", v);
  }
  int64_t n = v.fixnum();
  if (n < 0 || n > 0x10FFFF || (n >= 0xD800 && n <= 0xDFFF))
    range_error("integer->char", "code point", v);
  return make_char(static_cast<char32_t>(n));
}

enum class Cmp { Eq, Lt, Gt, Le, Ge };

inline bool holds(Cmp op, int c) {
  switch (op) {
    case Cmp::Eq: return c == 0;
    case Cmp::Lt: return c < 0;
    case Cmp::Gt: return c > 0;
    case Cmp::Le: return c <= 0;
    case Cmp::Ge: return c >= 0;
  }
  return false;
}

template <Cmp Op, bool Ci>
Value p_char_cmp(Vm&, Primitive* self, int argc, Value* argv) {
  for (int i = 0; i < argc; i++) check_char(self->name, argv[i]);
  for (int i = 1; i < argc; i++) {
    char32_t a = argv[i - 1].char_code(), b = argv[i].char_code();
    if (Ci) {
      a = foldcase(a);
      b = foldcase(b);
    }
    if (!holds(Op, a < b ? -1 : a > b ? 1 : 0)) return kFalse;
  }
  return kTrue;
}

template <bool (*Pred)(char32_t)>
Value p_char_pred(Vm&, Primitive* self, int, Value* argv) {
  return make_bool(Pred(check_char(self->name, argv[0])));
}

bool is_numeric(char32_t c) { return digit_value_of(c) >= 0; }

template <char32_t (*Map)(char32_t)>
Value p_char_map(Vm&, Primitive* self, int, Value* argv) {
  return make_char(Map(check_char(self->name, argv[0])));
}

QUASI_PRIM(p_digit_value) {
  int d = digit_value_of(check_char("digit-value", argv[0]));
  return d < 0 ? kFalse : make_fixnum(d);
}

// ---- basic string operations -----------------------------------------------------------------
QUASI_PRIM(p_stringp) { return make_bool(is_string(argv[0])); }

QUASI_PRIM(p_make_string) {
  int64_t n = check_length("make-string", argv[0]);
  char32_t fill = argc > 1 ? check_char("make-string", argv[1]) : U' ';
  return make_string(n, fill);
}

QUASI_PRIM(p_string) {
  Value s = make_string_uninit(argc);
  uint32_t* c = s.as<String>()->chars();
  for (int i = 0; i < argc; i++) c[i] = check_char("string", argv[i]);
  return s;
}

QUASI_PRIM(p_string_length) {
  return make_fixnum(check_string("string-length", argv[0])->length());
}

QUASI_PRIM(p_string_ref) {
  String* s = check_string("string-ref", argv[0]);
  return make_char(s->chars()[check_index("string-ref", argv[1], s->length())]);
}

QUASI_PRIM(p_string_set) {
  String* s = check_string("string-set!", argv[0]);
  int64_t i = check_index("string-set!", argv[1], s->length());
  char32_t c = check_char("string-set!", argv[2]);
  check_mutable("string-set!", argv[0]);
  s->chars()[i] = c;
  return kUnspecified;
}

// (substring s start [end]) and (string-copy s [start [end]])
QUASI_PRIM(p_substring) {
  String* s = check_string("substring", argv[0]);
  int64_t start, end;
  get_range("substring", argc, argv, 1, s->length(), start, end);
  return new_string(s->chars() + start, end - start);
}

QUASI_PRIM(p_string_copy) {
  String* s = check_string("string-copy", argv[0]);
  int64_t start, end;
  get_range("string-copy", argc, argv, 1, s->length(), start, end);
  return new_string(s->chars() + start, end - start);
}

QUASI_PRIM(p_string_append) {
  int64_t total = 0;
  for (int i = 0; i < argc; i++) total += check_string("string-append", argv[i])->length();
  Value r = make_string_uninit(total);
  uint32_t* out = r.as<String>()->chars();
  for (int i = 0; i < argc; i++) {
    String* s = argv[i].as<String>();
    if (s->length()) std::memcpy(out, s->chars(), sizeof(uint32_t) * s->length());
    out += s->length();
  }
  return r;
}

// (string-copy! to at from [start [end]]); overlapping source and destination are fine.
QUASI_PRIM(p_string_copy_x) {
  String* to = check_string("string-copy!", argv[0]);
  int64_t at = check_bound("string-copy!", "destination index", argv[1], to->length());
  String* from = check_string("string-copy!", argv[2]);
  int64_t start, end;
  get_range("string-copy!", argc, argv, 3, from->length(), start, end);
  if (to->length() - at < end - start) range_error("string-copy!", "destination index", argv[1]);
  if (end > start) {  // nothing to modify: fine on a literal
    check_mutable("string-copy!", argv[0]);
    std::memmove(to->chars() + at, from->chars() + start, sizeof(uint32_t) * (end - start));
  }
  return kUnspecified;
}

// (string-fill! s c [start [end]])
QUASI_PRIM(p_string_fill) {
  String* s = check_string("string-fill!", argv[0]);
  char32_t c = check_char("string-fill!", argv[1]);
  int64_t start, end;
  get_range("string-fill!", argc, argv, 2, s->length(), start, end);
  if (end > start) check_mutable("string-fill!", argv[0]);  // nothing to modify: fine
  for (int64_t i = start; i < end; i++) s->chars()[i] = c;
  return kUnspecified;
}

QUASI_PRIM(p_string_to_list) {
  String* s = check_string("string->list", argv[0]);
  int64_t start, end;
  get_range("string->list", argc, argv, 1, s->length(), start, end);
  Value r = kNil;
  for (int64_t i = end - 1; i >= start; i--) r = cons(make_char(s->chars()[i]), r);
  return r;
}

QUASI_PRIM(p_list_to_string) {
  int64_t n = list_length(argv[0]);
  if (n < 0) type_error("list->string", "a proper list of characters", argv[0]);
  Value r = make_string_uninit(n);
  uint32_t* out = r.as<String>()->chars();
  for (Value l = argv[0]; is_pair(l); l = cdr(l)) {
    if (!car(l).is_char()) type_error("list->string", "a proper list of characters", argv[0]);
    *out++ = car(l).char_code();
  }
  return r;
}

QUASI_PRIM(p_string_to_vector) {
  String* s = check_string("string->vector", argv[0]);
  int64_t start, end;
  get_range("string->vector", argc, argv, 1, s->length(), start, end);
  Value r = make_vector(end - start);
  Value* out = r.as<Vector>()->items();
  for (int64_t i = start; i < end; i++) *out++ = make_char(s->chars()[i]);
  return r;
}

QUASI_PRIM(p_vector_to_string) {
  if (!is_vector(argv[0])) type_error("vector->string", "a vector", argv[0]);
  Vector* v = argv[0].as<Vector>();
  int64_t start, end;
  get_range("vector->string", argc, argv, 1, v->length(), start, end);
  Value r = make_string_uninit(end - start);
  uint32_t* out = r.as<String>()->chars();
  for (int64_t i = start; i < end; i++) {
    Value c = v->items()[i];
    if (!c.is_char()) type_error("vector->string", "a vector of characters", argv[0]);
    *out++ = c.char_code();
  }
  return r;
}

// ---- comparisons -----------------------------------------------------------------------------
int compare_code_points(const uint32_t* a, int64_t na, const uint32_t* b, int64_t nb) {
  int64_t n = na < nb ? na : nb;
  for (int64_t i = 0; i < n; i++)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

std::u32string folded(String* s) {
  std::u32string out;
  out.reserve(s->length());
  for (int64_t i = 0; i < s->length(); i++) foldcase_into(out, s->chars()[i]);
  return out;
}

template <Cmp Op, bool Ci>
Value p_string_cmp(Vm&, Primitive* self, int argc, Value* argv) {
  for (int i = 0; i < argc; i++) check_string(self->name, argv[i]);
  for (int i = 1; i < argc; i++) {
    String* a = argv[i - 1].as<String>();
    String* b = argv[i].as<String>();
    int c;
    if (Ci) {
      std::u32string fa = folded(a), fb = folded(b);
      c = compare_code_points(reinterpret_cast<const uint32_t*>(fa.data()), fa.size(),
                              reinterpret_cast<const uint32_t*>(fb.data()), fb.size());
    } else {
      if (Op == Cmp::Eq && a->length() != b->length()) return kFalse;
      c = compare_code_points(a->chars(), a->length(), b->chars(), b->length());
    }
    if (!holds(Op, c)) return kFalse;
  }
  return kTrue;
}

// ---- case conversion -------------------------------------------------------------------------
// (string-upcase s [start end]) and string-downcase: SRFI 13's optional range.
QUASI_PRIM(p_string_upcase) {
  String* s = check_string("string-upcase", argv[0]);
  int64_t start, end;
  get_range("string-upcase", argc, argv, 1, s->length(), start, end);
  std::u32string out;
  out.reserve(end - start);
  for (int64_t i = start; i < end; i++) {
    char32_t c = s->chars()[i];
    if (c < 0xDF || !special_upcase_into(out, c)) out += upcase(c);
  }
  return new_string(out);
}

// Unicode's Cased property: letters with case (Lu, Ll, Lt and a few others glibc classes so).
bool is_cased(char32_t c) { return is_upper(c) || is_lower(c) || is_titlecase(c); }

// Unicode's Case_Ignorable property for the characters met inside words: apostrophes and other
// word-internal punctuation (Word_Break MidLetter/MidNumLet/Single_Quote), modifier letters and
// symbols (Lm, Sk), combining marks (Mn, Me) and format characters (Cf) of the common blocks.
bool is_case_ignorable(char32_t c) {
  switch (c) {
    case '\'': case '.': case ':': case '^': case '`': case 0xA8: case 0xAD: case 0xAF: case 0xB4:
    case 0xB7: case 0xB8: case 0x374: case 0x375: case 0x37A: case 0x384: case 0x385: case 0x387:
    case 0x2018: case 0x2019: case 0x2024: case 0x2027: case 0xFE13: case 0xFE52: case 0xFE55:
    case 0xFF07: case 0xFF0E: case 0xFF1A:
      return true;
    default:
      return (c >= 0x2B0 && c <= 0x36F) || (c >= 0x483 && c <= 0x489) ||
             (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
             (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
             (c >= 0x2060 && c <= 0x2064) || (c >= 0x20D0 && c <= 0x20FF) ||
             (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFE20 && c <= 0xFE2F);
  }
}

// Unicode's Final_Sigma condition at c[i]: a cased letter comes before it and none after it,
// skipping case-ignorable characters both ways ("ΑΣ'Α" keeps σ: the apostrophe is skipped).
bool final_sigma_at(const uint32_t* c, int64_t n, int64_t i) {
  int64_t j = i - 1;
  while (j >= 0 && is_case_ignorable(c[j])) j--;
  if (j < 0 || !is_cased(c[j])) return false;
  int64_t k = i + 1;
  while (k < n && is_case_ignorable(c[k])) k++;
  return !(k < n && is_cased(c[k]));
}

// Σ becomes final ς at the end of a word (Unicode's Final_Sigma).
QUASI_PRIM(p_string_downcase) {
  String* s = check_string("string-downcase", argv[0]);
  int64_t start, end;
  get_range("string-downcase", argc, argv, 1, s->length(), start, end);
  int64_t n = end - start;
  const uint32_t* c = s->chars() + start;
  std::u32string out;
  out.reserve(n);
  for (int64_t i = 0; i < n; i++) {
    if (c[i] == 0x3A3 && final_sigma_at(c, n, i))
      out += 0x3C2;
    else if (c[i] == 0x130)
      out += U"i\u0307";  // İ: SpecialCasing's unconditional lowercase
    else
      out += downcase(c[i]);
  }
  return new_string(out);
}

QUASI_PRIM(p_string_foldcase) {
  return new_string(folded(check_string("string-foldcase", argv[0])));
}

// ---- UTF-8 -----------------------------------------------------------------------------------
QUASI_PRIM(p_string_to_utf8) {
  String* s = check_string("string->utf8", argv[0]);
  int64_t start, end;
  get_range("string->utf8", argc, argv, 1, s->length(), start, end);
  std::string bytes;
  bytes.reserve(end - start);
  for (int64_t i = start; i < end; i++) utf8_append(bytes, s->chars()[i]);
  Value r = make_bytevector(static_cast<int64_t>(bytes.size()));
  if (!bytes.empty()) std::memcpy(r.as<Bytevector>()->bytes(), bytes.data(), bytes.size());
  return r;
}

QUASI_PRIM(p_utf8_to_string) {
  if (!is_bytevector(argv[0])) type_error("utf8->string", "a bytevector", argv[0]);
  Bytevector* b = argv[0].as<Bytevector>();
  int64_t start, end;
  get_range("utf8->string", argc, argv, 1, b->length(), start, end);
  return make_string_utf8(
      std::string_view(reinterpret_cast<const char*>(b->bytes()) + start, end - start));
}

// ---- searching -------------------------------------------------------------------------------
// (string-contains s1 s2 [start1 [end1 [start2 [end2]]]]): index in s1 of the first occurrence
// of s2[start2, end2) within s1[start1, end1), or #f.
QUASI_PRIM(p_string_contains) {
  String* s1 = check_string("string-contains", argv[0]);
  String* s2 = check_string("string-contains", argv[1]);
  int64_t start1, end1, start2, end2;
  get_range("string-contains", argc, argv, 2, s1->length(), start1, end1);
  get_range("string-contains", argc, argv, 4, s2->length(), start2, end2);
  const uint32_t* hay = s1->chars();
  const uint32_t* pat = s2->chars() + start2;
  int64_t m = end2 - start2;
  if (m == 0) return make_fixnum(start1);
  for (int64_t i = start1; i + m <= end1; i++) {
    if (hay[i] != pat[0]) continue;
    if (std::memcmp(hay + i, pat, sizeof(uint32_t) * m) == 0) return make_fixnum(i);
  }
  return kFalse;
}

constexpr uint32_t kAllocRaise = kAlloc | kMayRaise;
// string-length is piecewise constant: a string among the arguments of a differentiated
// procedure (its gradient is #f) may have its length used in arithmetic.
constexpr DerivativeRule kDZeroS{DerivativeRule::Kind::kZero, false, {}, {}};

const PrimDef kCharStringPrims[] = {
    {"char?", p_charp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred).jit_as(JitRecipe::kChar)},
    {"char->integer", p_char_to_integer, 1, 1, kPureFoldRaise},
    {"integer->char", p_integer_to_char, 1, 1, kPureFoldRaise},
    {"char=?", p_char_cmp<Cmp::Eq, false>, 1, -1, kPureFoldRaise,
     kFacts.structural(Structure::kCharEq).jit_char_compare(Compare::kEq)},
    {"char<?", p_char_cmp<Cmp::Lt, false>, 1, -1, kPureFoldRaise,
     kFacts.jit_char_compare(Compare::kLt)},
    {"char>?", p_char_cmp<Cmp::Gt, false>, 1, -1, kPureFoldRaise,
     kFacts.jit_char_compare(Compare::kGt)},
    {"char<=?", p_char_cmp<Cmp::Le, false>, 1, -1, kPureFoldRaise,
     kFacts.jit_char_compare(Compare::kLe)},
    {"char>=?", p_char_cmp<Cmp::Ge, false>, 1, -1, kPureFoldRaise,
     kFacts.jit_char_compare(Compare::kGe)},
    {"char-ci=?", p_char_cmp<Cmp::Eq, true>, 1, -1, kPureFoldRaise},
    {"char-ci<?", p_char_cmp<Cmp::Lt, true>, 1, -1, kPureFoldRaise},
    {"char-ci>?", p_char_cmp<Cmp::Gt, true>, 1, -1, kPureFoldRaise},
    {"char-ci<=?", p_char_cmp<Cmp::Le, true>, 1, -1, kPureFoldRaise},
    {"char-ci>=?", p_char_cmp<Cmp::Ge, true>, 1, -1, kPureFoldRaise},
    {"char-alphabetic?", p_char_pred<is_alphabetic>, 1, 1, kPureFoldRaise},
    {"char-numeric?", p_char_pred<is_numeric>, 1, 1, kPureFoldRaise},
    {"char-whitespace?", p_char_pred<is_whitespace>, 1, 1, kPureFoldRaise},
    {"char-upper-case?", p_char_pred<is_upper>, 1, 1, kPureFoldRaise},
    {"char-lower-case?", p_char_pred<is_lower>, 1, 1, kPureFoldRaise},
    {"digit-value", p_digit_value, 1, 1, kPureFoldRaise},
    {"char-upcase", p_char_map<upcase>, 1, 1, kPureFoldRaise},
    {"char-downcase", p_char_map<downcase>, 1, 1, kPureFoldRaise},
    {"char-foldcase", p_char_map<foldcase>, 1, 1, kPureFoldRaise},

    {"string?", p_stringp, 1, 1, kPureFold,
     kFacts.structural(Structure::kTypePred).jit_heap_type(Type::String)},
    {"make-string", p_make_string, 1, 2, kAllocRaise,
     kFacts.maker(Sequence::kString, MakerLength::kFirstArg, MakerFill::kChar)},
    {"string", p_string, 0, -1, kAllocRaise},
    {"string-length", p_string_length, 1, 1, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kStringLength).measure(Sequence::kString).differentiable(&kDZeroS).numeric(NumResult::kExactInteger, false)},
    {"string-ref", p_string_ref, 2, 2, kPureFoldRaise,
     kFacts.inline_as(InlineOp::kStringRef).structural(Structure::kResultChar)},
    {"string-set!", p_string_set, 3, 3, kEffect},
    {"substring", p_substring, 2, 3, kAllocRaise},
    {"string-append", p_string_append, 0, -1, kAllocRaise},
    {"string-copy", p_string_copy, 1, 3, kAllocRaise},
    {"string-copy!", p_string_copy_x, 3, 5, kEffect},
    {"string-fill!", p_string_fill, 2, 4, kEffect},
    {"string->list", p_string_to_list, 1, 3, kAllocRaise},
    {"list->string", p_list_to_string, 1, 1, kAllocRaise},
    {"string->vector", p_string_to_vector, 1, 3, kAllocRaise},
    {"vector->string", p_vector_to_string, 1, 3, kAllocRaise},
    {"string=?", p_string_cmp<Cmp::Eq, false>, 1, -1, kPureFoldRaise},
    {"string<?", p_string_cmp<Cmp::Lt, false>, 1, -1, kPureFoldRaise},
    {"string>?", p_string_cmp<Cmp::Gt, false>, 1, -1, kPureFoldRaise},
    {"string<=?", p_string_cmp<Cmp::Le, false>, 1, -1, kPureFoldRaise},
    {"string>=?", p_string_cmp<Cmp::Ge, false>, 1, -1, kPureFoldRaise},
    {"string-ci=?", p_string_cmp<Cmp::Eq, true>, 1, -1, kPureFoldRaise},
    {"string-ci<?", p_string_cmp<Cmp::Lt, true>, 1, -1, kPureFoldRaise},
    {"string-ci>?", p_string_cmp<Cmp::Gt, true>, 1, -1, kPureFoldRaise},
    {"string-ci<=?", p_string_cmp<Cmp::Le, true>, 1, -1, kPureFoldRaise},
    {"string-ci>=?", p_string_cmp<Cmp::Ge, true>, 1, -1, kPureFoldRaise},
    {"string-upcase", p_string_upcase, 1, 3, kAllocRaise},
    {"string-downcase", p_string_downcase, 1, 3, kAllocRaise},
    {"string-foldcase", p_string_foldcase, 1, 1, kAllocRaise},
    {"string->utf8", p_string_to_utf8, 1, 3, kAllocRaise},
    {"utf8->string", p_utf8_to_string, 1, 3, kAllocRaise},
    {"string-contains", p_string_contains, 2, 6, kPureFoldRaise},
};

}  // namespace

std::u32string string_folded(Value s) { return folded(s.as<String>()); }

void register_char_string_primitives(Environment* env) {
  install_primitives(env, kCharStringPrims);
}

}  // namespace quasi
