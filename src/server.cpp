// server.cpp — `quasi --listen` (server.hpp): a loopback or Unix-socket listener that starts one
// `quasi -i` process per connection.
//
// Why a process per session rather than a thread: the REPL and the engine's ports write to the
// process's stdout and stderr, and an engine is single-threaded; a process gives each session
// its own descriptors, engine and failure domain with no change to either. The fork happens
// before this process ever makes an engine, and the child execs at once, so no collector or JIT
// state is duplicated.
#include "server.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <iostream>
#include <set>

namespace quasi::cli {

namespace {

constexpr int kMaxSessions = 64;  // a local client looping on connect cannot fork without bound

volatile sig_atomic_t g_stop = 0;

void on_stop(int) { g_stop = 1; }
void on_child(int) {}  // only interrupts accept() so finished sessions are reaped

bool parse_port(std::string_view text, int* port) {
  if (text.empty() || text.size() > 5) return false;
  int p = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    p = p * 10 + (c - '0');
  }
  if (p > 65535) return false;
  *port = p;
  return true;
}

std::string describe(const ListenAddress& a, int port) {
  switch (a.kind) {
    case ListenAddress::Kind::kInet4: return "127.0.0.1:" + std::to_string(port);
    case ListenAddress::Kind::kInet6: return "[::1]:" + std::to_string(port);
    case ListenAddress::Kind::kUnix: return "unix:" + a.path;
  }
  return "";
}

// A Unix socket path left by a server that is gone (connecting is refused) may be replaced;
// a live one, or anything that is not a socket, may not.
bool clear_stale_socket(const std::string& path, std::string* error) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return true;  // nothing there
  if (!S_ISSOCK(st.st_mode)) {
    *error = path + " exists and is not a socket";
    return false;
  }
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  bool live = probe >= 0 && connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  if (probe >= 0) close(probe);
  if (live) {
    *error = "another server is listening on " + path;
    return false;
  }
  unlink(path.c_str());
  return true;
}

// The listening socket, or -1 with `error` set. `port` receives the port actually bound.
int open_listener(const ListenAddress& a, int* port, std::string* error) {
  int domain = a.kind == ListenAddress::Kind::kInet4 ? AF_INET : a.kind == ListenAddress::Kind::kInet6 ? AF_INET6 : AF_UNIX;
  if (a.kind == ListenAddress::Kind::kUnix && !clear_stale_socket(a.path, error)) return -1;
  int fd = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = std::string("socket: ") + std::strerror(errno);
    return -1;
  }
  int one = 1;
  int rc;
  if (a.kind == ListenAddress::Kind::kInet4) {
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // never INADDR_ANY
    addr.sin_port = htons(uint16_t(a.port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  } else if (a.kind == ListenAddress::Kind::kInet6) {
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    sockaddr_in6 addr{};
    addr.sin6_family = AF_INET6;
    addr.sin6_addr = in6addr_loopback;  // never in6addr_any
    addr.sin6_port = htons(uint16_t(a.port));
    rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  } else {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
    mode_t old = umask(077);  // only the owner may connect: a session runs code as the owner
    rc = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    umask(old);
  }
  if (rc != 0 || listen(fd, 16) != 0) {
    *error = "cannot listen on " + describe(a, a.port) + ": " + std::strerror(errno);
    close(fd);
    return -1;
  }
  *port = a.port;
  if (a.kind != ListenAddress::Kind::kUnix) {
    sockaddr_storage bound{};
    socklen_t len = sizeof bound;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len) == 0)
      *port = ntohs(a.kind == ListenAddress::Kind::kInet4 ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                                                          : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
  }
  return fd;
}

void install(int sig, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: accept() must return so the loop sees the signal
  sigaction(sig, &action, nullptr);
}

// The child: the connection becomes stdin, stdout and stderr of a fresh `quasi -i`. Only
// async-signal-safe calls between fork and exec.
[[noreturn]] void exec_session(int conn, char* const* argv) {
  dup2(conn, 0);
  dup2(conn, 1);
  dup2(conn, 2);
  if (conn > 2) close(conn);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE}) sigaction(sig, &dfl, nullptr);
  execv("/proc/self/exe", argv);
  static const char msg[] = "quasi: cannot start a session\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  _exit(127);
}

void reap(std::set<pid_t>& sessions) {
  for (pid_t pid; (pid = waitpid(-1, nullptr, WNOHANG)) > 0;) sessions.erase(pid);
}

}  // namespace

bool parse_listen_address(std::string_view text, ListenAddress* out, std::string* error) {
  ListenAddress a;
  if (text.starts_with("unix:")) {
    a.kind = ListenAddress::Kind::kUnix;
    a.path = std::string(text.substr(5));
    if (a.path.empty() || a.path.size() >= sizeof(sockaddr_un{}.sun_path)) {
      *error = "a Unix socket path of 1 to " + std::to_string(sizeof(sockaddr_un{}.sun_path) - 1) + " bytes";
      return false;
    }
    *out = a;
    return true;
  }
  std::string_view port = text;
  size_t colon = text.rfind(':');
  if (colon != std::string_view::npos) {
    std::string_view host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host == "[::1]" || host == "::1") a.kind = ListenAddress::Kind::kInet6;
    else if (host != "127.0.0.1" && host != "localhost") {
      *error = "only a loopback address (127.0.0.1, localhost, [::1]) or unix:PATH, not " + std::string(host);
      return false;
    }
  }
  if (!port.empty() && !parse_port(port, &a.port)) {
    *error = "a port from 0 to 65535, not '" + std::string(port) + "'";
    return false;
  }
  *out = a;
  return true;
}

int run_server(const ListenAddress& address, const std::vector<std::string>& session_args) {
  std::string error;
  int port = 0;
  int fd = open_listener(address, &port, &error);
  if (fd < 0) {
    std::cerr << "quasi: " << error << '\n';
    return 1;
  }
  std::vector<std::string> args{"quasi", "-i"};
  args.insert(args.end(), session_args.begin(), session_args.end());
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  install(SIGINT, on_stop);
  install(SIGTERM, on_stop);
  install(SIGHUP, on_stop);
  install(SIGCHLD, on_child);
  signal(SIGPIPE, SIG_IGN);  // a client that hangs up on the "too many sessions" line
  std::cerr << "quasi: listening on " << describe(address, port) << " (one REPL session per connection)"
            << std::endl;

  std::set<pid_t> sessions;
  while (!g_stop) {
    int conn = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    int accept_errno = errno;
    reap(sessions);
    if (conn < 0) {
      if (accept_errno == EINTR || accept_errno == ECONNABORTED) continue;
      std::cerr << "quasi: accept: " << std::strerror(accept_errno) << '\n';
      break;
    }
    if (sessions.size() >= size_t(kMaxSessions)) {
      static const char msg[] = "quasi: too many sessions, try again later\n";
      ssize_t ignored = write(conn, msg, sizeof msg - 1);
      (void)ignored;
      close(conn);
      continue;
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(fd);
      exec_session(conn, argv.data());
    }
    if (pid < 0) std::cerr << "quasi: fork: " << std::strerror(errno) << '\n';
    else sessions.insert(pid);
    close(conn);
  }
  close(fd);
  if (address.kind == ListenAddress::Kind::kUnix) unlink(address.path.c_str());
  for (pid_t pid : sessions) kill(pid, SIGTERM);  // the sessions end with the server
  for (pid_t pid : sessions) waitpid(pid, nullptr, 0);
  return 0;
}

}  // namespace quasi::cli
