#include "sim/checks/lx_hazards.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "runtime/tensor_layout.h"

namespace spyre::sim {

namespace {

// What an SDSC wrote to one core's LX: a value, live until its last reader.
struct Value {
  size_t kernel;
  size_t tensor;
  int64_t address, bytes;
  std::vector<std::pair<int64_t, int64_t>> part;  // the writer's part of the tensor on this core (layout_part)
  size_t last_read = 0;                           // kernel of the last read attributed to it (when `read`)
  bool read = false;
};

// A core's part of a tensor: the byte runs its box covers in the whole
// tensor laid out densely, after the whole tensor's size. Dim names and
// splits of the stick differ between SDSCs (one writes [mb, y, x, i], the
// next reads [mb, out, x] with y x i = out); the bytes do not.
std::vector<std::pair<int64_t, int64_t>> layout_part(const TensorLayout& whole, const Box& box) {
  std::vector<std::pair<int64_t, int64_t>> part{{whole.size_bytes(), 0}};
  for (const auto& run : whole.box_runs(box.origin, box.extent)) part.push_back(run);
  return part;
}

// What a core wrote, and what a read finds there: a relayouted input is read
// where its holders keep it (TensorBinding::held).
std::vector<std::pair<int64_t, int64_t>> written_part(const Kernel& kernel, size_t tensor, int core) {
  return layout_part(whole_tensor_layout(*kernel.sdsc, static_cast<int>(tensor)),
                     kernel.tensors[tensor].core_box.at(core));
}
std::vector<std::pair<int64_t, int64_t>> read_part(const Kernel& kernel, size_t tensor, int core) {
  const TensorBinding& b = kernel.tensors[tensor];
  if (!b.relayout) return written_part(kernel, tensor, core);
  return layout_part(b.held.whole, b.held.box.at(core));
}

std::string range(int64_t address, int64_t bytes) {
  return "[" + std::to_string(address) + ", " + std::to_string(address + bytes) + ")";
}

// Every element at the same offset: the layouts differ at most in dim names.
bool same_placement(const TensorLayout& a, const TensorLayout& b) {
  if (a.size_bytes() != b.size_bytes() || a.elem_bytes() != b.elem_bytes() || !a.same_stick_as(b) ||
      a.dims().size() != b.dims().size())
    return false;
  for (size_t d = 0; d < a.dims().size(); ++d) {
    const LayoutDim &x = a.dims()[d], &y = b.dims()[d];
    if (x.extent != y.extent || x.count != y.count || x.stride != y.stride || x.gap != y.gap || x.stick != y.stick ||
        x.per_unit != y.per_unit)
      return false;
  }
  return true;
}

bool lx_read(const TensorBinding& b) { return b.component == MemComponent::Lx && b.read; }
bool lx_written(const TensorBinding& b) { return b.component == MemComponent::Lx && b.written; }

// Follows every core's LX through the program, value by value.
class LxValueTracker {
 public:
  LxValueTracker(const Program& program, int64_t lx_bytes, const std::vector<double>& kernel_start_us,
                 bool wipe_at_bundles)
      : program_(program), lx_bytes_(lx_bytes), kernel_start_us_(kernel_start_us), wipe_at_bundles_(wipe_at_bundles) {}

  std::vector<Hazard> run() {
    attribute_reads();
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      check_reads(k);
      check_overlap_within(k);
      apply_writes(k);
    }
    return found_;
  }

 private:
  // Pass 1: attribute every LX read to the latest earlier write of exactly
  // that range on that core, so each value knows its last reader.
  void attribute_reads() {
    std::map<std::tuple<int, int64_t, int64_t>, size_t> latest;  // (core, address, bytes) -> value
    for (size_t k = 0; k < program_.kernels.size(); ++k) {
      const Kernel& kernel = program_.kernels[k];
      for (size_t t = 0; t < kernel.tensors.size(); ++t) {
        const TensorBinding& b = kernel.tensors[t];
        if (!lx_read(b)) continue;
        for (const auto& [core, address] : b.lx_read_address()) {
          auto it = latest.find({core, address, b.lx_layout().size_bytes()});
          if (it == latest.end()) continue;
          values_[it->second].last_read = k;
          values_[it->second].read = true;
          read_of_[{k, t}][core] = it->second;
        }
      }
      for (size_t t = 0; t < kernel.tensors.size(); ++t) {
        const TensorBinding& b = kernel.tensors[t];
        if (!lx_written(b)) continue;
        for (const auto& [core, address] : b.lx_address) {
          latest[{core, address, b.layout.size_bytes()}] = values_.size();
          values_.push_back({k, t, address, b.layout.size_bytes(), written_part(kernel, t, core)});
        }
      }
    }
  }

