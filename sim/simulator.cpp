#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <systemc>

#include "runtime/error.h"
#include "sim/checks/hazards.h"
#include "sim/functional/functional_executor.h"
#include "sim/hw/card.h"
#include "sim/hw/systemc_context.h"
#include "sim/report/card_report.h"
#include "sim/schedule/kernel_plan.h"

namespace spyre::sim {

SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory,
                          const SimulateOptions& options) {
  const bool wipe_lx_at_bundles = options.wipe_lx_at_bundles;
  std::vector<KernelWork> plans;
  for (size_t k = 0; k < program.kernels.size(); ++k) plans.push_back(plan_kernel(program, static_cast<int>(k), arch));
  // Values: SDSCs are separated by barriers and a core only reads what earlier
  // SDSCs wrote, so computing each SDSC in launch order gives the values the
  // timed schedule produces.
  if (memory) {
    FunctionalExecutor executor(*memory);
    int bundle = program.kernels.empty() ? 0 : program.kernels.front().bundle;
    for (const auto& kernel : program.kernels) {
      if (wipe_lx_at_bundles && kernel.bundle != bundle) memory->wipe_lx();
      bundle = kernel.bundle;
      executor.run(kernel);
    }
  }
  begin_systemc_context();
  SimulationResult result;
  try {
    Card card("card", arch, program, plans, options.protocol);
    sc_core::sc_start();
    std::vector<double> kernel_start_us;  // relative to the first launch
    for (const auto& t : card.kernel_timing())
      kernel_start_us.push_back((t.start_ns - card.device_start_ns()) / 1000.0);
    result.report = build_report(program, arch, plans, card, memory != nullptr, wipe_lx_at_bundles,
                                 find_hazards(program, arch, kernel_start_us, wipe_lx_at_bundles));
    if (options.trace) result.trace = build_trace(card);
  } catch (const sc_core::sc_report& e) {
    throw SpyreError(std::string("SystemC: ") + e.what());
  }
  return result;
}

}  // namespace spyre::sim
