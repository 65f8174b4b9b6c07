// torch-spyre's own LX solver tests as the spec: every case under
// tests/conformance/ (lx_solver_tests: the cases of ../shared/conformance, as
// handed over; lx_solver_tests_newer: upstream's later tests in the same form)
// runs through `spyre-sim plan`'s library call with the case's solver and
// must give what the upstream test asserts. Every accepted input must also
// get valid plans from exact and best that move no more HBM bytes than any of
// torch-spyre's three solvers.

#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/lx/lx_solver.h"
#include "compiler/lx/plan_job.h"
#include "runtime/error.h"
#include "test_support.h"

namespace spyre::compiler {
namespace {

using spyre::test::source_path;
using spyre::test::TempDir;
using spyre::test::write_text;

std::vector<std::string> case_files() {
  std::vector<std::string> files;
  for (const char* folder : {"tests/conformance/lx_solver_tests", "tests/conformance/lx_solver_tests_newer"}) {
    for (const auto& e : std::filesystem::directory_iterator(source_path(folder))) {
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Attempt {
  std::string error;  // non-empty: the input was refused
  PlanOutcome outcome;
};

Attempt plan_case(const Json& input, const std::string& solver) {
  TempDir dir;
  write_text(dir.file("input.json"), input.dump());
  PlanJob job;
  job.input = dir.file("input.json");
  job.solver = solver;
  Attempt a;
  try {
    a.outcome = run_plan_job(job);
  } catch (const SpyreError& e) {
    a.error = e.what();
  }
  return a;
}

// Buffer name -> its address (null: left in HBM).
Json addresses(const PlanOutcome& o) {
  Json out = Json::object();
  for (const auto& b : o.report.at("buffers")) {
    const Json& pls = b.at("placements");
    out[b.at("name").get<std::string>()] = pls.empty() ? Json(nullptr) : pls.at(0).at("address");
  }
  return out;
}

// True when every buffer `want` names has the address it gives.
bool matches(const Json& got, const Json& want) {
  for (const auto& [name, address] : want.items()) {
    if (!got.contains(name) || got.at(name) != address) return false;
  }
  return true;
}

class LxConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(LxConformance, PlanGivesWhatTorchSpyresTestAsserts) {
  const Json c = read_json_file(GetParam());
  const Attempt a = plan_case(c.at("input"), c.at("solver").get<std::string>());
  SCOPED_TRACE(c.at("source").get<std::string>());
  const Json props = c.value("expect_props", Json::object());
  if (props.value("rejected", false)) {
    EXPECT_FALSE(a.error.empty()) << "accepted an input torch-spyre refuses";
    return;
  }
  ASSERT_TRUE(a.error.empty()) << a.error;
  const PlanOutcome& o = a.outcome;
  EXPECT_TRUE(o.violations.empty()) << o.violations.front();
  const Json got = addresses(o);
  if (c.contains("expect")) {
    EXPECT_TRUE(matches(got, c.at("expect"))) << "got " << got.dump();
  }
  if (c.contains("expect_any_of")) {
    bool any = false;
    for (const auto& layout : c.at("expect_any_of")) any = any || matches(got, layout);
    EXPECT_TRUE(any) << "got " << got.dump();
  }
  if (props.contains("buffers_total")) {
    EXPECT_EQ(o.report.at("buffers_total"), props.at("buffers_total"));
  }
  if (props.contains("buffers_placed")) {
    EXPECT_EQ(o.report.at("buffers_in_lx"), props.at("buffers_placed"));
  }
  if (props.value("within_capacity", false)) {
    EXPECT_LE(o.report.at("peak_bytes"), o.report.at("capacity"));
  }
}

TEST_P(LxConformance, ExactAndBestAreValidAndNeverMoveMoreBytes) {
  const Json c = read_json_file(GetParam());
  if (c.value("expect_props", Json::object()).value("rejected", false)) return;
  int64_t fewest = -1;
  for (const char* heuristic : {"greedy", "firstfit", "bestfit"}) {
    const int64_t bytes = plan_case(c.at("input"), heuristic).outcome.report.at("hbm_bytes").get<int64_t>();
    fewest = fewest < 0 ? bytes : std::min(fewest, bytes);
  }
  for (const char* ours : {"exact", "best"}) {
    const Attempt a = plan_case(c.at("input"), ours);
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_TRUE(a.outcome.violations.empty()) << ours << ": " << a.outcome.violations.front();
    EXPECT_LE(a.outcome.report.at("hbm_bytes").get<int64_t>(), fewest) << ours;
  }
}

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  const std::filesystem::path path(info.param);
  std::string name = path.parent_path().filename().string() == "lx_solver_tests_newer" ? "newer_" : "";
  for (char ch : path.stem().string()) name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cases, LxConformance, ::testing::ValuesIn(case_files()), case_name);

// The handed-over folder is complete: 77 cases from 28 upstream tests.
TEST(LxConformanceFolder, HoldsEveryHandedOverCase) {
  size_t handed_over = 0;
  for (const auto& f : case_files()) handed_over += f.find("lx_solver_tests_newer") == std::string::npos ? 1 : 0;
  EXPECT_EQ(handed_over, 77u);
}

}  // namespace
}  // namespace spyre::compiler
