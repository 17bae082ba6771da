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
    std::string flat = write_to_string(v);
    if (int(flat.size()) + col <= kWidth || !is_pair(v) || list_length(v) < 0) {
      out += flat;
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
