// pretty.cpp — an indenting printer for residual code (what `print-residual` and the REPL's
// `,residual` show). A form that fits in the width prints on one line; otherwise binding forms
// (lambda, let, letrec*, case-lambda, define) put their body two columns in, `if` aligns its arms
// under its test, and a call aligns its arguments under the first one.
#include <string>

#include "core/object.hpp"
#include "pe/pretty.hpp"
#include "read/printer.hpp"

namespace quasi::pe {

namespace {

constexpr int kWidth = 88;
constexpr int kMaxIndent = 48;

// Whether v written flat takes at most `room` characters; stops counting as soon as it does not
// (so deep code costs what fits on a line, not its whole size).
bool fits_in(Value v, int& room) {
  if (room < 0) return false;
  if (!is_pair(v)) {
    room -= int(write_to_string(v).size());
    return room >= 0;
  }
  if (is_symbol(car(v)) && std::string(symbol_name(car(v))) == "quote" && is_pair(cdr(v)) && cdr(cdr(v)) == kNil) {  // written 'x
    room -= 1;
    return fits_in(car(cdr(v)), room);
  }
  room -= 1;  // "("
  bool first = true;
  Value l = v;
  for (; is_pair(l); l = cdr(l)) {
    if (!first) room -= 1;
    first = false;
    if (!fits_in(car(l), room)) return false;
  }
  if (l != kNil) {
    room -= 3;
    if (!fits_in(l, room)) return false;
  }
  room -= 1;  // ")"
  return room >= 0;
}
bool fits(Value v, int room) { return fits_in(v, room); }

bool is_sym(Value v, const char* name) { return is_symbol(v) && std::string(symbol_name(v)) == name; }

bool body_form(Value head) {
  static const char* kForms[] = {"lambda", "let", "letrec", "letrec*", "let*", "define", "case-lambda", "when",
                                 "unless", "named-lambda"};
  for (const char* f : kForms)
    if (is_sym(head, f)) return true;
  return false;
}

class Pretty {
 public:
  std::string out;

  void print(Value v, int col) {
    // Fits on the line, or not a list, or already far right (deep code: indenting further would
    // make the output grow with the square of the depth): written flat.
    if (!is_pair(v) || col > kMaxIndent || list_length(v) < 0 || fits(v, kWidth - col)) {
      out += write_to_string(v);
      return;
    }
    Value head = car(v);
    if (is_sym(head, "quote") && is_pair(cdr(v))) {
      out += "'";
      print(car(cdr(v)), col + 1);
      return;
    }
    if (is_sym(head, "if") && list_length(v) >= 3) {
      out += "(if ";
      int arm = col + 4;
      print(car(cdr(v)), arm);
      for (Value l = cdr(cdr(v)); is_pair(l); l = cdr(l)) {
        newline(arm);
        print(car(l), arm);
      }
      out += ")";
      return;
    }
    if (body_form(head) && is_pair(cdr(v))) {
      std::string h = write_to_string(head);
      out += "(" + h + " ";
      Value second = car(cdr(v));
      Value rest = cdr(cdr(v));
      if (is_sym(head, "let") && is_symbol(second) && is_pair(rest)) {  // named let
        out += write_to_string(second) + " ";
        second = car(rest);
        rest = cdr(rest);
      }
      int at = int(out.size() - line_start());
      if (is_sym(head, "case-lambda")) {
        print(second, col + 2 + 0 * at);
      } else if (!is_sym(head, "lambda") && !is_sym(head, "define") && is_pair(second)) {
        bindings(second, at);
      } else {
        print(second, at);
      }
      for (Value l = rest; is_pair(l); l = cdr(l)) {
        newline(col + 2);
        print(car(l), col + 2);
      }
      out += ")";
      return;
    }
    // A call: arguments under the first one when the operator is short, else one column in.
    std::string h = write_to_string(head);
    out += "(";
    if (is_symbol(head) && h.size() <= 12) {
      out += h;
      int arg = col + 2 + int(h.size());
      bool first = true;
      for (Value l = cdr(v); is_pair(l); l = cdr(l)) {
        if (first) out += " ";
        else newline(arg);
        print(car(l), arg);
        first = false;
      }
    } else {
      print(head, col + 1);
      for (Value l = cdr(v); is_pair(l); l = cdr(l)) {
        newline(col + 1);
        print(car(l), col + 1);
      }
    }
    out += ")";
  }

 private:
  size_t line_start() const {
    size_t nl = out.rfind('\n');
    return nl == std::string::npos ? 0 : nl + 1;
  }
  void newline(int col) {
    out += "\n";
    out.append(size_t(col), ' ');
  }
  // ((x init) ...): one binding per line.
  void bindings(Value bs, int col) {
    out += "(";
    bool first = true;
    for (Value l = bs; is_pair(l); l = cdr(l)) {
      if (!first) newline(col + 1);
      print(car(l), col + 1);
      first = false;
    }
    out += ")";
  }
};

}  // namespace

std::string pretty_datum(Value v, int indent) {
  Pretty p;
  p.print(v, indent);
  return p.out;
}

}  // namespace quasi::pe
