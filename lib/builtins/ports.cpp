// ports.cpp — port objects and the R7RS I/O primitives: (scheme base) ports, (scheme file),
// (scheme read), (scheme write). See port.hpp for buffering, encoding and the standard ports.
#include "builtins/args.hpp"
#include "builtins/port.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "builtins/registry.hpp"
#include "eval/environment.hpp"
#include "read/printer.hpp"
#include "read/reader.hpp"
#include "vm/vm.hpp"

namespace quasi {
namespace {

constexpr int64_t kFdBufSize = 64 * 1024;

Port* new_port(PortKind kind, uint32_t flags, Value name) {
  Port* p = gc_alloc_object<Port>(Type::Port, sizeof(Port));
  p->flags = flags;
  p->kind = kind;
  p->fd = -1;
  p->name = name;
  p->source = kFalse;
  p->ibuf = nullptr;
  p->ipos = p->ilen = p->icap = 0;
  p->spos = 0;
  p->file_id = 0;
  p->line = 1;
  p->col = 1;
  p->obuf = nullptr;
  p->olen = p->ocap = 0;
  return p;
}

std::string port_name(Port* p) { return is_string(p->name) ? string_to_utf8(p->name) : "<port>"; }

// ---- open file output ports, flushed by flush_standard_ports() -------------------------------
// Pointers are stored complemented in malloc'd memory, so they do not keep the ports alive; the
// finalizer and close remove a port before it can be reclaimed. Each maps to the Vm whose
// program opened it (null when opened from C++), so flush_vm_ports flushes only its own.
struct OpenOutputs {
  std::mutex mu;
  std::unordered_map<uintptr_t, const Vm*> hidden;
};
OpenOutputs& open_outputs() {
  static OpenOutputs* o = new OpenOutputs;
  return *o;
}
void track_output(Port* p) {
  OpenOutputs& o = open_outputs();
  std::lock_guard<std::mutex> lock(o.mu);
  o.hidden.emplace(~reinterpret_cast<uintptr_t>(p), nullptr);
}
void set_output_owner(Value port, const Vm& vm) {
  OpenOutputs& o = open_outputs();
  std::lock_guard<std::mutex> lock(o.mu);
  auto it = o.hidden.find(~port.bits);
  if (it != o.hidden.end()) it->second = &vm;
}
void untrack_output(Port* p) {
  OpenOutputs& o = open_outputs();
  std::lock_guard<std::mutex> lock(o.mu);
  o.hidden.erase(~reinterpret_cast<uintptr_t>(p));
}

// ---- low-level output ------------------------------------------------------------------------
// Writes all of data to fd. Returns 0 or an errno value.
int write_all(int fd, const uint8_t* data, int64_t n) {
  int64_t done = 0;
  while (done < n) {
    ssize_t k = ::write(fd, data + done, static_cast<size_t>(n - done));
    if (k < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += k;
  }
  return 0;
}

// Writes pending bytes of an Fd port. The buffer is emptied even on error (so one failure is
// reported once). Returns 0 or an errno value.
int flush_fd(Port* p) {
  if (p->kind != PortKind::Fd || p->olen == 0) return 0;
  int err = write_all(p->fd, p->obuf, p->olen);
  p->olen = 0;
  return err;
}

[[noreturn]] void io_error(const char* who, Port* p, const char* what, int err) {
  throw_condition("file", who,
                  std::string("cannot ") + what + " \"" + port_name(p) + "\": " + std::strerror(err),
                  list({make_ptr(p)}));
}

void flush_or_raise(Port* p, const char* who) {
  if (int err = flush_fd(p)) io_error(who, p, "write to", err);
}

void quiet_flush(Port* p) {
  if (p && p->kind == PortKind::Fd && (p->flags & kPortOutOpen)) flush_fd(p);
}

struct StdPorts {
  GcRoot in, out, err, pin, pout, perr;
};
StdPorts& std_ports();

// The standard output port that a standard input or error port flushes first (its `source`).
void flush_companion(Port* p) {
  if (is_port(p->source)) quiet_flush(as_port(p->source));
}

void sink_reserve(Port* p, int64_t extra) {
  if (p->olen + extra <= p->ocap) return;
  int64_t cap = std::max<int64_t>({p->ocap * 2, p->olen + extra, 64});
  uint8_t* nb = static_cast<uint8_t*>(gc_alloc_atomic(static_cast<size_t>(cap)));
  if (p->olen) std::memcpy(nb, p->obuf, static_cast<size_t>(p->olen));
  p->obuf = nb;
  p->ocap = cap;
}

// Output in three steps so one logical write (a whole `display`) applies the flush policy once.
void out_begin(Port* p) {
  if ((p->flags & kPortStderr)) flush_companion(p);
}

void out_raw(Port* p, const char* who, const uint8_t* data, int64_t n) {
  if (n <= 0) return;
  if (data[n - 1] == '\n') p->flags &= ~kPortMidLine;
  else p->flags |= kPortMidLine;
  if (p->kind == PortKind::Sink) {
    sink_reserve(p, n);
    std::memcpy(p->obuf + p->olen, data, static_cast<size_t>(n));
    p->olen += n;
    return;
  }
  if (!p->obuf) {
    p->obuf = static_cast<uint8_t*>(gc_alloc_atomic(kFdBufSize));
    p->ocap = kFdBufSize;
  }
  if (p->olen + n > p->ocap) flush_or_raise(p, who);
  if (n >= p->ocap) {
    if (int err = write_all(p->fd, data, n)) io_error(who, p, "write to", err);
    return;
  }
  std::memcpy(p->obuf + p->olen, data, static_cast<size_t>(n));
  p->olen += n;
}

void out_end(Port* p, const char* who, bool wrote_newline) {
  if (p->kind != PortKind::Fd) return;
  if ((p->flags & kPortUnbuffered) || ((p->flags & kPortLineBuffered) && wrote_newline))
    flush_or_raise(p, who);
}

void emit(Port* p, const char* who, const void* data, int64_t n) {
  out_begin(p);
  out_raw(p, who, static_cast<const uint8_t*>(data), n);
  out_end(p, who, n > 0 && std::memchr(data, '\n', static_cast<size_t>(n)) != nullptr);
}

void emit_char(Port* p, const char* who, char32_t c) {
  // One ASCII byte into a buffer with room, when no flush can be due: what emit does, without
  // its copy and newline search (write-char loops such as r7rs-benchmarks' cat live here).
  if (c < 0x80 && p->olen < p->ocap && !(p->flags & (kPortStderr | kPortUnbuffered)) &&
      !(c == '\n' && (p->flags & kPortLineBuffered)) &&
      (p->kind == PortKind::Sink || p->kind == PortKind::Fd)) {
    p->obuf[p->olen++] = static_cast<uint8_t>(c);
    if (c == '\n') p->flags &= ~kPortMidLine;
    else p->flags |= kPortMidLine;
    return;
  }
  uint8_t buf[4];
  int n;
  if (c < 0x80) {
    buf[0] = static_cast<uint8_t>(c);
    n = 1;
  } else {
    std::string s;
    utf8_append(s, c);
    n = static_cast<int>(s.size());
    std::memcpy(buf, s.data(), s.size());
  }
  emit(p, who, buf, n);
}

// Writes the code points of str[start, end) as UTF-8.
void emit_string(Port* p, const char* who, Value str, int64_t start, int64_t end) {
  const uint32_t* cs = str.as<String>()->chars();
  uint8_t chunk[4096];
  int n = 0;
  bool newline = false;
  out_begin(p);
  for (int64_t i = start; i < end; i++) {
    uint32_t c = cs[i];
    if (n > static_cast<int>(sizeof chunk) - 4) {
      out_raw(p, who, chunk, n);
      n = 0;
    }
    if (c < 0x80) {
      chunk[n++] = static_cast<uint8_t>(c);
      if (c == '\n') newline = true;
    } else if (c < 0x800) {
      chunk[n++] = static_cast<uint8_t>(0xC0 | (c >> 6));
      chunk[n++] = static_cast<uint8_t>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      chunk[n++] = static_cast<uint8_t>(0xE0 | (c >> 12));
      chunk[n++] = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
      chunk[n++] = static_cast<uint8_t>(0x80 | (c & 0x3F));
    } else {
      chunk[n++] = static_cast<uint8_t>(0xF0 | (c >> 18));
      chunk[n++] = static_cast<uint8_t>(0x80 | ((c >> 12) & 0x3F));
      chunk[n++] = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
      chunk[n++] = static_cast<uint8_t>(0x80 | (c & 0x3F));
    }
  }
  out_raw(p, who, chunk, n);
  out_end(p, who, newline);
}

// ---- low-level input -------------------------------------------------------------------------
// Tries to have at least `want` unread bytes buffered (Fd ports read more; others have all their
// input already). Returns how many are buffered; fewer than `want` means end of file was seen
// (kPortEofPending is then set until a consumer reports the end of file).
int64_t fill(Port* p, const char* who, int64_t want) {
  int64_t avail = p->ilen - p->ipos;
  if (avail >= want || p->kind != PortKind::Fd || (p->flags & kPortEofPending)) return avail;
  if (p->flags & kPortStdin) flush_companion(p);
  if (!p->ibuf) {
    p->ibuf = static_cast<uint8_t*>(gc_alloc_atomic(kFdBufSize));
    p->icap = kFdBufSize;
  }
  if (p->ipos > 0) {
    if (avail) std::memmove(p->ibuf, p->ibuf + p->ipos, static_cast<size_t>(avail));
    p->ipos = 0;
    p->ilen = avail;
  }
  while (p->ilen < want) {
    raise_pending_interrupt();  // a Ctrl-C that came just before this read
    ssize_t k = ::read(p->fd, p->ibuf + p->ilen, static_cast<size_t>(p->icap - p->ilen));
    if (k < 0) {
      // A signal: Ctrl-C in the REPL asked the engine to stop; anything else reads on.
      if (errno == EINTR) continue;
      io_error(who, p, "read from", errno);
    }
    if (k == 0) {
      p->flags |= kPortEofPending;
      break;
    }
    p->ilen += k;
  }
  return p->ilen - p->ipos;
}

// The end of file was delivered to a consumer: the next read asks the file again.
inline void eof_consumed(Port* p) { p->flags &= ~kPortEofPending; }

// Decodes the code point at the read position without consuming it. *len receives how much to
// advance (bytes, or 1 code point for String ports; 0 at the end). Returns the code point, -1 at
// end of file, -2 for invalid UTF-8 (len 1).
int32_t decode_at(Port* p, const char* who, int* len) {
  if (p->kind == PortKind::String) {
    String* s = p->source.as<String>();
    if (p->spos >= s->length()) {
      *len = 0;
      return -1;
    }
    *len = 1;
    return static_cast<int32_t>(s->chars()[p->spos]);
  }
  int64_t avail = fill(p, who, 1);
  if (avail == 0) {
    *len = 0;
    return -1;
  }
  uint8_t b0 = p->ibuf[p->ipos];
  if (b0 < 0x80) {
    *len = 1;
    return b0;
  }
  int64_t need = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 1;
  if (need > avail) avail = fill(p, who, need);
  std::string_view sv(reinterpret_cast<const char*>(p->ibuf + p->ipos),
                      static_cast<size_t>(std::min(avail, need)));
  size_t i = 0;
  int32_t c = utf8_decode(sv, i);
  *len = static_cast<int>(i);
  return c < 0 ? -2 : c;
}

void advance(Port* p, int32_t c, int len) {
  if (len == 0) {
    eof_consumed(p);
    return;
  }
  if (p->kind == PortKind::String) p->spos += len;
  else p->ipos += len;
  if (c == '\n') {
    p->line++;
    p->col = 1;
  } else {
    p->col++;
  }
}

// Raw: -1 at end, -2 for invalid UTF-8.
int32_t next_raw(Port* p, const char* who) {
  // A buffered ASCII byte: decode_at and advance's answer without their calls.
  if (p->kind != PortKind::String && p->ipos < p->ilen && p->ibuf[p->ipos] < 0x80) {
    int32_t b = p->ibuf[p->ipos++];
    if (b == '\n') {
      p->line++;
      p->col = 1;
    } else {
      p->col++;
    }
    return b;
  }
  int len;
  int32_t c = decode_at(p, who, &len);
  advance(p, c, len);
  return c;
}
int32_t peek_raw(Port* p, const char* who) {
  int len;
  return decode_at(p, who, &len);
}
inline int32_t fix_invalid(int32_t c) { return c == -2 ? 0xFFFD : c; }

// -1 at end of file.
int read_byte(Port* p, const char* who, bool peek) {
  if (fill(p, who, 1) == 0) {
    if (!peek) eof_consumed(p);
    return -1;
  }
  uint8_t b = p->ibuf[p->ipos];
  if (!peek) p->ipos++;
  return b;
}

bool input_ready(Port* p) {
  if (p->kind != PortKind::Fd || p->ilen > p->ipos || (p->flags & kPortEofPending)) return true;
  struct pollfd pfd = {p->fd, POLLIN, 0};
  int r;
  do r = ::poll(&pfd, 1, 0);
  while (r < 0 && errno == EINTR);
  return r != 0;  // readable, hung up, or an error that the read itself will report
}

// ---- argument checking -----------------------------------------------------------------------
inline bool supplied(int argc, Value* argv, int i) { return given(argc, argv, i); }

Port* check_input(const char* who, Value v, bool textual) {
  if (!is_input_port(v))
    type_error(who, textual ? "a textual input port" : "a binary input port", v);
  Port* p = as_port(v);
  if (textual ? !(p->flags & kPortTextual) : !(p->flags & (kPortBinary | kPortStandard)))
    type_error(who, textual ? "a textual input port" : "a binary input port", v);
  if (!(p->flags & kPortInOpen)) throw_condition("error", who, "input port is closed", list({v}));
  return p;
}

Port* check_output(const char* who, Value v, bool textual) {
  if (!is_output_port(v))
    type_error(who, textual ? "a textual output port" : "a binary output port", v);
  Port* p = as_port(v);
  if (textual ? !(p->flags & kPortTextual) : !(p->flags & (kPortBinary | kPortStandard)))
    type_error(who, textual ? "a textual output port" : "a binary output port", v);
  if (!(p->flags & kPortOutOpen)) throw_condition("error", who, "output port is closed", list({v}));
  return p;
}

Port* in_arg(Vm& vm, const char* who, int argc, Value* argv, int i, bool textual) {
  return check_input(who, supplied(argc, argv, i) ? argv[i] : current_input_port(vm), textual);
}
Port* out_arg(Vm& vm, const char* who, int argc, Value* argv, int i, bool textual) {
  return check_output(who, supplied(argc, argv, i) ? argv[i] : current_output_port(vm), textual);
}

Port* check_port(const char* who, Value v) {
  if (!is_port(v)) type_error(who, "a port", v);
  return as_port(v);
}

Value check_string(const char* who, Value v) {
  if (!is_string(v)) type_error(who, "a string", v);
  return v;
}

int64_t check_count(const char* who, Value v) {
  if (!v.is_fixnum() || v.fixnum() < 0) type_error(who, "a non-negative exact integer", v);
  return v.fixnum();
}

std::string file_name_arg(const char* who, Value v) {
  std::string path = string_to_utf8(check_string(who, v));
  if (path.find('\0') != std::string::npos)
    throw_condition("file", who, "file name contains a NUL character", list({v}));
  return path;
}

// ---- closing and finalization ----------------------------------------------------------------
void release_fd(Port* p) {
  if (p->kind != PortKind::Fd) return;
  if (p->flags & kPortOutput) untrack_output(p);
  if ((p->flags & kPortOwnsFd) && p->fd >= 0) {
    ::close(p->fd);
    GC_REGISTER_FINALIZER_NO_ORDER(p, nullptr, nullptr, nullptr, nullptr);
  }
  p->fd = -1;
}

void port_finalizer(void* obj, void*) {
  Port* p = static_cast<Port*>(obj);
  if (p->flags & kPortOutOpen) quiet_flush(p);
  if (p->flags & kPortOutput) untrack_output(p);
  if ((p->flags & kPortOwnsFd) && p->fd >= 0) ::close(p->fd);
  p->fd = -1;
  p->flags &= ~(kPortInOpen | kPortOutOpen);
}

// Closes the directions in `which` (kPortInOpen and/or kPortOutOpen). Pending output is written
// first; a write error is raised after the port is closed.
void close_dirs(Port* p, uint32_t which, const char* who) {
  int err = 0;
  if ((which & kPortOutOpen) && (p->flags & kPortOutOpen)) err = flush_fd(p);
  p->flags &= ~which;
  if (!(p->flags & (kPortInOpen | kPortOutOpen))) {
    release_fd(p);
    if (p->kind == PortKind::Bytes || p->kind == PortKind::String) {
      p->source = kFalse;  // let the data go
      p->ibuf = nullptr;
      p->ipos = p->ilen = 0;
    }
  }
  if (err) io_error(who, p, "write to", err);
}

Value read_datum(Port* p) {
  if (p->file_id == 0) p->file_id = intern_source_file(port_name(p));
  PortCharSource src(make_ptr(p));
  Reader reader(src);
  reader.set_fold_case(p->flags & kPortFoldCase);
  Value v = reader.read();
  if (reader.fold_case()) p->flags |= kPortFoldCase;
  else p->flags &= ~kPortFoldCase;
  return v;
}

// ---- standard ports --------------------------------------------------------------------------
// A set of standard ports: #(stdin stdout stderr current-input current-output current-error).
// stdin and stderr point at their stdout (`source`) to flush it before they read or write.
Value make_std_ports() {
  uint32_t out = kPortOutput | kPortTextual | kPortOutOpen | kPortStandard;
  Value in = make_fd_port(0, kPortInput | kPortTextual | kPortInOpen | kPortStdin | kPortStandard, "<stdin>");
  Value o = make_fd_port(1, out | (::isatty(1) ? uint32_t{kPortLineBuffered} : 0u), "<stdout>");
  Value err = make_fd_port(2, out | kPortUnbuffered | kPortStderr, "<stderr>");
  as_port(in)->source = o;
  as_port(err)->source = o;
  Value v = make_vector(6);
  Value* items = v.as<Vector>()->items();
  items[0] = in;
  items[1] = o;
  items[2] = err;
  items[3] = make_parameter(in, kFalse);
  items[4] = make_parameter(o, kFalse);
  items[5] = make_parameter(err, kFalse);
  return v;
}

// The process-wide set, used by a Vm without its own (unit tests) and by C++ callers.
StdPorts& std_ports() {
  static StdPorts* s = [] {
    gc_init();
    StdPorts* sp = new StdPorts;
    Value v = make_std_ports();
    Value* items = v.as<Vector>()->items();
    sp->in.set(items[0]);
    sp->out.set(items[1]);
    sp->err.set(items[2]);
    sp->pin.set(items[3]);
    sp->pout.set(items[4]);
    sp->perr.set(items[5]);
    return sp;
  }();
  return *s;
}

// Item i of `vm`'s own standard ports, or of the process-wide set.
Value vm_stdio(Vm& vm, int i, GcRoot StdPorts::*global) {
  Value s = vm.stdio.get();
  return is_vector(s) ? s.as<Vector>()->items()[i] : (std_ports().*global).get();
}

}  // namespace

// ---- public C++ interface --------------------------------------------------------------------
Value make_fd_port(int fd, uint32_t flags, std::string_view name) {
  Port* p = new_port(PortKind::Fd, flags, make_string_utf8(name));
  p->fd = fd;
  if (flags & kPortOwnsFd) GC_REGISTER_FINALIZER_NO_ORDER(p, port_finalizer, nullptr, nullptr, nullptr);
  if ((flags & kPortOutput) && !(flags & kPortStandard)) track_output(p);
  return make_ptr(p);
}

Value open_file_port(const char* who, const std::string& path, bool input, bool binary) {
  int fd;
  do fd = input ? ::open(path.c_str(), O_RDONLY | O_CLOEXEC)
                : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  while (fd < 0 && errno == EINTR);
  int err = fd < 0 ? errno : 0;
  if (fd >= 0 && input) {
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      err = EISDIR;
    }
  }
  if (err)
    throw_condition("file", who,
                    "cannot open file \"" + path + "\": " + std::strerror(err),
                    list({make_string_utf8(path)}));
  uint32_t flags = (input ? kPortInput | kPortInOpen : kPortOutput | kPortOutOpen) |
                   (binary ? kPortBinary : kPortTextual) | kPortOwnsFd;
  return make_fd_port(fd, flags, path);
}

Value make_string_input_port(Value str, std::string_view name) {
  Port* p = new_port(PortKind::String, kPortInput | kPortTextual | kPortInOpen,
                     make_string_utf8(name));
  p->source = str;
  return make_ptr(p);
}

Value make_utf8_input_port(std::string_view utf8, std::string_view name) {
  Port* p = new_port(PortKind::Bytes, kPortInput | kPortTextual | kPortInOpen,
                     make_string_utf8(name));
  uint8_t* buf = static_cast<uint8_t*>(gc_alloc_atomic(utf8.size() + 1));
  std::memcpy(buf, utf8.data(), utf8.size());
  p->ibuf = buf;
  p->ilen = p->icap = static_cast<int64_t>(utf8.size());
  return make_ptr(p);
}

Value make_bytevector_input_port(Value bv) {
  Port* p = new_port(PortKind::Bytes, kPortInput | kPortBinary | kPortInOpen,
                     make_string_utf8("<bytevector>"));
  p->source = bv;
  p->ibuf = bv.as<Bytevector>()->bytes();
  p->ilen = p->icap = bv.as<Bytevector>()->length();
  return make_ptr(p);
}

Value make_string_output_port() {
  return make_ptr(new_port(PortKind::Sink, kPortOutput | kPortTextual | kPortOutOpen,
                           make_string_utf8("<string>")));
}

Value make_bytevector_output_port() {
  return make_ptr(new_port(PortKind::Sink, kPortOutput | kPortBinary | kPortOutOpen,
                           make_string_utf8("<bytevector>")));
}

std::string port_output_bytes(Value port) {
  Port* p = as_port(port);
  if (p->kind != PortKind::Sink || p->olen == 0) return {};
  return std::string(reinterpret_cast<const char*>(p->obuf), static_cast<size_t>(p->olen));
}

int32_t port_read_char(Value port) {
  return fix_invalid(next_raw(check_input("read-char", port, true), "read-char"));
}
int32_t port_peek_char(Value port) {
  return fix_invalid(peek_raw(check_input("peek-char", port, true), "peek-char"));
}
void port_write_utf8(Value port, std::string_view utf8) {
  emit(check_output("write-string", port, true), "write-string", utf8.data(),
       static_cast<int64_t>(utf8.size()));
}
void port_write_char(Value port, char32_t c) {
  emit_char(check_output("write-char", port, true), "write-char", c);
}
void port_flush(Value port) {
  Port* p = check_port("flush-output-port", port);
  if (p->flags & kPortOutOpen) flush_or_raise(p, "flush-output-port");
}
void port_close(Value port) {
  close_dirs(check_port("close-port", port), kPortInOpen | kPortOutOpen, "close-port");
}
Value port_read_datum(Value port) { return read_datum(check_input("read", port, true)); }

PortCharSource::PortCharSource(Value port) : port_(as_port(port)) {
  if (port_->file_id == 0) port_->file_id = intern_source_file(port_name(port_));
}
int32_t PortCharSource::peek() { return peek_raw(port_, "read"); }
int32_t PortCharSource::next() { return next_raw(port_, "read"); }
SrcLoc PortCharSource::location() const { return SrcLoc{port_->file_id, port_->line, port_->col}; }

Value stdin_port() { return std_ports().in.get(); }
Value stdout_port() { return std_ports().out.get(); }
Value stderr_port() { return std_ports().err.get(); }
Value current_input_port_param() { return std_ports().pin.get(); }
Value current_output_port_param() { return std_ports().pout.get(); }
Value current_error_port_param() { return std_ports().perr.get(); }
Value current_input_port(Vm& vm) { return parameter_value(vm, vm_stdio(vm, 3, &StdPorts::pin)); }
Value current_output_port(Vm& vm) { return parameter_value(vm, vm_stdio(vm, 4, &StdPorts::pout)); }
Value current_error_port(Vm& vm) { return parameter_value(vm, vm_stdio(vm, 5, &StdPorts::perr)); }
Value vm_stdout_port(Vm& vm) { return vm_stdio(vm, 1, &StdPorts::out); }

void install_standard_ports(Vm& vm, Environment* env) {
  Value v = make_std_ports();
  vm.stdio.set(v);
  env->define(intern("current-input-port"), v.as<Vector>()->items()[3]);
  env->define(intern("current-output-port"), v.as<Vector>()->items()[4]);
  env->define(intern("current-error-port"), v.as<Vector>()->items()[5]);
}

void flush_standard_ports() {
  quiet_flush(as_port(std_ports().out.get()));
  OpenOutputs& o = open_outputs();
  std::lock_guard<std::mutex> lock(o.mu);
  for (auto& [h, owner] : o.hidden) quiet_flush(reinterpret_cast<Port*>(~h));
}

void flush_vm_ports(Vm& vm) {
  quiet_flush(as_port(vm_stdout_port(vm)));
  OpenOutputs& o = open_outputs();
  std::lock_guard<std::mutex> lock(o.mu);
  for (auto& [h, owner] : o.hidden)
    if (owner == &vm) quiet_flush(reinterpret_cast<Port*>(~h));
}

// ---- primitives ------------------------------------------------------------------------------
namespace {

QUASI_PRIM(p_input_port_p) { return make_bool(is_input_port(argv[0])); }
QUASI_PRIM(p_output_port_p) { return make_bool(is_output_port(argv[0])); }
QUASI_PRIM(p_port_p) { return make_bool(is_port(argv[0])); }
QUASI_PRIM(p_textual_port_p) {
  return make_bool(is_port(argv[0]) && (as_port(argv[0])->flags & kPortTextual));
}
QUASI_PRIM(p_binary_port_p) {
  return make_bool(is_port(argv[0]) && (as_port(argv[0])->flags & kPortBinary));
}
QUASI_PRIM(p_input_port_open_p) {
  Port* p = check_port("input-port-open?", argv[0]);
  return make_bool(p->flags & kPortInOpen);
}
QUASI_PRIM(p_output_port_open_p) {
  Port* p = check_port("output-port-open?", argv[0]);
  return make_bool(p->flags & kPortOutOpen);
}

QUASI_PRIM(p_close_port) {
  close_dirs(check_port("close-port", argv[0]), kPortInOpen | kPortOutOpen, "close-port");
  return kUnspecified;
}
QUASI_PRIM(p_close_input_port) {
  if (!is_input_port(argv[0])) type_error("close-input-port", "an input port", argv[0]);
  close_dirs(as_port(argv[0]), kPortInOpen, "close-input-port");
  return kUnspecified;
}
QUASI_PRIM(p_close_output_port) {
  if (!is_output_port(argv[0])) type_error("close-output-port", "an output port", argv[0]);
  close_dirs(as_port(argv[0]), kPortOutOpen, "close-output-port");
  return kUnspecified;
}

QUASI_PRIM(p_open_input_string) {
  return make_string_input_port(check_string("open-input-string", argv[0]));
}
QUASI_PRIM(p_open_output_string) { return make_string_output_port(); }
QUASI_PRIM(p_get_output_string) {
  Value v = argv[0];
  if (!is_port(v) || as_port(v)->kind != PortKind::Sink || !(as_port(v)->flags & kPortTextual))
    type_error("get-output-string", "a port made by open-output-string", v);
  return make_string_utf8(port_output_bytes(v));
}
QUASI_PRIM(p_open_input_bytevector) {
  if (!is_bytevector(argv[0])) type_error("open-input-bytevector", "a bytevector", argv[0]);
  return make_bytevector_input_port(argv[0]);
}
QUASI_PRIM(p_open_output_bytevector) { return make_bytevector_output_port(); }
QUASI_PRIM(p_get_output_bytevector) {
  Value v = argv[0];
  if (!is_port(v) || as_port(v)->kind != PortKind::Sink || !(as_port(v)->flags & kPortBinary))
    type_error("get-output-bytevector", "a port made by open-output-bytevector", v);
  Port* p = as_port(v);
  Value bv = make_bytevector(p->olen);
  if (p->olen) std::memcpy(bv.as<Bytevector>()->bytes(), p->obuf, static_cast<size_t>(p->olen));
  return bv;
}

// -- textual input
QUASI_PRIM(p_read_char) {
  int32_t c = fix_invalid(next_raw(in_arg(vm, "read-char", argc, argv, 0, true), "read-char"));
  return c < 0 ? kEof : make_char(static_cast<char32_t>(c));
}
QUASI_PRIM(p_peek_char) {
  int32_t c = fix_invalid(peek_raw(in_arg(vm, "peek-char", argc, argv, 0, true), "peek-char"));
  return c < 0 ? kEof : make_char(static_cast<char32_t>(c));
}
QUASI_PRIM(p_read_line) {
  const char* who = "read-line";
  Port* p = in_arg(vm, who, argc, argv, 0, true);
  std::u32string line;
  bool any = false;
  for (;;) {
    int32_t c = next_raw(p, who);
    if (c == -1) break;
    any = true;
    if (c == '\n') break;
    if (c == '\r') {
      if (peek_raw(p, who) == '\n') next_raw(p, who);
      break;
    }
    line.push_back(static_cast<char32_t>(fix_invalid(c)));
  }
  if (!any) return kEof;
  return make_string_utf32(line.data(), static_cast<int64_t>(line.size()));
}
QUASI_PRIM(p_read_string) {
  const char* who = "read-string";
  int64_t k = check_count(who, argv[0]);
  Port* p = in_arg(vm, who, argc, argv, 1, true);
  if (k == 0) return make_string(0);
  std::u32string s;
  while (static_cast<int64_t>(s.size()) < k) {
    int32_t c = next_raw(p, who);
    if (c == -1) break;
    s.push_back(static_cast<char32_t>(fix_invalid(c)));
  }
  if (s.empty()) return kEof;
  return make_string_utf32(s.data(), static_cast<int64_t>(s.size()));
}
QUASI_PRIM(p_char_ready_p) { return make_bool(input_ready(in_arg(vm, "char-ready?", argc, argv, 0, true))); }
QUASI_PRIM(p_read) { return read_datum(in_arg(vm, "read", argc, argv, 0, true)); }

// -- binary input
QUASI_PRIM(p_read_u8) {
  int b = read_byte(in_arg(vm, "read-u8", argc, argv, 0, false), "read-u8", false);
  return b < 0 ? kEof : make_fixnum(b);
}
QUASI_PRIM(p_peek_u8) {
  int b = read_byte(in_arg(vm, "peek-u8", argc, argv, 0, false), "peek-u8", true);
  return b < 0 ? kEof : make_fixnum(b);
}
QUASI_PRIM(p_u8_ready_p) { return make_bool(input_ready(in_arg(vm, "u8-ready?", argc, argv, 0, false))); }

// Reads up to n bytes into dst, blocking until n or end of file. Returns the count.
int64_t read_bytes(Port* p, const char* who, uint8_t* dst, int64_t n) {
  int64_t got = 0;
  while (got < n) {
    int64_t avail = fill(p, who, 1);
    if (avail == 0) break;
    int64_t k = std::min(avail, n - got);
    std::memcpy(dst + got, p->ibuf + p->ipos, static_cast<size_t>(k));
    p->ipos += k;
    got += k;
  }
  if (got == 0 && n > 0) eof_consumed(p);
  return got;
}

QUASI_PRIM(p_read_bytevector) {
  const char* who = "read-bytevector";
  int64_t k = check_count(who, argv[0]);
  Port* p = in_arg(vm, who, argc, argv, 1, false);
  if (k == 0) return make_bytevector(0);
  // Do not trust k for the allocation: read in bounded pieces.
  std::string acc;
  uint8_t chunk[8192];
  while (static_cast<int64_t>(acc.size()) < k) {
    int64_t want = std::min<int64_t>(k - static_cast<int64_t>(acc.size()), sizeof chunk);
    int64_t got = read_bytes(p, who, chunk, want);
    acc.append(reinterpret_cast<const char*>(chunk), static_cast<size_t>(got));
    if (got < want) break;
  }
  if (acc.empty()) return kEof;
  Value bv = make_bytevector(static_cast<int64_t>(acc.size()));
  std::memcpy(bv.as<Bytevector>()->bytes(), acc.data(), acc.size());
  return bv;
}
QUASI_PRIM(p_read_bytevector_x) {
  const char* who = "read-bytevector!";
  if (!is_bytevector(argv[0])) type_error(who, "a bytevector", argv[0]);
  Port* p = in_arg(vm, who, argc, argv, 1, false);
  int64_t start, end;
  get_range(who, argc, argv, 2, argv[0].as<Bytevector>()->length(), start, end);
  if (start == end) return make_fixnum(0);
  int64_t got = read_bytes(p, who, argv[0].as<Bytevector>()->bytes() + start, end - start);
  return got == 0 ? kEof : make_fixnum(got);
}

// -- textual output
QUASI_PRIM(p_write_char) {
  if (!argv[0].is_char()) type_error("write-char", "a character", argv[0]);
  emit_char(out_arg(vm, "write-char", argc, argv, 1, true), "write-char", argv[0].char_code());
  return kUnspecified;
}
QUASI_PRIM(p_write_string) {
  const char* who = "write-string";
  Value s = check_string(who, argv[0]);
  Port* p = out_arg(vm, who, argc, argv, 1, true);
  int64_t start, end;
  get_range(who, argc, argv, 2, s.as<String>()->length(), start, end);
  emit_string(p, who, s, start, end);
  return kUnspecified;
}
QUASI_PRIM(p_newline) {
  emit(out_arg(vm, "newline", argc, argv, 0, true), "newline", "\n", 1);
  return kUnspecified;
}
// (fresh-line [port]): a newline unless the port is at the start of a line; #t when it wrote one.
QUASI_PRIM(p_fresh_line) {
  Port* p = out_arg(vm, "fresh-line", argc, argv, 0, true);
  if (!(p->flags & kPortMidLine)) return kFalse;
  emit(p, "fresh-line", "\n", 1);
  return kTrue;
}

void print_to(Vm& vm, const char* who, int argc, Value* argv, PrintMode mode) {
  Port* p = out_arg(vm, who, argc, argv, 1, true);
  Value v = argv[0];
  if (mode == PrintMode::Display) {
    if (is_string(v)) return emit_string(p, who, v, 0, v.as<String>()->length());
    if (v.is_char()) return emit_char(p, who, v.char_code());
  }
  std::string text;
  print_value(text, v, mode);
  emit(p, who, text.data(), static_cast<int64_t>(text.size()));
}
QUASI_PRIM(p_write) { print_to(vm, "write", argc, argv, PrintMode::Write); return kUnspecified; }
QUASI_PRIM(p_display) { print_to(vm, "display", argc, argv, PrintMode::Display); return kUnspecified; }
QUASI_PRIM(p_write_shared) {
  print_to(vm, "write-shared", argc, argv, PrintMode::WriteShared);
  return kUnspecified;
}
QUASI_PRIM(p_write_simple) {
  print_to(vm, "write-simple", argc, argv, PrintMode::WriteSimple);
  return kUnspecified;
}

// -- binary output
QUASI_PRIM(p_write_u8) {
  Value b = argv[0];
  if (!b.is_fixnum() || b.fixnum() < 0 || b.fixnum() > 255) type_error("write-u8", "a byte", b);
  uint8_t byte = static_cast<uint8_t>(b.fixnum());
  emit(out_arg(vm, "write-u8", argc, argv, 1, false), "write-u8", &byte, 1);
  return kUnspecified;
}
QUASI_PRIM(p_write_bytevector) {
  const char* who = "write-bytevector";
  if (!is_bytevector(argv[0])) type_error(who, "a bytevector", argv[0]);
  Port* p = out_arg(vm, who, argc, argv, 1, false);
  int64_t start, end;
  get_range(who, argc, argv, 2, argv[0].as<Bytevector>()->length(), start, end);
  emit(p, who, argv[0].as<Bytevector>()->bytes() + start, end - start);
  return kUnspecified;
}

QUASI_PRIM(p_flush_output_port) {
  const char* who = "flush-output-port";
  Value v = supplied(argc, argv, 0) ? argv[0] : current_output_port(vm);
  if (!is_output_port(v)) type_error(who, "an output port", v);
  Port* p = as_port(v);
  if (!(p->flags & kPortOutOpen)) throw_condition("error", who, "output port is closed", list({v}));
  flush_or_raise(p, who);
  return kUnspecified;
}

QUASI_PRIM(p_eof_object) { return kEof; }
QUASI_PRIM(p_eof_object_p) { return make_bool(argv[0] == kEof); }

// -- files
QUASI_PRIM(p_open_input_file) {
  const char* who = "open-input-file";
  return open_file_port(who, file_name_arg(who, argv[0]), true, false);
}
QUASI_PRIM(p_open_binary_input_file) {
  const char* who = "open-binary-input-file";
  return open_file_port(who, file_name_arg(who, argv[0]), true, true);
}
QUASI_PRIM(p_open_output_file) {
  const char* who = "open-output-file";
  Value port = open_file_port(who, file_name_arg(who, argv[0]), false, false);
  set_output_owner(port, vm);
  return port;
}
QUASI_PRIM(p_open_binary_output_file) {
  const char* who = "open-binary-output-file";
  Value port = open_file_port(who, file_name_arg(who, argv[0]), false, true);
  set_output_owner(port, vm);
  return port;
}
QUASI_PRIM(p_file_exists_p) {
  std::string path = file_name_arg("file-exists?", argv[0]);
  struct stat st;
  return make_bool(::stat(path.c_str(), &st) == 0);
}
QUASI_PRIM(p_delete_file) {
  const char* who = "delete-file";
  std::string path = file_name_arg(who, argv[0]);
  if (::unlink(path.c_str()) != 0)
    throw_condition("file", who, "cannot delete file \"" + path + "\": " + std::strerror(errno),
                    list({argv[0]}));
  return kUnspecified;
}

constexpr uint32_t kMake = kAllocates | kMayRaise;  // fresh port; not pure (state)
constexpr uint32_t kQuery = kMayRaise;               // reads mutable port state, no effects

// Output and errors pass values on without computing with them: no derivative flows through
// them, so automatic differentiation lets them see the values it differentiates (core/prim.hpp).
constexpr DerivativeRule kDNoFlow{DerivativeRule::Kind::kZero, false, {}, {}};

const PrimDef kPortPrims[] = {
    {"input-port?", p_input_port_p, 1, 1, kPureFold},
    {"output-port?", p_output_port_p, 1, 1, kPureFold},
    {"textual-port?", p_textual_port_p, 1, 1, kPureFold},
    {"binary-port?", p_binary_port_p, 1, 1, kPureFold},
    {"port?", p_port_p, 1, 1, kPureFold},
    {"input-port-open?", p_input_port_open_p, 1, 1, kQuery},
    {"output-port-open?", p_output_port_open_p, 1, 1, kQuery},
    {"close-port", p_close_port, 1, 1, kEffect},
    {"close-input-port", p_close_input_port, 1, 1, kEffect},
    {"close-output-port", p_close_output_port, 1, 1, kEffect},
    {"open-input-string", p_open_input_string, 1, 1, kMake},
    {"open-output-string", p_open_output_string, 0, 0, kMake},
    {"get-output-string", p_get_output_string, 1, 1, kMake},
    {"open-input-bytevector", p_open_input_bytevector, 1, 1, kMake},
    {"open-output-bytevector", p_open_output_bytevector, 0, 0, kMake},
    {"get-output-bytevector", p_get_output_bytevector, 1, 1, kMake},
    {"read-char", p_read_char, 0, 1, kEffect},
    {"peek-char", p_peek_char, 0, 1, kEffect},
    {"read-line", p_read_line, 0, 1, kEffect},
    {"read-string", p_read_string, 1, 2, kEffect},
    {"char-ready?", p_char_ready_p, 0, 1, kEffect},
    {"read", p_read, 0, 1, kEffect},
    {"read-u8", p_read_u8, 0, 1, kEffect},
    {"peek-u8", p_peek_u8, 0, 1, kEffect},
    {"u8-ready?", p_u8_ready_p, 0, 1, kEffect},
    {"read-bytevector", p_read_bytevector, 1, 2, kEffect},
    {"read-bytevector!", p_read_bytevector_x, 1, 4, kEffect},
    {"write-char", p_write_char, 1, 2, kEffect},
    {"write-string", p_write_string, 1, 4, kEffect},
    {"write-u8", p_write_u8, 1, 2, kEffect},
    {"write-bytevector", p_write_bytevector, 1, 4, kEffect},
    {"newline", p_newline, 0, 1, kEffect},
    {"fresh-line", p_fresh_line, 0, 1, kEffect},
    {"write", p_write, 1, 2, kEffect,
     kFacts.differentiable(&kDNoFlow)},
    {"display", p_display, 1, 2, kEffect,
     kFacts.differentiable(&kDNoFlow)},
    {"write-shared", p_write_shared, 1, 2, kEffect,
     kFacts.differentiable(&kDNoFlow)},
    {"write-simple", p_write_simple, 1, 2, kEffect,
     kFacts.differentiable(&kDNoFlow)},
    {"flush-output-port", p_flush_output_port, 0, 1, kEffect},
    {"eof-object", p_eof_object, 0, 0, kPureFold},
    {"eof-object?", p_eof_object_p, 1, 1, kPureFold,
     kFacts.jit_as(JitRecipe::kEof)},
    {"open-input-file", p_open_input_file, 1, 1, kEffect},
    {"open-binary-input-file", p_open_binary_input_file, 1, 1, kEffect},
    {"open-output-file", p_open_output_file, 1, 1, kEffect},
    {"open-binary-output-file", p_open_binary_output_file, 1, 1, kEffect},
    {"file-exists?", p_file_exists_p, 1, 1, kEffect},
    {"delete-file", p_delete_file, 1, 1, kEffect},
};

}  // namespace

void register_port_primitives(Environment* env) {
  install_primitives(env, kPortPrims);
  env->define(intern("current-input-port"), current_input_port_param());
  env->define(intern("current-output-port"), current_output_port_param());
  env->define(intern("current-error-port"), current_error_port_param());
}

}  // namespace quasi
