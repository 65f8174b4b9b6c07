// The SDSC reader and everything loading a bundle does with one SDSC: JSON,
// schema, layouts, work division, address binding and the static checks.

#include <filesystem>

#include "fuzz_support.h"
#include "runtime/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  const std::string dir = fuzz::scratch_dir();
  const std::string file = fuzz::scratch_file(data, size, ".json");
  std::filesystem::rename(file, dir + "/sdsc_0.json");
  fuzz::expect_clean_outcome([&] { load_program(dir, DeviceLimits()); });
  return 0;
}
