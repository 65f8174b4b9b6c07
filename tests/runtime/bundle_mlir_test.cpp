// The bundle.mlir interpreter: launch order, symbol values, loops, errors.

#include <gtest/gtest.h>

#include "runtime/bundle_mlir.h"
#include "runtime/error.h"
#include "test_support.h"

namespace spyre {
namespace {

int64_t segment(size_t i) { return static_cast<int64_t>(i) << 34; }

TEST(BundleMlir, SoftmaxExampleLaunchesSixSdscsWithPerCoreAddresses) {
  BundleMlir b = read_bundle_mlir(test::cli_bundle("softmax/bundle.mlir"), segment);
  EXPECT_EQ(b.function, "sdsc_bundle");
  EXPECT_EQ(b.arguments, (std::vector<std::string>{"arg_0_base_addr", "arg_1_base_addr"}));
  ASSERT_EQ(b.launches.size(), 6u);
  EXPECT_EQ(b.launches[0].sdsc_file, "sdsc_0.json");
  EXPECT_EQ(b.launches[5].sdsc_file, "sdsc_5.json");
  // 32 cores x 16 rows x 128 bytes: core i starts at base + 2048 i.
  ASSERT_EQ(b.launches[0].symbols.size(), 32u);
  EXPECT_EQ(b.launches[0].symbols.at(-1), 0);
  EXPECT_EQ(b.launches[0].symbols.at(-2), 2048);
  EXPECT_EQ(b.launches[5].symbols.at(-33), segment(1));
  EXPECT_EQ(b.launches[5].symbols.at(-64), segment(1) + 31 * 2048);
  EXPECT_TRUE(b.launches[1].symbols.empty());
}

TEST(BundleMlir, UnrollsLoopsWithAffineAddresses) {
  const std::string text = R"(
#tile = affine_map<(d0)[s0] -> (d0 * 4096 + s0)>
module {
  func.func @tiled(%a: !sdscbundle.input_arg<index>) {
    %base = sdscbundle.input_arg_extract value from %a : !sdscbundle.input_arg<index> -> index
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c3 step %c1 {
      %addr = affine.apply #tile(%i)[%base]
      %half = arith.divsi %addr, %c1 : index
      %inline = affine.apply affine_map<(d0) -> (d0 floordiv 2 + d0 mod 2)>(%i)
      sdscbundle.sdsc_execute (%half, %inline) {sdsc_filename="sdsc_0.json", symbol_ids=[-1, -2]}
    }
    return
  }
}
)";
  BundleMlir b = parse_bundle_mlir(text, "bundle.mlir", [](size_t) { return int64_t{1000}; });
  ASSERT_EQ(b.launches.size(), 3u);
  EXPECT_EQ(b.launches[0].symbols.at(-1), 1000);
  EXPECT_EQ(b.launches[2].symbols.at(-1), 2 * 4096 + 1000);
  EXPECT_EQ(b.launches[1].symbols.at(-2), 1);  // 1 floordiv 2 + 1 mod 2
  EXPECT_EQ(b.launches[2].symbols.at(-2), 1);
  EXPECT_EQ(b.launches[2].line, 13);
}

// Launches of one loop-body iteration share a number the card uses to
// synchronize the cores once per iteration; outside loops it is 0.
TEST(BundleMlir, LaunchesKnowTheLoopIterationTheyRunIn) {
  const std::string text = R"(
module {
  func.func @f() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    sdscbundle.sdsc_execute () {sdsc_filename="sdsc_0.json"}
    scf.for %i = %c0 to %c2 step %c1 {
      sdscbundle.sdsc_execute () {sdsc_filename="sdsc_1.json"}
      scf.for %j = %c0 to %c2 step %c1 {
        sdscbundle.sdsc_execute () {sdsc_filename="sdsc_2.json"}
      }
      sdscbundle.sdsc_execute () {sdsc_filename="sdsc_3.json"}
    }
    return
  }
}
)";
  const BundleMlir b = parse_bundle_mlir(text, "bundle.mlir", [](size_t) { return int64_t{0}; });
  ASSERT_EQ(b.launches.size(), 9u);  // 0, then twice: 1, 2, 2, 3
  EXPECT_EQ(b.launches[0].loop_body, 0);
  EXPECT_NE(b.launches[1].loop_body, 0);
  EXPECT_EQ(b.launches[1].loop_body, b.launches[4].loop_body);  // sdsc_1 and sdsc_3 of the first iteration
  EXPECT_NE(b.launches[2].loop_body, b.launches[1].loop_body);  // the inner loop's own iterations
  EXPECT_NE(b.launches[2].loop_body, b.launches[3].loop_body);
  EXPECT_NE(b.launches[5].loop_body, b.launches[1].loop_body);  // the second outer iteration
}

