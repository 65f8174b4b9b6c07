// `spyre-sim sweep`: the spec's grid, one row per point, resuming after a
// kill, failing points recorded and named.

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "studies/sweep_runner.h"
#include "studies/sweep_spec.h"
#include "studies/worker_pool.h"
#include "test_support.h"

namespace spyre {
namespace {

using studies::read_sweep_spec;
using test::TempDir;

std::string write_spec(const TempDir& dir, const std::string& body) {
  const std::string path = dir.file("spec.json");
  test::write_text(path, body);
  return path;
}

std::string spec_error(const std::string& body) {
  TempDir dir;
  const std::string path = write_spec(dir, body);
  const std::string message = test::error_of([&] { read_sweep_spec(path); });
  return message.substr(0, path.size()) == path ? message.substr(path.size()) : message;
}

constexpr const char* kAdd = R"({"name": "add", "bundle": ")";

std::string add_bundle() { return test::cli_bundle("add"); }

// A sweep named "t" over the torch-spyre add bundle; `rest` is what follows
// the runs (e.g. `, "axes": [...]`).
std::string add_sweep_json(const std::string& rest = "") {
  return std::string(R"({"name": "t", "runs": [)") + kAdd + add_bundle() + R"("}])" + rest + "}";
}

TEST(SweepSpec, CrossesAxesInOrderAndZipsTogether) {
  TempDir dir;
  const auto spec = read_sweep_spec(write_spec(dir, std::string(R"({"runs": [)") + kAdd + add_bundle() + R"("},
      {"name": "exp", "workload": "exp", "shape": "64x64"}],
    "axes": [{"key": "clock_ghz", "values": [1, 1.5]},
             {"zip": [{"key": "lpddr5.read_gbps", "range": {"from": 100, "to": 300, "step": 100}},
                      {"key": "lpddr5.write_gbps", "values": [50, 60, 70]}]}]})"));
  ASSERT_EQ(spec.points.size(), 2u * 2u * 3u);
  EXPECT_EQ(spec.axis_keys, (std::vector<std::string>{"clock_ghz", "lpddr5.read_gbps", "lpddr5.write_gbps"}));
  const auto& p = spec.points[4];  // add, clock 1.5, second zip step
  EXPECT_EQ(p.run, 0u);
  EXPECT_EQ(p.values, (std::vector<std::pair<std::string, std::string>>{
                          {"clock_ghz", "1.5"}, {"lpddr5.read_gbps", "200"}, {"lpddr5.write_gbps", "60"}}));
  EXPECT_EQ(spec.points[6].run, 1u);
  std::set<std::string> hashes;
  for (const auto& q : spec.points) hashes.insert(q.hash);
  EXPECT_EQ(hashes.size(), spec.points.size());
  // The same spec gives the same hashes: that is what a re-run resumes by.
  EXPECT_EQ(read_sweep_spec(dir.file("spec.json")).points[4].hash, p.hash);
}

TEST(SweepSpec, BadSpecsNameThePathAndTheReason) {
  const std::string run = std::string(R"({"runs": [)") + kAdd + add_bundle() + R"("}], )";
  EXPECT_EQ(spec_error(run + R"("axes": [{"key": "lx.sise_bytes", "values": [1]}]})"),
            ": $.axes[0].key: unknown key 'lx.sise_bytes' (an arch parameter, see `spyre-sim arch`, or one of "
            "compile.cores, compile.split, compile.lx_planning, compile.lx_stage, compile.solver, "
            "compile.work_division, compile.cards)");
  EXPECT_EQ(spec_error(run + R"("axes": [{"key": "compile.cores", "values": [1]}]})"),
            ": $.axes[0].key: compile.cores changes how a program is compiled; run 'add' is a bundle");
  EXPECT_EQ(spec_error(run + R"("axes": [{"zip": [{"key": "clock_ghz", "values": [1, 2]},
                                                   {"key": "cores", "values": [1]}]}]})"),
            ": $.axes[0].zip: zipped axes need as many values each ('clock_ghz' has 2, 'cores' 1)");
  EXPECT_EQ(spec_error(run + R"("axes": [{"key": "clock_ghz", "range": {"from": 1, "to": 2, "step": 0}}]})"),
            ": $.axes[0].range.step: must be a positive number");
  EXPECT_EQ(spec_error(run + R"("keep": ["latency"]})").substr(0, 35), ": $.keep[0]: unknown metric (one of");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp"}, {"workload": "exp"}]})"),
            ": $.runs[1]: a second run named 'exp' (give each a \"name\")");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp", "bundle": "x"}]})"),
            ": $.runs[0]: give exactly one of \"bundle\", \"graph\", \"workload\"");
  EXPECT_EQ(spec_error(run + R"("between_runs": "sometimes"})"),
            ": $.between_runs: must be \"back-to-back\" or \"device-work\"");
  EXPECT_EQ(spec_error(run + R"("sample_repeats": -1})").substr(0, 19), ": $.sample_repeats:");
}

