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
#include "sim/schedule/kernel_twins.h"

namespace spyre::sim {

namespace {

// The collectives after a bundle, on values: each card's tensor becomes the
// sum of every card's, added in fp32 in card order and stored in the
// tensor's device format, as a host-side reduction would.
void all_reduce_values(const Program& program, int after_bundle, const std::vector<DeviceMemory*>& cards) {
  for (const auto& c : program.collectives) {
    if (c.after_bundle != after_bundle) continue;
    const HostTensor& t = program.host_tensors.at(static_cast<size_t>(c.tensor));
    std::vector<float> sum = cards.front()->download(t);
    for (size_t card = 1; card < cards.size(); ++card) {
      const std::vector<float> part = cards[card]->download(t);
      for (size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
    }
    for (DeviceMemory* m : cards) m->upload(t, sum);
  }
}

}  // namespace

SimulationResult simulate(const Program& program, const ArchConfig& arch, DeviceMemory* memory,
                          const SimulateOptions& options) {
  const bool wipe_lx_at_bundles = options.wipe_lx_at_bundles;
  std::vector<KernelWork> plans;
  for (size_t k = 0; k < program.kernels.size(); ++k) plans.push_back(plan_kernel(program, static_cast<int>(k), arch));
  // Values: SDSCs are separated by barriers and a core only reads what earlier
  // SDSCs wrote, so computing each SDSC in launch order gives the values the
  // timed schedule produces.
  if (memory) {
    std::vector<DeviceMemory*> cards = {memory};
    cards.insert(cards.end(), options.other_cards.begin(), options.other_cards.end());
    if (static_cast<int>(cards.size()) != program.cards)
      throw SpyreError("the program is one card of " + std::to_string(program.cards) + " (program.json 'cards'); " +
                       std::to_string(cards.size()) + " card memories were given");
    std::vector<FunctionalExecutor> executors;
    for (DeviceMemory* m : cards) executors.emplace_back(*m);
    int bundle = program.kernels.empty() ? 0 : program.kernels.front().bundle;
    for (size_t k = 0; k < program.kernels.size(); ++k) {
      const Kernel& kernel = program.kernels[k];
      if (wipe_lx_at_bundles && kernel.bundle != bundle) {
        for (DeviceMemory* m : cards) m->wipe_lx();
      }
      bundle = kernel.bundle;
      for (auto& executor : executors) executor.run(kernel);
      if (k + 1 == program.kernels.size() || program.kernels[k + 1].bundle != bundle)
        all_reduce_values(program, bundle, cards);
    }
  }
  begin_systemc_context();
  SimulationResult result;
  try {
    Card card("card", arch, program, plans, options.protocol, timing_twins(program, plans, options.sample_repeats));
    sc_core::sc_start();
    std::vector<double> kernel_start_us;  // relative to the first launch
    for (const auto& t : card.kernel_timing())
      kernel_start_us.push_back((t.start_ns - card.device_start_ns()) / 1000.0);
    result.report = build_report(program, arch, plans, card, memory != nullptr, wipe_lx_at_bundles,
                                 find_hazards(program, arch, kernel_start_us, wipe_lx_at_bundles));
    result.report.sample_repeats = options.sample_repeats;
    if (options.trace) result.trace = build_trace(card);
  } catch (const sc_core::sc_report& e) {
    throw SpyreError(std::string("SystemC: ") + e.what());
  }
  return result;
}

}  // namespace spyre::sim
