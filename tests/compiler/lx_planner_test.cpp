// LX planners on their own: the pattern suite (each solver's outcome on each
// class of problem the seed names), the MiniMalloc instances, plan
// validation, live-range splitting's traffic accounting, and input errors.

#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/lx/lx_inputs.h"
#include "compiler/lx/lx_problem.h"
#include "compiler/lx/lx_solver.h"
#include "compiler/lx/plan_job.h"
#include "runtime/user_files.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

using spyre::test::error_of;
using spyre::test::source_path;
using spyre::test::TempDir;
using spyre::test::write_text;

std::vector<std::string> pattern_files(const std::string& folder = "models/lx_patterns") {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(source_path(folder))) {
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

PlanOutcome plan(const std::string& input, const std::string& solver) {
  PlanJob job;
  job.input = input;
  job.solver = solver;
  return run_plan_job(job);
}

TEST(LxPatterns, TheSuiteCoversTheSeedsClasses) {
  std::vector<std::string> names;
  for (const auto& f : pattern_files()) names.push_back(std::filesystem::path(f).stem().string());
  for (const char* want : {"fragmentation", "staircase_up", "staircase_down", "gqa_attention", "moe_mlp", "eviction",
                           "eviction_reallocation"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
}

// Every pattern file records, per solver, whether it places every buffer and
// the HBM bytes of its plan; each plan must also be valid.
TEST(LxPatterns, EverySolverGetsItsRecordedOutcome) {
  for (const auto& file : pattern_files()) {
    const Json doc = read_json_file(file);
    for (const auto& solver : lx_solver_names()) {
      SCOPED_TRACE(file + " / " + solver);
      const PlanOutcome o = plan(file, solver);
      EXPECT_TRUE(o.violations.empty()) << o.violations.front();
      const Json& want = doc.at("expected").at(solver);
      EXPECT_EQ(o.report.at("feasible").get<bool>(), want.at("feasible").get<bool>());
      EXPECT_EQ(o.report.at("hbm_bytes").get<int64_t>(), want.at("hbm_bytes").get<int64_t>());
    }
  }
}

// torch-spyre's own seven patterns (tests/inductor/test_scratchpad_patterns.py)
// as buffer lists: greedy, firstfit and bestfit place everything exactly where
// upstream's test expects them to, and fail where it marks a known failure.
TEST(LxPatterns, UpstreamPatternsGetUpstreamsOutcome) {
  const auto files = pattern_files("models/lx_patterns/upstream");
  EXPECT_EQ(files.size(), 7u);
  for (const auto& file : files) {
    const Json doc = read_json_file(file);
    for (const auto& solver : lx_solver_names()) {
      SCOPED_TRACE(file + " / " + solver);
      const PlanOutcome o = plan(file, solver);
      EXPECT_TRUE(o.violations.empty()) << o.violations.front();
      EXPECT_EQ(o.report.at("feasible").get<bool>(), doc.at("expected").at(solver).at("feasible").get<bool>());
    }
  }
  // Upstream's summary: the fit solvers fail only the two eviction patterns.
  for (const auto& file : files) {
    const bool eviction = file.find("eviction") != std::string::npos;
    for (const char* solver : {"firstfit", "bestfit"}) {
      EXPECT_EQ(plan(file, solver).report.at("feasible").get<bool>(), !eviction) << file << " / " << solver;
    }
  }
}

TEST(LxPatterns, GreedyFailsFragmentationAndStaircasesBestPassesAll) {
  for (const char* name : {"fragmentation", "staircase_up", "staircase_down"}) {
    EXPECT_FALSE(plan(source_path("models/lx_patterns/") + name + ".json", "greedy").report.at("feasible").get<bool>())
        << name;
  }
  for (const auto& file : pattern_files()) {
    EXPECT_TRUE(plan(file, "best").report.at("feasible").get<bool>()) << file;
  }
}

TEST(LxPatterns, BestNeverMovesMoreBytesThanAnyOtherSolver) {
  for (const auto& file : pattern_files()) {
    const int64_t best = plan(file, "best").report.at("hbm_bytes").get<int64_t>();
    for (const auto& solver : lx_solver_names()) {
      EXPECT_LE(best, plan(file, solver).report.at("hbm_bytes").get<int64_t>()) << file << " vs " << solver;
    }
  }
}

// Hand-derived: x and w read once (4 units each), six one-unit outputs, 128 B
// units. exact keeps a whole and streams b's three uses (3 x 512 B); best
// stores a before b arrives and reloads it after (2 x 512 B).
TEST(LxPatterns, EvictionIsChosenOnlyWhenItSavesTraffic) {
  const std::string file = source_path("models/lx_patterns/eviction.json");
  const PlanOutcome exact = plan(file, "exact");
  const PlanOutcome best = plan(file, "best");
  EXPECT_EQ(exact.report.at("hbm_bytes").get<int64_t>(), 14 * 128 + 3 * 512);
  EXPECT_EQ(best.report.at("hbm_bytes").get<int64_t>(), 14 * 128 + 2 * 512);
  EXPECT_EQ(best.report.at("spill_bytes").get<int64_t>(), 2 * 512);
  // a holds LX in two stretches: before b and after it.
  const Json& a = best.report.at("buffers").at(0).at("name") == "a" ? best.report.at("buffers").at(0)
                                                                    : best.report.at("buffers").at(1);
  ASSERT_EQ(a.at("name"), "a");
  EXPECT_EQ(a.at("placements").size(), 2u);
  // Fragmentation has room for everything: no solver splits there.
  EXPECT_EQ(plan(source_path("models/lx_patterns/fragmentation.json"), "best").report.at("spill_bytes").get<int64_t>(),
            0);
}

TEST(LxPatterns, ReallocationReloadsAtAnotherAddress) {
  const PlanOutcome o = plan(source_path("models/lx_patterns/eviction_reallocation.json"), "best");
  int moved = 0;
  for (const auto& b : o.report.at("buffers")) {
    const Json& pls = b.at("placements");
    if (pls.size() == 2 && pls.at(0).at("address") != pls.at(1).at("address")) ++moved;
  }
  EXPECT_GE(moved, 1);
  EXPECT_EQ(o.report.at("spill_bytes").get<int64_t>(), 2 * (256 + 256));  // a1 and a2: store and reload each
}

TEST(LxMiniMalloc, BestFitsInstancesAtCapacity) {
  for (const char* name : {"E", "G", "J"}) {
    const PlanOutcome o = plan(source_path("models/minimalloc/") + name + ".1048576.csv", "best");
    EXPECT_TRUE(o.report.at("feasible").get<bool>()) << name;
    EXPECT_EQ(o.report.at("peak_bytes").get<int64_t>(), 1048576) << name;  // peak live bytes equal the capacity
    EXPECT_TRUE(o.violations.empty()) << name;
    EXPECT_EQ(o.report.at("mode"), "place-all");
  }
}

TEST(LxMiniMalloc, GreedyNeedsMoreThanTheCapacity) {
  const PlanOutcome o = plan(source_path("models/minimalloc/A.1048576.csv"), "greedy");
  EXPECT_FALSE(o.report.at("feasible").get<bool>());
  EXPECT_GT(o.report.at("peak_bytes").get<int64_t>(), 1048576);
  EXPECT_TRUE(o.violations.empty());  // valid within the height it reached
}

LxProblem two_buffers() {
  LxProblem p;
  p.capacity = 256;
  p.alignment = 128;
  p.buffers = {{"a", 128, 0, 3, {}, {0, 2}, false}, {"b", 128, 1, 4, {}, {1, 3}, false}};
  return p;
}

TEST(LxValidate, FindsOverlapsAndOutOfRange) {
  const LxProblem p = two_buffers();
  LxPlan plan;
  plan.placements = {{{0, 0, 3}}, {{128, 1, 4}}};
  EXPECT_TRUE(validate_plan(p, plan).empty());
  plan.placements[1][0].address = 64;
  const auto errors = validate_plan(p, plan);
  ASSERT_EQ(errors.size(), 2u);  // misaligned, and overlapping a
  plan.placements[1][0].address = 256;
  EXPECT_NE(validate_plan(p, plan).at(0).find("outside [0, 256)"), std::string::npos);
}

TEST(LxValidate, InPlaceChildMayTakeTheParentsBytesAtTheHandover) {
  LxProblem p = two_buffers();
  p.buffers[0] = {"parent", 128, 0, 2, {}, {0, 1}, false};
  p.buffers[1] = {"child", 128, 1, 3, {0}, {1, 2}, false};
  LxPlan plan;
  plan.placements = {{{0, 0, 2}}, {{0, 1, 3}}};
  EXPECT_TRUE(validate_plan(p, plan).empty());
  p.buffers[1].in_place_parents.clear();
  EXPECT_EQ(validate_plan(p, plan).size(), 1u);
}

TEST(LxSplitTraffic, StoresOnlyWhatIsNeededLaterAndReloadsEachReturn) {
  const LxBuffer b{"b", 512, 0, 10, {}, {0, 1, 8, 9}, false};
  EXPECT_EQ(split_traffic(b, {{0, 0, 10}}), 0);                   // held throughout
  EXPECT_EQ(split_traffic(b, {{0, 0, 2}, {0, 8, 10}}), 2 * 512);  // store + reload
  EXPECT_EQ(split_traffic(b, {{0, 0, 2}}), 512);                  // store; later uses read HBM
  EXPECT_EQ(split_traffic(b, {{0, 8, 10}}), 512);                 // reload only
  LxBuffer clone = b;
  clone.first_use_is_read = true;  // the value is in HBM already
  EXPECT_EQ(split_traffic(clone, {{0, 0, 2}, {0, 8, 10}}), 512);
}

TEST(LxSolvers, UnknownSolverNamesTheKnownOnes) {
  const std::string e = error_of([] { make_lx_solver("annealing"); });
  EXPECT_NE(e.find("annealing"), std::string::npos);
  EXPECT_NE(e.find("bestfit"), std::string::npos);
}

TEST(LxInputs, BadInputsNameTheFileFieldAndReason) {
  TempDir dir;
  struct Case {
    std::string file, text, field, reason;
  };
  const std::vector<Case> cases = {
      {"unknown.json",
       R"({"capacity": 512, "tensors": [{"name": "a", "size": 128}], "ops": [{"name": "o", "inputs": ["b"],
        "outputs": ["a"]}]})",
       "inputs", "unknown tensor 'b'"},
      {"kind.json", R"({"capacity": 512, "tensors": [{"name": "a", "size": 128, "kind": "weight"}], "ops": []})",
       "kind", "must be input, output or intermediate"},
      {"early.json",
       R"({"capacity": 512, "tensors": [{"name": "a", "size": 128}, {"name": "y", "size": 128,
        "kind": "output"}], "ops": [{"name": "o", "inputs": ["a"], "outputs": ["y"]}]})",
       "inputs", "read before any op writes it"},
      {"cap.json", R"({"capacity": 0, "buffers": []})", "capacity", "must be positive"},
      {"neither.json", R"({"capacity": 512})", "$", "neither a pattern"},
      {"uses.json", R"({"capacity": 512, "buffers": [{"name": "a", "size": 128, "uses": []}]})", "uses",
       "at least one use"},
      {"repeat.json", R"({"capacity": 512, "buffers": [{"name": "a", "size": 8, "uses": [3, 3]}]})", "buffers[0].uses",
       "strictly increasing"},
      {"twice.json",
       R"({"capacity": 512, "buffers": [{"name": "a", "size": 8, "uses": [1]}, {"name": "a", "size": 8, "uses": [2]}]})",
       "buffers[1].name", "listed twice"},
      {"flag.json", R"({"capacity": 512, "buffers": [{"name": "a", "size": 8, "uses": [1], "first_use_is_read": 1}]})",
       "first_use_is_read", "true or false"},
      {"late.json",
       R"({"capacity": 512, "buffers": [{"name": "p", "size": 8, "uses": [0, 4]},
        {"name": "c", "size": 8, "uses": [3, 8], "in_place_parents": ["p"]}]})",
       "buffers[1].in_place_parents[0]", "must start at 4, not 3"},
      {"unread.json",
       R"({"capacity": 512, "buffers": [{"name": "p", "size": 8, "uses": [3]},
        {"name": "c", "size": 8, "uses": [3, 8], "in_place_parents": ["p"]}]})",
       "in_place_parents[0]", "never read"},
      {"big.json",
       R"({"capacity": 512, "buffers": [{"name": "p", "size": 8, "uses": [0, 4]},
        {"name": "c", "size": 9, "uses": [4, 8], "in_place_parents": ["p"]}]})",
       "in_place_parents[0]", "larger than its parent"},
      {"index.json",
       R"({"capacity": 512, "buffers": [{"name": "c", "size": 8, "uses": [4], "in_place_parents": [5]}]})",
       "in_place_parents[0]", "not in [0, 1)"},
      {"cycle.json",
       R"({"capacity": 512, "buffers": [
        {"name": "a", "size": 8, "uses": [3], "first_use_is_read": true, "in_place_parents": ["b"]},
        {"name": "b", "size": 8, "uses": [3], "first_use_is_read": true, "in_place_parents": ["a"]}]})",
       "in_place_parents", "form a cycle"},
      {"bad.7.csv", "id,lower,upper,size\n0,0,x,128\n", "line 2", "'upper' is not an integer"},
      {"order.7.csv", "id,lower,upper,size\n0,5,5,128\n", "line 2", "upper must be greater than lower"},
      {"header.7.csv", "id,start,end,size\n", "line 1", "no column 'lower'"},
      {"nocap.csv", "id,lower,upper,size\n0,0,1,128\n", "--capacity", "give the capacity"},
      {"broken.json", R"({"capacity": )", "", ""},
  };
  for (const auto& c : cases) {
    write_text(dir.file(c.file), c.text);
    const std::string e = error_of([&] { read_lx_problem(dir.file(c.file), 0, 0); });
    SCOPED_TRACE(c.file + ": " + e);
    EXPECT_NE(e.find(c.file), std::string::npos);
    EXPECT_NE(e.find(c.field), std::string::npos);
    EXPECT_NE(e.find(c.reason), std::string::npos);
    EXPECT_EQ(e.find('\n'), std::string::npos);  // one line
  }
}