// "sample_repeats" is read and is part of the points' identity; a spec without
// it keeps the hashes it had.
TEST(Sweep, SampleRepeatsIsReadAndHashed) {
  TempDir plain, sampled;
  const std::string axes = ", \"axes\": [{\"key\": \"cache.bytes\", \"values\": [8388608]}]";
  const auto p = read_sweep_spec(write_spec(plain, add_sweep_json(axes)));
  const auto s = read_sweep_spec(write_spec(sampled, add_sweep_json(axes + ", \"sample_repeats\": 2")));
  EXPECT_EQ(p.sample_repeats, 0);
  EXPECT_EQ(s.sample_repeats, 2);
  EXPECT_NE(s.points[0].hash, p.points[0].hash);
}

// "between_runs": "device-work" runs every point as run --between-runs does
// (the add's 1 MiB output written back within the run), and it is part of the
// points' identity; a spec without it keeps the hashes it had.
TEST(Sweep, BetweenRunsIsRunAndHashed) {
  TempDir dir;
  const std::string warm = ", \"warmup\": 1, \"axes\": [{\"key\": \"cache.bytes\", \"values\": [8388608]}]";
  const std::string back_spec = write_spec(dir, add_sweep_json(warm));
  const auto back = read_sweep_spec(back_spec);
  TempDir other;
  const std::string displaced_spec = write_spec(other, add_sweep_json(warm + ", \"between_runs\": \"device-work\""));
  const auto displaced = read_sweep_spec(displaced_spec);
  EXPECT_EQ(displaced.protocol.between_runs, sim::BetweenRuns::kDeviceWork);
  EXPECT_NE(displaced.points[0].hash, back.points[0].hash);
  TempDir explicit_default;
  EXPECT_EQ(read_sweep_spec(write_spec(explicit_default, add_sweep_json(warm + ", \"between_runs\": \"back-to-back\"")))
                .points[0]
                .hash,
            back.points[0].hash);
  studies::SweepOptions o;
  o.workers = 1;
  std::ostringstream progress;
  o.spec = back_spec;
  o.out_prefix = dir.file("r");
  const auto b = studies::run_sweep(o, progress);
  o.spec = displaced_spec;
  o.out_prefix = other.file("r");
  const auto d = studies::run_sweep(o, progress);
  ASSERT_EQ(b.rows.size(), 1u);
  ASSERT_EQ(d.rows.size(), 1u);
  EXPECT_EQ(b.rows[0].metrics.at("dram_write_bytes"), 0);  // the warm cache absorbs the output
  EXPECT_EQ(d.rows[0].metrics.at("dram_write_bytes"), 512 * 1024 * 2);
  EXPECT_GT(d.rows[0].metrics.at("kernel_us"), b.rows[0].metrics.at("kernel_us"));
}

