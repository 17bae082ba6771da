// printer.hpp — external representations: `write`, `display`, `write-shared`, `write-simple`.
//
// `write` uses datum labels (#0= / #0#) only for cycles; `write-shared` for every shared
// structure; `write-simple` never (may not terminate on cycles). Strings and characters are
// escaped by write and raw for display. Non-datum objects print as #<procedure name>, #<port>, ...
#pragma once

#include <string>

#include "core/value.hpp"

namespace quasi {

enum class PrintMode { Write, Display, WriteShared, WriteSimple };

void print_value(std::string& out, Value v, PrintMode mode = PrintMode::Write);
// `limit` > 0 truncates the text to about that many bytes, ending in "..." (for error messages).
std::string write_to_string(Value v, size_t limit = 0);
std::string display_to_string(Value v);

}  // namespace quasi
