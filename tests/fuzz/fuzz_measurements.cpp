// Measurement tables and source manifests (`validate`, `calibrate`): every
// kind of table (matmul splits, sweep records, kernels, softmax stages) and
// sources.json read into rows, none run. Bad input must end in one SpyreError.

#include "fuzz_support.h"
#include "runtime/arch_config.h"
#include "studies/measurement_sources.h"
#include "studies/validate_splits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace spyre;
  // A manifest starts with a brace; anything else is read as a CSV table.
  const bool manifest = size > 0 && data[0] == '{';
  fuzz::expect_clean_outcome([&] {
    const std::string path = fuzz::scratch_file(data, size, manifest ? ".json" : ".csv");
    studies::ValidateOptions options;
    const auto sources = studies::load_measurement_sources({path});
    for (const auto& entries : studies::read_sources(sources, options)) {
      for (const auto& [table, entry] : entries.entries) {
        if (entry.job && !(entry.job->row.measured_us > 0)) fuzz::finding(table + ": a row without a measured time");
      }
    }
  });
  return 0;
}