// The pool: a job that throws fails alone (its worker never returns into
// this process's code), a job that crashes its worker fails alone, the rest
// run; a worker stopped by SIGINT stops the pool, its job left unreported.
TEST(WorkerPool, FailuresStayWithTheirJobAndCtrlCStopsThePool) {
  std::map<size_t, std::string> got;
  studies::WorkerPoolOptions o;
  o.workers = 2;
  o.jobs_per_worker = 3;
  studies::run_in_worker_pool(
      8, o,
      [](size_t i) -> std::string {
        if (i == 2) throw std::runtime_error("job 2 throws");
        if (i == 5) std::abort();
        return "ran " + std::to_string(i);
      },
      [&](size_t i, const std::string* line, const std::string& failure) { got[i] = line ? *line : failure; });
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got[0], "ran 0");
  EXPECT_EQ(got[7], "ran 7");
  EXPECT_EQ(got[2], "internal error: the worker's job threw an exception");
  EXPECT_EQ(got[5], "internal error: the worker died of signal " + std::to_string(SIGABRT));
  struct sigaction now {};
  ::sigaction(SIGPIPE, nullptr, &now);
  EXPECT_EQ(now.sa_handler, SIG_DFL);  // put back

  std::map<size_t, std::string> partial;
  o.workers = 1;
  const std::string message = test::error_of([&] {
    studies::run_in_worker_pool(
        5, o,
        [](size_t i) -> std::string {
          if (i == 1) ::raise(SIGINT);
          return "ran " + std::to_string(i);
        },
        [&](size_t i, const std::string* line, const std::string&) { partial[i] = line ? *line : "failed"; });
  });
  EXPECT_EQ(message, "interrupted: stopped by a signal; the points that finished are kept");
  EXPECT_EQ(partial, (std::map<size_t, std::string>{{0, "ran 0"}}));
}

// A pool that outlives its runs forks its workers once: the second run's
// jobs go to the same processes (the split search's rounds of two); a job
// that crashes its worker fails alone and a new worker takes the rest.
TEST(WorkerPool, KeepsItsWorkersBetweenRunsAndReplacesOneThatDies) {
  studies::WorkerPoolOptions o;
  o.workers = 2;
  studies::WorkerPool pool(o, [](const std::string& request) -> std::string {
    if (request == "crash") std::abort();
    return request + " in " + std::to_string(::getpid());
  });
  auto run = [&](const std::vector<std::string>& requests) {
    std::map<size_t, std::string> got;
    pool.run(requests, [&](size_t i, const std::string* line, const std::string& failure) {
      got[i] = line != nullptr ? *line : failure;
    });
    return got;
  };
  std::set<std::string> first_pids;
  for (const auto& [i, line] : run({"a", "b", "c"})) first_pids.insert(line.substr(line.find(" in ") + 4));
  EXPECT_LE(first_pids.size(), 2u);
  for (const auto& [i, line] : run({"d", "e"})) {
    EXPECT_EQ(line.substr(0, 5), std::string(1, static_cast<char>('d' + i)) + " in ");
    EXPECT_TRUE(first_pids.count(line.substr(5))) << line << ": not one of the first run's workers";
  }
  EXPECT_EQ(pool.started(), 2u);

  o.workers = 1;
  studies::WorkerPool one(o, [](const std::string& request) -> std::string {
    if (request == "crash") std::abort();
    return "ran " + request;
  });
  std::map<size_t, std::string> got;
  one.run({"crash", "f"}, [&](size_t i, const std::string* line, const std::string& failure) {
    got[i] = line != nullptr ? *line : failure;
  });
  EXPECT_EQ(got.at(0), "internal error: the worker died of signal " + std::to_string(SIGABRT));
  EXPECT_EQ(got.at(1), "ran f");
  EXPECT_EQ(one.started(), 2u);
}

// A job's line: the body's JSON, or its error as {"error"}; its scratch
// folder goes either way.
TEST(WorkerPool, JsonJobLinesCarryTheResultOrTheErrorAndRemoveTheFolder) {
  TempDir dir;
  const std::string job = dir.file("job");
  std::filesystem::create_directories(job + "/bundle");
  EXPECT_EQ(studies::json_job_line(job, [] { return Json{{"us", 1.5}}; }), R"({"us":1.5})");
  EXPECT_FALSE(std::filesystem::exists(job));
  std::filesystem::create_directories(job);
  EXPECT_EQ(studies::json_job_line(job, []() -> Json { fail("t.csv", "line 2", "bad cell"); }),
            R"({"error":"t.csv: line 2: bad cell"})");
  EXPECT_FALSE(std::filesystem::exists(job));
  EXPECT_EQ(studies::json_job_line(job, []() -> Json { throw std::out_of_range("index 9"); }),
            R"({"error":"internal error: index 9"})");
}

