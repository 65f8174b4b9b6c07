#include "runtime/hazard.h"

#include <cstdio>

namespace spyre {

namespace {

std::string format_cores(const std::vector<int>& cores) {
  if (cores.empty()) return "all cores";
  std::string out = cores.size() == 1 ? "core " : "cores ";
  // Compress runs: 0-3,7
  for (size_t i = 0; i < cores.size();) {
    size_t j = i;
    while (j + 1 < cores.size() && cores[j + 1] == cores[j] + 1) ++j;
    if (i > 0) out += ",";
    out += std::to_string(cores[i]);
    if (j > i) out += "-" + std::to_string(cores[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string format_hazard(const Hazard& h) {
  std::string where = h.bundle.empty() ? h.file : h.bundle + "/" + h.file;
  std::string line = h.kind + " " + where + " " + h.tensor + " " + format_cores(h.cores);
  if (h.time_us >= 0) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " t=%.3fus", h.time_us);
    line += buf;
  }
  return line + ": " + h.detail;
}

}  // namespace spyre
