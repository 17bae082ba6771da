// reader.hpp — turns text into datums, remembering where each list came from.
//
// Covers R7RS lexical syntax: comments (; #| |# #;), strings with all escapes, characters,
// numbers (through parse_number), quote forms, vectors, bytevectors, dotted pairs, |symbols|,
// #true/#false, datum labels #n= #n#, #!fold-case / #!no-fold-case. Every pair read gets the
// packed location of its opening parenthesis in its header (object.hpp: pair_srcloc). Malformed
// input throws SchemeError with a Condition of kind 'read whose message starts with the location.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/srcloc.hpp"
#include "core/value.hpp"

namespace quasi {

// A stream of Unicode code points with position tracking. Ports implement it too.
class CharSource {
 public:
  virtual ~CharSource() = default;
  // Next code point without consuming it; -1 at end of input.
  virtual int32_t peek() = 0;
  // Consumes and returns the next code point; -1 at end of input. Invalid UTF-8 is reported by
  // returning -2 (the reader turns it into a read error).
  virtual int32_t next() = 0;
  virtual SrcLoc location() const = 0;  // of the next code point
};

// Reads UTF-8 text held in memory.
class StringSource : public CharSource {
 public:
  StringSource(std::string_view text, uint32_t file_id, uint32_t line = 1, uint32_t col = 1);
  int32_t peek() override;
  int32_t next() override;
  SrcLoc location() const override;

 private:
  std::string_view text_;
  size_t pos_ = 0;
  uint32_t file_, line_, col_;
};

class Reader {
 public:
  explicit Reader(CharSource& src);
  // The next datum, or kEof when only whitespace and comments remain.
  Value read();
  bool fold_case() const { return fold_case_; }
  void set_fold_case(bool on) { fold_case_ = on; }
  // True when the last read() failed because the input ended inside a datum (open list, string,
  // block comment, after a quote or #;). False after a success or any other read error.
  bool incomplete() const { return incomplete_; }
  // Where the datum the last read() returned starts (atoms carry no location of their own: a
  // top-level symbol's unbound-variable error is placed here).
  SrcLoc datum_start() const { return datum_start_; }

 private:
  class Impl;
  CharSource& src_;
  bool fold_case_ = false;
  bool incomplete_ = false;
  SrcLoc datum_start_;
  friend class Impl;
};

// True when `text` ends inside an unfinished datum (open list, string, block comment): the REPL
// then asks for another line. Malformed but complete text returns false (reading reports it).
bool datum_incomplete(std::string_view text);

// Lexical classes shared with ports and the printer: whitespace (incl. Unicode spaces) and the
// characters that end an identifier or number token (whitespace ( ) [ ] " ; | and end of input).
bool reader_is_whitespace(int32_t c);
bool reader_is_delimiter(int32_t c);

}  // namespace quasi
