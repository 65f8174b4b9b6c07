// The card as SystemC modules: every block talks through ports, exports or
// sockets, keeps its own statistics, and a core runs alone against any
// CardControlIf.

#include <gtest/gtest.h>

#include <set>
#include <systemc>

#include "runtime/arch_config.h"
#include "sim/hw/card.h"
#include "sim/hw/core.h"
#include "sim/hw/lpddr5.h"
#include "sim/hw/statistics.h"
#include "sim/hw/systemc_context.h"
#include "sim/schedule/kernel_plan.h"
#include "test_support.h"

namespace spyre::sim {
namespace {

// Processes, ports and exports (TLM sockets are ports and exports) among the
// direct children of `module`.
bool has_process_or_port(const sc_core::sc_object& module) {
  for (const sc_core::sc_object* child : module.get_child_objects()) {
    if (dynamic_cast<const sc_core::sc_process_b*>(child) || dynamic_cast<const sc_core::sc_port_base*>(child) ||
        dynamic_cast<const sc_core::sc_export_base*>(child)) {
      return true;
    }
  }
  return false;
}

void modules_under(const sc_core::sc_object& object, std::vector<const sc_core::sc_module*>& out) {
  if (const auto* m = dynamic_cast<const sc_core::sc_module*>(&object)) out.push_back(m);
  for (const sc_core::sc_object* child : object.get_child_objects()) modules_under(*child, out);
}

TEST(CardStructure, EveryModuleHasAProcessOrAPortAndKeepsItsStatistics) {
  const ArchConfig a = load_arch("", {"cores=4"});
  const Program p = load_program(test::cli_bundle("softmax"), load_arch("", {}).limits());
  begin_systemc_context();
  const std::vector<KernelWork> plans;
  Card card("card", a, p, plans);
  std::vector<const sc_core::sc_module*> modules;
  modules_under(card, modules);
  // The card, 4 cores of (LX, 2 DMA engines, 2 corelets), LPDDR5, the
  // cache, the host link, the card links, two rings.
  EXPECT_EQ(modules.size(), 1u + 4 * 6 + 6);
  for (const auto* m : modules) {
    EXPECT_TRUE(has_process_or_port(*m)) << m->name() << " is a module with neither a process nor a port";
    EXPECT_NE(dynamic_cast<const HardwareBlock*>(m), nullptr) << m->name() << " does not report statistics";
  }
  EXPECT_EQ(blocks_under(card).size(), modules.size());
  // The check itself: a module with nothing inside fails it.
  struct Bare : sc_core::sc_module {
    explicit Bare(sc_core::sc_module_name name) : sc_module(name) {}
  } bare("bare");
  EXPECT_FALSE(has_process_or_port(bare));
  EXPECT_TRUE(has_process_or_port(card.host));
}

// Stands in for the card: counts the calls a core makes.
struct FakeCard : sc_core::sc_module, CardControlIf {
  sc_core::sc_export<CardControlIf> control{"control"};
  int ring_phases = 0;
  std::vector<double> finished_ns;
  explicit FakeCard(sc_core::sc_module_name name) : sc_module(name) { control.bind(*this); }
  void ring_phase(int) override { ++ring_phases; }
  void relayout_phase(int) override {}
  void core_finished(int) override { finished_ns.push_back(now_ns()); }
};

struct Starter : sc_core::sc_module {
  SC_HAS_PROCESS(Starter);
  Starter(sc_core::sc_module_name name, Core& core, const CoreWork& work) : sc_module(name), core_(core), work_(work) {
    SC_THREAD(run);
  }
  void run() { core_.start(&work_, "k"); }
  Core& core_;
  const CoreWork& work_;
};

TEST(CoreAlone, RunsItsWorkAgainstAnyCard) {
  const ArchConfig a = load_arch("", test::hand_derived_arch());
  begin_systemc_context();
  Lpddr5 memory("lpddr5", a);
  FakeCard card("card");
  Core core("core0", 0, a);
  core.card.bind(card.control);
  core.dma_in.socket.bind(memory.socket);
  core.dma_out.socket.bind(memory.socket);
  CoreWork work;
  Tile tile;
  tile.loads.push_back({0, 256, {}});     // LPDDR5 channel 0
  tile.stores.push_back({512, 256, {}});  // channel 2, which has not read: no turnaround
  tile.sfu_cycles = 150;                  // per corelet: 100 ns at 1.5 GHz
  work.tiles.push_back(tile);
  work.hbm_write_bytes = 256;
  Starter starter("starter", core, work);
  sc_core::sc_start();
  const double load = 50 + 256 / 18.75 + 120;   // setup, one chunk at 150/8 GB/s, latency
  const double store = 50 + 256 / 18.25 + 120;  // at 146/8 GB/s
  EXPECT_EQ(card.ring_phases, 1);
  ASSERT_EQ(card.finished_ns.size(), 1u);
  EXPECT_NEAR(card.finished_ns[0], load + 100 + store, 0.01);
  EXPECT_EQ(memory.stats().read_bytes, 256);
  EXPECT_EQ(memory.stats().write_bytes, 256);
  EXPECT_NEAR(core.corelets[0]->log(Engine::Sfu).busy_ns(), 100, 1e-9);
  EXPECT_NEAR(core.corelets[1]->log(Engine::Sfu).busy_ns(), 100, 1e-9);
}

// Statistics are declared once (sim/hw/statistics.h): names unique, each one
// documented in docs/report.md, a block asked for one it does not keep says so.
TEST(Statistics, DeclaredOnceDocumentedAndReadByDeclaration) {
  const std::string doc = test::read_text(test::source_path("docs/report.md"));
  std::set<std::string> names;
  for (const Statistic* stat : all_statistics()) {
    EXPECT_TRUE(names.insert(stat->name).second) << stat->name;
    if (stat == &stats::kChannels) continue;  // a constant the report leaves out
    const std::string row = std::string("| `") + stat->name + "` | " + stat->unit + " | " + stat->description + " |";
    EXPECT_NE(doc.find(row), std::string::npos) << "docs/report.md lacks: " << row;
  }
  const ArchConfig a = load_arch("", {});
  begin_systemc_context();
  Lpddr5 memory("lpddr5", a);
  const Counters c = memory.counters();
  EXPECT_TRUE(c.has(stats::kChannelBusyNs));
  EXPECT_EQ(c.at(stats::kChannels), a.lpddr5.channels);
  EXPECT_FALSE(c.has(stats::kHitBytes));
  EXPECT_THROW(c.at(stats::kHitBytes), std::logic_error);
}

}  // namespace
}  // namespace spyre::sim
