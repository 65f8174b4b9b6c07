#include "sim/checks/program_checks.h"

#include <set>

namespace spyre::sim {

namespace {

Hazard finding(const Program& p, const Kernel& k, const std::string& kind, const std::string& tensor,
               std::vector<int> cores, const std::string& detail) {
  return {kind, p.bundles[static_cast<size_t>(k.bundle)].name, k.label, tensor, std::move(cores), -1.0, detail};
}

void check_spans(const Program& p, const Kernel& k, const DeviceLimits& limits, std::vector<Hazard>& out) {
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const TensorBinding& b = k.tensors[t];
    if (b.component != MemComponent::Hbm) continue;
    std::vector<int> wide;
    int64_t widest = 0;
    for (const auto& [core, box] : b.core_box) {
      const auto runs = b.layout.box_runs(box.origin, box.extent);
      if (runs.empty()) continue;
      const int64_t first = b.hbm_base + runs.front().first, end = b.hbm_base + runs.back().first + runs.back().second;
      if (end - first > limits.span_limit_bytes) {
        wide.push_back(core);
        widest = std::max(widest, end - first);
      }
    }
    const std::string name = k.sdsc->tensors[t].name;
    if (!wide.empty()) {
      out.push_back(finding(p, k, "span", name, wide,
                            "a core's bytes of this tensor span " + std::to_string(widest) +
                                " bytes of HBM, more than the " + std::to_string(limits.span_limit_bytes) +
                                "-byte span a core can address"));
    }
  }
}

// A core's slice of a stick dim must be whole sticks (or the whole dim): the
// DMA moves whole sticks, so two cores would write the same stick. The same
// for a two-dim stick's row dim: its rows share a stick.
void check_whole_sticks(const Program& p, const Kernel& k, std::vector<Hazard>& out) {
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const TensorBinding& b = k.tensors[t];
    for (const LayoutDim& stick : b.layout.dims()) {
      if (!stick.stick || stick.per_unit == 1) continue;
      std::vector<int> ragged;
      for (const auto& [core, box] : b.core_box) {
        const auto e = box.extent.find(stick.name);
        if (e == box.extent.end()) continue;
        const auto o = box.origin.find(stick.name);
        const int64_t origin = o == box.origin.end() ? 0 : o->second;
        const bool whole_dim = b.component == MemComponent::Hbm ? e->second == stick.extent : true;
        const bool whole_units = e->second % stick.per_unit == 0 && origin % stick.per_unit == 0;
        if (!whole_dim && !whole_units) ragged.push_back(core);
      }
      if (ragged.empty()) continue;
      const bool rows = stick.name != b.layout.stick_dim();
      out.push_back(finding(p, k, "work_division", k.sdsc->tensors[t].name, ragged,
                            "a core's slice of the stick" + std::string(rows ? "'s row dim " : " dim ") + stick.name +
                                " is not a whole number of " + std::to_string(stick.per_unit) +
                                (rows ? "-row sticks" : "-element sticks") + ": cores share sticks"));
    }
  }
}

}  // namespace

std::vector<Hazard> check_program(const Program& p, const DeviceLimits& limits) {
  std::vector<Hazard> out;
  auto storage = [&](int h) {
    return h >= 0 && p.host_tensors[static_cast<size_t>(h)].storage >= 0
               ? p.host_tensors[static_cast<size_t>(h)].storage
               : h;
  };
  std::set<int> written;
  std::set<int> reported;
  for (const Kernel& k : p.kernels) {
    check_spans(p, k, limits, out);
    check_whole_sticks(p, k, out);
    for (size_t t = 0; t < k.tensors.size(); ++t) {
      const TensorBinding& b = k.tensors[t];
      if (b.component != MemComponent::Hbm || !b.read || b.host_tensor < 0) continue;
      const int h = storage(b.host_tensor);
      const HostTensor& host = p.host_tensors[static_cast<size_t>(h)];
      const bool produced_on_device = host.role == "output" || host.role == "intermediate";
      if (produced_on_device && !written.count(h) && reported.insert(h).second) {
        out.push_back(finding(p, k, "hbm_read_before_write", host.name, {},
                              "reads the " + host.role + " '" + host.name + "' before any earlier SDSC wrote it"));
      }
    }
    for (const auto& b : k.tensors) {
      if (b.component == MemComponent::Hbm && b.written && b.host_tensor >= 0) written.insert(storage(b.host_tensor));
    }
  }
  return out;
}

}  // namespace spyre::sim