// A YAML spec is the same spec: the same points, values and hashes as its
// JSON twin; its errors name the same $.paths, or the line of bad YAML.
TEST(SweepSpec, YamlSpecsReadAsTheirJsonTwins) {
  TempDir dir;
  test::write_text(dir.file("s.json"), R"({"name": "s", "runs": [{"name": "exp", "workload": "exp", "shape": "64x64",
      "params": {"dim": 1}, "lx_planning": true}],
    "axes": [{"key": "clock_ghz", "values": [1, 1.5]}, {"key": "compile.split", "values": ["out=0:2"]}]})");
  test::write_text(dir.file("s.yaml"),
                   "# a comment\nname: s\nruns:\n  - name: exp\n    workload: exp\n"
                   "    shape: \"64x64\"\n    params: {dim: 1}\n    lx_planning: true\n"
                   "axes:\n  - {key: clock_ghz, values: [1, 1.5]}\n"
                   "  - {key: compile.split, values: ['out=0:2']}\n");
  const auto json = read_sweep_spec(dir.file("s.json"));
  const auto yaml = read_sweep_spec(dir.file("s.yaml"));
  ASSERT_EQ(yaml.points.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(yaml.points[i].values, json.points[i].values);
    EXPECT_EQ(yaml.points[i].hash, json.points[i].hash);
  }
  test::write_text(dir.file("bad.yaml"), "runs:\n  - workload: exp\naxes: [{key: clock_ghz, values: [1, 2]}\n");
  EXPECT_EQ(test::error_of([&] { read_sweep_spec(dir.file("bad.yaml")); }).substr(dir.file("bad.yaml").size()),
            ": line 4, column 1: end of sequence flow not found");
  test::write_text(dir.file("schema.yaml"), "runs:\n  - workload: exp\naxes:\n  - {key: clock_ghz, values: yes}\n");
  EXPECT_EQ(test::error_of([&] { read_sweep_spec(dir.file("schema.yaml")); }).substr(dir.file("schema.yaml").size()),
            ": $.axes[0].values: expected an array or object");
  test::write_text(dir.file("laughs.yaml"),
                   "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, "
                   "*a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                   "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                   "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
                   "f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n");
  EXPECT_NE(test::error_of([&] {
              read_sweep_spec(dir.file("laughs.yaml"));
            }).find("expands to more than 1000000 values (aliases?)"),
            std::string::npos);
}

// A grid over bandwidth and cores: every row ran, slower memory is slower,
// the results are in point order and a re-run runs nothing.
TEST(Sweep, RowsPerPointAndAReRunSkipsThem) {
  TempDir dir;
  const std::string spec = write_spec(dir, std::string(R"({"name": "t", "runs": [)") + kAdd + add_bundle() + R"("},
      {"name": "exp", "workload": "exp", "shape": "256x256"}],
    "axes": [{"key": "lpddr5.read_gbps", "values": [50, 200]}, {"key": "clock_ghz", "values": [1, 2]}]})");
  studies::SweepOptions o;
  o.spec = spec;
  o.out_prefix = dir.file("r");
  o.workers = 2;
  std::ostringstream progress;
  const auto first = studies::run_sweep(o, progress);
  EXPECT_EQ(first.points, 8u);
  EXPECT_EQ(first.ran, 8u);
  ASSERT_EQ(first.rows.size(), 8u);
  EXPECT_TRUE(first.failures.empty());
  const std::string csv = test::read_text(dir.file("r.csv"));
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "point,run,lpddr5.read_gbps,clock_ghz,status,latency_us,kernel_us,kernels,hbm_read_bytes,hbm_write_bytes,"
            "dram_read_bytes,dram_write_bytes,lx_peak_bytes,pt_busy_pct,sfu_busy_pct,dma_in_busy_pct,"
            "dma_out_busy_pct,data_ring_bytes,reduce_ring_bytes,cards,collective_us,hazards,error");
  for (size_t i = 0; i < first.rows.size(); ++i) EXPECT_EQ(first.rows[i].point, i);
  // add at 50 GB/s is slower than at 200 GB/s; the bytes are the same.
  EXPECT_GT(first.rows[0].metrics.at("latency_us"), first.rows[2].metrics.at("latency_us"));
  EXPECT_EQ(first.rows[0].metrics.at("hbm_read_bytes"), 2 * 512 * 1024 * 2);
  EXPECT_EQ(first.rows[2].metrics.at("hbm_read_bytes"), 2 * 512 * 1024 * 2);
  EXPECT_EQ(first.rows[5].run, "exp");
  const auto again = studies::run_sweep(o, progress);
  EXPECT_EQ(again.ran, 0u);
  EXPECT_EQ(again.skipped, 8u);
  EXPECT_EQ(test::read_text(dir.file("r.csv")), csv);
}

