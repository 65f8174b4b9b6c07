#pragma once
// A loaded, address-resolved program: the bundle(s) to launch, every SDSC
// execution in order with each tensor bound to HBM bytes or per-core LX
// addresses, and the host-visible tensors (kernel arguments) with their
// device layouts. Both the card model and the host I/O work from this.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/hazard.h"
#include "runtime/sdsc.h"
#include "runtime/tensor_layout.h"

namespace spyre {

struct ArchConfig;

// Facts of the device address space the binder and the compiler check
// against: a view of the arch config (runtime/arch_config.h), where every
// value is declared.
struct DeviceLimits {
  DeviceLimits();  // the built-in card's
  explicit DeviceLimits(const ArchConfig& arch);
  int cores;
  int64_t lx_bytes;
  int64_t lx_alignment;
  double lx_backend_reserved_fraction;  // top of LX, left to the backend
  int64_t segment_bytes;                // per kernel argument
  int segments;
  int program_segment;
  int64_t span_limit_bytes;  // device memory one core addresses
  int topk_k_per_core;       // a topk's results one core produces (sfu.topk_k_per_core)
  int64_t lx_usable_bytes() const;
  // Segments a bundle can bind kernel arguments to (all but the program's), in order.
  std::vector<int> argument_segments() const;
};

// A tensor the host sees: a kernel argument (or a part of one) in HBM.
struct HostTensor {
  std::string name;  // "arg1", or "arg0_262144" when a segment holds several
  int segment = 0;
  int64_t offset = 0;   // within the segment
  int64_t address = 0;  // absolute device address
  DataFormat format = DataFormat::Dl16;
  std::vector<std::string> dims;  // host dimension order: N_ order, stick dim last
  std::vector<int64_t> shape;     // host shape (broadcast dims are 1)
  TensorLayout layout;            // device layout in HBM
  bool is_input = false;          // read before anything in the program writes it
  bool is_output = false;         // written by the program
  std::string first_use;          // "sdsc_0.json Tensor0", for messages
  // From a program.json manifest (empty / unset without one):
  std::string role;                    // input, weight, output, constant, intermediate
  std::optional<float> constant;       // constants: every element's value
  std::vector<int64_t> visible_shape;  // the host's shape when it drops size-1 dims
  int storage = -1;                    // views: index of the tensor owning the bytes
  int shard_dim = -1;                  // --cards N: card c holds part c of the host's tensor along this dim
  int64_t element_count() const;
  const std::vector<int64_t>& host_shape() const { return visible_shape.empty() ? shape : visible_shape; }
};

// A tensor held in LX across cores: each holder core has one part (a box of
// the tensor, in the holder's dim names) at an LX address.
struct LxHolding {
  std::map<int, int64_t> address;  // holder core -> LX address
  std::map<int, Box> box;          // holder core -> the part it holds (global coordinates)
  TensorLayout layout;             // one holder's part
  TensorLayout whole;              // the whole tensor densely in the holder's dim names (whole_tensor_layout)
  std::string writer;              // "sdsc_3.json Tensor2" when the bytes' writer says where; "" for the
                                   // allocation's own coreIdToWkSlice_
};

struct TensorBinding {
  MemComponent component = MemComponent::Hbm;
  TensorLayout layout;                // HBM: full tensor; LX: one core's slice
  int host_tensor = -1;               // HBM: index into Program::host_tensors
  int64_t hbm_base = 0;               // HBM: absolute address of the tensor's first byte
  std::map<int, int64_t> lx_address;  // LX: core -> byte address in that core's LX
  std::map<int, Box> core_box;        // core -> the part of the tensor it works on
  // LX relayout: where an LX input is before the SDSC runs, when that is not
  // where the SDSC computes on it (runtime/lx_relayout.h). The backend moves
  // the parts over the data ring into a buffer of each core's own, laid out
  // as `layout`, before the SDSC computes on core_box.
  bool relayout = false;
  LxHolding held;
  // The LX range a core reads: the holders' parts when relayouted, else its own.
  const TensorLayout& lx_layout() const { return relayout ? held.layout : layout; }
  const std::map<int, int64_t>& lx_read_address() const { return relayout ? held.address : lx_address; }
  const Box& lx_box(int core) const { return relayout ? held.box.at(core) : core_box.at(core); }
  // A gather's value tensor (Sdsc::gathers): the bytes from hbm_base its rows
  // may lie in, the whole tensor the host declared, not only the rows the
  // layout covers.
  int64_t gather_span_bytes = 0;
  bool read = false;  // read by this kernel (a reduction's output-as-input excluded)
  bool written = false;
};

struct Kernel {
  std::shared_ptr<const Sdsc> sdsc;
  int bundle = 0;
  int launch_line = 0;                 // sdsc_execute line in bundle.mlir (0: none)
  int64_t loop_body = 0;               // the scf.for iteration it runs in (SdscLaunch::loop_body; 0: none)
  std::string label;                   // sdsc file name as listed, e.g. "sdsc_3.json"
  std::vector<TensorBinding> tensors;  // by ldsIdx_
};

// A tensor the program leaves in LX: written by an SDSC and neither read nor
// overwritten after it (sdpa's attention output). Functional runs download it
// like an output, gathered from the cores that hold its parts.
struct LxResult {
  HostTensor tensor;  // name "sdsc_19.Tensor1"; layout: the whole tensor densely (whole_tensor_layout)
  size_t kernel = 0;
  size_t lds = 0;
};

struct BundleInfo {
  std::string dir;   // directory path as given
  std::string name;  // directory base name
  bool has_mlir = false;
};

// A collective between bundles of a tensor-parallel program (program.json
// `collectives`): once bundle `after_bundle` has run on every card, each
// card's copy of the tensor becomes the sum over the cards.
struct Collective {
  std::string op;   // "all_reduce"
  int tensor = -1;  // index into Program::host_tensors
  int after_bundle = 0;
};

struct Program {
  std::string name;  // the program (manifest) or bundle directory name
  int cards = 1;     // this program is each card's part of an ensemble of `cards` (tensor parallelism)
  std::vector<Collective> collectives;  // in program order
  std::vector<BundleInfo> bundles;
  std::vector<Kernel> kernels;  // launch order
  std::vector<HostTensor> host_tensors;
  std::vector<LxResult> lx_results;
  std::vector<Hazard> hazards;  // found while binding
  const HostTensor* find_host_tensor(const std::string& name) const;
};

// The host dims of tensor `lds` of an SDSC without a manifest: N_ order, the
// stick dim last (HostTensor::dims of the kernel that first uses it).
std::vector<std::string> host_dims(const Sdsc& sdsc, int lds);

// Loads a program directory: with a program.json manifest (spyre-sim
// compile's output), each bundle it lists, bound to the buffers it names, and
// tensors named by it; otherwise one bundle: bundle.mlir + the sdsc files it
// names, or, with no bundle.mlir, every sdsc_N.json in numeric order. Throws
// SpyreError on any malformed or inconsistent input.
Program load_program(const std::string& bundle_dir, const DeviceLimits& limits);

}  // namespace spyre
