#pragma once
// Builds small SuperDSC JSON documents for tests that need kernels the
// torch-spyre examples do not contain (SHUFFLE, split reductions), with the
// same field names and nesting torch-spyre emits.

#include <map>
#include <string>
#include <vector>

#include "runtime/json_node.h"

namespace spyre::test {

struct TensorSpec {
  std::string ds_type = "OUTPUT";
  std::vector<std::string> layout;  // innermost first
  std::string stick;
  std::vector<int> scale;  // in `layout` order
  std::string component = "hbm";
  std::vector<int64_t> addresses;                         // per core; empty for HBM: symbolic, resolved from the layout
  std::map<int, std::map<std::string, int>> core_slices;  // allocation-level distribution (optional)
  int symbol = 0;  // symbolic HBM: symbols -(symbol + core); 0 picks 1000 x tensor index + 1.
                   // Tensors of different SDSCs with the same symbol are the same tensor.
};

struct SdscSpec {
  std::string name, op, unit = "sfp";
  std::vector<std::pair<std::string, int64_t>> dims;   // N_ in order
  std::map<std::string, int> slices;                   // numWkSlicesPerDim_
  std::vector<std::map<std::string, int>> core_slice;  // coreIdToWkSlice_ per core
  std::vector<TensorSpec> tensors;
  std::vector<int> inputs, outputs;
  std::vector<std::pair<std::string, float>> constants;  // constantInfo_, as SEN169_FP16
};

Json build_sdsc(const SdscSpec& spec);

}  // namespace spyre::test
