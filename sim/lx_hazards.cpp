#include "sim/lx_hazards.h"

#include <map>

namespace spyre::sim {

std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us) {
  constexpr int64_t kStick = 128;
  std::vector<Hazard> found;
  std::map<int, std::vector<bool>> written;  // core -> stick written by the program
  auto sticks_of = [&](int core) -> std::vector<bool>& {
    auto& v = written[core];
    if (v.empty()) v.assign(static_cast<size_t>(lx_bytes / kStick), false);
    return v;
  };
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.read) continue;
      std::vector<int> cores;
      for (const auto& [core, address] : b.lx_address) {
        const auto& w = sticks_of(core);
        for (int64_t s = address / kStick; s < (address + b.layout.size_bytes() + kStick - 1) / kStick; ++s) {
          if (!w[static_cast<size_t>(s)]) {
            cores.push_back(core);
            break;
          }
        }
      }
      if (!cores.empty()) {
        const auto& first = b.lx_address.at(cores.front());
        found.push_back({"lx_uninitialized_read", program.bundles[static_cast<size_t>(kernel.bundle)].name, kernel.label,
                         kernel.sdsc->tensors[t].name, cores, k < kernel_start_us.size() ? kernel_start_us[k] : -1.0,
                         "reads LX [" + std::to_string(first) + ", " + std::to_string(first + b.layout.size_bytes()) +
                             ") that no earlier SDSC of the program wrote on these cores"});
      }
    }
    for (const auto& b : kernel.tensors) {
      if (b.component != MemComponent::Lx || !b.written) continue;
      for (const auto& [core, address] : b.lx_address) {
        auto& w = sticks_of(core);
        for (int64_t s = address / kStick; s < (address + b.layout.size_bytes() + kStick - 1) / kStick; ++s) w[static_cast<size_t>(s)] = true;
      }
    }
  }
  return found;
}

}  // namespace spyre::sim