  // Per stick of a core's LX: the value holding it now, -1 none.
  std::vector<int64_t>& sticks_of(int core) {
    auto& v = holder_[core];
    if (v.empty()) v.assign(static_cast<size_t>(lx_bytes_ / kStickBytes), -1);
    return v;
  }

  int64_t attributed(size_t kernel, size_t tensor, int core) const {
    const auto reads = read_of_.find({kernel, tensor});
    if (reads == read_of_.end()) return -1;
    const auto value = reads->second.find(core);
    return value == reads->second.end() ? -1 : static_cast<int64_t>(value->second);
  }

  std::string describe(const Value& v) const {
    const Kernel& writer = program_.kernels[v.kernel];
    return writer.label + " " + writer.sdsc->tensors[v.tensor].name;
  }

  // Pass 2, reads: what each read finds in the sticks it covers.
  void check_reads(size_t k) {
    const Kernel& kernel = program_.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (!lx_read(b)) continue;
      std::vector<int> missing, wiped, stale, mismatch;
      std::string stale_detail, mismatch_detail, wiped_bundle;
      for (const auto& [core, address] : b.lx_read_address()) {
        const auto& holder = sticks_of(core);
        std::vector<int64_t> seen;
        for (int64_t s = address / kStickBytes;
             s < (address + b.lx_layout().size_bytes() + kStickBytes - 1) / kStickBytes; ++s) {
          seen.push_back(holder[static_cast<size_t>(s)]);
        }
        if (std::find(seen.begin(), seen.end(), -1) != seen.end()) {
          missing.push_back(core);
          continue;
        }
        const int64_t expected = attributed(k, t, core);
        const bool one = std::all_of(seen.begin(), seen.end(), [&](int64_t v) { return v == seen.front(); });
        if (!one || seen.front() != expected) {
          stale.push_back(core);
          const Value& other = values_[static_cast<size_t>(seen.back())];
          stale_detail = "reads LX " + range(address, b.lx_layout().size_bytes()) + ", but " + describe(other) +
                         " wrote " + range(other.address, other.bytes) + " over the data it expects";
          continue;
        }
        const Value& v = values_[static_cast<size_t>(expected)];
        if (wipe_at_bundles_ && program_.kernels[v.kernel].bundle != kernel.bundle) {
          wiped.push_back(core);
          wiped_bundle = program_.bundles[static_cast<size_t>(program_.kernels[v.kernel].bundle)].name;
          continue;
        }
        if (read_part(kernel, t, core) != v.part) {
          mismatch.push_back(core);
          mismatch_detail =
              "core " + std::to_string(core) + "'s LX holds the slice " + program_.kernels[v.kernel].label +
              " computed for it, not the slice this SDSC expects of the core (the ops divide the tensor over the cores "
              "differently; no ring transfer moves it)";
        }
      }
      const int64_t bytes = b.lx_layout().size_bytes();
      if (!missing.empty()) {
        report(k, t, "lx_uninitialized_read", missing,
               "reads LX " + range(b.lx_read_address().at(missing.front()), bytes) +
                   " that no earlier SDSC of the program wrote on these cores");
      }
      if (!stale.empty()) report(k, t, "lx_stale_read", stale, stale_detail);
      if (!wiped.empty()) {
        report(k, t, "lx_wiped_read", wiped,
               "reads LX " + range(b.lx_read_address().at(wiped.front()), bytes) + " written in bundle " +
                   wiped_bundle + "; with --vf LX is wiped at every bundle boundary");
      }
      if (!mismatch.empty()) report(k, t, "core_div_mismatch", mismatch, mismatch_detail);
    }
  }

