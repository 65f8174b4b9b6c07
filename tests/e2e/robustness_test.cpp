// Bad inputs that once crashed, hung or fooled spyre-sim (tests/robustness/,
// one folder per finding of a mutation-fuzzing campaign): each must now get
// exit status 1 and one line naming the file or option and the reason.
// scripts/check_robustness.sh runs the same reproducers under time and memory
// limits.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace spyre {
namespace {

namespace fs = std::filesystem;
using test::run_cli;
using test::source_path;
using test::TempDir;

struct Reproducer {
  std::string folder;     // under tests/robustness ("" for none)
  std::string arguments;  // {D}: a writable copy of the folder; {EX}: models/bundles
  std::string says;       // part of the one line
  std::string link = "";  // optional: "NAME->TARGET" symlink made inside {D} first
};

std::string expand(std::string text, const std::string& dir) {
  for (const auto& [key, value] :
       {std::pair<std::string, std::string>{"{D}", dir}, {"{EX}", source_path("models/bundles")}}) {
    for (size_t at; (at = text.find(key)) != std::string::npos;) text.replace(at, key.size(), value);
  }
  return text;
}

class Robustness : public ::testing::TestWithParam<Reproducer> {};

TEST_P(Robustness, OneLineExitOne) {
  const Reproducer& r = GetParam();
  TempDir dir;
  if (!r.folder.empty()) fs::copy(source_path("tests/robustness/" + r.folder), dir.path(), fs::copy_options::recursive);
  if (!r.link.empty()) {
    const size_t arrow = r.link.find("->");
    const fs::path name = fs::path(dir.path()) / r.link.substr(0, arrow);
    fs::remove(name);
    fs::create_symlink(r.link.substr(arrow + 2), name);
  }
  const auto result = run_cli(expand(r.arguments, dir.path()));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  EXPECT_EQ(result.output.rfind("spyre-sim: error: ", 0), 0u) << result.output;
  EXPECT_NE(result.output.find(r.says), std::string::npos) << result.output;
}

INSTANTIATE_TEST_SUITE_P(
    Reproducers, Robustness,
    ::testing::Values(
        Reproducer{"deep-nest-arch-crash", "run {EX}/seed-abs --arch {D}/arch.json", "nested deeper than 128 levels"},
        Reproducer{"npy-huge-shape-alloc", "run {D}/prog --inputs {D}/in", "fewer than the 10000000000 elements"},
        Reproducer{"npy-overflow-shape", "run {D}/prog --inputs {D}/in", "x.npy: shape: dimension"},
        Reproducer{"npy-negative-shape", "run {D}/prog --inputs {D}/in", "dimension '-512'"},
        Reproducer{"csv-size-overflow", "plan {D}/big.1048576.csv", "big.1048576.csv: line 2"},
        Reproducer{"pattern-size-overflow", "plan {D}/pat.json --solver exact", "at most 2^48 bytes"},
        Reproducer{"csv-capacity-overflow", "plan {D}/x.99999999999999999999999.csv", "capacity: must be positive"},
        Reproducer{"graph-attr-type-internal", "compile {D}/graph.json -o {D}/out", "attribute 'dim' must be"},
        Reproducer{"json-number-overflow-internal", "compile {D}/graph.json -o {D}/out", "number overflow"},
        Reproducer{"pattern-bool-type-internal", "plan {D}/buf.json", "first_use_is_read: must be true or false"},
        Reproducer{"program-bad-stick-accepted", "run {D}/prog --fill 1", "layout.stick: must be an integer from 0"},
        Reproducer{"bundle-gap-silent", "run {D}/bundle", "sdsc_5.json: missing"},
        Reproducer{"dev-zero-hang", "run {D}/bundle", "not a regular file", "bundle/bundle.mlir->/dev/zero"},
        Reproducer{"dev-zero-hang", "run {D}/bundle", "not a regular file", "bundle/sdsc_0.json->/dev/zero"},
        Reproducer{"symlink-loop", "run {D}/bundle", "symbolic links", "bundle/sdsc_0.json->sdsc_0.json"},
        // torch-spyre-today issue: a bundle.mlir that links to itself was taken for no bundle.mlir.
        Reproducer{"", "run {D}", "bundle.mlir: cannot be read: Too many levels of symbolic links",
                   "bundle.mlir->bundle.mlir"},
        Reproducer{"", "run {EX}/seed-abs --fill 1 --outputs /dev/null", "--outputs: exists and is not a directory"},
        Reproducer{"", "compile --workload add --cores 2.5 -o {D}/out", "--cores"},
        Reproducer{"", "compile --workload add -o {D}/out --decisions {D}/no/such/dir/d.json", "does not exist"}),
    [](const ::testing::TestParamInfo<Reproducer>& info) {
      std::string name = info.param.folder.empty() ? "cli" : info.param.folder;
      std::replace(name.begin(), name.end(), '-', '_');
      return name + "_" + std::to_string(info.index);
    });

// Every JSON reader refuses content after the document, a NUL byte included,
// naming the file and the byte offset (the parser took a NUL for the end of
// its input): arch configs, SDSCs, program.json, graphs, LX patterns and
// buffer lists, measurement source manifests.
TEST(Robustness, EveryJsonReaderRefusesContentAfterTheDocument) {
  struct Reader {
    std::string file;     // copied to {D}/<name> and then appended to
    std::string command;  // {F}: the appended copy, {D}: its folder
  };
  // A compiled program's program.json (read by run) as a file to copy.
  TempDir compiled;
  ASSERT_EQ(run_cli("compile --workload add --shape 64x128 -o " + compiled.file("p") + " --quiet").exit_code, 0);
  const std::vector<Reader> readers = {
      {compiled.file("p/program.json"), "run {D} --fill 1"},
      {"models/arch/spyre.json", "arch --arch {F}"},
      {"models/bundles/seed-abs/sdsc_0.json", "check {D}"},
      {"models/workloads/softmax.json", "compile {F} -o {D}/out"},
      {"models/lx_patterns/staircase_up.json", "plan {F}"},
      {"models/calibration/sources.json", "validate {F}"},
  };
  for (const auto& r : readers) {
    for (const std::string& tail : {std::string("\n]"), std::string("\0", 1) + "junk"}) {
      TempDir dir;
      const fs::path copy = fs::path(dir.path()) / fs::path(r.file).filename();
      if (r.file.rfind("program.json") != std::string::npos) {
        fs::copy(fs::path(r.file).parent_path(), dir.path(),
                 fs::copy_options::recursive | fs::copy_options::overwrite_existing);
      } else {
        fs::copy_file(source_path(r.file), copy);
      }
      const auto bytes = static_cast<int64_t>(fs::file_size(copy));
      {
        std::ofstream out(copy, std::ios::app | std::ios::binary);
        out << tail;
      }
      std::string command = r.command;
      for (const auto& [key, value] :
           {std::pair<std::string, std::string>{"{F}", copy.string()}, {"{D}", dir.path()}}) {
        for (size_t at; (at = command.find(key)) != std::string::npos;) command.replace(at, key.size(), value);
      }
      const auto result = run_cli(command);
      const int64_t at = tail[0] == '\0' ? bytes : bytes + 1;
      EXPECT_EQ(result.exit_code, 1) << r.file << ": " << result.output;
      EXPECT_EQ(result.output, "spyre-sim: error: " + copy.string() + ": byte " + std::to_string(at) + ": " +
                                   (tail[0] == '\0' ? "a NUL byte: nothing may follow the JSON value"
                                                    : "content after the JSON value") +
                                   "\n")
          << r.file;
    }
  }
}

// A workload refuses an option it does not take (one line naming the option,
// the workload and what it takes), and a graph file refuses every workload option.
TEST(Robustness, WorkloadsRefuseOptionsTheyDoNotTake) {
  TempDir dir;
  const std::string out = " -o " + dir.file("out") + " --quiet";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--workload mlp --dim 5", "--dim: the mlp workload does not take it (it takes --shape and --dtype)"},
      {"--workload add --seq 128", "--seq: the add workload does not take it (it takes --shape and --dtype)"},
      {"--workload exp --kv-heads 2", "--kv-heads: the exp workload does not take it (it takes --shape and --dtype)"},
      {"--workload softmax --heads 4",
       "--heads: the softmax workload does not take it (it takes --shape, --dim and --dtype)"},
      {"--workload matmul --dim 1", "--dim: the matmul workload does not take it (it takes --shape and --dtype)"},
      {"--workload attention --intermediate 64",
       "--intermediate: the attention workload does not take it (it takes --shape, --kv-heads and --dtype)"},
      {"--workload decoder --shape 4x4",
       "--shape: the decoder workload does not take it (it takes --batch, --seq, --hidden, --heads, --kv-heads, "
       "--intermediate and --dtype)"},
      {source_path("models/workloads/softmax.json") + " --dim 0",
       "--dim: applies to a --workload, not to a graph file"},
      {"--workload softmax --model " + source_path("models/llm/small.json"),
       "--model: builds the model itself: give it without --workload or a graph file"},
      {"--model " + source_path("models/llm/small.json") + " --shape 4x4",
       "--shape: the granite workload does not take it (it takes --batch, --seq, --hidden, --heads, --kv-heads, "
       "--intermediate, --layers, --vocab, --phase, --context, --cards and --dtype)"},
      {"--model " + source_path("models/workloads/softmax.json"),
       source_path("models/workloads/softmax.json") + ": $: missing required field 'hidden_size'"},
  };
  for (const auto& [arguments, says] : cases) {
    const auto r = run_cli("compile " + arguments + out);
    EXPECT_EQ(r.exit_code, 1) << arguments;
    EXPECT_EQ(r.output, "spyre-sim: error: " + says + "\n") << arguments;
  }
  EXPECT_EQ(run_cli("compile --workload softmax --dim 0 --shape 64x128" + out).exit_code, 0);
  EXPECT_EQ(run_cli("compile --workload attention --kv-heads 2 --shape 1x4x64x64" + out).exit_code, 0);
}

