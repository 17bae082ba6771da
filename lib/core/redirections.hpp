// redirections.hpp — a count of the times compiled code was moved to new cells.
//
// engine/redefinition.hpp: a later define of a built-in reaches code compiled before it, and its
// Proto::source. Caches of what was made from that code (lib/ad's transforms) are dropped when
// the count changes.
#pragma once

#include <cstdint>

namespace quasi {

extern uint64_t code_redirections;  // defined in core/procedure.cpp

}  // namespace quasi
