#pragma once
// What bounds a kernel: for each core, its time in the kernel's window told
// apart by what it was doing, and the core that finished last (which sets
// the kernel's time) as the kernel's answer. Shares, each a fraction of the
// window (end - start, the barrier included):
//   lpddr5   a DMA transfer open while LPDDR5's channels were busy: the DMA
//            time times the channels' busy fraction over the window
//   dma      the rest of the DMA time: the engine's issue rate, request
//            latency, reads served on chip
//   pt, sfu  compute on the PT arrays or the SFUs with no transfer open
//   ring     the reduce-sum or data ring phases
//   idle     none of these (waiting for a staging buffer, LX ports)
//   barrier  done, waiting for the other cores, the barrier and the fence
// A transfer and compute at once count as the transfer: in a double-buffered
// pipeline the engine that is never idle is the one that bounds it. Launch
// (bundle and dispatch overhead before the window) is given apart, in us.

#include <map>
#include <string>
#include <vector>

#include "sim/hw/card.h"
#include "sim/report/run_report.h"

namespace spyre::sim {

// Kernel `index` of the measured iteration, from the card's busy logs.
KernelBound kernel_bound(const Card& card, const KernelWork& work, size_t index, int lpddr5_channels);

}  // namespace spyre::sim
