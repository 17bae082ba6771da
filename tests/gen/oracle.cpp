// oracle.cpp — see oracle.hpp.
#include "oracle.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/engine_bridge.hpp"
#include "quasi/error.hpp"
#include "vm/jit_policy.hpp"
#include "vm/vm.hpp"

namespace quasi_gen {

namespace qb = quasi::bridge;

namespace {

// Portable R7RS, the same on both sides. oracle-canon makes a datum both printers write the same
// way; every tag is a vector, so no canonical atom can be mistaken for a list the program built.
const char* const kPrelude = R"scheme(
(define (oracle-codes s) (map char->integer (string->list s)))
(define (oracle-plain? s)
  (and (> (string-length s) 0) (char-alphabetic? (string-ref s 0))
       (let loop ((l (string->list s)))
         (or (null? l)
             (and (or (and (char>=? (car l) #\a) (char<=? (car l) #\z))
                      (and (char>=? (car l) #\0) (char<=? (car l) #\9)) (char=? (car l) #\-))
                  (loop (cdr l)))))))
(define (oracle-canon x)
  (cond ((and (number? x) (exact? x)) x)
        ((and (number? x) (real? x))
         (cond ((nan? x) (vector 'f 'nan))
               ((infinite? x) (vector 'f (if (> x 0) '+inf '-inf)))
               ((and (zero? x) (eqv? x -0.0)) (vector 'f '-0))
               (else (vector 'f (exact x)))))
        ((number? x) (vector 'z (oracle-canon (real-part x)) (oracle-canon (imag-part x))))
        ((char? x) (vector 'c (char->integer x)))
        ((string? x) (vector 's (oracle-codes x)))
        ((symbol? x) (if (oracle-plain? (symbol->string x)) x (vector 'y (oracle-codes (symbol->string x)))))
        ((pair? x) (cons (oracle-canon (car x)) (oracle-canon (cdr x))))
        ((vector? x) (vector 'v (map oracle-canon (vector->list x))))
        ((bytevector? x) (vector 'b (let loop ((i (- (bytevector-length x) 1)) (acc '()))
                                      (if (< i 0) acc (loop (- i 1) (cons (bytevector-u8-ref x i) acc))))))
        ((procedure? x) (vector 'proc))
        ((or (boolean? x) (null? x)) x)
        ((eof-object? x) (vector 'eof))
        (else (vector 'other))))
(define (oracle-number->string x . radix)
  (if (and (real? x) (inexact? x))
      (let ((c (oracle-canon x)))
        (if (symbol? (vector-ref c 1)) (symbol->string (vector-ref c 1)) (number->string (vector-ref c 1))))
      (apply number->string x radix)))
(define-syntax oracle-guard
  (syntax-rules (else)
    ((_ (var clause ... (else e ...)) body ...) (guard (var clause ... (else e ...)) body ...))
    ((_ (var clause ...) body ...) (guard (var clause ... (else (raise-continuable var))) body ...))))
(define (gen-describe e) (if (error-object? e) (list 'error) (list 'raise e)))
(define (oracle-message e) "message")
(define (oracle-irritants e) '())
(define oracle-out (open-output-string))
(define (oracle-run tag thunk)
  (write (list tag (guard (e (#t (vector 'escaped))) (oracle-canon (thunk)))) oracle-out)
  (newline oracle-out))
)scheme";

// What Guile needs first: R7RS's libraries, and list-sort (SRFI 132's argument order) from R6RS.
const char* const kGuileHeader =
    "(import (scheme base) (scheme char) (scheme complex) (scheme cxr) (scheme inexact) (scheme write)\n"
    "        (only (rnrs sorting) list-sort))\n";

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The program's text with the messages and irritants it reads made implementation-independent.
std::string neutral_text(const Program& p) {
  std::string s = p.proc.str();
  replace_all(s, "error-object-message", "oracle-message");
  replace_all(s, "error-object-irritants", "oracle-irritants");
  // Guile's guard re-raises without going back to the raise's dynamic environment (its
  // dynamic-wind before and after thunks do not run again, as R7RS says they do): every guard
  // gets a last clause that re-raises from its own.
  replace_all(s, "(guard (", "(oracle-guard (");
  // How an inexact number is spelled is the implementation's (1e75, 1.0e75): its exact value,
  // unmarked (an exact result where the other's is inexact, (log 1), reads the same).
  replace_all(s, "number->string", "oracle-number->string");
  return s;
}

std::string call_text(const Program& p, size_t t) {
  std::string c = "(" + neutral_text(p);
  for (const std::string& a : p.args[t]) c += " " + a;
  return c + ")";
}

std::string tag_of(size_t program, size_t tuple) { return std::to_string(program) + "." + std::to_string(tuple); }

// One form per call, each on its own line.
std::vector<std::string> batch_forms(const std::vector<Program>& programs) {
  std::vector<std::string> forms;
  for (size_t i = 0; i < programs.size(); ++i)
    for (size_t t = 0; t < programs[i].args.size(); ++t)
      forms.push_back("(oracle-run '" + tag_of(i, t) + " (lambda () " + call_text(programs[i], t) + "))");
  return forms;
}

// One line per call: (tag outcome). Lines are read back as text; a tag is the line's first token.
std::vector<std::pair<std::string, std::string>> lines_of(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> v;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() < 3 || line[0] != '(') continue;
    size_t sp = line.find(' ');
    if (sp == std::string::npos) continue;
    v.emplace_back(line.substr(1, sp - 1), line.substr(sp + 1, line.size() - sp - 2));
  }
  return v;
}

// Quasi's interpreter, each call under its own limits (a call stopped by one, or that an error
// escaped from, still gets its line).
std::string quasi_outcomes(const std::vector<Program>& programs, const std::vector<std::string>& forms) {
  quasi::bridge::EngineConfig c;
  c.allow_files = c.allow_process = c.allow_environment = false;
  c.time_limit_ns = 4'000'000'000;  // as the generator's differential run
  c.alloc_limit = 1ull << 30;
  c.jit_mode = static_cast<int>(quasi::JitMode::kOff);
  qb::Engine* e = qb::create_engine(c);
  std::string out;
  try {
    qb::eval(e, kPrelude, "<oracle-prelude>");
    size_t k = 0;
    for (size_t i = 0; i < programs.size(); ++i)
      for (size_t t = 0; t < programs[i].args.size(); ++t, ++k) {
        try {
          qb::eval(e, forms[k], "<oracle>");
        } catch (quasi::Error& err) {
          qb::eval(e, "(oracle-run '" + tag_of(i, t) + " (lambda () 'quasi-" + err.kind() + "))", "<oracle>");
        }
      }
    out = qb::write(qb::eval(e, "(get-output-string oracle-out)", "<oracle>"), true);
  } catch (quasi::Error& err) {
    out = std::string("quasi failed: ") + err.what();
  }
  qb::destroy_engine(e);
  return out;
}

bool is_error_outcome(const std::string& o) { return o.rfind("((error)", 0) == 0; }

// A canonical outcome as tokens: "(", ")", "#(" and atoms; a flonum tag #(f X) is one token "#f X".
std::vector<std::string> tokens_of(const std::string& s) {
  std::vector<std::string> raw;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == ' ') { ++i; continue; }
    if (c == '(' || c == ')') { raw.emplace_back(1, c); ++i; continue; }
    if (c == '#' && i + 1 < s.size() && s[i + 1] == '(') { raw.emplace_back("#("); i += 2; continue; }
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '(' && s[j] != ')') ++j;
    raw.push_back(s.substr(i, j - i));
    i = j;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == "#(" && i + 3 < raw.size() && raw[i + 1] == "f" && raw[i + 3] == ")") {
      out.push_back("#f " + raw[i + 2]);
      i += 3;
    } else {
      out.push_back(raw[i]);
    }
  }
  return out;
}

// An exact number's text (integer or ratio) as a long double; false when it is not one.
bool exact_value(const std::string& t, long double* v) {
  if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-')) return false;
  size_t slash = t.find('/');
  char* end = nullptr;
  long double n = std::strtold(t.substr(0, slash).c_str(), &end);
  if (*end) return false;
  long double d = 1;
  if (slash != std::string::npos) {
    d = std::strtold(t.substr(slash + 1).c_str(), &end);
    if (*end) return false;
  }
  *v = n / d;
  return true;
}

bool close_enough(long double x, long double y) {
  long double scale = std::max(std::fabs(x), std::fabs(y));
  return std::fabs(x - y) <= scale * 1e-13L || (std::isinf(x) && x == y);
}

enum class Agreement { kSame, kRounding, kMoreExact, kOrder, kDifferent };

// The outcome (r trace) with the trace's elements sorted: R7RS leaves the order in which a
// call's operands are evaluated open (Quasi goes left to right, Guile often right to left), so
// two effects in one call's operands may reach the trace in either order.
std::string with_sorted_trace(const std::string& outcome) {
  std::vector<std::string> t = tokens_of(outcome);
  // t = ( <r ...> ( e1 ... en ) ): find where the trace list starts, after r.
  if (t.size() < 4 || t[0] != "(") return outcome;
  size_t i = 1;
  int depth = 0;
  do {
    if (t[i] == "(" || t[i] == "#(") ++depth;
    else if (t[i] == ")") --depth;
    ++i;
  } while (i < t.size() && depth > 0);
  if (i >= t.size() || t[i] != "(") return outcome;
  std::vector<std::string> elements;
  std::string cur;
  depth = 0;
  for (size_t j = i + 1; j < t.size(); ++j) {
    if (depth == 0 && t[j] == ")") break;
    if (t[j] == "(" || t[j] == "#(") ++depth;
    else if (t[j] == ")") --depth;
    cur += t[j] + " ";
    if (depth == 0) {
      elements.push_back(cur);
      cur.clear();
    }
  }
  std::sort(elements.begin(), elements.end());
  std::string s;
  for (size_t j = 0; j < i; ++j) s += t[j] + " ";
  s += "[";
  for (const std::string& e : elements) s += e;
  return s + "]";
}

// Quasi's outcome against the other's: the same datum, or the same but for flonums a few ulps
// apart (libm's transcendental functions differ), or Quasi exact where the other is inexact with
// the same value (R7RS allows (log 1) => 0, (atan 0 1) => 0).
Agreement agree_in_order(const std::string& quasi, const std::string& other) {
  if (quasi == other) return Agreement::kSame;
  std::vector<std::string> q = tokens_of(quasi), o = tokens_of(other);
  if (q.size() != o.size()) return Agreement::kDifferent;
  Agreement a = Agreement::kSame;
  for (size_t i = 0; i < q.size(); ++i) {
    if (q[i] == o[i]) continue;
    bool qf = q[i].rfind("#f ", 0) == 0, of = o[i].rfind("#f ", 0) == 0;
    long double x, y;
    if (!of || !exact_value(o[i].substr(3), &y)) return Agreement::kDifferent;
    if (qf && exact_value(q[i].substr(3), &x) && close_enough(x, y)) {
      if (a == Agreement::kSame) a = Agreement::kRounding;
    } else if (!qf && exact_value(q[i], &x) && x == y) {
      a = Agreement::kMoreExact;
    } else {
      return Agreement::kDifferent;
    }
  }
  return a;
}

Agreement agree(const std::string& quasi, const std::string& other) {
  Agreement a = agree_in_order(quasi, other);
  if (a != Agreement::kDifferent) return a;
  return agree_in_order(with_sorted_trace(quasi), with_sorted_trace(other)) == Agreement::kDifferent
             ? Agreement::kDifferent
             : Agreement::kOrder;
}

}  // namespace

std::string Oracle::find_guile() {
  if (const char* g = std::getenv("QUASI_GEN_GUILE")) return g;
  for (const char* dir : {"/usr/bin/", "/usr/local/bin/"}) {
    std::string path = std::string(dir) + "guile";
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

std::vector<OracleMismatch> Oracle::compare(const std::vector<Program>& programs, std::string* error) {
  std::vector<OracleMismatch> result;
  std::vector<std::string> forms = batch_forms(programs);
  // Quasi first: a program one of whose calls Quasi's interpreter stopped at a limit does not
  // terminate (the generator's differential run skips it too) and is not given to Guile, which
  // would only run into its timeout.
  std::string mine = quasi_outcomes(programs, forms);
  auto ours = lines_of(mine);
  std::vector<bool> runaway(programs.size(), false);
  for (const auto& [tag, outcome] : ours)
    if (outcome == "quasi-limit") runaway[std::stoul(tag.substr(0, tag.find('.')))] = true;

  char path[] = "/tmp/quasi-gen-oracle-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    *error = "cannot make a temporary file";
    return result;
  }
  close(fd);
  {
    std::ofstream f(path);
    f << kGuileHeader << kPrelude;
    size_t k = 0;
    for (size_t i = 0; i < programs.size(); ++i)
      for (size_t t = 0; t < programs[i].args.size(); ++t, ++k)
        if (!runaway[i]) f << forms[k] << "\n";
    f << "(display (get-output-string oracle-out))\n";
  }
  std::string errors_path = std::string(path) + ".err";
  // A batch takes seconds; one program that takes Guile minutes (its bignum or flonum printing,
  // say) is found by the caller splitting the batch.
  std::string cmd = "timeout " + std::to_string(programs.size() > 1 ? 120 : 30) + " " + command_ + " --r7rs -q --no-auto-compile " + path + " 2>" + errors_path;
  std::string other;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) other.append(buf, n);
    pclose(p);
  }
  unlink(path);
  std::string other_errors;
  {
    std::ifstream f(errors_path);
    std::stringstream ss;
    ss << f.rdbuf();
    other_errors = ss.str();
  }
  unlink(errors_path.c_str());

  auto theirs = lines_of(other);
  if (std::getenv("QUASI_GEN_ORACLE_DUMP")) std::fprintf(stderr, "guile:\n%s\nquasi:\n%s\n", other.c_str(), mine.c_str());
  size_t calls = 0, given = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    calls += programs[i].args.size();
    if (!runaway[i]) given += programs[i].args.size();
  }
  if (theirs.size() != given || ours.size() != calls) {
    *error = "the batch did not run to the end (" + std::to_string(theirs.size()) + " and " +
             std::to_string(ours.size()) + " of " + std::to_string(given) + " and " + std::to_string(calls) +
             " outcomes); " + command_ +
             " said: " + (other + other_errors).substr(0, 800);
    return result;
  }
  for (size_t k = 0, j = 0; k < calls; ++k) {
    size_t dot = ours[k].first.find('.');
    size_t i = std::stoul(ours[k].first.substr(0, dot)), t = std::stoul(ours[k].first.substr(dot + 1));
    if (runaway[i]) {
      ++not_terminating;
      continue;
    }
    const std::string& q = ours[k].second;
    const std::string& g = theirs[j++].second;
    if (!strict_ && is_error_outcome(q) != is_error_outcome(g)) {
      ++left_out;
      continue;
    }
    ++compared;
    switch (agree(q, g)) {
      case Agreement::kSame: break;
      case Agreement::kRounding: ++rounding; break;
      case Agreement::kMoreExact: ++more_exact; break;
      case Agreement::kOrder: ++order; break;
      case Agreement::kDifferent: result.push_back({i, t, call_text(programs[i], t), q, g}); break;
    }
  }
  return result;
}

}  // namespace quasi_gen
