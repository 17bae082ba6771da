// repl_inspect.cpp — the introspection commands: ,describe ,doc ,apropos ,expand ,gc and
// ,trace/,untrace. They ask the engine through the public API and the built-ins the session took
// at start (procedure-information, documentation, gc-stats), so a user's redefinition of those
// names does not change the commands.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "repl_impl.hpp"

namespace quasi::cli {

namespace {

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::istringstream in{std::string(text)};
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool is_bound(Engine& engine, const std::string& name) {
  std::vector<std::string> names = engine.globals(name);
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string arity_text(const Value& arity) {  // (min . max), max #f for any number
  int64_t min = arity.car().as<int64_t>();
  if (arity.cdr().is_false()) return std::to_string(min) + " or more arguments";
  int64_t max = arity.cdr().as<int64_t>();
  std::string n = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
  return n + (max == 1 && min == 1 ? " argument" : " arguments");
}

}  // namespace

void Repl::cmd_describe(std::string_view arg) {
  std::string name(trim(arg));
  guarded([&] {
    if (!is_bound(engine_, name)) return command_error(",describe: " + name + " is not bound");
    Value doc = engine_.call(builtins_.documentation, engine_.eval("'" + name, "<repl>"));
    Value v;
    try {
      v = engine_.get(name);
    } catch (const Error&) {  // a syntactic keyword has no value
      fresh_lines();
      std::cout << name << ": syntax\n";
      if (doc.is_string()) std::cout << "  " << doc.as<std::string>() << '\n';
      std::cout << std::flush;
      return;
    }
    fresh_lines();
    if (!v.is_procedure()) {
      std::cout << name << ": a value: " << v.to_string() << '\n';
      if (doc.is_string()) std::cout << "  " << doc.as<std::string>() << '\n';  // a built-in value
      std::cout << std::flush;
      return;
    }
    std::cout << name << ": " << procedure_field(v, "kind").to_string() << ", "
              << arity_text(procedure_field(v, "arity")) << '\n';
    Value params = procedure_field(v, "parameters");
    if (!params.is_false()) std::cout << "  parameters: " << params.to_string() << '\n';
    Value location = procedure_field(v, "location");
    if (location.is_string()) std::cout << "  defined at " << location.as<std::string>() << '\n';
    if (doc.is_string()) std::cout << "  " << doc.as<std::string>() << '\n';
    std::cout << std::flush;
  });
}

void Repl::cmd_doc(std::string_view arg) {
  std::string name(trim(arg));
  guarded([&] {
    Value doc = engine_.call(builtins_.documentation, engine_.eval("'" + name, "<repl>"));
    if (!doc.is_string()) {
      if (!is_bound(engine_, name)) return command_error(",doc: " + name + " is not bound");
      return cmd_describe(name);  // a user's definition: what is known about it
    }
    fresh_lines();
    std::cout << doc.as<std::string>() << std::endl;
  });
}

void Repl::cmd_apropos(std::string_view arg) {
  std::string text(trim(arg));
  fresh_lines();
  int found = 0;
  for (const std::string& name : engine_.globals(text.starts_with("%") ? "%" : ""))
    if (name.find(text) != std::string::npos) {
      std::cout << name << '\n';
      found++;
    }
  if (found == 0) std::cout << "; no bound name contains \"" << text << "\"\n";
  std::cout << std::flush;
}

// The expander's output is core Scheme (lambda, if, letrec*, begin, set!, quote): read back and
// pretty-printed. A form that does not read back (a literal procedure) is shown as printed.
void Repl::cmd_expand(std::string_view expr) {
  guarded([&] {
    std::string text = engine_.dump_ir(expr, "expand");
    Value show = engine_.eval(R"scheme((lambda (text width)
        (let ((port (open-input-string text)))
          (guard (e (#t (write-string text)))
            (let loop ((forms '()))
              (let ((form (read port)))
                (if (eof-object? form)
                    (parameterize ((pretty-print-width width))
                      (for-each pretty-print (reverse forms)))
                    (loop (cons form forms)))))))))scheme", "<repl-support>");
    fresh_lines();
    engine_.call(show, text, width());
  });
}

// The statistical profiler: (profile thunk) samples every millisecond which procedure runs and
// which have frames on the stack; the 20 with the most samples of their own are listed.
void Repl::cmd_profile(std::string_view expr) {
  guarded([&] {
    Value thunk = engine_.eval("(lambda () " + std::string(expr) + "\n)", "<repl>");
    Value both = engine_.call(profile_both_, builtins_.profile, thunk);  // (value profile)
    Value profile = both.cdr().car();
    int64_t samples = profile.car().as<int64_t>();
    double interval = profile.cdr().car().as<double>();
    fresh_lines();
    std::cout << std::fixed << std::setprecision(1);
    std::cout << "; " << samples << " samples, " << std::setprecision(3) << samples * interval << " s sampled\n"
              << std::setprecision(1);
    if (samples > 0) {
      std::cout << "  %self %total  self-s  procedure\n";
      int shown = 0;
      for (Value l = profile.cdr().cdr(); l.is_pair() && shown < 20; l = l.cdr(), shown++) {
        Value e = l.car();  // (name location self total)
        int64_t self = e.cdr().cdr().car().as<int64_t>(), total = e.cdr().cdr().cdr().car().as<int64_t>();
        std::string name = e.car().is_false() ? "#<procedure>" : e.car().to_string();
        Value where = e.cdr().car();
        std::cout << std::setw(7) << 100.0 * self / samples << std::setw(7) << 100.0 * total / samples
                  << std::setw(8) << std::setprecision(3) << self * interval << std::setprecision(1) << "  " << name;
        if (where.is_string()) std::cout << "  " << where.as<std::string>();
        std::cout << '\n';
      }
    }
    std::cout << std::defaultfloat << std::flush;
    print_value(both.car());
  });
}

void Repl::cmd_gc(std::string_view) {
  guarded([&] {
    engine_.eval("(gc)", "<repl>");
    Value stats = engine_.call(builtins_.gc_stats);
    fresh_lines();
    for (Value l = stats; l.is_pair(); l = l.cdr())
      std::cout << "  " << l.car().car().to_string() << ": " << l.car().cdr().to_string() << '\n';
    std::cout << std::flush;
  });
}

void Repl::cmd_trace(std::string_view arg) {
  std::vector<std::string> names = words(arg);
  fresh_lines();
  if (names.empty()) {
    if (traced_.empty()) std::cout << "; nothing is traced\n";
    for (const auto& [name, original] : traced_) std::cout << name << '\n';
    std::cout << std::flush;
    return;
  }
  for (const std::string& name : names) {
    if (traced_.count(name)) continue;
    guarded([&] {
      if (!is_bound(engine_, name)) return command_error(",trace: " + name + " is not bound");
      Value proc = engine_.get(name);
      if (!proc.is_procedure()) return command_error(",trace: " + name + " is not a procedure: " + proc.to_string());
      Value symbol = engine_.eval("'" + name, "<repl>");
      engine_.set(name, engine_.call(make_tracer_, symbol, proc));
      traced_[name] = proc;
    });
  }
}

void Repl::cmd_untrace(std::string_view arg) {
  std::vector<std::string> names = words(arg);
  if (names.empty())
    for (const auto& [name, original] : traced_) names.push_back(name);
  for (const std::string& name : names) {
    auto it = traced_.find(name);
    if (it == traced_.end()) {
      command_error(",untrace: " + name + " is not traced");
      continue;
    }
    guarded([&] { engine_.set(name, it->second); });
    traced_.erase(it);
  }
}

}  // namespace quasi::cli
