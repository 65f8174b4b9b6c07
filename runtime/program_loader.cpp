// Loads a bundle directory into a Program: reads bundle.mlir and the SDSCs,
// resolves every start address (literal, or symbolic through bundle.mlir, or
// derived from the layout when a torch-spyre dump has no bundle.mlir), checks
// them against the layouts and the address space, and names the host tensors.

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "runtime/bundle_dir.h"
#include "runtime/bundle_mlir.h"
#include "runtime/error.h"
#include "runtime/layout_mismatch.h"
#include "runtime/lx_relayout.h"
#include "runtime/program.h"
#include "runtime/program_manifest.h"
#include "runtime/text.h"

namespace fs = std::filesystem;

namespace spyre {

int64_t DeviceLimits::lx_usable_bytes() const {
  // torch-spyre leaves the top fraction to the backend and aligns down to a stick.
  const auto usable = static_cast<int64_t>(static_cast<double>(lx_bytes) * (1.0 - lx_backend_reserved_fraction));
  return usable / lx_alignment * lx_alignment;
}

std::vector<int> DeviceLimits::argument_segments() const {
  std::vector<int> out;
  for (int s = 0; s < segments; ++s) {
    if (s != program_segment) out.push_back(s);
  }
  return out;
}

std::vector<std::string> host_dims(const Sdsc& sdsc, int lds) {
  const LabeledDs& t = sdsc.tensors.at(static_cast<size_t>(lds));
  const std::string& stick = sdsc.primary_of(lds).stick.dim;
  std::vector<std::string> dims;
  for (const auto& d : sdsc.dims) {
    if (t.scale.count(d) && d != stick) dims.push_back(d);
  }
  dims.push_back(stick);
  return dims;
}

int64_t HostTensor::element_count() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

const HostTensor* Program::find_host_tensor(const std::string& name) const {
  for (const auto& t : host_tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

namespace {

struct Launch {
  std::string file;
  std::map<int64_t, int64_t> symbols;
  int line = 0;
  std::string mlir;  // the IR file naming it ("" in a dump without IR)
  int64_t loop_body = 0;
};

std::vector<Launch> list_launches(const fs::path& dir, const DeviceLimits& limits, bool& has_mlir) {
  std::vector<Launch> launches;
  const BundleFiles files = list_bundle_files(dir);
  has_mlir = !files.mlir.empty();
  for (const auto& mlir : files.mlir) {
    BundleMlir bundle = read_bundle_mlir(mlir.string(), [&](size_t i) {
      if (static_cast<int>(i) >= limits.segments || static_cast<int>(i) == limits.program_segment) {
        fail(mlir.string(), "",
             "argument " + std::to_string(i) + " has no segment (segments 0-" + std::to_string(limits.segments - 1) +
                 ", segment " + std::to_string(limits.program_segment) + " holds the program)");
      }
      return static_cast<int64_t>(i) * limits.segment_bytes;
    });
    for (const auto& l : bundle.launches)
      launches.push_back({l.sdsc_file, l.symbols, l.line, mlir.string(), l.loop_body});
    if (bundle.launches.empty()) fail(mlir.string(), "", "the bundle launches no sdsc_execute");
  }
  if (has_mlir) return launches;
  if (files.sdscs.empty()) {
    const std::vector<std::string> sub = bundles_inside(dir);
    fail(dir.string(), "",
         sub.empty() ? "no bundle.mlir and no sdsc_N.json files: not a bundle directory"
                     : "not a bundle itself; it holds the bundles " + join(sub, ", ") +
                           " (run one of them, or run the folder as a kernel cache)");
  }
  for (const auto& name : files.sdscs) launches.push_back({name, {}, 0, ""});
  return launches;
}

std::string dims_text(const std::vector<std::string>& dims) { return "[" + join(dims, ", ") + "]"; }

std::string base_name(const fs::path& dir) {
  return dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
}

class Binder {
 public:
  Binder(const DeviceLimits& limits, const ProgramManifest* manifest) : limits_(limits), manifest_(manifest) {
    if (manifest_) add_manifest_tensors();
  }

  // Binds one bundle. `relocation` (manifest programs) gives the device
  // address each argument segment of the bundle is bound to.
  void bind_bundle(const fs::path& dir, const std::string& name, const std::vector<int64_t>* relocation) {
    dir_ = dir;
    relocation_ = relocation;
    bundle_ = static_cast<int>(program_.bundles.size());
    BundleInfo info;
    info.dir = dir.string();
    info.name = name;
    const std::vector<Launch> launches = list_launches(dir_, limits_, info.has_mlir);
    program_.bundles.push_back(info);
    used_segments_.clear();
    for (const auto& l : launches) load_sdsc(l.file, l.mlir);
    reserve_literal_segments(launches);
    for (const auto& l : launches) bind_launch(l);
  }

  Program finish(const std::string& name) {
    program_.name = name;
    if (manifest_) settle_manifest_roles();
    name_host_tensors();
    for (auto& h : locate_lx_inputs(program_)) program_.hazards.push_back(std::move(h));
    if (!manifest_) {
      for (auto& h : settle_layout_meanings(program_)) program_.hazards.push_back(std::move(h));
    }
    find_overlaps();
    find_lx_results();
    return std::move(program_);
  }

 private:
  // Host dims: N_ order, stick dim last; broadcast dims have size 1.
  static void set_host_shape(const Sdsc& sdsc, int lds, HostTensor& h) {
    const LabeledDs& t = sdsc.tensors.at(static_cast<size_t>(lds));
    h.dims = host_dims(sdsc, lds);
    // A masked dim's padding is the device's, not the host's.
    for (const auto& d : h.dims) {
      const auto masked = sdsc.masking.find(d);
      const WindowedDim* window = sdsc.window_of(lds, d);  // an input read through a window: its whole span
      const int64_t size = window                         ? window->total_size
                           : masked != sdsc.masking.end() ? masked->second.first
                                                          : sdsc.size.at(d);
      h.shape.push_back(t.scale.at(d) == DimScale::Normal ? size : 1);
    }
  }

  // LX tensors no later SDSC reads or overwrites on any core (Program::lx_results).
  void find_lx_results() {
    const auto& kernels = program_.kernels;
    for (size_t k = 0; k < kernels.size(); ++k) {
      for (size_t t = 0; t < kernels[k].tensors.size(); ++t) {
        const TensorBinding& b = kernels[k].tensors[t];
        if (b.component != MemComponent::Lx || !b.written || touched_after(k, b)) continue;
        const Sdsc& sdsc = *kernels[k].sdsc;
        LxResult r;
        r.kernel = k;
        r.lds = t;
        r.tensor.name = fs::path(kernels[k].label).stem().string() + "." + sdsc.tensors[t].name;
        r.tensor.format = sdsc.tensors[t].format;
        r.tensor.layout = whole_tensor_layout(sdsc, static_cast<int>(t));
        r.tensor.is_output = true;
        r.tensor.first_use = kernels[k].label + " " + sdsc.tensors[t].name;
        set_host_shape(sdsc, static_cast<int>(t), r.tensor);
        program_.lx_results.push_back(std::move(r));
      }
    }
  }

  bool touched_after(size_t k, const TensorBinding& written) const {
    for (size_t later = k + 1; later < program_.kernels.size(); ++later) {
      for (const auto& b : program_.kernels[later].tensors) {
        if (b.component != MemComponent::Lx) continue;
        for (const auto& [core, address] : b.read ? b.lx_read_address() : b.lx_address) {
          const auto it = written.lx_address.find(core);
          if (it == written.lx_address.end()) continue;
          const int64_t bytes = b.read ? b.lx_layout().size_bytes() : b.layout.size_bytes();
          if (address < it->second + written.layout.size_bytes() && it->second < address + bytes) return true;
        }
      }
    }
    return false;
  }

  void add_manifest_tensors() {
    for (const auto& t : manifest_->tensors) {
      HostTensor h;
      h.name = t.name;
      h.segment = t.buffer;
      h.offset = t.offset;
      h.address = t.buffer * limits_.segment_bytes + t.offset;
      h.format = t.format;
      DimMap extents;
      for (size_t d = 0; d < t.shape.size(); ++d) {
        h.dims.push_back("d" + std::to_string(d));
        extents[h.dims.back()] = t.shape[d];
      }
      std::vector<std::string> order;
      for (int d : t.order) order.push_back(h.dims[static_cast<size_t>(d)]);
      const int elem = word_bytes(t.format);
      StickShape stick{h.dims[static_cast<size_t>(t.stick)], kStickBytes / elem / t.stick_rows};
      if (t.stick_rows > 1) {  // rows of the innermost other dim (compiler Layout::row_dim)
        for (int d : t.order) {
          if (d == t.stick) continue;
          stick.row_dim = h.dims[static_cast<size_t>(d)];
          stick.rows = t.stick_rows;
          break;
        }
      }
      h.layout = TensorLayout(order, extents, stick, elem);
      h.shape = t.shape;
      h.visible_shape = t.host_shape;
      h.role = t.role;
      h.constant = t.value;
      h.shard_dim = t.shard_dim;
      h.first_use = manifest_->file + " tensor '" + t.name + "'";
      program_.host_tensors.push_back(h);
    }
    for (size_t i = 0; i < manifest_->tensors.size(); ++i) {
      for (size_t j = 0; j < manifest_->tensors.size(); ++j) {
        if (manifest_->tensors[j].name == manifest_->tensors[i].storage)
          program_.host_tensors[i].storage = static_cast<int>(j);
      }
    }
  }

  const Sdsc& load_sdsc(const std::string& file, const std::string& mlir) {
    const fs::path path = dir_ / file;
    auto it = sdscs_.find(path.string());
    if (it != sdscs_.end()) return *it->second;
    if (!fs::exists(path)) fail(mlir, "", "names " + file + ", which does not exist");
    auto sdsc = std::make_shared<Sdsc>(read_sdsc(path.string()));
    for (int core : sdsc->core_ids) {
      if (core >= limits_.cores) {
        fail(path.string(), "$." + sdsc->name + ".coreIdToWkSlice_",
             "uses core " + std::to_string(core) + " but the card has " + std::to_string(limits_.cores) +
                 " cores (arch 'cores')");
      }
    }
    for (const auto& op : sdsc->ops) {
      if (op.info->kind != OpKind::TopK) continue;
      const int64_t per_core = sdsc->per_core.at(op.k_dim);
      if (per_core > limits_.topk_k_per_core)
        fail(path.string(), op.path,
             op.info->name + " asks " + std::to_string(per_core) + " of its k results along " + op.k_dim +
                 " of each core; the card's topk produces at most " + std::to_string(limits_.topk_k_per_core) +
                 " (arch 'sfu.topk_k_per_core'): split " + op.k_dim + " over more cores");
    }
    sdscs_[path.string()] = sdsc;
    return *sdsc;
  }

  void reserve_literal_segments(const std::vector<Launch>& launches) {
    for (const auto& l : launches) {
      const auto& sdsc = sdscs_.at((dir_ / l.file).string());
      for (const auto& a : sdsc->allocations) {
        if (a.component != MemComponent::Hbm || a.symbolic) continue;
        for (const auto& [core, address] : a.start_address)
          used_segments_.insert(static_cast<int>(address / limits_.segment_bytes));
      }
    }
  }

  int next_free_segment(const Sdsc& sdsc, const Allocation& alloc) {
    for (int s = 0; s < limits_.segments; ++s) {
      if (s == limits_.program_segment || used_segments_.count(s)) continue;
      used_segments_.insert(s);
      return s;
    }
    fail(sdsc.file, alloc.path,
         "more kernel arguments than the " + std::to_string(limits_.segments - 1) + " argument segments");
  }

  void bind_launch(const Launch& launch) {
    const auto sdsc = sdscs_.at((dir_ / launch.file).string());
    Kernel kernel;
    kernel.sdsc = sdsc;
    kernel.bundle = bundle_;
    kernel.launch_line = launch.line;
    kernel.loop_body = launch.loop_body;
    kernel.label = relocation_ && manifest_->bundles.size() > 1
                       ? program_.bundles[static_cast<size_t>(bundle_)].name + "/" + launch.file
                       : launch.file;
    kernel.tensors.resize(sdsc->tensors.size());
    for (size_t t = 0; t < sdsc->tensors.size(); ++t)
      bind_tensor(*sdsc, launch, static_cast<int>(t), kernel.tensors[t]);
    for (const Gather& g : sdsc->gathers) {
      // The rows an index may name: the whole tensor the manifest declares
      // there (the SDSC's layout covers only as many rows as it gathers).
      TensorBinding& b = kernel.tensors[static_cast<size_t>(g.value)];
      b.gather_span_bytes = b.layout.span_bytes();
      if (b.host_tensor >= 0) {
        const HostTensor& h = program_.host_tensors[static_cast<size_t>(b.host_tensor)];
        b.gather_span_bytes = std::max(b.gather_span_bytes, h.address + h.layout.span_bytes() - b.hbm_base);
      }
    }
    mark_accesses(*sdsc, kernel);
    program_.kernels.push_back(std::move(kernel));
  }

  void bind_tensor(const Sdsc& sdsc, const Launch& launch, int lds, TensorBinding& b) {
    const Allocation& alloc = sdsc.allocations[lds];
    const LabeledDs& tensor = sdsc.tensors[lds];
    b.component = alloc.component;
    b.layout = allocation_layout(sdsc, lds);
    for (int core : sdsc.core_ids) b.core_box[core] = core_box(sdsc, lds, core);
    if (relayout_input(sdsc, lds)) {  // held as the allocation's coreIdToWkSlice_ says (until lx_relayout.h)
      b.relayout = true;
      b.held.layout = b.layout;
      b.held.box = b.core_box;
      b.held.whole = whole_tensor_layout(sdsc, lds);
      b.layout = compute_layout(sdsc, lds);
      for (int core : sdsc.core_ids) b.core_box[core] = compute_box(sdsc, lds, core);
    }

    if (alloc.component == MemComponent::Lx) {
      std::vector<int> reserved;  // cores whose copy reaches into the backend's part of LX
      int64_t highest_end = 0;
      for (int core : sdsc.core_ids) {
        const int64_t address = alloc.start_address.at(core);
        if (address % limits_.lx_alignment != 0) {
          fail(sdsc.file, alloc.path,
               "LX start address " + std::to_string(address) + " of core " + std::to_string(core) + " is not " +
                   std::to_string(limits_.lx_alignment) + "-byte aligned");
        }
        const int64_t end = address + b.lx_layout().size_bytes();
        if (end > limits_.lx_bytes) {
          fail(sdsc.file, alloc.path,
               "LX tensor " + tensor.name + " on core " + std::to_string(core) + " occupies [" +
                   std::to_string(address) + ", " + std::to_string(end) + "), beyond the " +
                   std::to_string(limits_.lx_bytes) + "-byte LX");
        }
        // A relayouted input's bytes are where its writer put them, and the
        // writer's own binding judges that range.
        if (end > limits_.lx_usable_bytes() && !b.relayout) {
          reserved.push_back(core);
          highest_end = std::max(highest_end, end);
        }
        b.lx_address[core] = address;
      }
      if (b.relayout) b.held.address = b.lx_address;
      if (!reserved.empty()) {
        program_.hazards.push_back({"lx_reserved_region", program_.bundles[static_cast<size_t>(bundle_)].name,
                                    launch.file, tensor.name, reserved, -1,
                                    "LX bytes up to " + std::to_string(highest_end) +
                                        " reach into the backend's reserved region above " +
                                        std::to_string(limits_.lx_usable_bytes())});
      }
      return;
    }

    // HBM: resolve each core's start address, then the tensor base it implies.
    std::map<int, int64_t> start;
    for (int core : sdsc.core_ids) start[core] = resolve_start(sdsc, launch, lds, core, b);
    bool first = true;
    for (int core : sdsc.core_ids) {
      const int64_t base = start[core] - b.layout.offset(b.core_box[core].origin);
      if (first) {
        b.hbm_base = base;
        first = false;
      } else if (base != b.hbm_base) {
        // Addresses bundle.mlir computed: the IR is where they went wrong.
        if (alloc.symbolic && !launch.mlir.empty()) {
          const int64_t symbol = alloc.start_address.at(core);
          fail(launch.mlir, "line " + std::to_string(launch.line),
               "the sdsc_execute of " + launch.file + " gives symbol " + std::to_string(symbol) + " (core " +
                   std::to_string(core) + "'s start of " + tensor.name + ") the address " +
                   std::to_string(start[core]) + ", but that SDSC's layout " + dims_text(alloc.layout_dims) +
                   " puts the slice at " + std::to_string(b.hbm_base + b.layout.offset(b.core_box[core].origin)) +
                   " (tensor base " + std::to_string(b.hbm_base) + ", from core " +
                   std::to_string(sdsc.core_ids.front()) + "): check the constants that compute it");
        }
        fail(sdsc.file, alloc.path,
             "start addresses disagree with the layout " + dims_text(alloc.layout_dims) + ": core " +
                 std::to_string(sdsc.core_ids.front()) + " implies tensor base " + std::to_string(b.hbm_base) +
                 ", core " + std::to_string(core) + " implies " + std::to_string(base));
      }
    }
    if (b.hbm_base < 0)
      fail(sdsc.file, alloc.path, "start addresses imply a negative tensor base " + std::to_string(b.hbm_base));
    const int segment = static_cast<int>(b.hbm_base / limits_.segment_bytes);
    const int64_t offset = b.hbm_base % limits_.segment_bytes;
    if (segment >= limits_.segments)
      fail(sdsc.file, alloc.path, "address " + std::to_string(b.hbm_base) + " is beyond the last segment");
    if (segment == limits_.program_segment) {
      fail(sdsc.file, alloc.path,
           "address " + std::to_string(b.hbm_base) + " is in segment " + std::to_string(segment) +
               ", which holds the program");
    }
    if (offset + b.layout.size_bytes() > limits_.segment_bytes) {
      fail(sdsc.file, alloc.path,
           tensor.name + " spans [" + std::to_string(b.hbm_base) + ", " +
               std::to_string(b.hbm_base + b.layout.size_bytes()) + "), outside its segment " +
               std::to_string(segment));
    }
    if (relocation_) {
      if (segment >= static_cast<int>(relocation_->size()) || (*relocation_)[static_cast<size_t>(segment)] < 0) {
        fail(sdsc.file, alloc.path,
             "uses argument segment " + std::to_string(segment) + ", to which " + manifest_->file +
                 " binds no buffer in this bundle");
      }
      b.hbm_base = (*relocation_)[static_cast<size_t>(segment)] + offset;
      b.host_tensor = match_manifest_tensor(sdsc, launch, lds, b);
      return;
    }
    b.host_tensor = register_host_tensor(sdsc, launch, lds, b, segment, offset);
  }

  int64_t resolve_start(const Sdsc& sdsc, const Launch& launch, int lds, int core, const TensorBinding& b) {
    const Allocation& alloc = sdsc.allocations[lds];
    const int64_t value = alloc.start_address.at(core);
    if (!alloc.symbolic) return value;
    auto bound = launch.symbols.find(value);
    if (bound != launch.symbols.end()) return bound->second;
    if (program_.bundles[static_cast<size_t>(bundle_)].has_mlir) {
      fail(sdsc.file, alloc.path,
           "symbol " + std::to_string(value) + " (core " + std::to_string(core) + ") gets no value from bundle.mlir" +
               (launch.line ? " line " + std::to_string(launch.line) : ""));
    }
    // A torch-spyre dump without bundle.mlir: each symbolic tensor is its own
    // kernel argument, in order of appearance, and a core's symbol stands for
    // its slice's offset inside that argument.
    auto known = auto_symbols_.find(value);
    if (known != auto_symbols_.end()) return known->second;
    const auto key = std::make_pair(sdsc.file, lds);
    auto arg = auto_args_.find(key);
    if (arg == auto_args_.end())
      arg = auto_args_.emplace(key, int64_t{next_free_segment(sdsc, alloc)} * limits_.segment_bytes).first;
    const int64_t address = arg->second + b.layout.offset(b.core_box.at(core).origin);
    auto_symbols_[value] = address;
    return address;
  }

  // The manifest tensor these bytes belong to: the one at this address whose
  // layout places every byte the same way. A mismatch is the compiler's bug,
  // reported as a hazard like any other layout disagreement.
  int match_manifest_tensor(const Sdsc& sdsc, const Launch& launch, int lds, const TensorBinding& b) {
    const LabeledDs& t = sdsc.tensors[lds];
    std::string seen;
    for (size_t i = 0; i < program_.host_tensors.size(); ++i) {
      const HostTensor& h = program_.host_tensors[i];
      if (h.address != b.hbm_base || h.role.empty()) continue;
      if (h.layout.same_bytes_as(b.layout) && h.format == t.format) return static_cast<int>(i);
      // A gather's table: its layout covers the rows gathered, not the table's.
      if (sdsc.allocations[static_cast<size_t>(lds)].indirection == Indirection::Value && h.format == t.format)
        return static_cast<int>(i);
      seen += (seen.empty() ? "" : ", ") + h.name + " " + h.layout.describe();
    }
    // A tile of a manifest tensor (coarse tiling: the loop's SDSCs address one
    // tile of the whole buffer per iteration).
    for (size_t i = 0; i < program_.host_tensors.size(); ++i) {
      const HostTensor& h = program_.host_tensors[i];
      if (h.role.empty() || h.format != t.format || b.hbm_base < h.address) continue;
      if (b.layout.window_of(h.layout, b.hbm_base - h.address)) return static_cast<int>(i);
    }
    const int segment = static_cast<int>(b.hbm_base / limits_.segment_bytes);
    const int index = register_host_tensor(sdsc, launch, lds, b, segment, b.hbm_base % limits_.segment_bytes);
    program_.hazards.push_back({"layout_mismatch",
                                program_.bundles[static_cast<size_t>(bundle_)].name,
                                launch.file,
                                t.name,
                                {},
                                -1,
                                "accesses HBM " + std::to_string(b.hbm_base) + " as " + b.layout.describe() + " but " +
                                    manifest_->file +
                                    (seen.empty() ? " declares no tensor there" : " declares " + seen)});
    return index;
  }

  int register_host_tensor(const Sdsc& sdsc, const Launch& launch, int lds, const TensorBinding& b, int segment,
                           int64_t offset) {
    const LabeledDs& t = sdsc.tensors[lds];
    const std::string use = launch.file + " " + t.name;
    auto it = host_index_.find(b.hbm_base);
    if (it != host_index_.end()) {
      // A different layout over the same bytes is judged in program order
      // (settle_layout_meanings): harmless when elementwise ops carry it.
      return it->second;
    }
    HostTensor h;
    h.segment = segment;
    h.offset = offset;
    h.address = b.hbm_base;
    h.format = t.format;
    h.layout = b.layout;
    h.first_use = use;
    set_host_shape(sdsc, lds, h);
    program_.host_tensors.push_back(h);
    host_index_[b.hbm_base] = static_cast<int>(program_.host_tensors.size()) - 1;
    return static_cast<int>(program_.host_tensors.size()) - 1;
  }

  // With a manifest, the host moves exactly its inputs, weights and constants
  // in and its outputs out, each through its own (possibly view) layout, once
  // the bytes they live in are read or written.
  void settle_manifest_roles() {
    std::vector<bool> read(program_.host_tensors.size()), written(program_.host_tensors.size());
    for (size_t i = 0; i < program_.host_tensors.size(); ++i) {
      const HostTensor& h = program_.host_tensors[i];
      read[i] = h.is_input;
      written[i] = h.is_output;
    }
    for (size_t i = 0; i < program_.host_tensors.size(); ++i) {
      HostTensor& h = program_.host_tensors[i];
      if (h.role.empty()) continue;
      const size_t o = static_cast<size_t>(owner(static_cast<int>(i)));
      h.is_input = (h.role == "input" || h.role == "weight" || h.role == "constant") && read[o];
      h.is_output = h.role == "output" && written[o];
    }
  }

  // Reads and writes of a view count for the tensor owning its bytes.
  int owner(int host_tensor) const {
    if (host_tensor < 0) return -1;
    const int s = program_.host_tensors[static_cast<size_t>(host_tensor)].storage;
    return s >= 0 ? s : host_tensor;
  }

  void mark_accesses(const Sdsc& sdsc, Kernel& kernel) {
    for (const auto& op : sdsc.ops) {
      std::vector<int> read = op.inputs;
      read.insert(read.end(), op.index_inputs.begin(), op.index_inputs.end());
      for (int in : read) {
        if (op.info->kind == OpKind::Reduction && in == op.outputs[0]) continue;  // listed, not read
        TensorBinding& b = kernel.tensors[in];
        b.read = true;
        const int h = owner(b.host_tensor);
        if (h >= 0 && !written_.count(h)) program_.host_tensors[static_cast<size_t>(h)].is_input = true;
      }
      for (int out : op.outputs) {
        TensorBinding& b = kernel.tensors[out];
        b.written = true;
        const int h = owner(b.host_tensor);
        if (h >= 0) {
          written_.insert(h);
          program_.host_tensors[static_cast<size_t>(h)].is_output = true;
        }
      }
    }
  }

  void name_host_tensors() {
    for (auto& h : program_.host_tensors) {
      if (!h.role.empty()) continue;  // named by the manifest
      // A segment is one kernel argument; a segment holding several tensors
      // (torch-spyre's intermediate pool) names them by byte offset.
      h.name = "arg" + std::to_string(h.segment);
      if (h.offset != 0) h.name += "_" + std::to_string(h.offset);
    }
  }

  // Views with back gaps interleave (the q, k and v heads of one fused QKV
  // buffer): their ranges overlap but their sticks need not.
  static bool share_sticks(const HostTensor& a, const HostTensor& b) {
    if (!a.layout.has_gaps() && !b.layout.has_gaps()) return true;
    const auto ra = a.layout.runs(), rb = b.layout.runs();
    size_t i = 0, j = 0;
    while (i < ra.size() && j < rb.size()) {
      const int64_t a0 = a.address + ra[i].first, a1 = a0 + ra[i].second;
      const int64_t b0 = b.address + rb[j].first, b1 = b0 + rb[j].second;
      if (a0 < b1 && b0 < a1) return true;
      if (a1 <= b1) {
        ++i;
      } else {
        ++j;
      }
    }
    return false;
  }

  void find_overlaps() {
    auto& hosts = program_.host_tensors;
    for (size_t i = 0; i < hosts.size(); ++i) {
      for (size_t j = i + 1; j < hosts.size(); ++j) {
        if (owner(static_cast<int>(i)) == owner(static_cast<int>(j))) continue;  // a view and its storage
        const int64_t a0 = hosts[i].address, a1 = a0 + hosts[i].layout.size_bytes();
        const int64_t b0 = hosts[j].address, b1 = b0 + hosts[j].layout.size_bytes();
        if (a0 < b1 && b0 < a1 && share_sticks(hosts[i], hosts[j])) {
          program_.hazards.push_back({"hbm_overlap",
                                      program_.name,
                                      "",
                                      hosts[i].name + "/" + hosts[j].name,
                                      {},
                                      -1,
                                      "HBM ranges [" + std::to_string(a0) + ", " + std::to_string(a1) + ") and [" +
                                          std::to_string(b0) + ", " + std::to_string(b1) +
                                          ") of different tensors overlap"});
        }
      }
    }
  }

  fs::path dir_;
  DeviceLimits limits_;
  const ProgramManifest* manifest_ = nullptr;
  const std::vector<int64_t>* relocation_ = nullptr;
  int bundle_ = 0;
  Program program_;
  std::map<std::string, std::shared_ptr<Sdsc>> sdscs_;
  std::set<int> used_segments_;
  std::map<int64_t, int64_t> auto_symbols_;
  std::map<std::pair<std::string, int>, int64_t> auto_args_;
  std::map<int64_t, int> host_index_;
  std::set<int> written_;
};

}  // namespace

Program load_program(const std::string& bundle_dir, const DeviceLimits& limits) {
  const fs::path dir(bundle_dir);
  if (!fs::exists(dir)) fail(bundle_dir, "", "no such directory");
  if (!fs::is_directory(dir))
    fail(bundle_dir, "", "not a directory (a bundle is a directory holding bundle.mlir and sdsc_N.json files)");
  const fs::path manifest_path = dir / "program.json";
  if (!fs::exists(manifest_path)) {
    Binder binder(limits, nullptr);
    binder.bind_bundle(dir, base_name(dir), nullptr);
    return binder.finish(base_name(dir));
  }
  const ProgramManifest manifest = read_program_manifest(manifest_path.string());
  if (manifest.segment_bytes != limits.segment_bytes) {
    fail(manifest.file, "$.segment_bytes",
         std::to_string(manifest.segment_bytes) + " differs from the arch's address.segment_bytes " +
             std::to_string(limits.segment_bytes));
  }
  Binder binder(limits, &manifest);
  std::vector<std::vector<int64_t>> relocations;
  for (const auto& b : manifest.bundles) {
    std::vector<int64_t> bases;
    for (const auto& arg : b.arguments)
      bases.push_back(arg.empty() ? -1 : manifest.find_buffer(arg) * limits.segment_bytes);
    relocations.push_back(bases);
  }
  for (size_t i = 0; i < manifest.bundles.size(); ++i) {
    const std::string& d = manifest.bundles[i].dir;
    const fs::path bundle = d == "." ? dir : dir / d;
    if (!fs::is_directory(bundle))
      fail(manifest.file, "$.bundles[" + std::to_string(i) + "].dir", "no directory " + bundle.string());
    binder.bind_bundle(bundle, d == "." ? base_name(dir) : d, &relocations[i]);
  }
  Program program = binder.finish(manifest.name);
  program.cards = manifest.cards;
  for (const auto& c : manifest.collectives) {
    Collective collective{c.op, -1, c.after_bundle};
    for (size_t t = 0; t < program.host_tensors.size(); ++t) {
      if (program.host_tensors[t].name == c.tensor) collective.tensor = static_cast<int>(t);
    }
    program.collectives.push_back(collective);
  }
  return program;
}

}  // namespace spyre
