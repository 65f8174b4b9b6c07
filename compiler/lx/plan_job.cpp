#include "compiler/lx/plan_job.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/lx/lx_inputs.h"
#include "runtime/error.h"
#include "runtime/user_files.h"

namespace spyre::compiler {

namespace {

Json plan_report(const PlanJob& job, const PlanOutcome& o, bool place_all) {
  const LxProblem& p = o.problem;
  Json r = Json::object();
  r["input"] = job.input;
  r["solver"] = job.solver;
  r["mode"] = place_all ? "place-all" : "capacity";
  r["capacity"] = p.capacity;
  r["alignment"] = p.alignment;
  r["buffers_total"] = p.buffers.size();
  int placed = 0;
  for (const auto& pl : o.plan.placements) placed += pl.empty() ? 0 : 1;
  r["buffers_in_lx"] = placed;
  const int64_t peak = peak_address(o.plan, p);
  r["feasible"] = all_placed(o.plan) && peak <= p.capacity;
  r["peak_bytes"] = peak;
  r["peak_over_capacity"] = static_cast<double>(peak) / static_cast<double>(p.capacity);
  r["live_bytes_bound"] = peak_live_bytes(p);
  r["hbm_bytes"] = plan_hbm_bytes(p, o.plan);
  LxPlan none;
  none.placements.assign(p.buffers.size(), {});
  r["hbm_bytes_without_lx"] = plan_hbm_bytes(p, none);
  r["spill_bytes"] = o.plan.spill_bytes;
  if (job.timings) r["solve_ms"] = o.plan.solve_ms;
  r["complete"] = o.plan.complete;
  r["valid"] = o.violations.empty();
  r["violations"] = o.violations;
  if (!o.plan.note.empty()) r["note"] = o.plan.note;
  Json buffers = Json::array();
  for (size_t b = 0; b < p.buffers.size(); ++b) {
    const LxBuffer& buf = p.buffers[b];
    Json placements = Json::array();
    for (const auto& pl : o.plan.placements[b])
      placements.push_back({{"address", pl.address}, {"from", pl.lower}, {"to", pl.upper}});
    buffers.push_back({{"name", buf.name},
                       {"size", buf.size},
                       {"lower", buf.lower},
                       {"upper", buf.upper},
                       {"in_lx", !placements.empty()},
                       {"placements", placements}});
  }
  r["buffers"] = buffers;
  return r;
}

}  // namespace

PlanOutcome run_plan_job(const PlanJob& job) {
  if (job.input.empty()) fail("", "plan", "give a pattern JSON, a buffer list JSON or a MiniMalloc CSV");
  require_regular_file(job.input);
  if (!job.report_path.empty()) check_output_file(job.report_path, "--report");
  PlanOutcome o;
  o.problem = read_lx_problem(job.input, job.capacity, job.alignment);
  const bool place_all = job.place_all || std::filesystem::path(job.input).extension() == ".csv";
  LxSolveOptions options = job.limits;
  options.place_all = place_all;
  o.plan = make_lx_solver(job.solver)->solve(o.problem, options);
  if (place_all) {
    // Validate against the height reached, not the capacity it may exceed.
    LxProblem tall = o.problem;
    tall.capacity = std::max(tall.capacity, peak_address(o.plan, tall));
    o.violations = validate_plan(tall, o.plan);
    for (size_t b = 0; b < o.plan.placements.size(); ++b) {
      if (o.plan.placements[b].empty())
        o.violations.push_back("buffer '" + o.problem.buffers[b].name + "' was not placed");
    }
  } else {
    o.violations = validate_plan(o.problem, o.plan);
  }
  o.report = plan_report(job, o, place_all);
  if (!job.report_path.empty()) {
    std::ofstream out(job.report_path);
    out << o.report.dump(2) << "\n";
    if (!out) fail(job.report_path, "", "cannot write the report");
  }
  return o;
}

std::string plan_table(const PlanOutcome& o) {
  const Json& r = o.report;
  std::ostringstream out;
  out << "spyre-sim plan " << r["input"].get<std::string>() << " (solver " << r["solver"].get<std::string>() << ", "
      << r["mode"].get<std::string>() << ")\n";
  out << "buffers      " << r["buffers_in_lx"].get<int>() << " of " << r["buffers_total"].get<int>() << " in LX\n";
  out << "peak         " << r["peak_bytes"].get<int64_t>() << " B of capacity " << r["capacity"].get<int64_t>()
      << " B (" << r["peak_over_capacity"].get<double>() << "x; live-bytes bound "
      << r["live_bytes_bound"].get<int64_t>() << " B)\n";
  out << "feasible     " << (r["feasible"].get<bool>() ? "yes" : "no") << "\n";
  out << "HBM          " << r["hbm_bytes"].get<int64_t>() << " B (" << r["hbm_bytes_without_lx"].get<int64_t>()
      << " B with nothing in LX)\n";
  out << "solve        " << (r["complete"].get<bool>() ? "complete" : "search limit reached");
  if (r.contains("solve_ms")) out << ", " << r["solve_ms"].get<double>() << " ms";
  out << "\n";
  if (r.contains("note")) out << "note         " << r["note"].get<std::string>() << "\n";
  const std::string bound = r["mode"] == "place-all" ? "every buffer placed" : "all within capacity";
  out << "check        "
      << (o.violations.empty() ? "valid: no two live placements overlap, " + bound
                               : std::to_string(o.violations.size()) + " violations")
      << "\n";
  for (const auto& v : o.violations) out << "  " << v << "\n";
  if (o.problem.buffers.size() <= 40) {
    out << "\n  buffer                        size   live         address\n";
    for (const auto& b : r["buffers"]) {
      std::string where = "HBM";
      if (!b["placements"].empty()) {
        where.clear();
        for (const auto& pl : b["placements"]) {
          where += (where.empty() ? "" : ", ") + std::to_string(pl["address"].get<int64_t>());
          if (b["placements"].size() > 1)
            where +=
                " [" + std::to_string(pl["from"].get<int64_t>()) + "," + std::to_string(pl["to"].get<int64_t>()) + ")";
        }
      }
      char line[256];
      std::snprintf(line, sizeof line, "  %-26s %8lld   [%lld, %lld)   %s\n", b["name"].get<std::string>().c_str(),
                    static_cast<long long>(b["size"].get<int64_t>()), static_cast<long long>(b["lower"].get<int64_t>()),
                    static_cast<long long>(b["upper"].get<int64_t>()), where.c_str());
      out << line;
    }
  }
  return out.str();
}

}  // namespace spyre::compiler
