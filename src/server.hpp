// server.hpp — `quasi --listen`: the REPL served on a local socket for editors (Emacs comint,
// nc, socat).
//
// Invariants: the server listens on a loopback address (127.0.0.1 or ::1) or on a Unix socket
// made readable by its owner only — never on every interface, since whoever connects runs code
// as the server's user. Each connection is its own session: a `quasi -i` process started for
// it (fork + exec of this executable, the socket as its stdin, stdout and stderr), so sessions
// share nothing — own engine, own environment, own REPL state (history, ,bt, ,trace) — and a
// crash or (exit) ends one session only. The server itself runs no Scheme.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quasi::cli {

// The port `--listen` uses when none is given.
inline constexpr int kDefaultListenPort = 37100;

// Where to listen, parsed from the text after "--listen=": "" (127.0.0.1, default port), "PORT",
// "127.0.0.1:PORT", "localhost:PORT", "[::1]:PORT" or "unix:PATH". PORT 0 picks a free port.
struct ListenAddress {
  enum class Kind { kInet4, kInet6, kUnix } kind = Kind::kInet4;
  int port = kDefaultListenPort;
  std::string path;  // kUnix
};
// False, with `error` set, for anything else (another host, a bad port).
bool parse_listen_address(std::string_view text, ListenAddress* out, std::string* error);

// Listens on `address` and serves each connection with `quasi -i session_args...` (the options
// of the server's own command line that sessions inherit: -I, -A, --jit=..., ...). Announces
// "quasi: listening on ADDRESS" on stderr once ready. Runs until SIGINT, SIGTERM or SIGHUP;
// returns the exit status.
int run_server(const ListenAddress& address, const std::vector<std::string>& session_args);

}  // namespace quasi::cli
