// Sandboxed engines and resource limits: fuel, deadline, memory, interrupt. Public header only.
#include <quasi/quasi.hpp>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>

#include "support.hpp"

using quasi::Engine;
using api_test::caught;
using namespace std::chrono_literals;

namespace {
std::string temp_file(const char* tag, const std::string& content) {
  std::string path = "/tmp/quasi-api-" + std::string(tag) + "-" + std::to_string(::getpid()) + ".scm";
  std::ofstream(path) << content;
  return path;
}

}  // namespace

TEST_CASE("a sandboxed engine has no file, process or environment access", "[api][sandbox]") {
  std::string path = temp_file("secret", "(define secret 42)");
  Engine open_engine;
  CHECK(open_engine.eval("(file-exists? \"" + path + "\")").as<bool>());

  Engine engine(Engine::Options::sandboxed());
  const char* denied[] = {
      "(open-input-file \"PATH\")",         "(open-output-file \"/tmp/quasi-api-out\")",
      "(call-with-input-file \"PATH\" read)", "(with-input-from-file \"PATH\" read)",
      "(file-exists? \"PATH\")",             "(delete-file \"PATH\")",
      "(load \"PATH\")",                     "(include \"PATH\")",
      "(exit 1)",                            "(emergency-exit)",
      "(get-environment-variable \"HOME\")", "(get-environment-variables)",
  };
  for (std::string code : denied) {
    for (size_t at; (at = code.find("PATH")) != std::string::npos;) code.replace(at, 4, path);
    quasi::Error e = caught(engine, code);
    INFO(code << " -> " << e.what());
    std::string name = code.substr(1, code.find_first_of(" )") - 1);
    CHECK(e.message().rfind(name + ": ", 0) == 0);
    CHECK(e.message().find("disabled in this engine") != std::string::npos);
  }
  CHECK(caught(engine, "(open-input-file \"" + path + "\")").kind() == "file");
  // Scheme code can test for it like any file error.
  CHECK(engine.eval("(guard (e ((file-error? e) 'refused)) (open-input-file \"" + path + "\"))").to_string() ==
        "refused");
  // Library files are not read either.
  CHECK_THROWS_AS(engine.eval("(import (my secret lib))"), quasi::Error);
  CHECK_FALSE(engine.contains("secret"));
  // Everything else works; the host may still load files it chooses.
  CHECK(engine.eval("(with-output-to-string (lambda () (display (+ 1 2))))").as<std::string>() == "3");
  engine.load(path);
  CHECK(engine.get<int>("secret") == 42);
  // The file was not deleted.
  CHECK(open_engine.eval("(file-exists? \"" + path + "\")").as<bool>());
  std::remove(path.c_str());
}

TEST_CASE("SRFI 98 gives a sandboxed engine the same refusing procedures", "[api][sandbox]") {
  Engine engine(Engine::Options::sandboxed());
  engine.eval("(import (srfi 98))");
  for (const char* code : {"(get-environment-variable \"HOME\")", "(get-environment-variables)"}) {
    quasi::Error e = caught(engine, code);
    INFO(code << " -> " << e.what());
    CHECK(e.message().find("disabled in this engine") != std::string::npos);
  }
}

TEST_CASE("capabilities can be granted one by one", "[api][sandbox]") {
  Engine::Options o = Engine::Options::sandboxed();
  o.allow_environment = true;
  Engine engine(o);
  CHECK_NOTHROW(engine.eval("(get-environment-variable \"PATH\")"));
  CHECK_THROWS_AS(engine.eval("(open-input-file \"/etc/hostname\")"), quasi::Error);
}

TEST_CASE("a step budget stops a runaway script", "[api][limits]") {
  Engine::Options o;
  o.step_limit = 100000;
  Engine engine(o);
  auto t0 = std::chrono::steady_clock::now();
  quasi::Error e = caught(engine, "(let loop () (loop))");
  auto elapsed = std::chrono::steady_clock::now() - t0;
  CHECK(e.kind() == "limit");
  CHECK(e.message() == "step limit exceeded");
  CHECK(elapsed < 1s);
  // Scheme handlers cannot swallow it.
  CHECK(caught(engine, "(guard (e (#t 'caught)) (let spin () (spin)))").kind() == "limit");
  CHECK(caught(engine, "(let loop () (guard (e (#t (loop))) (let spin () (spin))))").kind() == "limit");
  CHECK(caught(engine, "(with-exception-handler (lambda (e) 0) (lambda () (let loop () (loop))))").kind() == "limit");
  // Non-tail recursion is counted too.
  CHECK(caught(engine, "(define (f n) (+ 1 (f n))) (f 0)").kind() == "limit");
  // The budget is per evaluation: small scripts keep running.
  for (int i = 0; i < 50; i++) CHECK(engine.eval("(let loop ((i 0)) (if (< i 1000) (loop (+ i 1)) i))").as<int>() == 1000);
  // And it can be changed.
  engine.set_step_limit(0);
  CHECK(engine.eval("(let loop ((i 0)) (if (< i 200000) (loop (+ i 1)) i))").as<int>() == 200000);
}

TEST_CASE("a deadline stops a runaway script within milliseconds", "[api][limits]") {
  Engine engine;
  engine.set_time_limit(50ms);
  auto t0 = std::chrono::steady_clock::now();
  quasi::Error e = caught(engine, "(let loop ((i 0)) (loop (+ i 1)))");
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  CHECK(e.kind() == "limit");
  CHECK(e.message() == "time limit exceeded");
  CHECK(elapsed >= 50ms);
  CHECK(elapsed < 500ms);  // typically 50-51 ms; generous for a loaded machine
  // Also through a host function that calls back into Scheme: the limit is not caught by it.
  engine.define("call-thunk", [&engine](quasi::Value f) {
    try {
      return engine.call(f);
    } catch (const quasi::Error&) {
      return quasi::Value(0);  // a host swallowing errors does not restart the script's budget
    }
  });
  CHECK(caught(engine, "(let loop () (call-thunk (lambda () (let inner () (inner)))) (loop))").kind() == "limit");
  engine.set_time_limit(0ms);
  CHECK(engine.eval("(+ 1 2)").as<int>() == 3);
}

TEST_CASE("a memory budget stops a script that allocates without bound", "[api][limits]") {
  Engine::Options o;
  o.memory_limit = 64 << 20;
  Engine engine(o);
  quasi::Error e = caught(engine, "(let loop ((acc '())) (loop (cons (make-vector 100 0) acc)))");
  CHECK(e.kind() == "limit");
  CHECK(e.message() == "allocation limit exceeded");
  CHECK(engine.eval("(length (make-list 1000 0))").as<int>() == 1000);
}

TEST_CASE("another thread can interrupt an engine", "[api][limits]") {
  Engine engine;
  std::thread stopper([&] {
    std::this_thread::sleep_for(30ms);
    engine.interrupt();
  });
  auto t0 = std::chrono::steady_clock::now();
  quasi::Error e = caught(engine, "(let loop () (loop))");
  stopper.join();
  CHECK(e.kind() == "interrupt");
  CHECK(std::chrono::steady_clock::now() - t0 < 1s);
  CHECK(engine.eval("'still-alive").to_string() == "still-alive");
}