  // Pass 2, within one SDSC: its writes stream out while its reads stream in,
  // so a written tensor that shares bytes with a tensor the same SDSC reads
  // overtakes data not yet read (torch-spyre #3222's silent corruption). Exact
  // in place (same address, same placement of every element) is safe: each
  // stick is read before the result for it is written.
  void check_overlap_within(size_t k) {
    const Kernel& kernel = program_.kernels[k];
    for (size_t w = 0; w < kernel.tensors.size(); ++w) {
      const TensorBinding& out = kernel.tensors[w];
      if (!lx_written(out)) continue;
      for (size_t r = 0; r < kernel.tensors.size(); ++r) {
        const TensorBinding& in = kernel.tensors[r];
        if (r == w || !lx_read(in)) continue;
        std::vector<int> cores;
        std::string detail;
        for (const auto& [core, out_address] : out.lx_address) {
          const auto read = in.lx_read_address().find(core);
          if (read == in.lx_read_address().end()) continue;
          const int64_t in_address = read->second, in_bytes = in.lx_layout().size_bytes();
          const int64_t out_bytes = out.layout.size_bytes();
          const int64_t lo = std::max(out_address, in_address);
          const int64_t hi = std::min(out_address + out_bytes, in_address + in_bytes);
          if (lo >= hi || (out_address == in_address && same_placement(out.layout, in.lx_layout()))) continue;
          cores.push_back(core);
          detail = "writes " + kernel.sdsc->tensors[w].name + " to LX " + range(out_address, out_bytes) +
                   " over bytes " + range(lo, hi - lo) + " of " + kernel.sdsc->tensors[r].name + " " +
                   range(in_address, in_bytes) +
                   ", which this SDSC is still reading: the write can overtake unread input (only exact in place, "
                   "same address and layout, is safe)";
        }
        if (!cores.empty()) report(k, w, "lx_partial_overlap", cores, detail);
      }
    }
  }

  // Pass 2, writes (in the order pass 1 numbered them): each takes its
  // sticks; overwriting a value a later SDSC still reads means the two
  // tensors share LX while both are live. (In place is legal: the parent's
  // last read is the writer itself.)
  void apply_writes(size_t k) {
    const Kernel& kernel = program_.kernels[k];
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (!lx_written(b)) continue;
      std::vector<int> clobbering;
      std::string detail;
      for (const auto& [core, address] : b.lx_address) {
        auto& holder = sticks_of(core);
        const auto me = static_cast<int64_t>(next_value_++);
        for (int64_t s = address / kStickBytes; s < (address + b.layout.size_bytes() + kStickBytes - 1) / kStickBytes;
             ++s) {
          const int64_t old = holder[static_cast<size_t>(s)];
          if (old >= 0) {
            const Value& v = values_[static_cast<size_t>(old)];
            if (v.read && v.last_read > k && v.kernel != k) {
              if (clobbering.empty() || clobbering.back() != core) clobbering.push_back(core);
              detail = "writes LX " + range(address, b.layout.size_bytes()) + " over " + describe(v) + " " +
                       range(v.address, v.bytes) + ", which " + program_.kernels[v.last_read].label + " still reads";
            }
          }
          holder[static_cast<size_t>(s)] = me;
        }
      }
      if (!clobbering.empty()) report(k, t, "lx_overlap", clobbering, detail);
    }
  }

  void report(size_t k, size_t t, const char* kind, std::vector<int> cores, const std::string& detail) {
    const Kernel& kernel = program_.kernels[k];
    std::sort(cores.begin(), cores.end());
    cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
    found_.push_back({kind, program_.bundles[static_cast<size_t>(kernel.bundle)].name, kernel.label,
                      kernel.sdsc->tensors[t].name, cores, k < kernel_start_us_.size() ? kernel_start_us_[k] : -1.0,
                      detail});
  }

  const Program& program_;
  int64_t lx_bytes_;
  const std::vector<double>& kernel_start_us_;
  bool wipe_at_bundles_;
  std::vector<Value> values_;
  std::map<std::pair<size_t, size_t>, std::map<int, size_t>> read_of_;  // (kernel, tensor) -> core -> value
  std::map<int, std::vector<int64_t>> holder_;                          // core -> per stick: value index
  size_t next_value_ = 0;
  std::vector<Hazard> found_;
};

}  // namespace

std::vector<Hazard> find_lx_hazards(const Program& program, int64_t lx_bytes,
                                    const std::vector<double>& kernel_start_us, bool wipe_at_bundles) {
  return LxValueTracker(program, lx_bytes, kernel_start_us, wipe_at_bundles).run();
}

}  // namespace spyre::sim
