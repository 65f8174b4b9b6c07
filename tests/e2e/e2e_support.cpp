#include "e2e_support.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/arch_config.h"
#include "runtime/npy.h"

namespace spyre::test {

Program load_bundle(const std::string& bundle) { return load_program(bundle, load_arch("", {}).limits()); }

Arrays random_inputs(const Program& program, float lo, float hi, uint32_t seed, const Arrays& given) {
  Arrays inputs = given;
  for (const auto& t : program.host_tensors) {
    if (t.is_input && !inputs.count(t.name))
      inputs[t.name] = random_values(static_cast<size_t>(t.element_count()), seed++, lo, hi);
  }
  return inputs;
}

sim::RunOutcome run_timed(const std::string& bundle) {
  sim::RunOptions o;
  o.bundle = bundle;
  auto r = sim::run_bundle(o);
  expect_invariants_hold(r.report, bundle);
  return r;
}

sim::RunOutcome run_functional(const std::string& bundle, const Arrays& inputs,
                               std::vector<std::string> arch_overrides) {
  TempDir dir;
  const Program program = load_bundle(bundle);
  for (const auto& [name, values] : inputs) {
    const HostTensor* t = program.find_host_tensor(name);
    write_npy(dir.file(name + ".npy"), t ? t->shape : std::vector<int64_t>{static_cast<int64_t>(values.size())}, values,
              "f4");
  }
  sim::RunOptions options;
  options.bundle = bundle;
  options.inputs_dir = dir.path();
  options.arch_overrides = std::move(arch_overrides);
  return sim::run_bundle(options);
}

double worst_excess(const std::vector<float>& got, const std::vector<double>& want, double rtol) {
  double worst = -INFINITY;
  for (size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::fabs(got[i] - want[i]) - rtol * std::fabs(want[i]));
  return worst;
}

void resplit(Json& top, const std::string& dsc_key, const std::map<std::string, int>& slices,
             const std::function<std::map<std::string, int>(int)>& slice_of) {
  top["numWkSlicesPerDim_"] = slices;
  Json mapping = Json::object();
  const int cores = top["numCoresUsed_"].get<int>();
  for (int c = 0; c < cores; ++c) mapping[std::to_string(c)] = slice_of(c);
  top["coreIdToWkSlice_"] = mapping;
  Json& dsc = top["dscs_"][0][dsc_key];
  for (const auto& key : {"ss_", "el_"}) {
    Json& stage = dsc["dataStageParam_"]["0"][key];
    for (const auto& [d, n] : slices) stage[d + "_"] = dsc["N_"][d + "_"].get<int64_t>() / n;
  }
  int symbol = 1;
  for (auto& node : dsc["scheduleTree_"]) {
    for (int c = 0; c < cores; ++c)
      node["startAddressCoreCorelet_"]["data_"]["[" + std::to_string(c) + ", 0, 0]"] = std::to_string(-symbol++);
  }
}

void expect_invariants_hold(const sim::RunReport& report, const std::string& what) {
  EXPECT_GT(report.invariants.size(), 3u) << what;
  for (const auto& c : report.invariants)
    EXPECT_TRUE(c.holds()) << what << ": " << c.name << ": " << c.value << " > " << c.limit;
}

compiler::CompileJob small_granite_job(const std::string& phase, int layers) {
  compiler::CompileJob job;
  job.workload = "granite";
  job.params.layers = layers;
  job.params.hidden = 512;
  job.params.heads = 4;
  job.params.kv_heads = 2;
  job.params.intermediate = 512;
  job.params.vocab = 512;
  job.params.phase = phase;
  job.params.seq = phase == "prefill" ? 64 : 2;
  job.params.context = phase == "prefill" ? 0 : 62;
  job.options.cores = 8;
  return job;
}

CompiledRun compile_and_run(compiler::CompileJob job, const TempDir& dir, std::vector<std::string> arch_overrides) {
  job.output_dir = dir.file("program");
  job.emit_io_dir = dir.file("io");
  job.seed = 7;
  CompiledRun c;
  c.compiled = compiler::run_compile_job(job);
  sim::RunOptions run;
  run.bundle = job.output_dir;
  run.inputs_dir = dir.file("io/inputs");
  run.expect_dir = dir.file("io/reference");
  run.arch_overrides = std::move(arch_overrides);
  c.run = sim::run_bundle(run);
  return c;
}

}  // namespace spyre::test
