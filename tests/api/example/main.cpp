// rules_example — a host application that keeps its pricing rules in Scheme.
//
// The rules file runs in a sandboxed engine (no file, process or environment access) with a step
// budget and a deadline per evaluation, so a broken rule cannot hang or damage the application.
// Usage: rules_example RULES.scm   (exits 0 when every computed price is the expected one)
#include <quasi/quasi.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

struct Order {
  std::string customer;
  std::string country;
  std::vector<std::string> items;
  double subtotal = 0;
  int loyalty_years = 0;
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: rules_example RULES.scm\n";
    return 2;
  }
  quasi::Engine::Options options = quasi::Engine::Options::sandboxed();
  options.step_limit = 1'000'000;
  options.time_limit = std::chrono::milliseconds(500);
  quasi::Engine rules(options);

  // What the rules may see of an order, and a way to report.
  rules.define_type<Order>("order")
      .method("customer", &Order::customer)
      .method("country", &Order::country)
      .method("items", &Order::items)
      .method("subtotal", &Order::subtotal)
      .method("loyalty-years", &Order::loyalty_years);
  std::vector<std::string> notes;
  rules.define("note", [&notes](std::string text) { notes.push_back(std::move(text)); });

  try {
    rules.load(argv[1]);  // the host chooses the file; the script itself cannot open any
  } catch (const quasi::Error& e) {
    std::cerr << "cannot load rules: " << e.what() << '\n';
    return 1;
  }
  std::cout << "currency: " << rules.get<std::string>("currency") << ", free shipping from "
            << rules.get<double>("free-shipping-from") << '\n';

  struct Case {
    Order order;
    double expected;
  };
  std::vector<Case> cases = {
      {{"ada", "DE", {"book"}, 40.0, 5}, 38.0},                      // loyal: 5%, shipping free in DE
      {{"bob", "FR", {"umbrella", "hat"}, 50.0, 0}, 47.0},           // sale 15% + 4.5 shipping
      {{"cy", "US", std::vector<std::string>(12, "pen"), 200.0, 4}, 180.0},  // bulk 10% beats 5%
  };
  int failures = 0;
  for (const Case& c : cases) {
    double total = rules.call("total", rules.make(c.order)).as<double>();
    bool ok = std::fabs(total - c.expected) < 1e-9;
    std::cout << c.order.customer << ": " << total << (ok ? "" : "  (expected " + std::to_string(c.expected) + ")")
              << '\n';
    failures += !ok;
  }
  for (const std::string& n : notes) std::cout << "  note: " << n << '\n';

  // A broken rule added at run time is stopped, and reported with its location.
  rules.eval("(define (runaway order) (let spin () (spin)))\n(set! rules (cons runaway rules))", "hotfix.scm");
  try {
    rules.call("total", rules.make(cases[0].order));
    std::cout << "runaway rule was not stopped\n";
    failures++;
  } catch (const quasi::Error& e) {
    std::cout << "stopped: " << e.what() << '\n';
    if (e.kind() != "limit") failures++;
  }
  // The sandbox holds.
  try {
    rules.eval("(delete-file \"/etc/passwd\")");
    failures++;
  } catch (const quasi::Error& e) {
    std::cout << "refused: " << e.message() << '\n';
  }
  std::cout << (failures ? "FAILED\n" : "ok\n");
  return failures ? 1 : 0;
}
