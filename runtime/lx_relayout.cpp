#include "runtime/lx_relayout.h"

#include <optional>
#include <string>
#include <utility>

#include "runtime/op_registry.h"
#include "runtime/tensor_layout.h"

namespace spyre {

namespace {

bool shuffles(const Sdsc& sdsc) {
  for (const auto& op : sdsc.ops) {
    if (op.info->kind == OpKind::Shuffle) return true;  // its states say where the parts are
  }
  return false;
}

std::string name_of(const Kernel& kernel, size_t t) { return kernel.label + " " + kernel.sdsc->tensors[t].name; }

// A core's part as byte runs of the whole tensor laid out densely: the frame
// in which SDSCs that name, merge or split dims differently agree.
ByteRuns part_runs(const TensorLayout& whole, const Box& box) { return whole.box_runs(box.origin, box.extent); }

std::string describe_runs(const ByteRuns& runs) {
  if (runs.empty()) return "nothing";
  const int64_t first = runs.front().first, end = runs.back().first + runs.back().second;
  std::string text = "bytes [" + std::to_string(first) + ", " + std::to_string(end) + ")";
  if (runs.size() > 1)
    text += " (" + std::to_string(total_bytes(runs)) + " in " + std::to_string(runs.size()) + " runs)";
  return text;
}

LxHolding holding_of(const Kernel& writer, size_t t) {
  const TensorBinding& w = writer.tensors[t];
  LxHolding held;
  held.address = w.lx_address;
  for (const auto& [core, address] : w.lx_address) held.box[core] = w.core_box.at(core);
  held.layout = w.layout;
  held.whole = whole_tensor_layout(*writer.sdsc, static_cast<int>(t));
  held.writer = name_of(writer, t);
  return held;
}

// The latest earlier SDSC that wrote LX where kernel k reads tensor t (the
// same address on a core both use). It is the writer when it wrote the same
// tensor; when it wrote another, nothing earlier is.
std::optional<std::pair<size_t, size_t>> find_writer(const Program& program, size_t k, size_t t,
                                                     const TensorLayout& whole) {
  const TensorBinding& b = program.kernels[k].tensors[t];
  const DataFormat format = program.kernels[k].sdsc->tensors[t].format;
  for (size_t kk = k; kk-- > 0;) {
    const Kernel& writer = program.kernels[kk];
    for (size_t tt = 0; tt < writer.tensors.size(); ++tt) {
      const TensorBinding& w = writer.tensors[tt];
      if (w.component != MemComponent::Lx || !w.written) continue;
      bool same_place = false;
      for (const auto& [core, address] : b.lx_address) {
        const auto it = w.lx_address.find(core);
        same_place = same_place || (it != w.lx_address.end() && it->second == address);
      }
      if (!same_place) continue;
      if (writer.sdsc->tensors[tt].format == format &&
          whole_tensor_layout(*writer.sdsc, static_cast<int>(tt)).same_bytes_reshaped(whole)) {
        return std::make_pair(kk, tt);
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

// True when the holders together hold every part the SDSC computes on.
bool covers(const LxHolding& held, const TensorBinding& b, const TensorLayout& whole) {
  ByteRuns all;
  for (const auto& [core, box] : held.box) {
    for (const auto& run : part_runs(held.whole, box)) all.push_back(run);
  }
  all = merge_runs(std::move(all));
  for (const auto& [core, box] : b.core_box) {
    const ByteRuns need = part_runs(whole, box);
    if (overlap_bytes(need, all) != total_bytes(need)) return false;
  }
  return true;
}

// Cores that do not hold, at the address they read, exactly the part they compute on.
std::vector<int> cores_to_move(const TensorBinding& b, const TensorLayout& whole, const LxHolding& held) {
  std::vector<int> cores;
  for (const auto& [core, box] : b.core_box) {
    const auto address = held.address.find(core);
    const bool in_place = address != held.address.end() && address->second == b.lx_address.at(core) &&
                          held.layout.size_bytes() == b.layout.size_bytes() &&
                          part_runs(held.whole, held.box.at(core)) == part_runs(whole, box);
    if (!in_place) cores.push_back(core);
  }
  return cores;
}

// "core 1 computes on bytes [...) of the whole tensor; sdsc_0.json Tensor1 left them on core 0"
std::string where_parts_are(const TensorBinding& b, const TensorLayout& whole, const LxHolding& held, int core) {
  const ByteRuns need = part_runs(whole, b.core_box.at(core));
  std::string holders;
  for (const auto& [holder, box] : held.box) {
    if (overlap_bytes(need, part_runs(held.whole, box)) == 0) continue;
    holders += (holders.empty() ? "" : ", ") + std::to_string(holder);
  }
  return "core " + std::to_string(core) + " computes on " + describe_runs(need) + " of the " +
         std::to_string(whole.size_bytes()) + "-byte tensor, which " + held.writer + " left on core(s) " + holders;
}

}  // namespace

std::vector<Hazard> locate_lx_inputs(Program& program) {
  std::vector<Hazard> found;
  for (size_t k = 0; k < program.kernels.size(); ++k) {
    Kernel& kernel = program.kernels[k];
    if (shuffles(*kernel.sdsc)) continue;
    const std::string& bundle = program.bundles[static_cast<size_t>(kernel.bundle)].name;
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      TensorBinding& b = kernel.tensors[t];
      if (b.component != MemComponent::Lx || !b.read) continue;
      const TensorLayout whole = whole_tensor_layout(*kernel.sdsc, static_cast<int>(t));
      const auto writer = find_writer(program, k, t, whole);
      if (!writer) continue;  // as the allocation says (bound so)
      LxHolding from_writer = holding_of(program.kernels[writer->first], writer->second);
      if (!covers(from_writer, b, whole)) continue;  // lx_hazards judges what the cores find
      const std::vector<int> moved = cores_to_move(b, whole, from_writer);
      const std::string tensor = kernel.sdsc->tensors[t].name;
      if (b.relayout) {
        std::vector<int> differ;
        for (const auto& [core, box] : b.held.box) {
          const auto w = from_writer.box.find(core);
          if (w == from_writer.box.end() || part_runs(b.held.whole, box) != part_runs(from_writer.whole, w->second)) {
            differ.push_back(core);
          }
        }
        if (!differ.empty()) {
          const int c = differ.front();
          const auto w = from_writer.box.find(c);
          found.push_back({"lx_relayout_annotation", bundle, kernel.label, tensor, differ, -1,
                           "the allocation's coreIdToWkSlice_ puts " +
                               describe_runs(part_runs(b.held.whole, b.held.box.at(c))) + " of the tensor on core " +
                               std::to_string(c) + ", but " + from_writer.writer + " left " +
                               (w == from_writer.box.end() ? std::string("nothing")
                                                           : describe_runs(part_runs(from_writer.whole, w->second))) +
                               " there; moved from where the writer left them"});
        }
      } else if (!moved.empty()) {
        // Name a core that needs bytes another core holds, where there is one.
        int shown = moved.front();
        for (int core : moved) {
          if (!from_writer.box.count(core)) {
            shown = core;
            break;
          }
        }
        found.push_back({"core_div_mismatch", bundle, kernel.label, tensor, moved, -1,
                         where_parts_are(b, whole, from_writer, shown) +
                             "; the allocation has no coreIdToWkSlice_ asking for the move (simulated as moved over "
                             "the data ring)"});
      }
      b.relayout = !moved.empty();
      b.held = moved.empty() ? LxHolding{} : std::move(from_writer);
    }
  }
  return found;
}

}  // namespace spyre
