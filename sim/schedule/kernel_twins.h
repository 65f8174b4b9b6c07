#pragma once
// Sampled simulation of repeated kernels (run --sample-repeats N). A whole
// model runs the same kernels once per layer: the same SDSC on the same
// shapes, layouts and core division, with each layer's own weights. Two such
// kernels have the same plan up to where their tensors sit in HBM: each
// transfer reads or writes the same bytes of the same operand. A kernel whose
// plan was already simulated N times takes the timing and the counters of the
// last of them instead of being simulated again, as sampling simulators
// (gem5's SimPoint, SMARTS) time one instance of a repeated phase.
//
// What a reused kernel does not see: where its tensors sit (LPDDR5 channel
// hashing, cache-line alignment) and what the memory-side cache holds when it
// starts (its twin's predecessor left the same kind of data at other
// addresses). What the kernels after it see: the cache as the last simulated
// kernel left it.

#include <cstdint>
#include <vector>

#include "runtime/program.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

// A digest of the plan with every HBM address written as (operand, offset
// into it): equal for kernels that move the same bytes of the same operands
// and compute the same on every core.
struct PlanDigest {
  uint64_t a = 0, b = 0;
  bool operator==(const PlanDigest&) const = default;
  bool operator<(const PlanDigest& o) const { return a != o.a ? a < o.a : b < o.b; }
};
PlanDigest plan_digest(const Program& program, const KernelWork& work);

// For each kernel, the kernel whose timing it takes (-1: simulated): the
// (repeats + 1)-th and later kernels of one digest take the repeats-th's.
// repeats 0: every kernel simulated.
std::vector<int> timing_twins(const Program& program, const std::vector<KernelWork>& plans, int repeats);

}  // namespace spyre::sim
