#pragma once
// Every statistic a hardware block keeps, declared once with its unit and
// meaning (like gem5's ADD_STAT or DRAMSys's ScalarStat). A block reports its
// values against these declarations and the report, the invariants and the
// tests read them the same way, so a misspelt statistic does not compile
// where a misspelt string read 0. docs/report.md lists them (a test checks).

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spyre::sim {

struct Statistic {
  const char* name;  // as the report's "blocks" entries name it
  const char* unit;
  const char* description;
};

namespace stats {
inline constexpr Statistic kBytes{"bytes", "bytes", "bytes the block moved (a DMA engine, an LX port)"};
inline constexpr Statistic kBusyNs{"busy_ns", "ns", "time the block was busy"};
inline constexpr Statistic kPtBusyNs{"pt_busy_ns", "ns", "time the corelet's PT array computed"};
inline constexpr Statistic kSfuBusyNs{"sfu_busy_ns", "ns", "time the corelet's SFU computed"};
inline constexpr Statistic kUploadBytes{"upload_bytes", "bytes", "bytes the host link carried to the card"};
inline constexpr Statistic kDownloadBytes{"download_bytes", "bytes", "bytes the host link carried to the host"};
inline constexpr Statistic kReadBytes{"read_bytes", "bytes", "bytes LPDDR5 read"};
inline constexpr Statistic kWriteBytes{"write_bytes", "bytes", "bytes LPDDR5 wrote"};
inline constexpr Statistic kRawReadBytes{"raw_read_bytes", "bytes",
                                         "bytes LPDDR5 read soon after they were written (read-after-write cost)"};
inline constexpr Statistic kTurnarounds{"turnarounds", "turnarounds", "read/write bus turnarounds, all channels"};
inline constexpr Statistic kChannels{"channels", "channels", "LPDDR5 channels (a constant, not reported)"};
inline constexpr Statistic kChannelBusyNs{"channel_busy_ns", "ns", "busy time summed over the LPDDR5 channels"};
inline constexpr Statistic kHitBytes{"hit_bytes", "bytes", "bytes the memory-side cache served"};
inline constexpr Statistic kMissBytes{"miss_bytes", "bytes", "bytes the memory-side cache filled from LPDDR5"};
inline constexpr Statistic kWritebackBytes{"writeback_bytes", "bytes", "dirty bytes the cache wrote back to LPDDR5"};
inline constexpr Statistic kWriteAroundBytes{"write_around_bytes", "bytes",
                                             "bytes written past the cache (cache.write_allocate 0)"};
inline constexpr Statistic kSentBytes{"sent_bytes", "bytes",
                                      "bytes the card's link sent to the other cards (collectives)"};
inline constexpr Statistic kReceivedBytes{"received_bytes", "bytes",
                                          "bytes the card's link received from the other cards (collectives)"};
inline constexpr Statistic kBytesXHops{"bytes_x_hops", "bytes x links",
                                       "bytes a ring carried, each times the links it crossed"};
}  // namespace stats

// Every declared statistic, in the order above.
inline const std::vector<const Statistic*>& all_statistics() {
  static const std::vector<const Statistic*> all = {
      &stats::kBytes,        &stats::kBusyNs,        &stats::kPtBusyNs,       &stats::kSfuBusyNs,
      &stats::kUploadBytes,  &stats::kDownloadBytes, &stats::kReadBytes,      &stats::kWriteBytes,
      &stats::kRawReadBytes, &stats::kTurnarounds,   &stats::kChannels,       &stats::kChannelBusyNs,
      &stats::kHitBytes,     &stats::kMissBytes,     &stats::kWritebackBytes, &stats::kWriteAroundBytes,
      &stats::kBytesXHops,   &stats::kSentBytes,     &stats::kReceivedBytes};
  return all;
}

// A block's statistics at one moment (cumulative since the block was built),
// each value against its declaration.
class Counters {
 public:
  using Entry = std::pair<const Statistic*, double>;
  Counters() = default;
  Counters(std::initializer_list<std::pair<const Statistic&, double>> values) {
    for (const auto& [stat, value] : values) set(stat, value);
  }
  void set(const Statistic& stat, double value) {
    for (auto& e : values_) {
      if (e.first == &stat) {
        e.second = value;
        return;
      }
    }
    values_.emplace_back(&stat, value);
  }
  bool has(const Statistic& stat) const {
    for (const auto& e : values_) {
      if (e.first == &stat) return true;
    }
    return false;
  }
  // The value of a statistic the block keeps; asking a block for one it does
  // not keep is a programming error.
  double at(const Statistic& stat) const {
    for (const auto& e : values_) {
      if (e.first == &stat) return e.second;
    }
    throw std::logic_error(std::string("no statistic ") + stat.name + " in this block");
  }
  std::vector<Entry>::const_iterator begin() const { return values_.begin(); }
  std::vector<Entry>::const_iterator end() const { return values_.end(); }

 private:
  std::vector<Entry> values_;
};

}  // namespace spyre::sim
