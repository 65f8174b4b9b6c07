#pragma once
// A memory-side cache in front of LPDDR5, shared by every core's DMA
// engines: a calibration hypothesis (docs/calibration.md), not a documented
// Spyre block. Measured softmax kernels move their bytes several times faster
// than LPDDR5 can while the streaming sweep's large tensors run at DRAM speed;
// a few MiB of write-back, write-allocate LRU lines explain both (small
// working sets reused within a few MiB hit, large streams miss).
//
// Lines of cache.line_bytes are kept in LRU order; within a line each stick
// (sector) is held or not. Hits are served at cache.gbps (shared) after
// cache.hit_latency_ns; a read fills the sticks it misses from LPDDR5 and
// completes when both have (a strided read brings no neighbour's bytes).
// A hit on a line whose fill has not returned yet (another core asked for it
// a moment before) completes when the fill does: data is never served before
// it has arrived, so cores reading one weight in step all wait on DRAM.
// Writes allocate their sticks without reading DRAM and mark them dirty; an
// evicted line writes its dirty sticks back to LPDDR5. With
// cache.write_allocate = 0 a write to a line the cache does not hold goes
// around it to LPDDR5 (and takes LPDDR5's time); writes to held lines still
// stay in the cache. cache.bytes = 0 turns the cache off: every request passes
// straight through. What survives from one timed run to the next depends on
// what the card did between them (measurement_protocol.h, flush()).

#include <cstdint>
#include <memory>
#include <vector>

#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include "runtime/arch_config.h"
#include "runtime/data_format.h"
#include "sim/hw/hardware_block.h"
#include "sim/hw/line_table.h"

namespace spyre::sim {

class MemoryCache : public sc_core::sc_module, public HardwareBlock {
 public:
  tlm_utils::multi_passthrough_target_socket<MemoryCache> socket;  // the cores' DMA engines, the host link
  tlm_utils::simple_initiator_socket<MemoryCache> dram;            // LPDDR5

  MemoryCache(sc_core::sc_module_name name, const ArchConfig& arch);

  struct Stats {
    int64_t hit_bytes = 0, miss_bytes = 0, writeback_bytes = 0, around_bytes = 0;
  };
  const Stats& stats() const { return stats_; }
  // hit_bytes, miss_bytes (bytes of reads filled from LPDDR5), writeback_bytes,
  // write_around_bytes (writes sent past the cache without write-allocate)
  Counters counters() const override;
  // Writes every dirty sector back to LPDDR5, in address order, and drops
  // every line; returns when the last write-back is done (ns). Called at the
  // end of a run whose next one comes after other device work (BetweenRuns).
  double flush();
  // Sampled simulation (run --sample-repeats): what a kernel that is not
  // simulated would leave in the cache, with no time and no counters (its
  // twin's are taken): the lines it reads become held, those it writes held
  // and dirty, LRU order as they come; an evicted dirty line is dropped (its
  // write-back is in the twin's time). SMARTS's functional warming.
  void warm(int64_t address, int64_t bytes, bool write);

 private:
  void b_transport(int initiator, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  // Host uploads (untimed writes) go to DRAM and leave the cache as it was:
  // a run starts cold, so LPDDR5 serves at least every distinct byte the
  // kernels read (steady state is `--warmup`'s, measured the same way).
  unsigned int transport_dbg(int initiator, tlm::tlm_generic_payload& payload);
  struct Entry {
    int64_t line;
    uint64_t valid, dirty;  // sectors (sticks) held, and those written since their fill
    double ready_ns;        // when the line's latest fill returns
    int32_t newer, older;   // neighbours in LRU order (slot indices; -1: none)
  };
  // Marks the line most recently used, allocating it (empty) if absent. An
  // eviction's write-back may wait in LPDDR5: the entry returned is the
  // line's entry after that wait.
  // `request`: a payload of the caller's for the write-back.
  Entry& touch(int64_t line, tlm::tlm_generic_payload& request);
  Entry& touch_untimed(int64_t line);  // warm(): an eviction costs nothing
  Entry* touch_held(int64_t line);     // marks a held line most recently used; nullptr when not held
  Entry& add_newest(int64_t line);     // a new empty line, most recently used (a free slot must exist)
  Entry drop_oldest();                 // removes the least recently used line; returns it
  void write_back(const Entry& victim, tlm::tlm_generic_payload& request);
  // One request's working lists and the payload of its own LPDDR5 requests,
  // kept for the next request (no allocation per request: there are
  // millions). Other initiators' requests run while one waits in LPDDR5, so
  // each request in progress takes its own from the pool and gives it back.
  struct RequestScratch {
    std::vector<std::pair<int64_t, int64_t>> fills;   // (address, bytes) runs of missed sectors
    std::vector<int64_t> shared;                      // lines it hit: their fill may still be out
    std::vector<std::pair<int64_t, int64_t>> around;  // (address, bytes) runs written past the cache
    tlm::tlm_generic_payload dram_request;
  };
  std::unique_ptr<RequestScratch> take_scratch();
  // The line's entry, nullptr when the cache does not hold it.
  Entry* find(int64_t line);
  void unlink(int32_t slot);
  void link_newest(int32_t slot);

  int64_t capacity_lines_, line_bytes_, sectors_, sector_bytes_;
  double ns_per_byte_, hit_latency_ns_;
  bool write_allocate_;
  double free_at_ns_ = 0;
  sc_core::sc_event fill_known_;  // a fill's return time became known
  // The lines held, in fixed slots (a line's entry stays put while it is
  // held: no allocation per line, references stay valid across waits), kept
  // in LRU order by a doubly linked list through the slots.
  std::vector<Entry> slots_;
  std::vector<int32_t> free_slots_;
  int32_t newest_ = -1, oldest_ = -1;
  int64_t held_ = 0;
  LineTable where_;  // line -> slot
  std::vector<std::unique_ptr<RequestScratch>> scratch_pool_;
  Stats stats_;
};

}  // namespace spyre::sim
