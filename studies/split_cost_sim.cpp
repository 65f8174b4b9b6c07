#include "studies/split_cost_sim.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <thread>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/codegen/program_writer.h"
#include "runtime/op_registry.h"
#include "sim/run_bundle.h"
#include "sim/schedule/kernel_plan.h"
#include "studies/scratch_dir.h"
#include "studies/worker_pool.h"

namespace spyre::studies {

SimulatedSplitCost::SimulatedSplitCost(std::string arch_path, std::vector<std::string> arch_overrides, int workers,
                                       std::string cache_dir)
    : arch_path_(std::move(arch_path)),
      arch_overrides_(std::move(arch_overrides)),
      workers_(workers),
      cache_dir_(std::move(cache_dir)) {}

SimulatedSplitCost::~SimulatedSplitCost() = default;

std::string SimulatedSplitCost::answer(const std::string& request) const {
  const Json r = Json::parse(request);
  const std::string dir = r.at("dir").get<std::string>();
  if (r.contains("matmul")) {
    const auto d = r.at("matmul"), s = r.at("split");
    SplitStudyOptions o;
    o.shape.b = d.at("b").get<int64_t>();
    o.shape.m = d.at("m").get<int64_t>();
    o.shape.n = d.at("n").get<int64_t>();
    o.shape.k = d.at("k").get<int64_t>();
    o.arch_path = arch_path_;
    o.arch_overrides = arch_overrides_;
    MatmulSplit split;
    split.b = s.at("b").get<int64_t>();
    split.m = s.at("m").get<int64_t>();
    split.n = s.at("n").get<int64_t>();
    split.k = s.at("k").get<int64_t>();
    return run_matmul_split(o, &split, load_arch(arch_path_, arch_overrides_).limits(), dir);
  }
  // A division of another op: the program folder the search wrote.
  return json_job_line(dir, [&]() -> Json {
    sim::RunOptions run;
    run.bundle = dir;
    run.arch_path = arch_path_;
    run.arch_overrides = arch_overrides_;
    run.protocol.warmup = 1;  // as validate and study splits: profilers time repeated runs
    double kernel_us = 0;
    for (const auto& k : sim::run_bundle(run).report.kernels) kernel_us += k.end_us - k.start_us;
    return {{"kernel_us", kernel_us}};
  });
}

std::vector<double> SimulatedSplitCost::run_requests(const std::vector<std::string>& requests) {
  if (!pool_) {
    WorkerPoolOptions options;
    options.workers = workers_ > 0 ? workers_ : static_cast<int>(std::thread::hardware_concurrency());
    pool_ = std::make_unique<WorkerPool>(options, [this](const std::string& request) { return answer(request); });
  }
  std::vector<double> times(requests.size(), std::numeric_limits<double>::infinity());
  pool_->run(requests, [&](size_t j, const std::string* line, const std::string&) {
    if (line == nullptr) return;  // the worker died: the candidate cannot run, it stays +infinity
    const Json r = Json::parse(*line);
    if (r.contains("kernel_us")) times[j] = r.at("kernel_us").get<double>();
  });
  return times;
}

std::string SimulatedSplitCost::next_dir() {
  if (!scratch_) {
    static int instances = 0;  // one scratch folder per model in this process
    scratch_ = std::make_unique<ScratchDir>("split-cost-" + std::to_string(instances++));
  }
  return scratch_->file("candidate" + std::to_string(programs_++));
}

double SimulatedSplitCost::hbm_gbps() const {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  return std::min(arch.lpddr5.read_gbps, arch.lpddr5.write_gbps);
}

std::vector<compiler::SplitTime> SimulatedSplitCost::search(
    const std::string& key, const std::vector<std::string>& names, const std::vector<double>& bound,
    const std::function<std::vector<double>(const std::vector<size_t>&)>& simulate) {
  if (!store_) store_ = std::make_unique<SplitTimeStore>(cache_dir_, load_arch(arch_path_, arch_overrides_));
  std::map<std::string, double>& known = times_[key];
  std::vector<compiler::SplitTime> out(names.size());
  // Branch and bound: simulate in order of the lower bound, a batch per
  // worker round; a candidate whose bound is not below the best time so far
  // (plus the tie tolerance) cannot win or tie and is not simulated.
  std::vector<size_t> order(names.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bound[a] < bound[b]; });
  const size_t batch =
      static_cast<size_t>(std::max(1, workers_ > 0 ? workers_ : static_cast<int>(std::thread::hardware_concurrency())));
  double best = std::numeric_limits<double>::infinity();
  size_t next = 0;
  auto could_tie = [&](size_t i) { return bound[i] < best * (1 + compiler::kSplitTimeTolerance); };
  while (next < order.size() && could_tie(order[next])) {
    std::vector<size_t> round, to_run;
    for (; next < order.size() && round.size() < batch && could_tie(order[next]); ++next) {
      const size_t i = order[next];
      round.push_back(i);
      if (known.count(names[i])) continue;
      if (const auto kept = store_->find(key, names[i])) {
        known[names[i]] = *kept;
        ++stored_;
      } else {
        to_run.push_back(i);
      }
    }
    if (!to_run.empty()) {
      const std::vector<double> times = simulate(to_run);
      for (size_t j = 0; j < to_run.size(); ++j) {
        known[names[to_run[j]]] = times[j];
        store_->add(key, names[to_run[j]], times[j]);
      }
      simulated_ += to_run.size();
    }
    for (size_t i : round) {
      out[i] = {known.at(names[i]), false, bound[i]};
      best = std::min(best, out[i].kernel_us);
    }
  }
  for (; next < order.size(); ++next) out[order[next]] = {bound[order[next]], true, bound[order[next]]};
  return out;
}

