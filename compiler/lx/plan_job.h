#pragma once
// `spyre-sim plan` as a library call: read an LX planning problem, solve it,
// check the plan, report it.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "compiler/lx/lx_problem.h"
#include "compiler/lx/lx_solver.h"

#include "runtime/json_node.h"

namespace spyre::compiler {

struct PlanJob {
  std::string input;
  std::string solver = "best";
  int64_t capacity = 0;   // > 0 overrides the input's
  int64_t alignment = 0;  // > 0 overrides the input's
  // Place every buffer and report the height reached (the default for
  // MiniMalloc CSVs); otherwise buffers that do not fit stay in HBM.
  bool place_all = false;
  LxSolveOptions limits;
  std::string report_path;
  // Wall-clock solve time in the report and table; off, the same input gives
  // byte-identical output.
  bool timings = false;
};

struct PlanOutcome {
  LxProblem problem;
  LxPlan plan;
  std::vector<std::string> violations;  // from validate_plan: empty when valid
  Json report;
};

PlanOutcome run_plan_job(const PlanJob& job);
// The report as a table (buffers listed when there are few).
std::string plan_table(const PlanOutcome& outcome);

}  // namespace spyre::compiler
