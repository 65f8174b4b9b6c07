// The spyre-sim binary: reports, traces, exit codes and one-line errors.

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "e2e_support.h"
#include "runtime/arch_config.h"
#include "runtime/npy.h"

namespace spyre::test {
namespace {

int count_lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

TEST(Cli, RunPrintsTheTableWithoutTheSystemcBanner) {
  const auto r = run_cli("run " + cli_bundle("softmax") + " --fill 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("SystemC"), std::string::npos);
  EXPECT_NE(r.output.find("sdsc_5.json"), std::string::npos);
  EXPECT_NE(r.output.find("latency"), std::string::npos);
  EXPECT_NE(r.output.find("hazards      none"), std::string::npos);
}

TEST(Cli, ReportHasTheDocumentedKeysAndIsDeterministic) {
  TempDir dir;
  const std::string args = "run " + cli_bundle("softmax") + " --quiet --report ";
  ASSERT_EQ(run_cli(args + dir.file("a.json")).exit_code, 0);
  ASSERT_EQ(run_cli(args + dir.file("b.json")).exit_code, 0);
  EXPECT_EQ(read_text(dir.file("a.json")), read_text(dir.file("b.json")));
  const Json r = read_json_file(dir.file("a.json"));
  for (const auto& key : {"latency_us", "cycles", "hbm", "lx", "kernels", "hazards", "engines", "host", "arch"})
    EXPECT_TRUE(r.contains(key)) << key;
  EXPECT_EQ(r["hbm"]["read_bytes"], 512 * 1024 * 2);
  EXPECT_EQ(r["hbm"]["write_bytes"], 512 * 1024 * 2);
  EXPECT_EQ(r["hbm"]["total_bytes"], 2 * 512 * 1024 * 2);
  ASSERT_EQ(r["lx"]["peak_bytes_per_core"].size(), 32u);
  // x at 2048 (16 x 1024 fp16 = 32 KiB), x - max at 34816: high-water 67584.
  EXPECT_EQ(r["lx"]["peak_bytes_per_core"][0], 67584);
  ASSERT_EQ(r["kernels"].size(), 6u);
  for (const auto& key : {"file", "op", "unit", "cores", "start_us", "end_us", "hbm_read_bytes", "hbm_write_bytes"}) {
    EXPECT_TRUE(r["kernels"][0].contains(key)) << key;
  }
  EXPECT_EQ(r["kernels"][1]["op"], "max");
  EXPECT_DOUBLE_EQ(r["cycles"].get<double>(), std::round(r["latency_us"].get<double>() * 1500));
}

TEST(Cli, TraceEventsNeverOverlapOnOneThread) {
  TempDir dir;
  ASSERT_EQ(run_cli("run " + cli_bundle("fma") + " --quiet --trace " + dir.file("t.json")).exit_code, 0);
  const Json trace = read_json_file(dir.file("t.json"));
  std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> threads;
  std::set<int> named;
  int events = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") named.insert(e["pid"].get<int>());
    if (e["ph"] != "X") continue;
    ++events;
    threads[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(e["ts"].get<double>(),
                                                                     e["ts"].get<double>() + e["dur"].get<double>());
  }
  EXPECT_GT(events, 8 * 3);  // 8 cores, at least load, compute, store
  for (auto& [key, spans] : threads) {
    EXPECT_TRUE(named.count(key.first));
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LE(spans[i - 1].second, spans[i].first + 1e-9) << key.first << "/" << key.second;
  }
}

TEST(Cli, ExpectPassesAndFailsWithTheWorstElement) {
  TempDir dir;
  const std::vector<float> twos(512 * 1024, 2.0f);
  write_npy(dir.file("arg2.npy"), {512, 1024}, twos, "f2");
  EXPECT_EQ(run_cli("run " + cli_bundle("add") + " --fill 1 --quiet --expect " + dir.path()).exit_code, 0);
  std::vector<float> wrong = twos;
  wrong[5 * 1024 + 7] = 2.5f;
  write_npy(dir.file("arg2.npy"), {512, 1024}, wrong, "f4");
  const auto r = run_cli("run " + cli_bundle("add") + " --fill 1 --quiet --expect " + dir.path());
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("arg2 differs from"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 of 524288 elements outside"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("worst at (5, 7): got 2, expected 2.5"), std::string::npos) << r.output;
}

TEST(Cli, InputsAndOutputsAsNpy) {
  TempDir in, out;
  write_npy(in.file("arg0.npy"), {4, 64}, random_values(256, 11, -1, 1), "f2");
  const auto r = run_cli("run " + bundle_path("seed-abs") + " --quiet --inputs " + in.path() + " --outputs " +
                         out.path() + " --output-dtype fp16");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const NpyArray got = read_npy(out.file("arg0_512.npy"));
  EXPECT_EQ(got.dtype, "f2");
  EXPECT_EQ(got.shape, (std::vector<int64_t>{4, 64}));
  const NpyArray x = read_npy(in.file("arg0.npy"));
  for (size_t i = 0; i < x.values.size(); ++i) EXPECT_NEAR(got.values[i], std::fabs(x.values[i]), 2e-3);
}

// Bad input: exit status 1 and exactly one line naming file, field and reason.
void expect_one_line_error(const std::string& args, const std::string& fragment) {
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(count_lines(r.output), 1) << r.output;
  EXPECT_EQ(r.output.rfind("spyre-sim: error: ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find(fragment), std::string::npos) << r.output;
}

// A folder of kernel directories, as torch-spyre's inductor-spyre cache holds
// them: each kernel runs in the order its number says (the fused gate/up
// kernel 0, then the down projection 1), then the total.
TEST(Cli, RunsAKernelCacheKernelByKernel) {
  TempDir dir;
  const std::string cache = bundle_path("torch-spyre/swiglu/small_bmm");
  const auto r = run_cli("run " + cache + " --fill 0.5 --report " + dir.file("cache.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(2 kernels, kernel numbers)"), std::string::npos) << r.output;
  EXPECT_LT(r.output.find("sdsc_fused_bmm_mul_silu_0_ot_e7jgp"), r.output.find("sdsc_fused_bmm_1_n673lgwk"));
  const Json report = read_json_file(dir.file("cache.json"));
  ASSERT_EQ(report["kernels"].size(), 2u);
  EXPECT_EQ(report["kernels"][0]["name"], "sdsc_fused_bmm_mul_silu_0_ot_e7jgp");
  EXPECT_EQ(report["kernels"][0]["sdscs"], 7);
  const double total =
      report["kernels"][0]["latency_us"].get<double>() + report["kernels"][1]["latency_us"].get<double>();
  // The report rounds every time to 0.1 ns: the sum of two rounded times may differ by one unit.
  EXPECT_NEAR(report["total"]["latency_us"].get<double>(), total, 1.5e-4);
  // Each kernel's own report sits beside it, as `run` on that kernel writes it.
  const Json down = read_json_file(dir.file("cache.sdsc_fused_bmm_1_n673lgwk.json"));
  EXPECT_DOUBLE_EQ(down["latency_us"].get<double>(), report["kernels"][1]["latency_us"].get<double>());
  EXPECT_EQ(down["mode"], "functional");

  // An order file names the kernels (a prefix of the directory name will do).
  write_text(dir.file("order.txt"), "# down projection first\nsdsc_fused_bmm_1\nsdsc_fused_bmm_mul_silu_0\n");
  const auto listed = run_cli("run " + cache + " --order " + dir.file("order.txt"));
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_LT(listed.output.find("sdsc_fused_bmm_1_n673lgwk"), listed.output.find("sdsc_fused_bmm_mul_silu_0"));
  // So does torch-spyre's wrapper code, by its NAME.run(...) calls.
  write_text(
      dir.file("output_code.py"),
      "def call(args):\n    sdsc_fused_bmm_1.run(buf3, arg2_1, buf4)\n    sdsc_fused_bmm_mul_silu_0.run(a, b)\n");
  const auto wrapped = run_cli("run " + cache + " --order " + dir.file("output_code.py"));
  EXPECT_NE(wrapped.output.find("(2 kernels, output_code.py)"), std::string::npos) << wrapped.output;
  EXPECT_LT(wrapped.output.find("sdsc_fused_bmm_1_n673lgwk"), wrapped.output.find("sdsc_fused_bmm_mul_silu_0"));
  // check covers every kernel.
  const auto checked = run_cli("check " + cache);
  EXPECT_EQ(checked.exit_code, 0) << checked.output;
  EXPECT_NE(checked.output.find("clean (2 kernels)"), std::string::npos) << checked.output;

  write_text(dir.file("bad.txt"), "sdsc_fused_bmm_1\nsdsc_gelu_7\n");
  expect_one_line_error("run " + cache + " --order " + dir.file("bad.txt"),
                        dir.file("bad.txt") + ": line 2: 'sdsc_gelu_7' is no kernel directory of the cache");
}

TEST(Cli, BadInputGetsOneLineAndExitStatusOne) {
  TempDir dir;
  expect_one_line_error("run /no/such/bundle", "/no/such/bundle: no such directory");
  write_text(dir.file("sdsc_0.json"), "{\"abs\": [");
  expect_one_line_error("run " + dir.path(), dir.file("sdsc_0.json") + ": malformed JSON");
  Json doc = read_json_file(bundle_path("seed-abs/sdsc_0.json"));
  doc["abs"]["dscs_"][0]["abs"]["computeOp_"][0]["opFuncName"] = "softermax";
  write_json(dir.file("sdsc_0.json"), doc);
  expect_one_line_error("run " + dir.path(),
                        "sdsc_0.json: $.abs.dscs_[0].abs.computeOp_[0].opFuncName: unknown opFuncName 'softermax'");
  expect_one_line_error("run " + cli_bundle("add") + " --set cores=16", "uses core 16 but the card has 16 cores");
  expect_one_line_error("run " + cli_bundle("add") + " --set lpddr5.speed=2",
                        "--set: lpddr5.speed: unknown arch parameter");
  expect_one_line_error("run " + cli_bundle("add") + " --outputs " + dir.path(),
                        "need values: give --inputs DIR or --fill VALUE");
  expect_one_line_error("run " + cli_bundle("add") + " --inputs " + dir.path(),
                        "missing input file(s): arg0.npy (512, 1024), arg1.npy (512, 1024)");
  write_npy(dir.file("arg0.npy"), {4, 32}, std::vector<float>(128, 1.0f), "f4");
  expect_one_line_error("run " + bundle_path("seed-abs") + " --inputs " + dir.path(),
                        "shape (4, 32) does not match arg0's shape (4, 64)");
}

TEST(Cli, ArchListsEveryParameterWithItsSource) {
  const auto r = run_cli("arch --set lpddr5.read_gbps=300");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("lpddr5.read_gbps = 300 GB/s  (command line --set lpddr5.read_gbps=300)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("lx.size_bytes = 2097152 bytes per core  (seed 000"), std::string::npos) << r.output;
  EXPECT_EQ(count_lines(r.output), 74);
  // One line per row of the parameter table, with the table's source.
  for (const auto& p : arch_params()) {
    if (std::string(p.path) == "lpddr5.read_gbps") continue;
    EXPECT_NE(r.output.find(std::string(p.path) + " = "), std::string::npos) << p.path;
    EXPECT_NE(r.output.find("(" + std::string(p.source) + ")"), std::string::npos) << p.path;
  }
}

TEST(Cli, ArchPrintsTheRepositoryArchFileAndItsSchema) {
  const auto json = run_cli("arch --json");
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_EQ(json.output, builtin_arch_json());
  EXPECT_EQ(read_json_file(source_path("models/arch/spyre.json")), Json::parse(json.output));
  const auto schema = run_cli("arch --schema");
  EXPECT_EQ(schema.exit_code, 0);
  EXPECT_EQ(
      Json::parse(schema.output)["properties"]["lpddr5"]["properties"]["read_gbps"]["properties"]["value"]["type"],
      "number");
  EXPECT_EQ(Json::parse(schema.output)["properties"]["cores"]["properties"]["value"]["maximum"], 1024);
}

TEST(Cli, ArchOverridesChangeTheTiming) {
  sim::RunOptions base;
  base.bundle = cli_bundle("add");
  const double t = sim::run_bundle(base).report.latency_us;
  sim::RunOptions slow = base;
  slow.arch_overrides = {"cache.bytes=0", "lpddr5.read_gbps=10", "lpddr5.write_gbps=10"};
  EXPECT_GT(sim::run_bundle(slow).report.latency_us, t);
  sim::RunOptions slow_clock = base;
  slow_clock.arch_overrides = {"clock_ghz=0.75"};
  const auto r = sim::run_bundle(slow_clock).report;
  EXPECT_EQ(r.cycles, std::llround(r.latency_us * 750));
}

TEST(Cli, CompileThenRunChecksAgainstTheReference) {
  TempDir dir;
  const auto c = run_cli("compile " + source_path("models/workloads/softmax.json") + " -o " + dir.file("out") +
                         " --cores 4 --emit-io " + dir.file("io"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  // The decisions: one line per SDSC with its split, and where tensors live.
  EXPECT_NE(c.output.find("5 SDSCs in 1 bundle, up to 4 cores"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("sdsc_0.json  max"), std::string::npos) << c.output;
  EXPECT_NE(c.output.find("mb=4"), std::string::npos);
  EXPECT_NE(c.output.find("x       input         (512, 1024)  float16  [16, 512, 64]"), std::string::npos) << c.output;
  const auto r = run_cli("run " + dir.file("out") + " --inputs " + dir.file("io/inputs") + " --expect " +
                         dir.file("io/reference"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("expect ok    y"), std::string::npos) << r.output;
  // Recompiling over an earlier output replaces it.
  EXPECT_EQ(run_cli("compile --workload exp --shape 64x64 -o " + dir.file("out") + " --quiet").exit_code, 0);
}

// compile --run: compiled, then simulated, in one command; with --emit-io the
// run is functional and checked against the references. Run options without
// --run are refused in one line.
TEST(Cli, CompileRunSimulatesInOneCommand) {
  TempDir dir;
  const auto c =
      run_cli("compile " + source_path("models/workloads/softmax.json") + " -o " + dir.file("out") +
              " --cores 4 --quiet --emit-io " + dir.file("io") + " --run --run-report " + dir.file("r.json"));
  ASSERT_EQ(c.exit_code, 0) << c.output;
  EXPECT_NE(c.output.find("expect ok    y"), std::string::npos) << c.output;
  const Json report = Json::parse(read_text(dir.file("r.json")));
  EXPECT_EQ(report.at("mode"), "functional");
  EXPECT_GT(report.at("latency_us").get<double>(), 0);
  EXPECT_EQ(report.at("kernels").size(), 5u);
  const auto bad = run_cli("compile --workload exp --shape 64x64 -o " + dir.file("o2") + " --sample-repeats 2");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(count_lines(bad.output), 1) << bad.output;
  EXPECT_NE(bad.output.find("--run"), std::string::npos) << bad.output;
}

// A kernel with a symbolic dim (torch-spyre's dynamic shapes) runs at the
// maximum its SDSC holds, and the report says which dim a symbol sizes.
// Seed abs with its dim c0 (2 per core on 2 cores) sized by symbol s0, copied to `to`.
void write_symbolic_seed_abs(const std::string& to) {
  std::filesystem::copy(bundle_path("seed-abs"), to);
  Json doc = read_json_file(to + "/sdsc_0.json");
  Json& abs = doc["abs"]["dscs_"][0]["abs"];
  abs["dimToSymbolMapping_"] = {{"c0", {-1}}};
  for (const char* level : {"ss_", "el_"})
    abs["dataStageParam_"]["0"][level]["symbolicDimInfo_"] = {{"c0", {{"maxSize_", 2}, {"granularity_", 1}}}};
  doc["abs"]["inputSymbolsAndTags_"] = {{"-1", "s0"}};
  write_json_file(to + "/sdsc_0.json", doc);
}

TEST(Cli, RunReportsSymbolicDimsAtTheirMaximum) {
  TempDir dir;
  write_symbolic_seed_abs(dir.file("abs"));
  const auto r = run_cli("run " + dir.file("abs") + " --fill -1 --report " + dir.file("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("symbolic     sdsc_0.json: c0 is s0, run at its maximum 2 per core (granularity 1)"),
            std::string::npos)
      << r.output;
  const Json report = Json::parse(read_text(dir.file("r.json")));
  EXPECT_EQ(report["kernels"][0]["symbolic_dims"][0]["symbol"], "s0");
}

// abs over rows sized by symbol s0 (at most 64, in steps of 8, on one core), compiled into `to`.
void write_symbolic_abs(const std::string& to) {
  ASSERT_EQ(run_cli("compile --workload abs --shape 64x128 --cores 1 -o " + to + " --quiet").exit_code, 0);
  Json doc = read_json_file(to + "/sdsc_0.json");
  Json& top = doc.begin().value();
  Json& abs = top["dscs_"][0]["abs"];
  abs["dimToSymbolMapping_"] = {{"mb", {-1}}};
  for (const char* level : {"ss_", "el_"})
    abs["dataStageParam_"]["0"][level]["symbolicDimInfo_"] = {{"mb", {{"maxSize_", 64}, {"granularity_", 8}}}};
  top["inputSymbolsAndTags_"] = {{"-1", "s0"}};
  write_json_file(to + "/sdsc_0.json", doc);
}

// `run --dim s0=24` binds a symbolic dim (torch-spyre's dynamic shapes): abs
// over rows sized by s0 computes 24 rows, moves 24/64 of the bytes and gives
// back the 24 rows; the report says what was bound. Values off the
// granularity, symbols no kernel has and a bound dim split over cores are one
// line each.
TEST(Cli, RunBindsSymbolicDims) {
  TempDir dir;
  write_symbolic_abs(dir.file("abs"));
  const auto r = run_cli("run " + dir.file("abs") + " --fill -2 --dim s0=24 --outputs " + dir.file("out") +
                         " --report " + dir.file("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("symbolic     sdsc_0.json: mb is s0 = 24 (--dim; at most 64)"), std::string::npos)
      << r.output;
  const Json report = Json::parse(read_text(dir.file("r.json")));
  EXPECT_EQ(report["kernels"][0]["symbolic_dims"][0]["bound"], 24);
  EXPECT_EQ(report["kernels"][0]["hbm_read_bytes"], 24 * 128 * 2);
  EXPECT_EQ(report["kernels"][0]["hbm_write_bytes"], 24 * 128 * 2);
  const NpyArray y = read_npy(dir.file("out/y.npy"));
  EXPECT_EQ(y.shape, (std::vector<int64_t>{24, 128}));  // the rows bound, not the maximum
  EXPECT_EQ(y.values.back(), 2.0f);                     // the last bound row computed
  const auto unbound = run_cli("run " + dir.file("abs") + " --fill -2 --report " + dir.file("u.json"));
  ASSERT_EQ(unbound.exit_code, 0) << unbound.output;
  EXPECT_EQ(Json::parse(read_text(dir.file("u.json")))["kernels"][0]["hbm_read_bytes"], 64 * 128 * 2);

  auto error = [&](const std::string& bundle, const std::string& dims) {
    const auto bad = run_cli("run " + bundle + " " + dims);
    EXPECT_NE(bad.exit_code, 0) << dims;
    EXPECT_EQ(count_lines(bad.output), 1) << bad.output;
    return bad.output;
  };
  EXPECT_NE(error(dir.file("abs"), "--dim s0=30")
                .find("dimToSymbolMapping_.mb: s0 = 30: dim 'mb' takes a multiple of "
                      "8 up to its maximum 64"),
            std::string::npos);
  EXPECT_NE(error(dir.file("abs"), "--dim s7=8")
                .find("--dim s7: no kernel has a dim sized by symbol 's7' (the "
                      "program's: s0)"),
            std::string::npos);
  EXPECT_NE(error(dir.file("abs"), "--dim s0").find("'s0' is not NAME=VALUE"), std::string::npos);
  write_symbolic_seed_abs(dir.file("seed"));  // c0 split over 2 cores
  EXPECT_NE(error(dir.file("seed"), "--dim s0=1")
                .find("unsupported: binding s0 sizes dim 'c0', which is split over 2 "
                      "work slices"),
            std::string::npos);
  // A kernel cache: each kernel binds the symbols it has; one no kernel has is one line.
  const auto recursive = std::filesystem::copy_options::recursive;
  std::filesystem::create_directories(dir.file("cache"));
  std::filesystem::copy(dir.file("abs"), dir.file("cache/sdsc_abs_0_a"), recursive);
  std::filesystem::copy(bundle_path("seed-abs"), dir.file("cache/sdsc_seed_1_b"), recursive);
  const auto cached = run_cli("run " + dir.file("cache") + " --fill -2 --dim s0=24 --report " + dir.file("c.json"));
  ASSERT_EQ(cached.exit_code, 0) << cached.output;
  EXPECT_EQ(read_json_file(dir.file("c.sdsc_abs_0_a.json"))["kernels"][0]["hbm_read_bytes"], 24 * 128 * 2);
  EXPECT_NE(error(dir.file("cache"), "--dim s9=8").find("--dim s9: no kernel of " + dir.file("cache")),
            std::string::npos);
}

// An input given with fewer rows than the maximum binds the symbol that
// sizes them (the inputs say the sizes, as torch-spyre's dynamic shapes
// mean): x of 40 rows runs abs over 40 and gives 40 rows back, checked
// against the reference; --dim disagreeing with it, or an input off the
// granularity, is one line.
TEST(Cli, RunBindsSymbolicDimsFromTheInputsShapes) {
  TempDir dir;
  write_symbolic_abs(dir.file("abs"));
  std::vector<float> x(40 * 128), y(40 * 128);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<float>(i % 7) - 3.0f;
    y[i] = std::fabs(x[i]);
  }
  std::filesystem::create_directories(dir.file("in"));
  std::filesystem::create_directories(dir.file("ref"));
  write_npy(dir.file("in/x.npy"), {40, 128}, x, "f4");
  write_npy(dir.file("ref/y.npy"), {40, 128}, y, "f4");
  const auto r = run_cli("run " + dir.file("abs") + " --inputs " + dir.file("in") + " --expect " + dir.file("ref") +
                         " --outputs " + dir.file("out") + " --report " + dir.file("r.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mb is s0 = 40 (" + dir.file("in/x.npy") + "'s shape; at most 64)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("expect ok    y: 0 of 5120 elements"), std::string::npos) << r.output;
  EXPECT_EQ(read_npy(dir.file("out/y.npy")).shape, (std::vector<int64_t>{40, 128}));
  const Json report = Json::parse(read_text(dir.file("r.json")));
  EXPECT_EQ(report["kernels"][0]["hbm_read_bytes"], 40 * 128 * 2);
  EXPECT_EQ(report["kernels"][0]["symbolic_dims"][0]["bound_by"], dir.file("in/x.npy") + "'s shape");
  const auto disagree = run_cli("run " + dir.file("abs") + " --inputs " + dir.file("in") + " --dim s0=48");
  EXPECT_NE(disagree.exit_code, 0);
  EXPECT_EQ(count_lines(disagree.output), 1) << disagree.output;
  EXPECT_NE(disagree.output.find("--dim s0: s0 = 48, but " + dir.file("in/x.npy") + "'s shape gives 40"),
            std::string::npos)
      << disagree.output;
  write_npy(dir.file("in/x.npy"), {20, 128}, std::vector<float>(20 * 128, 1.0f), "f4");
  const auto off = run_cli("run " + dir.file("abs") + " --inputs " + dir.file("in"));
  EXPECT_NE(off.exit_code, 0);
  EXPECT_NE(off.output.find("s0 = 20: dim 'mb' takes a multiple of 8 up to its maximum 64"), std::string::npos)
      << off.output;
}

// The README's own example: DLFloat16 results near zero come from cancelling
// O(1) terms, so they are judged at the output's scale, not by atol 1e-5.
TEST(Cli, LayernormReferenceIsJudgedAtDlFloat16Precision) {
  TempDir dir;
  ASSERT_EQ(
      run_cli("compile --workload layernorm --emit-io " + dir.file("io/") + " -o " + dir.file("out/") + " --quiet")
          .exit_code,
      0);
  const std::string run =
      "run " + dir.file("out") + " --inputs " + dir.file("io/inputs") + " --expect " + dir.file("io/reference");
  const auto ok = run_cli(run);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("expect ok    y: 0 of 524288 elements outside rtol 0.00781 atol 0.0156"), std::string::npos)
      << ok.output;
  const auto strict = run_cli(run + " --quiet --atol 1e-5");
  EXPECT_EQ(strict.exit_code, 3) << strict.output;
  EXPECT_NE(strict.output.find("atol 1e-05; worst at"), std::string::npos) << strict.output;
  EXPECT_NE(strict.output.find("(tolerance: --atol given; otherwise " + dir.file("io/reference/tolerance.json") +
                               ": DLFloat16 (9 fraction bits)"),
            std::string::npos)
      << strict.output;
  EXPECT_EQ(run_cli(run + " --quiet --expect-dtype fp32").exit_code, 3);
  EXPECT_EQ(run_cli(run + " --quiet --expect-dtype bf16").exit_code, 0);
  EXPECT_EQ(run_cli(run + " --quiet --expect-dtype int8").output,
            "spyre-sim: error: --expect-dtype: 'int8' is not one of DLFloat16, bf16, fp16, fp32\n");
  EXPECT_EQ(run_cli(run + " --quiet --rtol -1").output, "spyre-sim: error: --rtol: must be a finite number >= 0\n");
}

// x + 1000 - 1000 keeps only x's rounding to DLFloat16 at 1000 (ulp 2): the
// reference deserves a wider atol, and --emit-io records it.
TEST(Cli, EmitIoRecordsTheToleranceAnIllConditionedGraphDeserves) {
  TempDir dir;
  write_text(dir.file("cancel.json"), R"({"name": "cancellation",
    "tensors": [{"name": "x", "shape": [64, 64], "dtype": "float16", "role": "input"},
                {"name": "shifted"}, {"name": "y", "role": "output"}],
    "ops": [{"op": "add", "inputs": ["x"], "outputs": ["shifted"], "attrs": {"scalar": 1000}},
            {"op": "sub", "inputs": ["shifted"], "outputs": ["y"], "attrs": {"scalar": 1000}}]})");
  ASSERT_EQ(run_cli("compile " + dir.file("cancel.json") + " --emit-io " + dir.file("io") + " -o " + dir.file("out") +
                    " --quiet")
                .exit_code,
            0);
  const Json recorded = read_json_file(dir.file("io/reference/tolerance.json"));
  const Json& y = recorded["outputs"]["y"];
  EXPECT_EQ(y["dtype"], "DLFloat16");
  EXPECT_GT(y["atol"].get<double>(), 0.5);  // the device's error at 1000 is up to 1
  EXPECT_LE(y["atol"].get<double>(), 2.0);
  EXPECT_NE(y["basis"].get<std::string>().find("widened"), std::string::npos);
  const std::string run =
      "run " + dir.file("out") + " --quiet --inputs " + dir.file("io/inputs") + " --expect " + dir.file("io/reference");
  EXPECT_EQ(run_cli(run).exit_code, 0);
  std::filesystem::remove(dir.file("io/reference/tolerance.json"));
  EXPECT_EQ(run_cli(run).exit_code, 3);  // the dtype default alone is too tight for this graph
}

TEST(Cli, CompileErrorsAreOneLine) {
  TempDir dir;
  auto error = [&](const std::string& args) {
    const auto r = run_cli("compile " + args);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_EQ(count_lines(r.output), 1) << r.output;
    return r.output;
  };
  EXPECT_EQ(error("-o " + dir.file("o")),
            "spyre-sim: error: compile: give a model graph file or --workload NAME (one of them)\n");
  EXPECT_EQ(error("--workload nope -o " + dir.file("o")),
            "spyre-sim: error: --workload nope: unknown workload (spyre-sim compile --list-workloads lists them)\n");
  EXPECT_EQ(error("--workload abs --shape 4xx64 -o " + dir.file("o")),
            "spyre-sim: error: --shape 4xx64: expected sizes joined by 'x', e.g. 512x1024\n");
  EXPECT_EQ(error("--workload matmul --shape 4x64 -o " + dir.file("o")),
            "spyre-sim: error: --shape: matmul takes 3 dims, got 2\n");
  EXPECT_EQ(error("--workload abs --dtype int8 -o " + dir.file("o")),
            "spyre-sim: error: --dtype: unsupported dtype 'int8' (the device has fp16, bf16, fp32)\n");
  EXPECT_EQ(
      error(dir.file("missing.json") + " -o " + dir.file("o")).find("spyre-sim: error: " + dir.file("missing.json")),
      0u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("o")));
}

TEST(Cli, ListWorkloads) {
  const auto r = run_cli("compile --list-workloads");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* name : {"softmax", "layernorm", "rmsnorm", "matmul", "bmm", "mlp", "attention", "decoder", "gelu"}) {
    EXPECT_NE(r.output.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace spyre::test
