#pragma once
// In-memory form of one SuperDSC (sdsc_N.json), as defined by torch-spyre's
// interface-specs 0248-SdscBundleSpec/SuperDSC-Bundle.md and
// 2244-SdscSemantics/super-dsc.md. Only what execution needs is kept; unknown
// but well-formed fields (debug_handle_, sdscFolds_, ...) are ignored.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/data_format.h"
#include "runtime/json_node.h"
#include "runtime/op_registry.h"

namespace spyre {

enum class MemComponent { Hbm, Lx };
const char* component_name(MemComponent component);

// Dimension coordinates keyed by dimension name ("mb", "out", "c0", ...).
using DimMap = std::map<std::string, int64_t>;

// What one 128-byte stick holds: `elems` consecutive elements of `dim`, or,
// for a two-dim stick (stickDimOrder_ [row_dim, dim], stickSize_ [rows,
// elems]: torch-spyre's QFP8WT FP8 weights, [2, 64]), `rows` rows of them, one
// per consecutive element of `row_dim`, each row contiguous.
struct StickShape {
  StickShape() = default;
  StickShape(std::string d, int64_t e, std::string row = {}, int64_t n = 1)
      : dim(std::move(d)), elems(e), row_dim(std::move(row)), rows(n) {}
  std::string dim;
  int64_t elems = 64;
  std::string row_dim;  // empty: a one-dim stick
  int64_t rows = 1;
  int64_t elements() const { return elems * rows; }
  bool holds(const std::string& d) const { return d == dim || (!row_dim.empty() && d == row_dim); }
};

struct PrimaryDsInfo {
  std::vector<std::string> layout_dims;  // the dims of this tensor type
  StickShape stick;                      // stickDimOrder_, stickSize_
};

// scale_: 1 normal, -1 reduced/broadcast dim, -2 reduced/broadcast stick dim.
enum class DimScale { Normal = 1, Broadcast = -1, BroadcastStick = -2 };

struct LabeledDs {
  int index = 0;        // ldsIdx_
  std::string name;     // dsName_, e.g. "Tensor0"
  std::string ds_type;  // dsType_, key of primaryDsInfo_
  std::map<std::string, DimScale> scale;
  DataFormat format = DataFormat::Dl16;
  std::string path;  // JSON path, for messages
};

// indirectAllocType_: a gather reads the rows of a value tensor that an index
// tensor names (torch-spyre's embedding, x[idx], index_select).
enum class Indirection { None, Index, Value };

struct Allocation {
  int lds_index = 0;
  Indirection indirection = Indirection::None;
  int related = -1;  // relatedIndirectAccessAlloc_: the partner's ldsIdx_ (index <-> value)
  MemComponent component = MemComponent::Hbm;
  std::vector<std::string> layout_dims;  // innermost first, after the stick
  bool symbolic = false;                 // isStartAddrSymbolic_: values are symbol ids (< 0)
  std::map<int, int64_t> start_address;  // core id -> byte address, or symbol id when symbolic
  // Optional per-allocation distribution (coordinates_.coreIdToWkSlice_); empty
  // means the tensor follows the SDSC's coreIdToWkSlice_.
  std::map<int, DimMap> core_slices;
  // backGapCore_: elements of padding after a dim's extent, so the next dim's
  // stride skips them. This is how torch-spyre writes a view into a larger
  // buffer (one head group of a fused QKV output, one part of
  // split_with_sizes): the view's extents plus the gaps give the buffer's
  // strides. For the stick dim the gap is in elements, a whole number of sticks.
  DimMap back_gap;
  // maxDimSizes_ entries other than -1, by dim: torch-spyre's mark (1) on the
  // dim an index tensor names on its value tensor.
  DimMap max_dim_sizes;
  std::string path;
};

struct ComputeOp {
  const OpInfo* info = nullptr;
  std::string ex_unit;  // "pt" or "sfp"
  DataFormat format = DataFormat::Dl16;
  std::vector<int> inputs;   // lds indices
  std::vector<int> outputs;  // lds indices
  // indirectAccessIndexLabeledDs: index tensors, not among the inputs. The
  // value tensor's dims that the index tensor also has are its gathered (or,
  // when the value tensor is the output, scattered) row: at an iteration
  // point it reads (writes) row index[point] (the Sdsc's gathers).
  std::vector<int> index_inputs;
  // TopK: the dim it searches (its input's, whole on every core) and the dim
  // of its k results (its output's, in place of the searched one).
  std::string search_dim, k_dim;
  std::string path;
};

// An indirect access's addressing, resolved by the reader: the value tensor
// is read (a gather: embedding, x[idx]) or written (a scatter: out[idx] =
// src, torch-spyre's index_put), in place of its coordinate along `dim`, at
// the row the index tensor holds at the iteration point.
struct Gather {
  int index = -1;        // ldsIdx_ of the index tensor
  int value = -1;        // ldsIdx_ of the value tensor
  std::string dim;       // the gathered (scattered) dim (an iteration dim of the index tensor)
  bool scatter = false;  // the value tensor is the op's output, written through the index
};

// N_.paddingSizes_ (torch-spyre's windowed ops: conv2d, depthwiseconv2dnative,
// avgpoolfwd): an output dim (i, j) whose input coordinate is
// dim * stride + window_dim * dilation - pad_front, the window (ki, kj) an
// iteration dim of its own. The inputs the op reads through it (the
// activation: it has `dim`, not `window_dim`) span total_size along `dim`.
struct WindowedDim {
  std::string dim;         // the output-spatial dim
  std::string window_dim;  // windowDim_
  int64_t stride = 1, dilation = 1, pad_front = 0, pad_back = 0;
  int64_t total_size = 0;  // totalSize_: the input's extent along dim
  // The input elements one core's part of `dim` (per_core outputs) reads.
  int64_t span(int64_t outputs, int64_t window) const { return (outputs - 1) * stride + (window - 1) * dilation + 1; }
};

struct SdscConstant {
  std::string id;  // its key in constantInfo_ ("0", "1", ...), what maskingConstId_ names
  std::string name;
  DataFormat format = DataFormat::Dl16;
  uint32_t bits = 0;
  float value = 0.0f;
};

// A dim whose size a symbol sets at run time (torch-spyre's dynamic shapes,
// phase 1): dimToSymbolMapping_, ss_.symbolicDimInfo_, inputSymbolsAndTags_.
// torch-spyre writes the maximum in N_ and ss_ and its runtime does not bind
// the symbols yet (its issue #2434), so the kernel runs at the maximum unless
// a value is given (runtime/symbol_binding.h).
struct SymbolicDim {
  std::string dim;
  int64_t id = 0;      // negative symbol id
  std::string symbol;  // PyTorch's name for it, e.g. "s0"
  int64_t max_per_core = 0, granularity_per_core = 1;
  int64_t bound = 0;     // the value bound at run time (symbol_binding.h); 0: the maximum runs
  std::string bound_by;  // what bound it: "--dim", "x.npy's shape", ...
};

struct Sdsc {
  std::string file;                  // the sdsc_N.json path as opened
  std::string name;                  // top-level key, e.g. "0_add"
  std::string dsc_name;              // dscs_[0] key, e.g. "add"
  int num_cores = 0;                 // numCoresUsed_
  std::vector<int> core_ids;         // cores used, ascending
  std::vector<std::string> dims;     // iteration dims, in N_ order
  DimMap size;                       // N_
  DimMap per_core;                   // dataStageParam_["0"].ss_
  DimMap slices;                     // numWkSlicesPerDim_ (missing dims: 1)
  std::map<int, DimMap> core_slice;  // coreIdToWkSlice_
  std::map<std::string, PrimaryDsInfo> primary;
  std::vector<LabeledDs> tensors;       // indexed by ldsIdx_
  std::vector<Allocation> allocations;  // indexed by ldsIdx_
  std::vector<ComputeOp> ops;
  std::vector<SdscConstant> constants;
  // coordinateMasking_ (torch-spyre pads a dim to whole sticks in N_): dim ->
  // (valid, padding); inputs read the maskingConstId_ constant at
  // coordinates valid .. valid + padding - 1.
  std::map<std::string, std::pair<int64_t, int64_t>> masking;
  float mask_value = 0.0f;
  std::vector<Gather> gathers;  // at most one per SDSC
  std::vector<SymbolicDim> symbolic_dims;
  std::vector<WindowedDim> windows;
  // Per tensor, the windowed dims it is read through (an input that has the
  // output-spatial dim but not its window dim); empty for every other tensor.
  std::map<int, std::vector<std::string>> windowed;

  const SdscConstant* find_constant(const std::string& wanted) const;
  const PrimaryDsInfo& primary_of(int lds_index) const { return primary.at(tensors.at(lds_index).ds_type); }
  // The tensor's elements vary along iteration dim `dim`: its scale_ is 1
  // there, or `dim` is the window of a dim the tensor is read through.
  bool reads_dim(int lds_index, const std::string& dim) const;
  // The window `dim` is read through on tensor lds_index (as the dim or as
  // its window dim); nullptr when none.
  const WindowedDim* window_of(int lds_index, const std::string& dim) const;
  // "add", "mul+add", ... and "sfp", "pt", "pt+sfp" for reports.
  std::string op_summary() const;
  std::string unit_summary() const;
};

// Reads and validates one SuperDSC file. Any schema violation throws a
// SpyreError "file: $.json.path: reason".
Sdsc read_sdsc(const std::string& path);
Sdsc parse_sdsc(const Json& document, const std::string& file);

}  // namespace spyre
