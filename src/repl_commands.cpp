// repl_commands.cpp — the meta-commands of the REPL (the table is in repl.cpp).
#include <charconv>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <string>

#include "repl_impl.hpp"

namespace quasi::cli {

namespace {

// A file name as typed after ,load: bare or in double quotes.
std::string unquote(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return std::string(s.substr(1, s.size() - 2));
  return std::string(s);
}

std::optional<int64_t> parse_count(std::string_view s, bool* ok) {
  *ok = true;
  if (s == "off" || s == "#f" || s == "none") return std::nullopt;
  int64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size() || n < 0) *ok = false;
  return n;
}

std::string show(const std::optional<int64_t>& n, const char* none) { return n ? std::to_string(*n) : none; }

}  // namespace

void Repl::cmd_help(std::string_view) {
  fresh_lines();
  std::cout << "Meta-commands (at the start of a line):\n";
  for (const std::string& name : meta_command_names()) {
    const MetaCommand* c = nullptr;
    for (const MetaCommand& m : meta_commands())
      if (name == m.name) c = &m;
    std::string usage = "," + name;
    if (*c->arg_name) usage += std::string(" ") + c->arg_name;
    if (*c->alias) usage += std::string("  ,") + c->alias;
    std::cout << "  " << std::left << std::setw(22) << usage << ' ' << c->help << '\n';
  }
  std::cout << "Anything else is Scheme code; an entry continues over several lines until its\n"
               "datums are complete, and the value of each is printed. Tab completes names,\n"
               "commands and file names. Ctrl-C interrupts a running evaluation." << std::endl;
}

void Repl::cmd_time(std::string_view expr) {
  auto start = std::chrono::steady_clock::now();
  evaluate(expr);
  std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  fresh_lines();
  std::cout << "; " << std::fixed << std::setprecision(3) << elapsed.count() << " s elapsed" << std::defaultfloat
            << std::endl;
}

void Repl::cmd_load(std::string_view file) {
  std::string path = unquote(file);
  guarded([&] { engine_.load(path); });
}

void Repl::cmd_quit(std::string_view) { exit_status_ = 0; }

void Repl::cmd_set(std::string_view arg) {
  fresh_lines();
  if (trim(arg).empty()) {
    std::cout << "print-length " << show(settings_.print_length, "off") << "\n"
              << "print-depth  " << show(settings_.print_depth, "off") << "\n"
              << "width        " << (settings_.width ? std::to_string(*settings_.width) : "terminal") << " ("
              << width() << ")" << std::endl;
    return;
  }
  size_t space = arg.find_first_of(" \t");
  std::string_view name = arg.substr(0, space);
  std::string_view value = space == std::string_view::npos ? std::string_view{} : trim(arg.substr(space));
  bool ok = !value.empty();
  std::optional<int64_t> n;
  if (ok) n = parse_count(value, &ok);
  if (ok && name == "print-length") settings_.print_length = n;
  else if (ok && name == "print-depth") settings_.print_depth = n;
  else if (ok && name == "width" && (!n || *n >= 20)) settings_.width = n;
  else {
    std::cerr << "usage: ,set print-length N | ,set print-depth N | ,set width N (N >= 20), or off" << std::endl;
  }
}

void Repl::print_ir(std::string_view code, std::string_view pass) {
  guarded([&] {
    std::string text = engine_.dump_ir(code, pass);
    fresh_lines();
    std::cout << text << std::flush;
  });
}

void Repl::cmd_ir(std::string_view expr) { print_ir(expr, "expand"); }
void Repl::cmd_optimize(std::string_view expr) { print_ir(expr, "all"); }
void Repl::cmd_residual(std::string_view expr) { evaluate("(print-residual " + std::string(expr) + ")"); }
void Repl::cmd_explain(std::string_view expr) {
  evaluate("(specialize-explain " + std::string(expr) + " (current-output-port))");
}

// Machine code of a procedure (compiled first if it was not yet), as asmjit lists it.
void Repl::cmd_disasm(std::string_view expr) {
  guarded([&] {
    Value p = engine_.eval(expr, "<repl>");
    if (!p.is_procedure()) return command_error(",disasm: expected a procedure, got " + p.to_string());
    if (procedure_field(p, "kind").to_string() == "primitive")
      return command_error(",disasm: " + p.to_string() + " is written in C++: there is no Scheme code to compile");
    engine_.call(builtins_.jit_compile, p);
    std::string listing = engine_.call(builtins_.jit_disassemble, p).as<std::string>();
    fresh_lines();
    std::cout << listing << std::flush;
  });
}

Value Repl::procedure_field(const Value& proc, const char* key) {
  for (Value l = engine_.call(builtins_.procedure_information, proc); l.is_pair(); l = l.cdr())
    if (l.car().car().to_string() == key) return l.car().cdr();
  return Value(false);
}

void Repl::command_error(const std::string& message) {
  fresh_lines();
  std::cerr << "error: " << message << std::endl;
}

}  // namespace quasi::cli
