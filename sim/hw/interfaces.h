#pragma once
// The interfaces and TLM-2.0 extensions the card's blocks talk through. Data
// moves as TLM generic payloads (DMA -> memory-side cache -> LPDDR5, DMA and
// compute -> LX, the rings, the host link); compute and the core's dealings
// with the card are SystemC interfaces bound through ports and exports, so
// any block can be replaced by another model of the same interface.
//
// Data transfers follow the TLM-2.0 loosely-timed convention: the delay of a
// b_transport call holds when the request starts, relative to now, and on
// return when it completes.

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

namespace spyre::sim {

// What a core needs from the card around its part of a kernel.
class CardControlIf : public virtual sc_core::sc_interface {
 public:
  // Blocks the calling core's thread until its ring work for the current
  // kernel (a reduce-sum with its group, SHUFFLE transfers) is done.
  virtual void ring_phase(int core) = 0;
  // Blocks until the parts of LX inputs this core computes on have arrived
  // from the cores holding them (the backend's relayout), before compute.
  virtual void relayout_phase(int core) = 0;
  // The core has stored its last result of the current kernel.
  virtual void core_finished(int core) = 0;
};

enum class Engine { Pt, Sfu };

// A corelet's compute engines. Times are absolute ns as doubles, not
// sc_time: an engine's schedule chains many short intervals, and rounding
// each to SystemC's picosecond would drift.
class ComputeIf : public virtual sc_core::sc_interface {
 public:
  // Occupies `engine` for `cycles` cycles, starting no earlier than
  // `earliest_ns`; returns when it is done.
  virtual double execute(Engine engine, double earliest_ns, double cycles, const std::string& label) = 0;
};

// A payload's label in the receiving block's busy intervals (trace events).
struct ActivityLabel : tlm::tlm_extension<ActivityLabel> {
  std::string text;
  explicit ActivityLabel(std::string t = "") : text(std::move(t)) {}
  tlm::tlm_extension_base* clone() const override { return new ActivityLabel(text); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    text = static_cast<const ActivityLabel&>(other).text;
  }
};

// Where a ring transfer goes: src -> dst, or a reduce-sum over a group of
// cores (ascending ring order) when `group` is set.
struct RingRoute : tlm::tlm_extension<RingRoute> {
  int src = 0, dst = 0;
  std::vector<int> group;
  tlm::tlm_extension_base* clone() const override { return new RingRoute(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const RingRoute&>(other); }
};

// Marks a DMA read request that begins a run of the transfer (the first
// request of a descriptor's contiguous stretch); LPDDR5's read-after-write
// cost is paid per run (docs/model.md).
struct RunStart : tlm::tlm_extension<RunStart> {
  tlm::tlm_extension_base* clone() const override { return new RunStart(*this); }
  void copy_from(const tlm::tlm_extension_base&) override {}
};

// A transfer's length when it does not fit the payload's 32-bit data length
// (a host upload of a tensor above 4 GiB).
struct WideLength : tlm::tlm_extension<WideLength> {
  int64_t bytes = 0;
  tlm::tlm_extension_base* clone() const override { return new WideLength(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { bytes = static_cast<const WideLength&>(other).bytes; }
};

// The bytes a payload moves: its WideLength if it has one, else its data length.
inline int64_t payload_bytes(const tlm::tlm_generic_payload& payload) {
  const WideLength* wide = payload.get_extension<WideLength>();
  return wide ? wide->bytes : static_cast<int64_t>(payload.get_data_length());
}

// Attaches a stack-allocated extension to a payload for one call and
// detaches it before either goes (a payload deletes the extensions it holds).
template <typename T>
class ScopedExtension {
 public:
  ScopedExtension(tlm::tlm_generic_payload& payload, T& extension) : payload_(payload) {
    payload_.set_extension(&extension);
  }
  ~ScopedExtension() { payload_.template clear_extension<T>(); }
  ScopedExtension(const ScopedExtension&) = delete;
  ScopedExtension& operator=(const ScopedExtension&) = delete;

 private:
  tlm::tlm_generic_payload& payload_;
};

}  // namespace spyre::sim