// A bundle.mlir constant off by one byte: the message names the IR line that
// computes the address, not the SDSC whose start addresses it feeds.
TEST(Robustness, CorruptedMlirConstantIsBlamedOnTheMlirLine) {
  TempDir dir;
  test::copy_bundle(test::cli_bundle("softmax"), dir.file("b"));
  fs::copy_file(source_path("tests/fuzz/regressions/bundle_mlir/corrupted-constant.mlir"), dir.file("b/bundle.mlir"),
                fs::copy_options::overwrite_existing);
  const auto r = run_cli("run " + dir.file("b") + " --fill 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.output, "spyre-sim: error: " + dir.file("b/bundle.mlir") +
                          ": line 129: the sdsc_execute of sdsc_0.json gives symbol -3 (core 2's start of Tensor0) the "
                          "address 4095, but that SDSC's layout [mb, out] puts the slice at 4096 (tensor base 0, from "
                          "core 0): check the constants that compute it\n");
}

// A failure writes nothing: the program directory is not created when the
// decisions file cannot be written.
TEST(Robustness, NothingIsWrittenOnFailure) {
  TempDir dir;
  const auto r = run_cli("compile --workload add -o " + dir.file("out") + " --decisions " + dir.file("missing/d.json"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_FALSE(fs::exists(dir.file("out")));
  const auto e = run_cli("compile --workload add -o " + dir.file("out2") + " --emit-io " + dir.file("file"));
  EXPECT_EQ(e.exit_code, 0) << e.output;  // a new directory is fine
  test::write_text(dir.file("plain"), "x");
  EXPECT_EQ(run_cli("compile --workload add -o " + dir.file("out3") + " --emit-io " + dir.file("plain")).exit_code, 1);
  EXPECT_FALSE(fs::exists(dir.file("out3")));
}

// The README's example with a trailing slash on -o.
TEST(Robustness, OutputDirectoryWithTrailingSlash) {
  TempDir dir;
  const auto r = run_cli("compile " + source_path("models/workloads/softmax.json") + " -o " + dir.file("out/") +
                         " --cores 4 --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir.file("out/program.json")));
}

}  // namespace
}  // namespace spyre
