// port.hpp — port objects: textual and binary, input and output, over files, strings and
// bytevectors; the standard ports and the current-*-port parameters.
//
// A Port is one heap object (Type::Port) with a byte buffer per direction, both in GC-atomic
// memory it points to:
//   * Fd      — a file descriptor (files, stdin/stdout/stderr). Input is read in blocks; output is
//               buffered and written with write(2) when full, on flush-output-port, on close, by
//               flush_standard_ports() at exit, or by the port's GC finalizer (which also closes
//               the descriptor of a port that became garbage while open).
//   * String  — textual input straight from a Scheme string (code points, no decoding).
//   * Bytes   — input from bytes: a bytevector (binary) or UTF-8 text given from C++ (textual).
//   * Sink    — output accumulating in memory: open-output-string / open-output-bytevector.
//
// Text is UTF-8 on every byte-backed port. Invalid UTF-8 read by read-char, read-line,
// read-string and peek-char comes out as U+FFFD, one per offending byte (a byte that cannot start
// a sequence, or a lead byte whose sequence is truncated, overlong, a surrogate or above
// U+10FFFF). The reader (`read`) instead sees the error (PortCharSource returns -2) and raises a
// read condition with the location.
//
// Input ports count lines and columns (1-based, columns in code points) so `read` can stamp
// datums with "name:line:col".
//
// Standard ports: stdout is block-buffered, or line-buffered when it is a terminal; stderr is
// flushed after every write and flushes stdout before it writes (so interleaving is kept when both
// go to the same place); stdin flushes stdout before it blocks to read (a standard stdin or stderr
// port keeps that stdout port in its `source`). Each engine has its own standard ports and its own
// current-input-port, current-output-port and current-error-port parameter objects
// (install_standard_ports, kept in Vm::stdio), because parameterize changes the value stored in
// the parameter object: engines running on different threads must share neither. A bare Vm
// without them uses a process-wide set. Several engines writing to the same descriptor interleave
// at their flushes.
// Ports are not synchronized: two threads must not use one port at the same time.
#pragma once

#include <string>
#include <string_view>

#include "core/object.hpp"
#include "read/reader.hpp"

namespace quasi {

struct Vm;
struct Environment;

enum PortFlags : uint32_t {
  kPortInput = 1u << 0,
  kPortOutput = 1u << 1,
  kPortTextual = 1u << 2,
  kPortBinary = 1u << 3,
  kPortInOpen = 1u << 4,
  kPortOutOpen = 1u << 5,
  kPortLineBuffered = 1u << 6,  // flush after a write containing a newline (terminal stdout)
  kPortUnbuffered = 1u << 7,    // flush after every write (stderr)
  kPortOwnsFd = 1u << 8,        // close(fd) when the port closes
  kPortStdin = 1u << 9,         // flush standard output before blocking on input
  kPortStderr = 1u << 10,       // flush stdout before writing
  kPortFoldCase = 1u << 11,     // #!fold-case seen by `read` on this port
  kPortEofPending = 1u << 12,   // a refill saw end of file that peek did not consume
  kPortStandard = 1u << 13,     // one of stdin/stdout/stderr (byte I/O allowed too)
  kPortMidLine = 1u << 14,      // output: the last byte written was not a newline (fresh-line)
};

enum class PortKind : uint8_t { Fd, String, Bytes, Sink };

struct Port : Object {
  uint32_t flags;
  PortKind kind;
  int fd;        // Fd ports; -1 otherwise
  Value name;    // string: file name, "<string>", "<stdin>", ...
  Value source;  // String (String kind) or Bytevector (Bytes kind) kept alive; for a standard
                 // stdin/stderr port, the stdout port it flushes first; #f otherwise
  // Input. Fd and Bytes: bytes ibuf[ipos, ilen). String: code point index spos.
  uint8_t* ibuf;
  int64_t ipos, ilen, icap;
  int64_t spos;
  uint32_t file_id;  // intern_source_file(name), computed on first `read` (0 until then)
  uint32_t line, col;
  // Output: pending (Fd) or accumulated (Sink) bytes obuf[0, olen).
  uint8_t* obuf;
  int64_t olen, ocap;
};

inline bool is_port(Value v) { return has_type(v, Type::Port); }
inline Port* as_port(Value v) { return v.as<Port>(); }
inline bool is_input_port(Value v) { return is_port(v) && (as_port(v)->flags & kPortInput); }
inline bool is_output_port(Value v) { return is_port(v) && (as_port(v)->flags & kPortOutput); }

// ---- making ports ------------------------------------------------------------------------------
// Opens a file. Failure raises a condition of kind 'file naming `who`.
Value open_file_port(const char* who, const std::string& path, bool input, bool binary);
// Wraps an existing descriptor. `flags` must include direction and kind (textual/binary).
Value make_fd_port(int fd, uint32_t flags, std::string_view name);
Value make_string_input_port(Value str, std::string_view name = "<string>");
Value make_utf8_input_port(std::string_view utf8, std::string_view name = "<string>");
Value make_bytevector_input_port(Value bv);
Value make_string_output_port();
Value make_bytevector_output_port();
// Everything written so far to a Sink port, as bytes (UTF-8 for a string port).
std::string port_output_bytes(Value port);

// ---- I/O from C++ (the port must be open and of the right direction/kind; else raise) --------
int32_t port_read_char(Value port);  // code point, or -1 at end of file
int32_t port_peek_char(Value port);
void port_write_utf8(Value port, std::string_view utf8);
void port_write_char(Value port, char32_t c);
void port_flush(Value port);
void port_close(Value port);  // both directions; idempotent
// The next datum via the reader (kEof at end), with locations "name:line:col".
Value port_read_datum(Value port);

// A port seen as a CharSource for the Reader. Invalid UTF-8 comes out as -2.
class PortCharSource : public CharSource {
 public:
  explicit PortCharSource(Value port);
  int32_t peek() override;
  int32_t next() override;
  SrcLoc location() const override;

 private:
  Port* port_;
};

// ---- standard and current ports ----------------------------------------------------------------
Value stdin_port();
Value stdout_port();
Value stderr_port();
// The Parameter objects bound to current-input-port & co. in the core environment.
Value current_input_port_param();
Value current_output_port_param();
Value current_error_port_param();
// Their values in `vm`'s current dynamic extent (`vm`'s own parameters when it has them).
Value current_input_port(Vm& vm);
Value current_output_port(Vm& vm);
Value current_error_port(Vm& vm);
// `vm`'s own standard output port (the process-wide one for a bare Vm).
Value vm_stdout_port(Vm& vm);

// Gives `vm` its own standard ports and current-*-port parameters (Vm::stdio) and defines the
// parameters in `env`. Called once per engine, after install_builtins.
void install_standard_ports(Vm& vm, Environment* env);

// Flushes the process-wide stdout and every open file output port (errors ignored). Call at exit.
void flush_standard_ports();
// Flushes `vm`'s standard output and the file output ports its programs opened (errors
// ignored): what the engine does after each evaluation. Leaves other engines' ports alone.
void flush_vm_ports(Vm& vm);

}  // namespace quasi