TEST(LxInputs, PatternGivesTwoLiveRangesToATensorWrittenTwice) {
  TempDir dir;
  write_text(dir.file("p.json"),
             R"({"capacity": 1024, "tensors": [{"name": "x", "size": 100, "kind": "input"}, {"name": "t", "size": 128},
    {"name": "y", "size": 128, "kind": "output"}],
    "ops": [{"name": "a", "inputs": ["x"], "outputs": ["t"]}, {"name": "b", "inputs": ["t"], "outputs": ["y"]},
            {"name": "c", "inputs": ["x"], "outputs": ["t"]}, {"name": "d", "inputs": ["t", "t"],
             "outputs": ["y"]}]})");
  const LxProblem p = read_lx_problem(dir.file("p.json"), 0, 0);
  ASSERT_EQ(p.buffers.size(), 2u);
  EXPECT_EQ(p.buffers[0].name, "t");
  EXPECT_EQ(p.buffers[1].name, "t#2");
  EXPECT_EQ(p.buffers[0].lower, 0);
  EXPECT_EQ(p.buffers[0].upper, 2);
  EXPECT_EQ(p.buffers[1].uses, (std::vector<int64_t>{2, 3}));  // one access per op
  EXPECT_EQ(p.fixed_hbm_bytes, 2 * 100 + 2 * 128);             // x read twice, y written twice: sizes unpadded
}

