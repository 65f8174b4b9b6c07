#include "runtime/layout_mismatch.h"

#include <map>

#include "runtime/tensor_layout.h"

namespace spyre {

namespace {

// How a tensor's bytes are to be read: the layout and format they were
// written with, and by whom.
struct Meaning {
  TensorLayout layout;
  DataFormat format = DataFormat::Dl16;
  std::string source;  // "sdsc_1.json Tensor2"

  bool same_as(const Meaning& other) const {
    return format == other.format && layout.same_bytes_reshaped(other.layout);
  }
  std::string text() const { return layout.describe() + " " + data_format_name(format); }
};

// A tensor broadcast along every dim (a constant): the same value at every
// position, so permutations do not touch it.
bool is_scalar(const LabeledDs& tensor) {
  for (const auto& [dim, scale] : tensor.scale) {
    if (scale == DimScale::Normal) return false;
  }
  return true;
}

bool all_elementwise(const Sdsc& sdsc) {
  for (const auto& op : sdsc.ops) {
    if (op.info->kind != OpKind::Elementwise) return false;
  }
  return true;
}

class MeaningTracker {
 public:
  explicit MeaningTracker(Program& program) : program_(program) {}

  std::vector<Hazard> run() {
    for (const Kernel& kernel : program_.kernels) visit(kernel);
    for (size_t h = 0; h < program_.host_tensors.size(); ++h) {
      HostTensor& host = program_.host_tensors[h];
      auto it = hbm_.find(static_cast<int>(h));
      if (host.is_input || it == hbm_.end() || host.storage >= 0) continue;
      if (it->second.layout.size_bytes() == host.layout.size_bytes()) host.layout = it->second.layout;
    }
    return found_;
  }

 private:
  int owner(int host_tensor) const {
    const int s = program_.host_tensors[static_cast<size_t>(host_tensor)].storage;
    return s >= 0 ? s : host_tensor;
  }

  Meaning view_of(const Kernel& kernel, size_t t) const {
    const TensorBinding& b = kernel.tensors[t];
    const LabeledDs& tensor = kernel.sdsc->tensors[t];
    const std::string source = kernel.label + " " + tensor.name;
    if (b.component == MemComponent::Hbm) return {b.layout, tensor.format, source};
    return {whole_tensor_layout(*kernel.sdsc, static_cast<int>(t)), tensor.format, source};
  }

  // What the bytes a read finds were written to mean; a read of bytes no
  // SDSC wrote takes the host tensor's layout (or, in LX, its own).
  Meaning meaning_of(const Kernel& kernel, size_t t) const {
    const TensorBinding& b = kernel.tensors[t];
    if (b.component == MemComponent::Hbm) {
      if (b.host_tensor < 0) return view_of(kernel, t);
      const int h = owner(b.host_tensor);
      auto it = hbm_.find(h);
      if (it != hbm_.end()) return it->second;
      const HostTensor& host = program_.host_tensors[static_cast<size_t>(b.host_tensor)];
      return {host.layout, host.format, host.first_use};
    }
    auto it = lx_.find(lx_key(b));
    return it != lx_.end() ? it->second : view_of(kernel, t);
  }

  static std::pair<int64_t, int64_t> lx_key(const TensorBinding& b) {
    const auto& address = b.lx_read_address();
    return {address.empty() ? 0 : address.begin()->second, b.lx_layout().size_bytes()};
  }

  void visit(const Kernel& kernel) {
    const Sdsc& sdsc = *kernel.sdsc;
    std::vector<size_t> mismatched;
    std::vector<Meaning> read_meanings;
    std::vector<Meaning> views;
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (!b.read && !b.written) continue;
      const bool scalar = is_scalar(sdsc.tensors[t]);
      if (!scalar) views.push_back(view_of(kernel, t));
      if (!b.read) continue;
      const Meaning meaning = meaning_of(kernel, t);
      if (!scalar) read_meanings.push_back(meaning);
      if (!meaning.same_as(view_of(kernel, t))) mismatched.push_back(t);
    }
    // Elementwise over operands permuted alike: the output means what the
    // inputs mean.
    bool carried = !mismatched.empty() && all_elementwise(sdsc) && !read_meanings.empty();
    for (const auto& v : views) carried = carried && v.same_as(views.front());
    for (const auto& m : read_meanings) carried = carried && m.same_as(read_meanings.front());
    if (!mismatched.empty() && !carried) report(kernel, mismatched);
    for (size_t t = 0; t < kernel.tensors.size(); ++t) {
      const TensorBinding& b = kernel.tensors[t];
      if (!b.written) continue;
      Meaning written = carried ? read_meanings.front() : view_of(kernel, t);
      if (carried) written.format = sdsc.tensors[t].format;
      if (b.component == MemComponent::Lx) {
        lx_[lx_key(b)] = written;
      } else if (b.host_tensor >= 0) {
        hbm_[owner(b.host_tensor)] = written;
      }
    }
  }

  void report(const Kernel& kernel, const std::vector<size_t>& mismatched) {
    const std::string why = all_elementwise(*kernel.sdsc)
                                ? "its operands are not permuted alike, so it combines elements of different positions"
                                : "it is not elementwise, so it computes on permuted elements";
    for (size_t t : mismatched) {
      const TensorBinding& b = kernel.tensors[t];
      const Meaning view = view_of(kernel, t);
      const Meaning meaning = meaning_of(kernel, t);
      const std::string where = b.component == MemComponent::Hbm ? "HBM " + std::to_string(b.hbm_base)
                                                                 : "LX " + std::to_string(lx_key(b).first);
      found_.push_back({"layout_mismatch",
                        program_.bundles[static_cast<size_t>(kernel.bundle)].name,
                        kernel.label,
                        kernel.sdsc->tensors[t].name,
                        {},
                        -1,
                        "reads " + where + " as " + view.text() + " but " + meaning.source + " wrote it as " +
                            meaning.text() + "; " + why});
    }
  }

  Program& program_;
  std::map<int, Meaning> hbm_;                         // owning host tensor -> meaning of its bytes
  std::map<std::pair<int64_t, int64_t>, Meaning> lx_;  // (LX address, bytes) -> meaning
  std::vector<Hazard> found_;
};

}  // namespace

std::vector<Hazard> settle_layout_meanings(Program& program) { return MeaningTracker(program).run(); }

}  // namespace spyre
