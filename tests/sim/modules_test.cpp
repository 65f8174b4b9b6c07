// Each SystemC module's timing on a micro case, against values computed by
// hand from the arch parameters (spelled out in each test).

#include <functional>
#include <map>

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>

#include "sim/hw/address_ranges.h"
#include "sim/hw/card_links.h"
#include "sim/hw/corelet.h"
#include "sim/hw/dma_engine.h"
#include "sim/hw/host_link.h"
#include "sim/hw/interfaces.h"
#include "sim/hw/line_table.h"
#include "sim/hw/lpddr5.h"
#include "sim/hw/memory_cache.h"
#include "sim/hw/ring.h"
#include "sim/hw/scratchpad.h"
#include "sim/hw/systemc_context.h"
#include "test_support.h"

namespace spyre::sim {
namespace {

// Runs `body` as a SystemC thread once the modules built before it exist.
struct Driver : sc_core::sc_module {
  std::function<void()> body;
  SC_HAS_PROCESS(Driver);
  Driver(sc_core::sc_module_name name, std::function<void()> b) : sc_module(name), body(std::move(b)) {
    SC_THREAD(run);
  }
  void run() { body(); }
};

struct Initiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  explicit Initiator(sc_core::sc_module_name name) : sc_module(name) {}
  // Completion time (ns) of one request arriving `at_ns` from now; a read
  // that `starts_run` begins a DMA run.
  double request(bool write, uint64_t address, unsigned bytes, double at_ns = 0, bool starts_run = false) {
    tlm::tlm_generic_payload p;
    p.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.set_address(address);
    p.set_data_length(bytes);
    sc_core::sc_time delay(at_ns, sc_core::SC_NS);
    RunStart run_start;
    if (starts_run) p.set_extension(&run_start);
    socket->b_transport(p, delay);
    p.clear_extension<RunStart>();
    return now_ns() + delay.to_seconds() * 1e9;
  }
  // A host upload (untimed write) of [address, address + bytes).
  void upload(uint64_t address, unsigned bytes) {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(address);
    p.set_data_length(bytes);
    socket->transport_dbg(p);
  }
};

ArchConfig hand_arch(std::vector<std::string> options = {}) {
  auto o = test::hand_derived_arch();
  o.insert(o.end(), options.begin(), options.end());
  return load_arch("", o);
}

// LPDDR5 with one initiator, in a fresh SystemC context.
struct MemoryBench {
  // `context` is initialized first, so the modules belong to a fresh context.
  explicit MemoryBench(std::vector<std::string> options = {})
      : context((begin_systemc_context(), 0)), mem("mem", hand_arch(std::move(options))), init("init") {
    init.socket.bind(mem.socket);
  }
  int context;
  Lpddr5 mem;
  Initiator init;
};

// SystemC time resolves to 1 ps; each wait or annotated delay rounds to it.
constexpr double kPs = 0.001;

TEST(Lpddr5, OneChunkTakesItsChannelTimePlusLatency) {
  MemoryBench bench;
  Initiator& init = bench.init;
  const Lpddr5& mem = bench.mem;
  // A channel sustains read_gbps / channels = 150 / 8 = 18.75 GB/s.
  const double chunk_ns = 256.0 / (150.0 / 8);
  // Chunk c goes to the sum of c's base-8 digits, mod 8: chunk 15 (17 in
  // base 8) is on channel 0, chunks 9..16 on channels 2..7, 0, 2.
  for (int c : {0, 15}) EXPECT_EQ(mem.channel_of(c * 256), 0u);
  EXPECT_EQ(mem.channel_of(9 * 256), 2u);
  EXPECT_EQ(mem.channel_of(16 * 256), 2u);
  EXPECT_EQ(mem.channel_of(3 * 256), 3u);
  std::vector<double> done;
  Driver d("d", [&] {
    done.push_back(init.request(false, 0, 256));         // channel 0, idle
    done.push_back(init.request(false, 15 * 256, 256));  // channel 0 again: queues behind the first
    done.push_back(init.request(false, 9 * 256, 2048));  // chunks 9..16: channel 0 busy, channel 2 twice
    done.push_back(init.request(true, 3 * 256, 256));    // channel 3 switches from read to write
  });
  sc_core::sc_start();
  EXPECT_NEAR(done[0], chunk_ns + 120, kPs);
  EXPECT_NEAR(done[1], 2 * chunk_ns + 120, kPs);
  EXPECT_NEAR(done[2], 3 * chunk_ns + 120, kPs);
  // Channel 3 just read a chunk, so the write is mixed traffic: it carries
  // 2 x 24 ns of turnaround per 1024-byte batch (the hand-derived
  // mixed_batch_bytes), 12 ns for 256 bytes.
  EXPECT_NEAR(done[3], chunk_ns + 256.0 / (146.0 / 8) + 12 + 120, kPs);
  EXPECT_EQ(mem.stats().read_bytes, 256 + 256 + 2048);
  EXPECT_EQ(mem.stats().write_bytes, 256);
  EXPECT_DOUBLE_EQ(mem.stats().turnarounds, 0.25);
}

TEST(Lpddr5, WriteOnlyTrafficPaysNoTurnaround) {
  MemoryBench bench;
  double done = 0;
  Driver d("d", [&] { done = bench.init.request(true, 0, 256); });
  sc_core::sc_start();
  EXPECT_NEAR(done, 256.0 / (146.0 / 8) + 120, kPs);
}

// A read right after a write on its channel pays the turnaround too, as much
// per byte as a write after a read: mixed traffic costs the same per byte
// whatever the mix. Once the write is long past (the mix decays over
// lpddr5.mixed_window_ns, 5 us), reads are read-only traffic again.
TEST(Lpddr5, ReadsAfterWritesPayTheTurnaroundToo) {
  MemoryBench bench;
  const double write_ns = 256.0 / (146.0 / 8), read_ns = 256.0 / (150.0 / 8);
  double read_after = 0, read_later = 0;
  Driver d("d", [&] {
    bench.init.request(true, 0, 256);                         // channel 0: write only
    read_after = bench.init.request(false, 15 * 256, 256);    // channel 0, at once
    read_later = bench.init.request(false, 0, 256, 1000000);  // channel 0, 1 ms later
  });
  sc_core::sc_start();
  // Queued behind the write, the read starts as it ends: half the recent
  // bytes are writes, over the 1/3 that makes traffic fully mixed.
  EXPECT_NEAR(read_after, write_ns + read_ns + 12 + 120, kPs);
  EXPECT_NEAR(read_later, 1000000 + read_ns + 120, kPs);
  EXPECT_NEAR(bench.mem.stats().turnarounds, 0.25, 1e-6);
}

// Sparse writes among reads (a matmul's outputs, a reduction's results) carry
// turnarounds in proportion to their share: one write after eight reads is a
// ninth of the recent bytes, a third of the full 1/3 share, so 4 ns instead
// of 12.
TEST(Lpddr5, SparseWritesCarryFewerTurnarounds) {
  MemoryBench bench;
  std::vector<uint64_t> channel0;
  for (uint64_t a = 0; channel0.size() < 9; a += 256) {
    if (bench.mem.channel_of(static_cast<int64_t>(a)) == 0) channel0.push_back(a);
  }
  const double write_ns = 256.0 / (146.0 / 8), read_ns = 256.0 / (150.0 / 8);
  double write_done = 0;
  Driver d("d", [&] {
    for (int i = 0; i < 8; ++i) bench.init.request(false, channel0[i], 256);
    write_done = bench.init.request(true, channel0[8], 256);
  });
  sc_core::sc_start();
  // The reads decay a little (by e^(-t / 5 us)) while the channel serves them.
  EXPECT_NEAR(write_done, 8 * read_ns + write_ns + 4 + 120, 0.1);
  EXPECT_NEAR(bench.mem.stats().turnarounds, 0.25 / 3, 0.01);
}

// Read-after-write: reading bytes the cores wrote costs raw_read_extra more
// channel time, and raw_run_ns more when the read starts a DMA run; bytes the
// host uploaded over them are the host's again. Each read comes 1 ms after the
// last request, so no turnaround is left in the channel's mix.
TEST(Lpddr5, ReadsOfBytesTheCoresWroteCostMore) {
  MemoryBench bench({"lpddr5.raw_read_extra=0.5", "lpddr5.raw_run_ns=40"});
  const double read_ns = 256.0 / (150.0 / 8);
  std::vector<double> took;
  Driver d("d", [&] {
    auto read = [&](uint64_t address, bool starts_run) {
      const double start = now_ns() + 1000000;
      took.push_back(bench.init.request(false, address, 256, 1000000, starts_run) - start);
      sc_core::wait(sc_core::sc_time(2000000, sc_core::SC_NS));
    };
    read(0, true);  // never written: the host's bytes
    bench.init.request(true, 0, 512);
    read(0, false);
    read(0, true);
    read(256, true);  // the second chunk of the same write
    bench.init.upload(0, 256);
    read(0, true);    // uploaded over: plain again
    read(256, true);  // not uploaded over
  });
  sc_core::sc_start();
  ASSERT_EQ(took.size(), 6u);
  EXPECT_NEAR(took[0], read_ns + 120, kPs);
  EXPECT_NEAR(took[1], 1.5 * read_ns + 120, kPs);
  EXPECT_NEAR(took[2], 1.5 * read_ns + 40 + 120, kPs);
  EXPECT_NEAR(took[3], 1.5 * read_ns + 40 + 120, kPs);
  EXPECT_NEAR(took[4], read_ns + 120, kPs);
  EXPECT_NEAR(took[5], 1.5 * read_ns + 40 + 120, kPs);
  EXPECT_EQ(bench.mem.stats().raw_read_bytes, 4 * 256);
}

// Accesses: each request costs lpddr5.access_ns of channel time besides its
// bytes; the bytes take the rest of a dma.request_bytes (2048) request's
// time at read_gbps, so a full request moves at 150 GB/s and a 256-byte one
// at a fraction of it. The bytes never move faster than peak_gbps.
TEST(Lpddr5, EachAccessCostsItsChannelTimeBesidesItsBytes) {
  auto channel_ns = [](std::vector<std::string> options, unsigned bytes) {
    MemoryBench bench(std::move(options));
    Driver d("d", [&] { bench.init.request(false, 0, bytes); });
    sc_core::sc_start();
    double busy = 0;
    for (double b : bench.mem.stats().channel_busy_ns) busy += b;
    return busy;
  };
  const double sustained = 8.0 / 150.0;  // channel ns per byte at read_gbps
  EXPECT_NEAR(channel_ns({"lpddr5.access_ns=20"}, 2048), 2048 * sustained, kPs);
  EXPECT_NEAR(channel_ns({"lpddr5.access_ns=20"}, 256), 256 * (sustained - 20.0 / 2048) + 20, kPs);
  EXPECT_NEAR(channel_ns({"lpddr5.access_ns=0"}, 256), 256 * sustained, kPs);
  // 40 ns per access would leave the bytes above the peak rate: they move at peak.
  EXPECT_NEAR(channel_ns({"lpddr5.access_ns=40"}, 2048), 2048 * 8.0 / 204.8 + 40, kPs);
}

// A ring all-reduce of B bytes over N cards: 2 (N - 1) steps, each one
// card_link.latency_us plus an N-th of the tensor at card_link.gbps, sent and
// received at once; through the host: the tensor up, N tensors summed, the
// sum down. Every step's bytes fit its time at the link's rate.
TEST(CardLinks, AllReduceTakesTheRingsStepsOrTheHostsRoundTrip) {
  auto all_reduce = [](std::vector<std::string> options, int64_t bytes, int cards) {
    begin_systemc_context();
    CardLinks links("links", hand_arch(std::move(options)), cards);
    Initiator card("card");
    card.socket.bind(links.socket);
    double done = 0;
    Driver d("d", [&] { done = card.request(true, 0, static_cast<unsigned>(bytes)); });
    sc_core::sc_start();
    return std::make_pair(done, links.counters());
  };
  const std::vector<std::string> ring = {"card_link.gbps=50", "card_link.latency_us=2", "card_link.peer_to_peer=1"};
  const auto [t4, c4] = all_reduce(ring, 4 << 20, 4);
  EXPECT_NEAR(t4, 6 * (2000 + (1 << 20) / 50.0), kPs);
  EXPECT_EQ(c4.at(stats::kSentBytes), 6.0 * (1 << 20));
  EXPECT_EQ(c4.at(stats::kReceivedBytes), 6.0 * (1 << 20));
  EXPECT_NEAR(c4.at(stats::kBusyNs), t4, kPs);
  // 10 bytes over 4 cards: chunks of 3, 3, 3 and 1; card 0 sends chunks 0, 3, 2 then 1, 0, 3.
  const auto [t_odd, c_odd] = all_reduce(ring, 10, 4);
  EXPECT_EQ(c_odd.at(stats::kSentBytes), 3 + 1 + 3 + 3 + 3 + 1);
  EXPECT_EQ(c_odd.at(stats::kReceivedBytes), 1 + 3 + 3 + 3 + 1 + 3);
  EXPECT_NEAR(t_odd, 6 * (2000 + 3 / 50.0), kPs);
  // One card: nothing to do.
  EXPECT_EQ(all_reduce(ring, 1 << 20, 1).first, 0.0);
  const auto [th, ch] = all_reduce(
      {"card_link.gbps=50", "card_link.latency_us=2", "card_link.peer_to_peer=0", "card_link.host_reduce_gbps=20"},
      1 << 20, 8);
  EXPECT_NEAR(th, 2 * (2000 + (1 << 20) / 50.0) + 8.0 * (1 << 20) / 20.0, kPs);
  EXPECT_EQ(ch.at(stats::kSentBytes), 1 << 20);
  EXPECT_EQ(ch.at(stats::kReceivedBytes), 1 << 20);
}

// The cache's line -> slot table: lines that share a home slot probe past
// each other, and erasing one keeps every other findable (backward shift).
TEST(LineTable, FindsWhatWasInsertedAndForgetsWhatWasErased) {
  LineTable table(300);
  std::map<int64_t, int32_t> want;
  for (int32_t i = 0; i < 300; ++i) {
    const int64_t line = (i % 3 == 0) ? int64_t{i} << 20 : 7 * int64_t{i} + 1;  // runs and scattered lines
    table.insert(line, i);
    want[line] = i;
  }
  for (const auto& [line, slot] : want) EXPECT_EQ(table.find(line), slot) << line;
  std::vector<int64_t> erased;
  int n = 0;
  for (auto it = want.begin(); it != want.end();) {
    if (n++ % 2 == 0) {
      table.erase(it->first);
      erased.push_back(it->first);
      it = want.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& [line, slot] : want) EXPECT_EQ(table.find(line), slot) << line;
  for (int64_t line : erased) EXPECT_EQ(table.find(line), -1) << line;
  EXPECT_EQ(table.find(int64_t{1} << 40), -1);
  table.erase(12345678);  // absent: nothing happens
  table.clear();
  for (const auto& [line, slot] : want) EXPECT_EQ(table.find(line), -1) << line;
}

TEST(AddressRanges, MergesSplitsAndCountsOverlaps) {
  AddressRanges r;
  r.add(0, 100);
  r.add(200, 300);
  r.add(100, 150);  // touches the first: one range
  EXPECT_EQ(r.ranges(), 2u);
  EXPECT_EQ(r.overlap(0, 1000), 250);
  r.add(140, 220);  // bridges both
  EXPECT_EQ(r.ranges(), 1u);
  EXPECT_EQ(r.overlap(50, 250), 200);
  r.remove(120, 130);  // a hole in the middle
  EXPECT_EQ(r.ranges(), 2u);
  EXPECT_EQ(r.overlap(0, 300), 290);
  EXPECT_TRUE(r.contains(119));
  EXPECT_FALSE(r.contains(120));
  EXPECT_TRUE(r.contains(130));
  r.remove(0, 1000);
  EXPECT_EQ(r.ranges(), 0u);
  EXPECT_EQ(r.overlap(0, 1000), 0);
}

TEST(Lpddr5, FullChannelQueuesPushBackOnTheInitiator) {
  MemoryBench bench;
  Initiator& init = bench.init;
  const double chunk_ns = 256.0 / (150.0 / 8);
  std::vector<uint64_t> channel0;  // the first 40 chunks channel 0 serves
  for (uint64_t a = 0; channel0.size() < 40; a += 256) {
    if (bench.mem.channel_of(static_cast<int64_t>(a)) == 0) channel0.push_back(a);
  }
  double accepted_last = 0, done_last = 0;
  Driver d("d", [&] {
    // 40 chunks for channel 0 at once: it queues 32 chunks' worth of work, so
    // the 40th is accepted only when 7 chunks have drained.
    for (uint64_t a : channel0) done_last = init.request(false, a, 256);
    accepted_last = now_ns();
  });
  sc_core::sc_start();
  EXPECT_NEAR(accepted_last, 7 * chunk_ns, kPs);
  EXPECT_NEAR(done_last, 40 * chunk_ns + 120, kPs);
}

// The memory-side cache on LPDDR5, with two initiators (two cores).
struct CacheBench {
  explicit CacheBench(std::vector<std::string> options = {})
      : context((begin_systemc_context(), 0)),
        a(cached_arch(std::move(options))),
        mem("mem", a),
        cache("cache", a),
        first("first"),
        second("second") {
    cache.dram.bind(mem.socket);
    first.socket.bind(cache.socket);
    second.socket.bind(cache.socket);
  }
  static ArchConfig cached_arch(std::vector<std::string> options) {
    auto o = test::hand_derived_arch();
    o.push_back("cache.bytes=65536");
    o.insert(o.end(), options.begin(), options.end());
    return load_arch("", o);
  }
  int context;
  ArchConfig a;
  Lpddr5 mem;
  MemoryCache cache;
  Initiator first, second;
};

// Data is never served before it arrives: a core that asks for a line
// another core's miss is still filling waits for that fill, not just the
// hit latency; once the fill is back, hits take the hit path only.
TEST(MemoryCache, AHitOnALineBeingFilledWaitsForTheFill) {
  CacheBench bench;
  const double chunk_ns = 256.0 / (150.0 / 8);
  const double hit_ns = 2048 / bench.a.cache.gbps + bench.a.cache.hit_latency_ns;  // delivery, then latency
  double miss = 0, early_hit = 0, late_hit = 0;
  Driver d1("d1", [&] { miss = bench.first.request(false, 0, 2048); });
  Driver d2("d2", [&] {
    sc_core::wait(1, sc_core::SC_NS);
    early_hit = bench.second.request(false, 0, 2048);
    sc_core::wait(1000, sc_core::SC_NS);
    late_hit = bench.second.request(false, 0, 2048);
  });
  sc_core::sc_start();
  EXPECT_NEAR(miss, chunk_ns + 120, kPs);  // 8 chunks on 8 idle channels, then the latency
  EXPECT_NEAR(early_hit, miss, kPs);
  EXPECT_NEAR(late_hit, 1001 + hit_ns, kPs);
  EXPECT_EQ(bench.mem.stats().read_bytes, 2048);
  EXPECT_EQ(bench.cache.stats().miss_bytes, 2048);
  EXPECT_EQ(bench.cache.stats().hit_bytes, 4096);
}

// A strided read fills only the sticks it reads: 16 reads of 128 B, one per
// 2 KiB line, bring 2 KiB from LPDDR5, not 16 lines.
TEST(MemoryCache, AStridedReadFillsOnlyItsSticks) {
  CacheBench bench;
  Driver d("d", [&] {
    for (uint64_t i = 0; i < 16; ++i) bench.first.request(false, i * 2048, 128);
    bench.first.request(false, 128, 128);  // the next stick of line 0: a miss too
    bench.first.request(false, 0, 256);    // both sticks now held: a hit
  });
  sc_core::sc_start();
  EXPECT_EQ(bench.mem.stats().read_bytes, 17 * 128);
  EXPECT_EQ(bench.cache.stats().miss_bytes, 17 * 128);
  EXPECT_EQ(bench.cache.stats().hit_bytes, 256);
}

// A core's written bytes reach LPDDR5 as the cache writes them back; read
// again after that, they miss and pay LPDDR5's read-after-write cost, the
// run's start included when the run's first bytes miss (a hit has none).
TEST(MemoryCache, ARunThatMissesOnWrittenBytesStartsARunInLpddr5) {
  CacheBench bench({"lpddr5.raw_read_extra=0.5", "lpddr5.raw_run_ns=40"});
  const double read_ns = 256.0 / (150.0 / 8);
  double written = 0, uploaded = 0;
  Driver d("d", [&] {
    bench.first.request(true, 0, 256);  // line 0, dirty in the cache
    // 32 other lines evict it (64 KiB of cache): written back to LPDDR5.
    for (uint64_t i = 1; i <= 32; ++i) bench.first.request(false, i * 2048, 128, 0);
    const double t0 = now_ns() + 1000000;
    written = bench.first.request(false, 0, 256, 1000000, true) - t0;
    sc_core::wait(sc_core::sc_time(2000000, sc_core::SC_NS));
    const double t1 = now_ns() + 1000000;
    uploaded = bench.first.request(false, 64 * 2048, 256, 1000000, true) - t1;  // never written
  });
  sc_core::sc_start();
  EXPECT_EQ(bench.cache.stats().writeback_bytes, 256);
  EXPECT_EQ(bench.mem.stats().raw_read_bytes, 256);
  // The miss's fill, then the hit path's delivery and latency.
  const double hit_ns = 256 / bench.a.cache.gbps + bench.a.cache.hit_latency_ns;
  EXPECT_NEAR(uploaded, std::max(read_ns + 120, hit_ns), 0.01);
  EXPECT_NEAR(written - uploaded, 0.5 * read_ns + 40, 0.01);
}

// Write-allocate (the default): a write to a line the cache does not hold
// stays in the cache, dirty, and reaches LPDDR5 only when evicted.
// Write-around (cache.write_allocate=0): it goes to LPDDR5 at once and takes
// as long as LPDDR5 does; a later read of it misses. A write to a line a read
// brought in stays in the cache either way.
TEST(MemoryCache, WritesToLinesItDoesNotHoldGoAroundItWithoutWriteAllocate) {
  for (const bool allocate : {true, false}) {
    SCOPED_TRACE(allocate ? "write-allocate" : "write-around");
    CacheBench bench({allocate ? "cache.write_allocate=1" : "cache.write_allocate=0"});
    double write_done = 0;
    Driver d("d", [&] {
      write_done = bench.first.request(true, 0, 2048);  // line 0: not held
      bench.first.request(false, 0, 2048, 1000);        // then read back
      bench.first.request(false, 2048, 2048, 2000);     // line 1: read first
      bench.first.request(true, 2048, 2048, 3000);      // then written: held
    });
    sc_core::sc_start();
    const double chunk_ns = 256.0 / (146.0 / 8);  // 8 chunks on 8 idle channels
    const double hit_ns = 2048 / bench.a.cache.gbps + bench.a.cache.hit_latency_ns;
    EXPECT_NEAR(write_done, allocate ? hit_ns : chunk_ns + 120, kPs);
    EXPECT_EQ(bench.mem.stats().write_bytes, allocate ? 0 : 2048);
    EXPECT_EQ(bench.mem.stats().read_bytes, allocate ? 2048 : 4096);
    // Hits count the writes the cache took: all three with write-allocate.
    EXPECT_EQ(bench.cache.stats().hit_bytes, allocate ? 3 * 2048 : 2048);
    EXPECT_EQ(bench.cache.stats().around_bytes, allocate ? 0 : 2048);
  }
}

// A core's DMA engine with its LX, on LPDDR5.
struct DmaBench {
  DmaBench()
      : context((begin_systemc_context(), 0)),
        a(hand_arch()),
        mem("mem", a),
        lx("lx", a),
        port{0, 1.0 / a.dma.port_gbps} {}
  void attach(DmaEngine& dma) {
    dma.socket.bind(mem.socket);
    dma.lx_socket.bind(lx.socket);
  }
  int context;
  ArchConfig a;
  Lpddr5 mem;
  Scratchpad lx;
  MemoryPort port;
};

TEST(DmaEngine, StreamsAtTheCorePortRate) {
  DmaBench bench;
  DmaEngine dma("dma", bench.a, DmaDirection::Load, bench.port);
  bench.attach(dma);
  double end = 0;
  Driver d("d", [&] {
    dma.transfer({0, 65536, {}}, "t");
    end = now_ns();
  });
  sc_core::sc_start();
  // 32 requests of 2048 B leave the port every 2048/67 ns after 50 ns setup;
  // each spans 8 idle channels (256 B each, 13.65 ns) and lands 120 ns later.
  const double request_ns = 2048.0 / 67.0;
  const double expected = 50 + 31 * request_ns + 256.0 / (150.0 / 8) + 120;
  EXPECT_NEAR(end, expected, 64 * kPs);  // one rounding per request wait
  EXPECT_EQ(dma.bytes(), 65536);
  ASSERT_EQ(dma.log().intervals().size(), 1u);
  EXPECT_NEAR(dma.log().busy_ns(), expected, 64 * kPs);
  // Every request also passed the LX ports, into LX.
  EXPECT_EQ(bench.lx.counters().at(stats::kBytes), 65536);
}

TEST(DmaEngine, TwoEnginesShareTheCorePort) {
  DmaBench bench;
  DmaEngine in("in", bench.a, DmaDirection::Load, bench.port), out("out", bench.a, DmaDirection::Store, bench.port);
  bench.attach(in);
  bench.attach(out);
  double in_end = 0, out_end = 0;
  Driver d1("d1", [&] {
    in.transfer({0, 65536, {}}, "in");
    in_end = now_ns();
  });
  Driver d2("d2", [&] {
    out.transfer({1 << 20, 65536, {}}, "out");
    out_end = now_ns();
  });
  sc_core::sc_start();
  // Together they move 128 KiB through one 67 GB/s port: about twice as long as one.
  EXPECT_GT(std::max(in_end, out_end), 50 + 2 * 65536 / 67.0 - 2 * 2048 / 67.0);
  EXPECT_LT(std::max(in_end, out_end), 50 + 2 * 65536 / 67.0 + 200);
  EXPECT_EQ(bench.mem.stats().read_bytes, 65536);
  EXPECT_EQ(bench.mem.stats().write_bytes, 65536);
}

// A tile's transfers as one stream of descriptors: the second one's requests
// follow the first's at the port's pace (after its descriptor setup) instead
// of waiting for the first transfer's last request to return.
TEST(DmaEngine, ATilesTransfersStreamBackToBack) {
  double streamed = 0, one_by_one = 0;
  const std::vector<Transfer> tile = {{0, 65536, {}}, {1 << 20, 65536, {}}};
  {
    DmaBench bench;
    DmaEngine dma("dma", bench.a, DmaDirection::Load, bench.port);
    bench.attach(dma);
    Driver d("d", [&] {
      dma.transfer(tile, "tile");
      streamed = now_ns();
    });
    sc_core::sc_start();
    EXPECT_EQ(dma.bytes(), 2 * 65536);
    EXPECT_EQ(dma.log().intervals().size(), 1u);
  }
  {
    DmaBench bench;
    DmaEngine dma("dma2", bench.a, DmaDirection::Load, bench.port);
    bench.attach(dma);
    Driver d("d2", [&] {
      for (const auto& t : tile) dma.transfer(t, "t");
      one_by_one = now_ns();
    });
    sc_core::sc_start();
  }
  // Two setups, 64 requests 2048/67 ns apart, the last one's channel time and latency.
  const double request_ns = 2048.0 / 67.0;
  EXPECT_NEAR(streamed, 2 * 50 + 63 * request_ns + 256.0 / (150.0 / 8) + 120, 128 * kPs);
  // One by one, the first transfer's last request returns before the second starts.
  EXPECT_NEAR(one_by_one - streamed, 256.0 / (150.0 / 8) + 120 - request_ns, 128 * kPs);
}

// The engine's limit is bytes in flight (max_outstanding x request_bytes), not
// a count of requests: 128-byte runs have 16 times as many open as 2 KiB ones.
TEST(DmaEngine, ShortRequestsShareTheBytesInFlight) {
  DmaBench bench;
  bench.a.dma.max_outstanding = 2;  // 4 KiB open: two 2 KiB requests or 32 of 128 B
  DmaEngine dma("dma", bench.a, DmaDirection::Load, bench.port);
  bench.attach(dma);
  Transfer t;
  for (int i = 0; i < 64; ++i) t.runs.emplace_back(int64_t{i} * 4096, 128);
  t.bytes = 64 * 128;
  double end = 0;
  Driver d("d", [&] {
    dma.transfer(t, "t");
    end = now_ns();
  });
  sc_core::sc_start();
  // 32 runs go out back to back (128/67 ns each), the next 32 as the first
  // return (~127 ns later): about two latencies, where two requests at a time
  // would take 32 latencies (> 3.8 us).
  EXPECT_GT(end, 50 + 2 * 120);
  EXPECT_LT(end, 50 + 2 * (120 + 7) + 64 * 128 / 67.0 + 10);
}

// A strided transfer of short runs: the engine starts one run per run_ns,
// so 64 runs of 128 B take at least 64 x run_ns whatever the memory does.
TEST(DmaEngine, ShortRunsAreStartedOnePerRunTime) {
  DmaBench bench;
  bench.a.dma.run_ns = 40;
  DmaEngine dma("dma", bench.a, DmaDirection::Load, bench.port);
  bench.attach(dma);
  Transfer t;
  for (int i = 0; i < 64; ++i) t.runs.emplace_back(int64_t{i} * 4096, 128);
  t.bytes = 64 * 128;
  t.address = 0;
  double end = 0;
  Driver d("d", [&] {
    dma.transfer(t, "t");
    end = now_ns();
  });
  sc_core::sc_start();
  // Setup, 63 run starts 40 ns apart, then the last run's 128 B on its
  // channel and the latency.
  EXPECT_NEAR(end, 50 + 63 * 40 + 128 / (150.0 / 8) + 120, 64 * kPs);
  EXPECT_EQ(bench.mem.stats().read_bytes, 64 * 128);
}

// A ring driven through its socket: transfers with a RingRoute.
struct RingBench {
  // 32 cores, 128 B/cycle, 4-cycle hops at 1.5 GHz.
  RingBench() : context((begin_systemc_context(), 0)), ring("ring", "test ring", 32, 128, 4, 1.0 / 1.5), init("init") {
    init.socket.bind(ring.socket);
  }
  // Arrival (ns) of a transfer starting `at_ns` from now.
  double transfer(RingRoute route, int64_t bytes, double at_ns) {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_data_length(static_cast<unsigned>(bytes));
    ScopedExtension<RingRoute> with_route(p, route);
    sc_core::sc_time delay(at_ns, sc_core::SC_NS);
    init.socket->b_transport(p, delay);
    EXPECT_EQ(p.get_response_status(), tlm::TLM_OK_RESPONSE);
    return now_ns() + delay.to_seconds() * 1e9;
  }
  double send(int src, int dst, int64_t bytes, double at_ns) {
    RingRoute r;
    r.src = src;
    r.dst = dst;
    return transfer(r, bytes, at_ns);
  }
  double reduce(std::vector<int> group, int64_t bytes, double at_ns) {
    RingRoute r;
    r.group = std::move(group);
    return transfer(r, bytes, at_ns);
  }
  int context;
  Ring ring;
  Initiator init;
};

TEST(Ring, SendTakesStreamTimePlusHopLatency) {
  RingBench bench;
  const double cycle = 1.0 / 1.5;
  std::vector<double> arrival;
  Driver d("d", [&] {
    arrival.push_back(bench.send(0, 3, 4096, 0));
    // 0 -> 31 goes the short way: one hop counter-clockwise, on free links.
    arrival.push_back(bench.send(0, 31, 4096, 0));
    // 1 -> 2 needs link 1->2, busy with the first message until (32 + 4) cycles.
    arrival.push_back(bench.send(1, 2, 4096, 0));
  });
  sc_core::sc_start();
  EXPECT_NEAR(arrival[0], (32 + 3 * 4) * cycle, kPs);
  EXPECT_NEAR(arrival[1], (32 + 4) * cycle, kPs);
  EXPECT_NEAR(arrival[2], (36 + 32 + 4) * cycle, kPs);
  EXPECT_EQ(bench.ring.counters().at(stats::kBytesXHops), 4096 * 5);
  // The links that carried traffic, each with its own busy intervals.
  std::vector<std::string> links;
  for (const auto& a : bench.ring.activities()) links.push_back(a.name);
  EXPECT_EQ(links, (std::vector<std::string>{"link 0->1", "link 0->31", "link 1->2", "link 2->3"}));
}

TEST(Ring, ReduceGathersThenBroadcasts) {
  RingBench bench;
  const double cycle = 1.0 / 1.5;
  double group = 0, single = 0;
  Driver d("d", [&] {
    // Group {4, 5, 6, 7}: 3 hops clockwise to gather, 3 back to broadcast.
    group = bench.reduce({4, 5, 6, 7}, 1024, 100);
    single = bench.reduce({9}, 1024, 5);
  });
  sc_core::sc_start();
  EXPECT_NEAR(group, 100 + 2 * (8 + 3 * 4) * cycle, kPs);
  EXPECT_NEAR(single, 5, kPs);
}

TEST(Corelet, EnginesRunOneThingAtATime) {
  begin_systemc_context();
  const ArchConfig a = hand_arch();
  Corelet c("c", 0, a);
  const double cycle = 1.0 / 1.5;
  // Through the export a core's compute port binds to.
  EXPECT_NEAR(c.compute->execute(Engine::Sfu, 0, 150, "x"), 100, 1e-9);
  EXPECT_NEAR(c.compute->execute(Engine::Sfu, 10, 15, "y"), 110, 1e-9);  // queued behind the first
  EXPECT_NEAR(c.compute->execute(Engine::Pt, 10, 3, "z"), 10 + 3 * cycle, 1e-9);
  EXPECT_NEAR(c.log(Engine::Sfu).busy_ns(), 110, 1e-9);
}

TEST(Scratchpad, PortsMoveTwoSticksPerCycle) {
  begin_systemc_context();
  Scratchpad lx("lx", hand_arch());
  Initiator init("init");
  init.socket.bind(lx.socket);
  double first = 0, second = 0;
  Driver d("d", [&] {
    // 2 ports x 128 B/cycle x 1.5 GHz = 384 B/ns.
    first = init.request(true, 0, 3840, 0);
    second = init.request(false, 0, 384, 5);
  });
  sc_core::sc_start();
  EXPECT_NEAR(first, 10, kPs);
  EXPECT_NEAR(second, 11, kPs);
  EXPECT_EQ(lx.counters().at(stats::kBytes), 4224);
}

TEST(HostLink, LatencyPlusBandwidth) {
  MemoryBench bench;  // device memory behind the link
  HostLink host("host", hand_arch());
  Initiator host_side("host_side");
  host_side.socket.bind(host.socket);
  host.device.bind(bench.mem.socket);
  double done = 0;
  Driver d("d", [&] { done = host_side.request(true, 0, 1 << 20); });
  sc_core::sc_start();
  // 1 us latency + 1 MiB at 50 GB/s.
  EXPECT_NEAR(done, 1000 + 1048576 / 50.0, 1e-6);
  EXPECT_EQ(host.counters().at(stats::kUploadBytes), 1 << 20);
}

}  // namespace
}  // namespace spyre::sim