TEST(LxCli, PlanPrintsTheCheckAndWritesTheReport) {
  TempDir dir;
  const auto r = spyre::test::run_cli("plan " + source_path("models/lx_patterns/fragmentation.json") +
                                      " --solver greedy --report " + dir.file("p.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("feasible     no"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("valid: no two live placements overlap"), std::string::npos);
  const Json report = read_json_file(dir.file("p.json"));
  for (const char* key : {"solver", "capacity", "feasible", "peak_bytes", "hbm_bytes", "buffers"})
    EXPECT_TRUE(report.contains(key)) << key;
  EXPECT_FALSE(report.contains("solve_ms"));  // wall-clock only with --timings
  EXPECT_EQ(spyre::test::run_cli("plan " + dir.file("missing.json")).exit_code, 1);
}

// The same input gives byte-identical reports: `best` splits its portfolio
// over two threads on J (409 buffers), and which thread is faster must not
// matter; wall-clock time only with --timings.
TEST(LxCli, ReportsAreByteIdenticalRunToRun) {
  TempDir dir;
  const std::string input = source_path("models/minimalloc/J.1048576.csv");
  for (const char* name : {"a.json", "b.json", "c.json"}) {
    ASSERT_EQ(spyre::test::run_cli("plan " + input + " --solver best --quiet --report " + dir.file(name)).exit_code, 0);
  }
  const std::string first = read_input_file(dir.file("a.json"));
  EXPECT_EQ(first, read_input_file(dir.file("b.json")));
  EXPECT_EQ(first, read_input_file(dir.file("c.json")));
  ASSERT_EQ(spyre::test::run_cli("plan " + input + " --solver greedy --quiet --timings --report " + dir.file("t.json"))
                .exit_code,
            0);
  EXPECT_TRUE(read_json_file(dir.file("t.json")).contains("solve_ms"));
  for (const char* name : {"d1.json", "d2.json"}) {
    ASSERT_EQ(spyre::test::run_cli("compile --workload softmax --shape 256x512 --cores 4 --lx-planning --quiet -o " +
                                   dir.file(std::string(name) + ".out") + " --decisions " + dir.file(name))
                  .exit_code,
              0);
  }
  EXPECT_EQ(read_input_file(dir.file("d1.json")), read_input_file(dir.file("d2.json")));
}

}  // namespace
}  // namespace spyre::compiler

