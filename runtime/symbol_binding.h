#pragma once
// Binding torch-spyre's symbolic dims (dynamic shapes) to values at run time.
// torch-spyre writes a symbolic dim's maximum in N_ and ss_ (Sdsc::SymbolicDim)
// and its runtime does not bind the symbols yet (its issue #2434): a program
// loaded as it is runs at the maximum. Given a value per symbol (`run --dim
// s0=VALUE`), each kernel with a dim that symbol sizes runs that many along
// it: its buffers keep the maximum's layout (they were allocated for it), the
// kernel's iteration and every core's part shrink to the value.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/program.h"

namespace spyre {

using SymbolValues = std::map<std::string, int64_t>;

// Parses "NAME=VALUE" (a symbol and a positive integer) from `flag`'s text.
std::pair<std::string, int64_t> parse_symbol_value(const std::string& text, const std::string& flag);

// Binds the symbols `values` names in every kernel of `program` (SymbolicDim::bound).
// Throws SpyreError, one line: a symbol no kernel has (unless
// `unknown_symbols_ok`: one program of several, a kernel cache); a value above a
// kernel's maximum, below 1 or not a multiple of its granularity; a bound dim
// split over cores (its per-core start addresses were written for the
// maximum, and torch-spyre's runtime leaves where a smaller slice starts open)
// or padded to whole sticks (coordinateMasking_).
void bind_symbols(Program& program, const SymbolValues& values, bool unknown_symbols_ok = false);

}  // namespace spyre
