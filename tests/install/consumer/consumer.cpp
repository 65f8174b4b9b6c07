// Runs torch-spyre's add example from the installed models through the
// installed libraries, and lists the compiler's workloads: what a C++ user of the
// package does first.

#include <iostream>

#include "compiler/ir/workloads.h"
#include "runtime/error.h"
#include "sim/run_bundle.h"

int main() {
  try {
    spyre::sim::RunOptions run;
    run.bundle = std::string(MODELS_DIR) + "/bundles/torch-spyre/spyre-cli/add";
    run.fill = 1.0f;
    const spyre::sim::RunOutcome outcome = spyre::sim::run_bundle(run);
    const auto& sum = outcome.outputs.begin()->second;
    const size_t workloads = spyre::compiler::list_workloads().size();
    std::cout << "latency " << outcome.report.latency_us << " us, " << sum.size() << " elements, first " << sum.front()
              << ", " << workloads << " built-in workloads\n";
    return outcome.report.latency_us > 0 && sum.front() == 2.0f && workloads > 0 ? 0 : 1;
  } catch (const spyre::SpyreError& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