namespace spyre::compiler {
namespace {

// Softmax at stage 4 on one core (512x1024 fp16): the clone, sub and exp
// hand one 1 MiB slot down in place; only then do all five buffers fit the
// 1677696 usable bytes. Every solver must use the handovers.
TEST(LxInPlace, EverySolverChainsTheSoftmaxHandovers) {
  TempDir dir;
  write_text(dir.file("chain.json"), R"({"capacity": 1677696, "buffers": [
    {"name": "x.lx", "size": 1048576, "uses": [0, 1, 2]}, {"name": "max", "size": 2048, "uses": [1, 2]},
    {"name": "sub", "size": 1048576, "uses": [2, 3], "in_place_parents": ["x.lx"]},
    {"name": "exp", "size": 1048576, "uses": [3, 4, 5], "in_place_parents": ["sub"]}, {"name": "sum",
     "size": 2048, "uses": [4, 5]}]})");
  for (const auto& solver : lx_solver_names()) {
    const PlanOutcome o = plan(dir.file("chain.json"), solver);
    EXPECT_TRUE(o.report.at("feasible").get<bool>()) << solver;
    EXPECT_TRUE(o.violations.empty()) << solver;
    EXPECT_EQ(o.report.at("peak_bytes").get<int64_t>(), 1048576 + 2048) << solver;
  }
}

}  // namespace
}  // namespace spyre::compiler
