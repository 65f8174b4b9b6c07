#pragma once
// Computes the real values of one SDSC execution: for every core it uses, the
// core's slice of each operand is read from HBM or that core's LX through the
// tensor's layout, the ops are applied, and results are rounded to the output
// format and written back. Partial results of a reduced dimension split over
// cores are combined in device format, in core order, as the reduce-sum ring
// accumulates them.

#include "runtime/device_memory.h"
#include "runtime/program.h"

namespace spyre::sim {

class FunctionalExecutor {
 public:
  explicit FunctionalExecutor(DeviceMemory& memory) : memory_(memory) {}
  void run(const Kernel& kernel);

 private:
  DeviceMemory& memory_;
};

}  // namespace spyre::sim
