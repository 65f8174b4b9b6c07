#pragma once
// A hazard: something in a program that is legal to run but would compute
// wrong or stale values on a card (a layout mismatch, an LX region used by two
// live tensors, ...). Found statically while binding a program or dynamically
// while simulating it; reported, never silently ignored.

#include <string>
#include <vector>

namespace spyre {

struct Hazard {
  std::string kind;        // e.g. "layout_mismatch", "lx_uninitialized_read"
  std::string bundle;      // bundle directory name
  std::string file;        // sdsc file of the access that exposes it
  std::string tensor;      // tensor name (Tensor2, arg0_262144, ...)
  std::vector<int> cores;  // affected cores (empty: all / not core-specific)
  double time_us = -1.0;   // simulated time, or -1 for static findings
  std::string detail;      // what was expected, in one sentence
};

// "kind bundle/file tensor cores t=...: detail" on one line.
std::string format_hazard(const Hazard& hazard);

}  // namespace spyre
