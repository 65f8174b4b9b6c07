#pragma once
// Running bundles end to end from the tests: random inputs written as .npy,
// outputs back as host arrays.

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile_job.h"
#include "runtime/program.h"
#include "sim/run_bundle.h"
#include "test_support.h"

namespace spyre::test {

using Arrays = std::map<std::string, std::vector<float>>;

// Host tensors of a bundle, bound with the default arch.
Program load_bundle(const std::string& bundle);

// Random inputs in [lo, hi) for every input of the bundle, except those given.
Arrays random_inputs(const Program& program, float lo, float hi, uint32_t seed, const Arrays& given = {});

// Runs the bundle in timing mode (no inputs) and checks the run's invariants.
sim::RunOutcome run_timed(const std::string& bundle);

// Runs the bundle functionally on these inputs; returns every output.
sim::RunOutcome run_functional(const std::string& bundle, const Arrays& inputs,
                               std::vector<std::string> arch_overrides = {});

// A compile job with --emit-io into `dir` (program/, io/), then its program
// run functionally on those inputs against those references.
struct CompiledRun {
  compiler::CompileOutcome compiled;
  sim::RunOutcome run;
};
CompiledRun compile_and_run(compiler::CompileJob job, const TempDir& dir, std::vector<std::string> arch_overrides = {});

// The whole-model workload at a small size (hidden 512, 4 heads of 128 over
// 2 KV heads, vocabulary 512, 8 cores; 2 layers unless given): prefill of 64
// tokens or a decode step of 2 after 62 cached.
compiler::CompileJob small_granite_job(const std::string& phase, int layers = 2);

// Rewrites a torch-spyre dump's work division (the SDSC's top-level object and
// its dsc key), giving every core its own symbols so the binder derives each
// core's start address from the layout.
void resplit(Json& top, const std::string& dsc_key, const std::map<std::string, int>& slices,
             const std::function<std::map<std::string, int>(int)>& slice_of);

// Largest |got - want| - rtol*|want| over all elements (<= atol passes).
// The logistic function, the host reference of sigmoid and SiLU.
// Every physical invariant of the run holds (sim/report/invariants.h), and
// there were some to check.
void expect_invariants_hold(const sim::RunReport& report, const std::string& what);

inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

double worst_excess(const std::vector<float>& got, const std::vector<double>& want, double rtol);

}  // namespace spyre::test
