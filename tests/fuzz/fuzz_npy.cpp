// The .npy reader: header, dtype, shape against the file's size, values.

#include "fuzz_support.h"
#include "runtime/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  fuzz::expect_clean_outcome([&] {
    const NpyArray array = read_npy(fuzz::scratch_file(data, size, ".npy"));
    if (static_cast<int64_t>(array.values.size()) != array.size()) fuzz::finding("values disagree with the shape");
  });
  return 0;
}