std::string mlir_error(const std::string& body) {
  const std::string text = "module {\n  func.func @f() {\n" + body + "\n    return\n  }\n}\n";
  return test::error_of([&] { parse_bundle_mlir(text, "bundle.mlir", segment); });
}

TEST(BundleMlir, Errors) {
  EXPECT_EQ(mlir_error("    %x = arith.xori %a, %b : index"),
            "bundle.mlir: line 3: unsupported operation 'arith.xori'");
  EXPECT_EQ(mlir_error("    sdscbundle.sdsc_execute (%nope) {sdsc_filename=\"s.json\", symbol_ids=[-1]}"),
            "bundle.mlir: line 3: use of undefined value %nope");
  EXPECT_EQ(mlir_error("    %c = arith.constant 1 : index\n    sdscbundle.sdsc_execute (%c) {sdsc_filename=\"s.json\", "
                       "symbol_ids=[-1, -2]}"),
            "bundle.mlir: line 4: 1 operands for 2 symbol_ids");
  EXPECT_EQ(mlir_error("    sdscbundle.sdsc_execute () {symbol_ids=[]}"),
            "bundle.mlir: line 3: sdsc_execute without sdsc_filename");
  EXPECT_EQ(mlir_error("    %c0 = arith.constant 0 : index\n    scf.for %i = %c0 to %c0 step %c0 {\n    }"),
            "bundle.mlir: line 4: scf.for step must be positive, got 0");
  EXPECT_NE(mlir_error("    %x = arith.constant 1 : index\n    sdscbundle.sdsc_execute (%x {").find("line 4"),
            std::string::npos);
}

// Index arithmetic past 64 bits and loops that run (nearly) forever are bad
// input, not undefined behaviour or a hang (tests/fuzz/regressions/bundle_mlir).
TEST(BundleMlir, OverflowAndRunawayLoopsAreErrors) {
  const std::string big = "    %big = arith.constant 9223372036854775807 : index\n";
  EXPECT_EQ(mlir_error(big + "    %x = arith.addi %big, %big : index"),
            "bundle.mlir: line 4: 64-bit overflow in arith.addi");
  EXPECT_EQ(mlir_error(big + "    %m = arith.constant -2 : index\n    %x = arith.muli %big, %m : index"),
            "bundle.mlir: line 5: 64-bit overflow in arith.muli");
  EXPECT_EQ(mlir_error(big + "    %m1 = arith.constant -1 : index\n    %min = arith.subi %m1, %big : index\n"
                             "    %x = arith.divsi %min, %m1 : index"),
            "bundle.mlir: line 6: 64-bit overflow in arith.divsi");
  EXPECT_EQ(mlir_error(big + "    %c0 = arith.constant 0 : index\n    %c1 = arith.constant 1 : index\n"
                             "    scf.for %i = %c0 to %big step %c1 {\n    }"),
            "bundle.mlir: line 6: more than 1000000 scf.for iterations in all");
  // A step that would carry the induction variable past 2^63 ends the loop.
  EXPECT_EQ(
      mlir_error(big + "    %c0 = arith.constant 0 : index\n    %half = arith.constant 4611686018427387904 : index\n"
                       "    scf.for %i = %c0 to %big step %half {\n    }"),
      "");
}

}  // namespace
}  // namespace spyre
