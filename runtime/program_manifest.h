#pragma once
// program.json: the manifest `spyre-sim compile` writes next to its bundles
// (docs/program-format.md). It names the buffers each bundle's argument
// segments are bound to, and every tensor the SDSCs touch: its name, role,
// shape, dtype and device layout, so `run` binds .npy files by tensor name
// and runs several bundles against one device memory.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/data_format.h"

namespace spyre {

struct ManifestBundle {
  std::string dir;                     // relative to the program directory ("." for the top)
  std::vector<std::string> arguments;  // buffer bound to segment i ("" for none)
};

struct ManifestBuffer {
  std::string name;
  int64_t bytes = 0;
};

struct ManifestTensor {
  std::string name;
  std::string role;  // input, weight, output, constant, intermediate
  DataFormat format = DataFormat::Dl16;
  std::vector<int64_t> shape;       // device-side logical shape
  std::vector<int64_t> host_shape;  // what the host sees (empty: shape)
  std::string storage;              // the tensor owning the bytes (itself unless a view)
  int buffer = 0;                   // index into buffers
  int64_t offset = 0;               // byte offset in the buffer
  std::vector<int> order;           // logical dims, innermost first
  int stick = 0;                    // logical dim forming the sticks
  int stick_rows = 1;               // > 1: two-dim sticks, rows of the innermost other dim in order (QFP8WT)
  std::optional<float> value;       // constants
  int shard_dim = -1;               // --cards N: each card holds part (card index) of the host tensor along this dim
};

// A collective between the bundles of a tensor-parallel program: after
// bundle `after_bundle`, every card's `tensor` becomes the sum of all cards'.
struct ManifestCollective {
  std::string op;  // "all_reduce"
  std::string tensor;
  int after_bundle = 0;
};

struct ProgramManifest {
  std::string file;
  std::string name;
  int64_t segment_bytes = 0;
  std::vector<ManifestBundle> bundles;
  std::vector<ManifestBuffer> buffers;
  std::vector<ManifestTensor> tensors;
  int cards = 1;  // the program is one card's part of a tensor-parallel ensemble of this many
  std::vector<ManifestCollective> collectives;
  int find_buffer(const std::string& wanted) const;  // -1 when absent
};

// Reads and validates program.json; errors name the file and JSON path.
ProgramManifest read_program_manifest(const std::string& path);

}  // namespace spyre
