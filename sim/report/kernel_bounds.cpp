#include "sim/report/kernel_bounds.h"

#include <algorithm>
#include <cmath>

namespace spyre::sim {

namespace {

// In priority order: where two are busy at once, the first counts.
enum Category { kTransfer, kPt, kSfu, kCategories };

struct Edge {
  double at;
  int category;
  int delta;  // +1 opens, -1 closes
};

// The intervals of `log` that overlap [from, to), clipped to it, as edges.
void add_edges(const BusyLog& log, int category, double from, double to, std::vector<Edge>& edges) {
  const auto& v = log.intervals();
  // Intervals never overlap and come in time order: their ends are sorted too.
  auto it = std::upper_bound(v.begin(), v.end(), from, [](double t, const BusyInterval& i) { return t < i.end_ns; });
  for (; it != v.end() && it->start_ns < to; ++it) {
    const double a = std::max(from, it->start_ns), b = std::min(to, it->end_ns);
    if (b <= a) continue;
    edges.push_back({a, category, +1});
    edges.push_back({b, category, -1});
  }
}

// Time in [from, to) by the highest-priority category open, per category.
std::vector<double> exclusive_times(std::vector<Edge>& edges, double from, double to) {
  std::vector<double> time(kCategories, 0.0);
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.at < b.at; });
  int open[kCategories] = {0, 0, 0};
  double t = from;
  for (const Edge& e : edges) {
    if (e.at > t) {
      for (int c = 0; c < kCategories; ++c) {
        if (open[c] > 0) {
          time[static_cast<size_t>(c)] += e.at - t;
          break;
        }
      }
      t = e.at;
    }
    open[e.category] += e.delta;
  }
  (void)to;
  return time;
}

std::string largest(const std::map<std::string, double>& shares) {
  std::string best;
  double most = -1;
  for (const auto& [name, share] : shares) {
    if (share > most) {
      most = share;
      best = name;
    }
  }
  return best;
}

}  // namespace

KernelBound kernel_bound(const Card& card, const KernelWork& work, size_t index, int lpddr5_channels) {
  const KernelTiming& k = card.kernel_timing().at(index);
  KernelBound out;
  out.launch_us = k.launch_ns / 1000.0;
  const double window = k.end_ns - k.start_ns;
  if (window <= 0) return out;
  const double memory_busy = std::clamp(k.lpddr5_channel_busy_ns / (lpddr5_channels * window), 0.0, 1.0);
  double last_end = -1;
  for (const auto& cw : work.cores) {
    const Core& core = *card.cores.at(static_cast<size_t>(cw.core));
    const auto end_it = k.core_end_ns.find(cw.core);
    const double end = end_it == k.core_end_ns.end() ? k.end_ns : std::min(end_it->second, k.end_ns);
    std::vector<Edge> edges;
    add_edges(core.dma_in.log(), kTransfer, k.start_ns, end, edges);
    add_edges(core.dma_out.log(), kTransfer, k.start_ns, end, edges);
    for (const auto& corelet : core.corelets) {
      add_edges(corelet->log(Engine::Pt), kPt, k.start_ns, end, edges);
      add_edges(corelet->log(Engine::Sfu), kSfu, k.start_ns, end, edges);
    }
    const auto time = exclusive_times(edges, k.start_ns, end);
    const auto ring_it = k.core_ring_ns.find(cw.core);
    const double ring = ring_it == k.core_ring_ns.end() ? 0 : ring_it->second;
    const double active = end - k.start_ns;
    CoreBound b;
    b.core = cw.core;
    b.end_us = active / 1000.0;
    b.shares["lpddr5"] = time[kTransfer] * memory_busy / window;
    b.shares["dma"] = time[kTransfer] * (1 - memory_busy) / window;
    b.shares["pt"] = time[kPt] / window;
    b.shares["sfu"] = time[kSfu] / window;
    // The ring phases hold no transfer or compute of the core's own.
    const double rest = std::max(0.0, active - time[kTransfer] - time[kPt] - time[kSfu]);
    b.shares["ring"] = std::min(rest, ring) / window;
    b.shares["idle"] = (rest - std::min(rest, ring)) / window;
    b.shares["barrier"] = (k.end_ns - end) / window;
    b.bound_by = largest(b.shares);
    if (end > last_end) {
      last_end = end;
      out.critical_core = b.core;
      out.shares = b.shares;
      out.bound_by = b.bound_by;
    }
    out.cores.push_back(std::move(b));
  }
  return out;
}

}  // namespace spyre::sim