TEST(Sweep, FailingPointsAreRecordedAndNamed) {
  TempDir dir;
  const std::string spec = write_spec(dir, add_sweep_json(R"(,
    "axes": [{"key": "cores", "values": [8, 32]}])"));
  const auto r = test::run_cli("sweep " + spec + " -o " + dir.file("r") + " -j 1");
  EXPECT_EQ(r.exit_code, 6) << r.output;
  EXPECT_NE(r.output.find("2 points: 2 ran, 0 done before, 1 failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("spyre-sim: sweep: point 0 (add, cores=8): "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("uses core 8 but the card has 8 cores"), std::string::npos) << r.output;
  const std::string csv = test::read_text(dir.file("r.csv"));
  EXPECT_NE(csv.find("\n0,add,8,error,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,add,32,ok,"), std::string::npos) << csv;
}

// Killed half-way (the whole process group, as Ctrl-C kills it; SIGTERM here
// because a non-interactive shell's background jobs ignore SIGINT), a re-run
// finishes only the points the journal does not hold.
TEST(Sweep, KilledHalfWayAReRunFinishesOnlyTheMissingPoints) {
  TempDir dir;
  const std::string spec = write_spec(dir, R"({"name": "k", "runs": [{"workload": "exp", "shape": "512x1024"}],
    "axes": [{"key": "clock_ghz", "range": {"from": 0.5, "to": 2.45, "step": 0.05}}]})");
  const std::string journal = dir.file("r.jsonl");
  const std::string script = "setsid " + std::string(SPYRE_SIM_BINARY) + " sweep " + spec + " -o " + dir.file("r") +
                             " -j 1 >/dev/null 2>&1 & pid=$!; for i in $(seq 600); do [ -f " + journal +
                             " ] && [ $(wc -l < " + journal +
                             ") -ge 6 ] && break; sleep 0.02; done; kill -TERM -- -$pid; "
                             "wait $pid; exit 0";
  ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
  const std::string partial = test::read_text(journal);
  const auto done = static_cast<size_t>(std::count(partial.begin(), partial.end(), '\n'));
  ASSERT_GE(done, 6u);
  ASSERT_LT(done, 40u) << "the sweep finished before it was killed";
  ASSERT_FALSE(std::ifstream(dir.file("r.csv")).good());  // results come at the end
  studies::SweepOptions o;
  o.spec = spec;
  o.out_prefix = dir.file("r");
  std::ostringstream progress;
  const auto rest = studies::run_sweep(o, progress);
  EXPECT_EQ(rest.points, 40u);
  EXPECT_EQ(rest.skipped, done);
  EXPECT_EQ(rest.ran, 40u - done);
  EXPECT_TRUE(rest.failures.empty());
}

// The default prefix is the spec's name: beside a spec called NAME.json the
// results would overwrite it, so that is refused before anything runs.
TEST(Sweep, ResultsNeverOverwriteTheSpec) {
  TempDir dir;
  test::write_text(dir.file("t.json"), add_sweep_json());
  const auto r = test::run_shell("cd " + dir.path() + " && " + SPYRE_SIM_BINARY + " sweep t.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output,
            "spyre-sim: error: t.json: --output: the results t.json would overwrite the spec; give another "
            "--output\n");
  EXPECT_NE(test::read_text(dir.file("t.json")).find("\"runs\""), std::string::npos);
}

// A spec whose axis repeats a value would give two points one identity (and
// one scratch folder): refused. A run's compile options are checked before
// anything runs.
TEST(SweepSpec, RepeatedPointsAndBadCompileOptionsAreRefusedUpFront) {
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp"}], "axes": [{"key": "clock_ghz", "values": [1, 2, 1]}]})"),
            ": $.axes: points 0 and 2 are the same run with the same values: an axis repeats a value");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp", "lx_planning": "yes"}]})"),
            ": $.runs[0].lx_planning: must be true or false");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp", "lx_stage": 5}]})").substr(0, 21), ": $.runs[0].lx_stage:");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp"}], "axes": [{"key": "compile.cores", "values": ["abc"]}]})")
                .substr(0, 25),
            ": $.axes[0].values[0]: ex");
  EXPECT_EQ(spec_error(R"({"runs": [{"workload": "exp", "work_division": "fast"}]})"),
            ": $.runs[0].work_division: must be default, model, model-all or torch-spyre");
}

