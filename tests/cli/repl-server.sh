# repl-server.sh — `quasi --listen`: the REPL served on a loopback TCP port and on a Unix socket.
# A client (bash's /dev/tcp, nothing to install) connects, evaluates, gets an error in the
# file:line:col: error: format, evaluates again on the same connection; a second connection at
# the same time has its own environment; (exit) ends one session only; only loopback addresses
# are accepted and the TCP listener is bound to 127.0.0.1.
source "$(dirname "$0")/common.bash"
cd "$TMP"

SERVER_PID=
stop_server() {
  if [ -n "$SERVER_PID" ]; then
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    SERVER_PID=
  fi
}
trap 'stop_server; rm -rf "$TMP"' EXIT

# start_server ARGS...: starts `quasi ARGS...` in the background and waits for its
# "listening on" line (in $TMP/server.err).
start_server() {
  "$QUASI" "$@" 2>"$TMP/server.err" </dev/null &
  SERVER_PID=$!
  local i
  for i in $(seq 1 200); do
    grep -q 'listening on' "$TMP/server.err" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}

# send FD TEXT: writes TEXT and a marker line to connection FD; receive FD MARK: reads what the
# session printed up to the marker (the marker's own line included) into REPLY_TEXT.
send() { printf '%s\n(display "%s")(newline)\n' "$2" "$3" >&"$1"; }
receive() {
  local line
  REPLY_TEXT=
  while IFS= read -r -t 20 -u "$1" line; do
    REPLY_TEXT+="$line"$'\n'
    [[ $line == *"$2"* ]] && return 0
  done
  return 1
}

# ---- the command line ----
run "$QUASI" --listen=0.0.0.0:37100
expect_rc "--listen on all interfaces is refused" 2
expect_match "--listen names what it accepts" "$ERR" 'only a loopback address'
run "$QUASI" --listen=example.org:80
expect_rc "--listen on another host is refused" 2
run "$QUASI" --listen=99999
expect_rc "--listen with a bad port is refused" 2
run "$QUASI" --listen=0 script.scm
expect_rc "--listen runs no script" 2
run "$QUASI" --help
expect_match "--help documents --listen" "$OUT" '--listen\[=ADDR\]'

# ---- TCP on 127.0.0.1 ----
if start_server --listen=0; then pass "the server announces itself"
else fail "the server announces itself" "$(cat "$TMP/server.err")"; fi
PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$TMP/server.err")
expect_match "--listen=0 picks a free port and says which" "$PORT" '^[0-9]+$'

# The listening socket is bound to 127.0.0.1 (0100007F in /proc/net/tcp), not 0.0.0.0.
HEXPORT=$(printf '%04X' "$PORT")
BOUND=$(awk -v p=":$HEXPORT" '$2 ~ p"$" && $4 == "0A" {print $2}' /proc/net/tcp)
expect_eq "the listener is bound to the loopback address only" "$BOUND" "0100007F:$HEXPORT"

exec 3<>"/dev/tcp/127.0.0.1/$PORT"
send 3 '(define x 41)
(car 1)
(+ x 1)' MARK-A1
receive 3 MARK-A1
A1=$REPLY_TEXT
expect_match "a session greets and prompts" "$A1" '^Quasi .*Ctrl-D exits'
expect_match "an error comes back as file:line:col: error: message" "$A1" '<repl>:[0-9]+:[0-9]+: error: car: expected a pair, got 1'
expect_match "the connection survives the error and evaluates again" "$A1" 'quasi> 42$'
expect_before "the error is reported before the next value" "$A1" 'error: car' 'quasi> 42'

# A second connection while the first is open: a session of its own.
exec 4<>"/dev/tcp/127.0.0.1/$PORT"
send 4 'x
(define x 5)
(* x 2)
,doc car' MARK-B1
receive 4 MARK-B1
B1=$REPLY_TEXT
expect_match "a second session does not see the first one's definitions" "$B1" 'error: .*x'
expect_match "the second session evaluates" "$B1" 'quasi> 10$'
expect_match "REPL commands work over the socket" "$B1" '\(car pair\)  The first element of pair\.'

send 3 '(+ x 0)' MARK-A2
receive 3 MARK-A2
expect_match "the first session keeps its own x" "$REPLY_TEXT" 'quasi> 41$'

# (exit) ends that session (the server closes the connection), and only that one.
printf '(exit)\n' >&4
END=timeout
for i in $(seq 1 50); do
  IFS= read -r -t 20 -u 4 line && continue
  [ $? -gt 128 ] || END=eof
  break
done
expect_eq "(exit) ends the session and closes its connection" "$END" eof
exec 4<&-
send 3 '(* 6 7)' MARK-A3
receive 3 MARK-A3
expect_match "the other session goes on after one exits" "$REPLY_TEXT" 'quasi> 42$'
exec 3<&-

# A new connection after those: the server still accepts.
exec 5<>"/dev/tcp/127.0.0.1/$PORT"
send 5 '(string-append "a" "b")' MARK-C
receive 5 MARK-C
expect_match "the server accepts new connections afterwards" "$REPLY_TEXT" '"ab"'
exec 5<&-
stop_server

# ---- TCP on ::1 (when the machine has IPv6 loopback) ----
if start_server '--listen=[::1]:0'; then
  PORT6=$(sed -n 's/.*listening on \[::1\]:\([0-9][0-9]*\).*/\1/p' "$TMP/server.err")
  exec 6<>"/dev/tcp/::1/$PORT6"
  send 6 '(list 1 2)' MARK-V6
  receive 6 MARK-V6
  expect_match "a session over [::1]" "$REPLY_TEXT" 'quasi> \(1 2\)'
  exec 6<&-
else
  echo "skip - no IPv6 loopback: $(cat "$TMP/server.err")"
fi
stop_server

# ---- a Unix socket ----
SOCK=$TMP/quasi.sock
if start_server --listen="unix:$SOCK"; then pass "the server listens on a Unix socket"
else fail "the server listens on a Unix socket" "$(cat "$TMP/server.err")"; fi
expect_match "it says where" "$(cat "$TMP/server.err")" "listening on unix:$SOCK"
expect_eq "only the owner may connect to the socket" "$(stat -c '%A' "$SOCK")" 'srwx------'
run "$QUASI" --listen="unix:$SOCK"
expect_rc "a second server on a live socket is refused" 1
expect_match "and says why" "$ERR" 'another server is listening'
if command -v python3 >/dev/null; then
  run --stdin '(+ 1 2)
(vector-ref (vector) 0)
(* 2 3)
' python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(sys.stdin.buffer.read())
s.shutdown(socket.SHUT_WR)
while True:
    b = s.recv(4096)
    if not b: break
    sys.stdout.buffer.write(b)
' "$SOCK"
  expect_match "a Unix-socket session evaluates" "$OUT" 'quasi> 3'
  expect_match "and reports errors in the same format" "$OUT" '<repl>:[0-9]+:[0-9]+: error: vector-ref'
  expect_match "and goes on after them" "$OUT" 'quasi> 6'
else
  echo "skip - no python3 for a Unix-socket client"
fi
stop_server
if [ -e "$SOCK" ]; then fail "the server removes its socket when it stops"
else pass "the server removes its socket when it stops"; fi

finish
