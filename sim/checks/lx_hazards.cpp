#include "sim/checks/lx_hazards.h"

#include <algorithm>
#include <map>

#include "runtime/tensor_layout.h"

namespace spyre::sim {

namespace {


// What an SDSC wrote to one core's LX: a value, live until its last reader.
struct Value {
  size_t kernel;
  size_t tensor;
  int64_t address, bytes;
  std::vector<std::pair<int64_t, int64_t>> part;  // the writer's part of the tensor on this core (layout_part)
  size_t last_read = 0;     // kernel of the last read attributed to it (when `read`)
  bool read = false;
};

// A core's part of a tensor as (first, extent) per layout dim that has more
// than one unit, innermost first: dim names differ between SDSCs, the layout
// order does not.
std::vector<std::pair<int64_t, int64_t>> layout_part(const TensorBinding& b, int core) {
  std::vector<std::pair<int64_t, int64_t>> part;
  const Box& box = b.core_box.at(core);
  for (const auto& d : b.layout.dims()) {
    if (d.count <= 1) continue;
    const auto o = box.origin.find(d.name);
    const auto e = box.extent.find(d.name);
    part.emplace_back(o == box.origin.end() ? 0 : o->second, e == box.extent.end() ? 1 : e->second);
  }
  return part;
}

}  // namespace

std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us, bool wipe_at_bundles) {
  std::vector<Hazard> found;
  auto report = [&](size_t k, size_t t, const char* kind, std::vector<int> cores, const std::string& detail) {
    const Kernel& kernel = program.kernels[k];
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    found.push_back({kind, program.bundles[static_cast<size_t>(kernel.bundle)].name, kernel.label, kernel.sdsc->tensors[t].name, cores,
                     k < kernel_start_us.size() ? kernel_start_us[k] : -1.0, detail});
  };
  auto range = [](int64_t a, int64_t b) { return "[" + std::to_string(a) + ", " + std::to_string(a + b) + ")"; };

  // Pass 1: attribute every LX read to the latest earlier write of exactly
  // that range on that core, so each value knows its last reader.
  std::vector<Value> values;
  std::map<std::tuple<int, int64_t, int64_t>, size_t> latest;  // (core, address, bytes) -> value
  std::map<std::pair<size_t, size_t>, std::map<int, size_t>> read_of;  // (kernel, tensor) -> core -> value
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.read) continue;
      for (const auto& [core, address] : b.lx_address) {
        auto it = latest.find({core, address, b.layout.size_bytes()});
        if (it == latest.end()) continue;
        values[it->second].last_read = k;
        values[it->second].read = true;
        read_of[{k, t}][core] = it->second;
      }
    }
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.written) continue;
      for (const auto& [core, address] : b.lx_address) {
        latest[{core, address, b.layout.size_bytes()}] = values.size();
        values.push_back({k, t, address, b.layout.size_bytes(), layout_part(b, core)});
      }
    }
  }

  // Pass 2: per stick, the value holding it now; reads check what they find,
  // writes check whom they overwrite.
  std::map<int, std::vector<int64_t>> holder;  // core -> per stick: value index, -1 none
  auto sticks_of = [&](int core) -> std::vector<int64_t>& {
    auto& v = holder[core];
    if (v.empty()) v.assign(static_cast<size_t>(lx_bytes / kStickBytes), -1);
    return v;
  };
  size_t next_value = 0;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    const Kernel& kernel = program.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.read) continue;
      std::vector<int> missing, wiped, stale, mismatch;
      std::string stale_detail, mismatch_detail, wiped_bundle;
      for (const auto& [core, address] : b.lx_address) {
        const auto& h = sticks_of(core);
        std::vector<int64_t> seen;
        for (int64_t s = address / kStickBytes; s < (address + b.layout.size_bytes() + kStickBytes - 1) / kStickBytes; ++s) seen.push_back(h[static_cast<size_t>(s)]);
        if (std::find(seen.begin(), seen.end(), -1) != seen.end()) {
          missing.push_back(core);
          continue;
        }
        const auto attributed = read_of.count({k, t}) && read_of[{k, t}].count(core) ? static_cast<int64_t>(read_of[{k, t}][core]) : -1;
        const bool one = std::all_of(seen.begin(), seen.end(), [&](int64_t v) { return v == seen.front(); });
        if (!one || seen.front() != attributed) {
          stale.push_back(core);
          const Value& other = values[static_cast<size_t>(seen.back())];
          stale_detail = "reads LX " + range(address, b.layout.size_bytes()) + ", but " + program.kernels[other.kernel].label + " " +
                         program.kernels[other.kernel].sdsc->tensors[other.tensor].name + " wrote " + range(other.address, other.bytes) +
                         " over the data it expects";
          continue;
        }
        const Value& v = values[static_cast<size_t>(attributed)];
        if (wipe_at_bundles && program.kernels[v.kernel].bundle != kernel.bundle) {
          wiped.push_back(core);
          wiped_bundle = program.bundles[static_cast<size_t>(program.kernels[v.kernel].bundle)].name;
          continue;
        }
        if (layout_part(b, core) != v.part) {
          mismatch.push_back(core);
          mismatch_detail = "core " + std::to_string(core) + "'s LX holds the slice " + program.kernels[v.kernel].label +
                            " computed for it, not the slice this SDSC expects of the core (the ops divide the tensor over the cores differently; "
                            "no ring transfer moves it)";
        }
      }
      if (!missing.empty()) report(k, t, "lx_uninitialized_read", missing, "reads LX " + range(b.lx_address.at(missing.front()), b.layout.size_bytes()) + " that no earlier SDSC of the program wrote on these cores");
      if (!stale.empty()) report(k, t, "lx_stale_read", stale, stale_detail);
      if (!wiped.empty()) {
        report(k, t, "lx_wiped_read", wiped, "reads LX " + range(b.lx_address.at(wiped.front()), b.layout.size_bytes()) + " written in bundle " + wiped_bundle +
                                                  "; with --vf LX is wiped at every bundle boundary");
      }
      if (!mismatch.empty()) report(k, t, "core_div_mismatch", mismatch, mismatch_detail);
    }
    // Writes, in the order pass 1 numbered them.
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.written) continue;
      std::vector<int> clobbering;
      std::string detail;
      for (const auto& [core, address] : b.lx_address) {
        auto& h = sticks_of(core);
        const auto me = static_cast<int64_t>(next_value++);
        for (int64_t s = address / kStickBytes; s < (address + b.layout.size_bytes() + kStickBytes - 1) / kStickBytes; ++s) {
          const int64_t old = h[static_cast<size_t>(s)];
          // Overwriting a value that is read after this SDSC: the two
          // tensors share LX while both are live. (In place is legal: the
          // parent's last read is this SDSC.)
          if (old >= 0 && values[static_cast<size_t>(old)].read && values[static_cast<size_t>(old)].last_read > k &&
              values[static_cast<size_t>(old)].kernel != k) {
            if (clobbering.empty() || clobbering.back() != core) clobbering.push_back(core);
            const Value& v = values[static_cast<size_t>(old)];
            detail = "writes LX " + range(address, b.layout.size_bytes()) + " over " + program.kernels[v.kernel].label + " " +
                     program.kernels[v.kernel].sdsc->tensors[v.tensor].name + " " + range(v.address, v.bytes) + ", which " +
                     program.kernels[v.last_read].label + " still reads";
          }
          h[static_cast<size_t>(s)] = me;
        }
      }
      if (!clobbering.empty()) report(k, t, "lx_overlap", clobbering, detail);
    }
  }
  return found;
}

}  // namespace spyre::sim
