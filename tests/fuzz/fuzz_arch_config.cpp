// The arch config: a JSON file (input starting with '{'), or otherwise one
// `--set key=value` override per line on the built-in card. A config that
// loads must give device limits the loaders can use.

#include <vector>

#include "fuzz_support.h"
#include "runtime/arch_config.h"
#include "runtime/program.h"
#include "runtime/text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  fuzz::expect_clean_outcome([&] {
    const bool file = size > 0 && data[0] == '{';
    const std::string path = file ? fuzz::scratch_file(data, size, ".json") : "";
    const std::vector<std::string> overrides =
        file ? std::vector<std::string>{} : split(fuzz::as_text(data, size), '\n');
    const ArchConfig arch = load_arch(path, overrides);
    const DeviceLimits limits = arch.limits();
    if (limits.cores <= 0 || limits.lx_bytes <= 0 || limits.lx_usable_bytes() < 0 ||
        limits.lx_usable_bytes() > limits.lx_bytes)
      fuzz::finding("a loaded arch config gives impossible device limits");
  });
  return 0;
}
