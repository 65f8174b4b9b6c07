// The bundle.mlir parser: functions, launches, loops and address arithmetic.

#include "fuzz_support.h"
#include "runtime/bundle_mlir.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  fuzz::expect_clean_outcome([&] {
    const BundleMlir bundle = parse_bundle_mlir(fuzz::as_text(data, size), "bundle.mlir",
                                                [](size_t arg) { return static_cast<int64_t>(arg) << 30; });
    for (const auto& launch : bundle.launches) (void)launch;
  });
  return 0;
}