std::vector<compiler::SplitTime> SimulatedSplitCost::matmul_kernel_us(
    const compiler::MatmulShape& shape, const std::vector<compiler::MatmulSplit>& splits) {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  std::vector<std::string> names;
  std::vector<double> bound;
  for (const auto& s : splits) {
    names.push_back(s.text());
    bound.push_back(matmul_split_lower_bound_us(shape, s, arch));
  }
  return search("bmm " + shape.text(), names, bound, [&](const std::vector<size_t>& which) {
    std::vector<std::string> requests;
    for (size_t i : which) {
      const auto& c = splits[i];
      requests.push_back(Json{
          {"matmul", {{"b", shape.b}, {"m", shape.m}, {"n", shape.n}, {"k", shape.k}}},
          {"split", {{"b", c.b}, {"m", c.m}, {"n", c.n}, {"k", c.k}}},
          {"dir",
           next_dir()}}.dump());
    }
    return run_requests(requests);
  });
}

std::vector<compiler::SplitTime> SimulatedSplitCost::op_kernel_us(const compiler::OpSplitQuery& query) {
  const ArchConfig arch = load_arch(arch_path_, arch_overrides_);
  std::vector<double> bound;
  for (const auto& load : query.loads) bound.push_back(op_split_lower_bound_us(query.op, query.unit, load, arch));
  return search(query.key, query.splits, bound, [&](const std::vector<size_t>& which) {
    std::vector<std::string> requests;
    for (size_t i : which) {
      const std::string dir = next_dir();
      compiler::write_program_dir(dir, query.program(i));
      requests.push_back(Json{{"program", true}, {"dir", dir}}.dump());
    }
    return run_requests(requests);
  });
}

double op_split_lower_bound_us(const std::string& op, const std::string& unit, const compiler::OpSplitLoad& load,
                               const ArchConfig& arch) {
  auto us = [](double bytes, double gbps) { return bytes / gbps * 1e-3; };  // bytes at GB/s take bytes/gbps ns
  const double in_flight = static_cast<double>(arch.dma.max_outstanding * arch.dma.request_bytes);
  double memory_us = 0;
  if (arch.cache.bytes > 0) {
    const double from_dram = std::max(0.0, load.distinct_read_bytes - static_cast<double>(arch.cache.bytes));
    const double core_gbps = std::min(arch.dma.port_gbps, in_flight / arch.cache.hit_latency_ns);
    memory_us = std::max({us(from_dram, arch.lpddr5.peak_gbps), us(load.read_bytes, arch.cache.gbps),
                          us(load.max_core_read_bytes, core_gbps)});
  } else {
    const double core_gbps = std::min(arch.dma.port_gbps, in_flight / arch.lpddr5.latency_ns);
    memory_us = std::max(us(load.distinct_read_bytes, arch.lpddr5.peak_gbps), us(load.max_core_read_bytes, core_gbps));
  }
  // The busiest core's compute on its unit, both corelets (kernel_plan.cpp).
  const double elems_per_cycle = (unit == "pt" ? static_cast<double>(arch.pt.elementwise_elems_per_cycle)
                                               : arch.sfu.lanes / sim::sfu_cycles_per_vector(arch, find_op(op)->cost)) *
                                 arch.corelets_per_core;
  const double compute_us = load.max_core_elements / elems_per_cycle * arch.cycle_ns() * 1e-3;
  memory_us = std::max(memory_us, compute_us);
  double tail_ns = 0;
  if (load.write_bytes > 0 && load.every_core_writes) tail_ns += arch.dma.write_fence_ns;
  if (load.cores > 1) tail_ns += arch.launch.barrier_ns;
  return memory_us + tail_ns * 1e-3;
}

}  // namespace spyre::studies
