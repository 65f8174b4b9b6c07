#include "sim/lx_hazards.h"

#include <map>

namespace spyre::sim {

std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us, bool wipe_at_bundles) {
  constexpr int64_t kStick = 128;
  std::vector<Hazard> found;
  std::map<int, std::vector<int>> writer;  // core -> per stick: the bundle that last wrote it, -1 none
  auto sticks_of = [&](int core) -> std::vector<int>& {
    auto& v = writer[core];
    if (v.empty()) v.assign(static_cast<size_t>(lx_bytes / kStick), -1);
    return v;
  };
  auto report = [&](size_t k, size_t t, const char* kind, const std::vector<int>& cores, const std::string& why) {
    const Kernel& kernel = program.kernels[k];
    const TensorBinding& b = kernel.tensors[t];
    const int64_t first = b.lx_address.at(cores.front());
    found.push_back({kind, program.bundles[static_cast<size_t>(kernel.bundle)].name, kernel.label, kernel.sdsc->tensors[t].name, cores,
                     k < kernel_start_us.size() ? kernel_start_us[k] : -1.0,
                     "reads LX [" + std::to_string(first) + ", " + std::to_string(first + b.layout.size_bytes()) + ") " + why});
  };
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.read) continue;
      std::vector<int> missing, wiped;
      int wiped_bundle = -1;
      for (const auto& [core, address] : b.lx_address) {
        const auto& w = sticks_of(core);
        for (int64_t s = address / kStick; s < (address + b.layout.size_bytes() + kStick - 1) / kStick; ++s) {
          const int by = w[static_cast<size_t>(s)];
          if (by < 0) {
            missing.push_back(core);
            break;
          }
          if (wipe_at_bundles && by != kernel.bundle) {
            wiped.push_back(core);
            wiped_bundle = by;
            break;
          }
        }
      }
      if (!missing.empty()) report(k, t, "lx_uninitialized_read", missing, "that no earlier SDSC of the program wrote on these cores");
      if (!wiped.empty()) {
        report(k, t, "lx_wiped_read", wiped,
               "written in bundle " + program.bundles[static_cast<size_t>(wiped_bundle)].name + "; with --vf LX is wiped at every bundle boundary");
      }
    }
    for (const auto& b : kernel.tensors) {
      if (b.component != MemComponent::Lx || !b.written) continue;
      for (const auto& [core, address] : b.lx_address) {
        auto& w = sticks_of(core);
        for (int64_t s = address / kStick; s < (address + b.layout.size_bytes() + kStick - 1) / kStick; ++s) w[static_cast<size_t>(s)] = kernel.bundle;
      }
    }
  }
  return found;
}

}  // namespace spyre::sim
