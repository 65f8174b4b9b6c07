#pragma once
// Workload parameters the compiler tests share.

#include "compiler/ir/workloads.h"

namespace spyre::compiler::test_workloads {

// Granite's decoder structure at a small size.
inline WorkloadParams small_decoder() {
  WorkloadParams p;
  p.seq = 64;
  p.hidden = 256;
  p.heads = 4;
  p.kv_heads = 2;
  p.intermediate = 512;
  return p;
}

}  // namespace spyre::compiler::test_workloads
