#pragma once
// Binding torch-spyre's symbolic dims (dynamic shapes) to values at run time.
// torch-spyre writes a symbolic dim's maximum in N_ and ss_ (Sdsc::SymbolicDim)
// and its runtime does not bind the symbols yet (its issue #2434): a program
// loaded as it is runs at the maximum. Given a value per symbol (`run --dim
// s0=VALUE`), each kernel with a dim that symbol sizes runs that many along
// it: its buffers keep the maximum's layout (they were allocated for it), the
// kernel's iteration and every core's part shrink to the value.

#include <cstdint>
#include <functional>
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
// `bound_by` names what gave each symbol's value (the report's "s0 = 24 (x.npy's
// shape; ...)"), "--dim" where it does not say. The host tensors a bound dim
// sizes (HostTensor::dims in the kernel's names) take the bound size: inputs
// are given and outputs come back at it.
void bind_symbols(Program& program, const SymbolValues& values, bool unknown_symbols_ok = false,
                  const std::map<std::string, std::string>& bound_by = {});

// The symbols the shapes of given inputs bind (torch-spyre's dynamic shapes:
// the inputs say the sizes): an input given with fewer elements along a host
// dim a symbol sizes than its maximum binds the symbol to that many.
// `source(name)` names an input in messages ("x.npy"); `bound_by` gets "x.npy's
// shape" per symbol bound. Two inputs giving one symbol two values is one line.
SymbolValues symbols_from_shapes(const Program& program, const std::map<std::string, std::vector<int64_t>>& shapes,
                                 const std::function<std::string(const std::string&)>& source,
                                 std::map<std::string, std::string>& bound_by);

}  // namespace spyre