// The results under a prefix belong to one card: re-running them with
// another --arch would count the old points as done, so it is refused.
TEST(Sweep, AnotherArchConfigDoesNotResumeTheOldResults) {
  TempDir dir;
  const std::string spec = write_spec(dir, add_sweep_json());
  ASSERT_EQ(test::run_cli("sweep " + spec + " -o " + dir.file("r")).exit_code, 0);
  test::write_text(dir.file("fast.json"), test::run_cli("arch --json --set clock_ghz=2").output);
  const auto r = test::run_cli("sweep " + spec + " -o " + dir.file("r") + " --arch " + dir.file("fast.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("r.arch.json: --arch: the results under " + dir.file("r") +
                          " were computed on another arch config"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(test::run_cli("sweep " + spec + " -o " + dir.file("r2") + " --arch " + dir.file("fast.json")).exit_code, 0);
}

// Collecting before anything ran: every point is a "missing" row, named as
// such, and the exit status says the results are incomplete.
TEST(Sweep, CollectMarksPointsWithoutResultsMissing) {
  TempDir dir;
  const std::string spec = write_spec(dir, add_sweep_json(R"(,
    "axes": [{"key": "clock_ghz", "values": [1, 2]}])"));
  const auto r = test::run_cli("sweep " + spec + " -o " + dir.file("r") + " --collect");
  EXPECT_EQ(r.exit_code, 6) << r.output;
  EXPECT_NE(r.output.find("2 points: 0 failed, 2 without a result yet"), std::string::npos) << r.output;
  const std::string csv = test::read_text(dir.file("r.csv"));
  EXPECT_NE(csv.find("\n0,add,1,missing,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,add,2,missing,"), std::string::npos) << csv;
}

// `--slurm` where sbatch is missing or refuses the job: one line with the
// reason (sbatch's own message), and no submission left behind.
TEST(Sweep, SlurmSubmissionErrorsSayWhatSbatchSaid) {
  TempDir dir;
  const std::string spec = write_spec(dir, add_sweep_json(R"(,
    "axes": [{"key": "clock_ghz", "values": [1, 2]}])"));
  const std::string fake_bin = dir.file("bin");
  std::filesystem::create_directories(fake_bin);
  // It keeps the script it was given, then refuses it.
  test::write_text(fake_bin + "/sbatch", "#!/bin/sh\ncp \"$2\" " + dir.file("seen.sh") +
                                             "\necho 'sbatch: error: invalid partition specified: gpu' >&2\nexit 1\n");
  std::filesystem::permissions(fake_bin + "/sbatch", std::filesystem::perms::owner_all);
  const std::string sweep = " sweep " + spec + " -o " + dir.file("r") + " --slurm --partition gpu";
  const auto not_found = test::run_shell("env PATH=/nonexistent " + std::string(SPYRE_SIM_BINARY) + sweep);
  EXPECT_EQ(not_found.exit_code, 1) << not_found.output;
  EXPECT_EQ(not_found.output,
            "spyre-sim: error: sbatch: not found on PATH: `sweep --slurm` runs where Slurm's commands do\n");
  const auto refused = test::run_shell("env PATH=" + fake_bin + ":/usr/bin:/bin " + SPYRE_SIM_BINARY + sweep);
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_EQ(refused.output, "spyre-sim: error: " + dir.file("r.slurm") +
                                "/job-1.sh: sbatch: refused the job: sbatch: error: "
                                "invalid partition specified: gpu\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.slurm/submission-1.json")));  // nothing left behind
  EXPECT_FALSE(std::filesystem::exists(dir.file("r.slurm/job-1.sh")));
  const std::string script = test::read_text(dir.file("seen.sh"));
  EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --job-name=spyre-sweep-t\n"), std::string::npos) << script;
}

}  // namespace
}  // namespace spyre
