#pragma once
// How a measurement timed a program, which a simulated time must reproduce:
// how many runs came before the timed one (warmup: caches warm, uploads done,
// as profilers time repeated runs) and what the card did between runs.
//
// back-to-back: the runs follow each other (seed 000's softmax loop of 1000
// iterations, torch.profiler's repetitions of one kernel): the memory-side
// cache keeps what the last run left, and lines a run rewrites stay dirty in
// it without reaching LPDDR5.
// device-work: other device work runs between them (the sweep profiler's
// memset and host copies, logged as memset_us and other_dev_us): it displaces
// the cache, so a run finds none of its bytes there, and its written bytes
// reach LPDDR5 within the run: the model writes the run's dirty lines back
// at its end, timed in its last kernel (docs/calibration.md gives the
// alternatives measured against the sweep).

#include <optional>
#include <string>
#include <string_view>

namespace spyre::sim {

enum class BetweenRuns { kBackToBack, kDeviceWork };

struct MeasurementProtocol {
  int warmup = 0;  // runs of the whole program before the measured one
  BetweenRuns between_runs = BetweenRuns::kBackToBack;
};

inline std::string to_string(BetweenRuns b) { return b == BetweenRuns::kDeviceWork ? "device-work" : "back-to-back"; }

inline std::optional<BetweenRuns> parse_between_runs(std::string_view text) {
  if (text == "back-to-back") return BetweenRuns::kBackToBack;
  if (text == "device-work") return BetweenRuns::kDeviceWork;
  return std::nullopt;
}

}  // namespace spyre::sim
