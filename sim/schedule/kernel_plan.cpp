#include "sim/schedule/kernel_plan.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "runtime/error.h"

namespace spyre::sim {

namespace {

// A bound on the work one SDSC may describe, so a malformed size cannot make
// the simulator run out of memory.
constexpr size_t kMaxTilesPerCore = 1000000;

void check_tile_count(const Sdsc& s, int core, int64_t tiles) {
  if (tiles > static_cast<int64_t>(kMaxTilesPerCore)) {
    fail(s.file, "$." + s.name,
         "core " + std::to_string(core) + " would run " + std::to_string(tiles) +
             " tiles; more than the simulator handles (" + std::to_string(kMaxTilesPerCore) + ")");
  }
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t d = 1; d * d <= n; ++d) {
    if (n % d == 0) {
      out.push_back(d);
      if (d != n / d) out.push_back(n / d);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Splits `bytes` (whole sticks) into n nearly equal parts.
std::vector<int64_t> split_sticks(int64_t bytes, int64_t n) {
  const int64_t sticks = (bytes + kStickBytes - 1) / kStickBytes;
  std::vector<int64_t> parts(static_cast<size_t>(n), 0);
  for (int64_t i = 0; i < n; ++i) parts[i] = (sticks / n + (i < sticks % n ? 1 : 0)) * kStickBytes;
  return parts;
}

// Elements an op processes on one core (whole sticks: the SFU works on sticks).
int64_t op_elements(const Kernel& k, int lds, int core) {
  const TensorBinding& b = k.tensors[lds];
  const Box& box = b.core_box.at(core);
  return b.layout.box_bytes(box.origin, box.extent) / b.layout.elem_bytes();
}

int64_t box_bytes(const TensorBinding& b, int core) {
  const Box& box = b.core_box.at(core);
  return b.layout.box_bytes(box.origin, box.extent);
}

int64_t box_address(const TensorBinding& b, int core) {
  return b.hbm_base + b.layout.offset(b.core_box.at(core).origin);
}

// A tensor reused across iterations of a dim it broadcasts over: the backend
// keeps it in staging instead of streaming it (torch-spyre cost model: broadcast
// operands are loaded once).
bool is_broadcast_operand(const Sdsc& s, int lds) {
  for (const auto& [d, scale] : s.tensors[lds].scale) {
    if (scale != DimScale::Normal && s.per_core.at(d) > 1) return true;
  }
  for (const auto& d : s.dims) {
    if (!s.tensors[lds].scale.count(d) && !s.reads_dim(lds, d) && s.per_core.at(d) > 1) return true;
  }
  return false;
}

// Dims whose split over cores leaves partial results (reduced by some op).
std::vector<bool> reduced_dims(const Sdsc& s) {
  std::vector<bool> reduced(s.dims.size(), false);
  for (const auto& op : s.ops) {
    if (op.info->kind != OpKind::Reduction && op.info->kind != OpKind::Matmul) continue;
    for (size_t i = 0; i < s.dims.size(); ++i) {
      if (s.reads_dim(op.outputs[0], s.dims[i])) continue;
      for (int in : op.inputs) {
        if (in != op.outputs[0] && s.reads_dim(in, s.dims[i])) reduced[i] = true;
      }
    }
  }
  return reduced;
}

void build_reduce_groups(const Kernel& k, KernelWork& w) {
  const Sdsc& s = *k.sdsc;
  const std::vector<bool> reduced = reduced_dims(s);
  bool split = false;
  for (size_t i = 0; i < s.dims.size(); ++i) split |= reduced[i] && s.slices.at(s.dims[i]) > 1;
  if (!split) return;
  std::map<std::vector<int64_t>, std::vector<int>> groups;
  for (int core : s.core_ids) {
    std::vector<int64_t> key;
    for (size_t i = 0; i < s.dims.size(); ++i) key.push_back(reduced[i] ? 0 : s.core_slice.at(core).at(s.dims[i]));
    groups[key].push_back(core);
  }
  for (auto& [key, cores] : groups) {
    ReduceGroup g;
    g.cores = cores;
    for (const auto& op : s.ops) {
      if (op.info->kind == OpKind::Reduction || op.info->kind == OpKind::Matmul)
        g.bytes += box_bytes(k.tensors[op.outputs[0]], cores.front());
    }
    const int index = static_cast<int>(w.reduce_groups.size());
    for (int core : cores) {
      for (auto& cw : w.cores) {
        if (cw.core == core) cw.reduce_group = index;
      }
    }
    w.reduce_groups.push_back(g);
  }
}

// Runs cut where a new row of `row_bytes` starts (rows counted from `base`).
std::vector<std::pair<int64_t, int64_t>> split_runs(const std::vector<std::pair<int64_t, int64_t>>& runs,
                                                    int64_t row_bytes, int64_t base) {
  if (row_bytes <= 0) return runs;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto [address, bytes] : runs) {
    while (bytes > 0) {
      const int64_t to_row_end = row_bytes - (address - base) % row_bytes;
      const int64_t take = std::min(bytes, to_row_end);
      out.emplace_back(address, take);
      address += take;
      bytes -= take;
    }
  }
  return out;
}

void plan_streaming(const Kernel& k, const ArchConfig& arch, KernelWork& w, CoreWork& cw) {
  const Sdsc& s = *k.sdsc;
  const int core = cw.core;
  struct Stream {
    int64_t address, bytes;
    std::vector<std::pair<int64_t, int64_t>> runs;  // absolute addresses
  };
  std::vector<Stream> loads, stores, cached, final_out;
  for (size_t lds = 0; lds < k.tensors.size(); ++lds) {
    const TensorBinding& b = k.tensors[lds];
    if (b.component != MemComponent::Hbm) continue;
    Stream st{box_address(b, core), box_bytes(b, core), {}};
    const Box& box = b.core_box.at(core);
    for (const auto& [offset, bytes] : b.layout.box_runs(box.origin, box.extent))
      st.runs.emplace_back(b.hbm_base + offset, bytes);
    for (const Gather& g : s.gathers) {
      // Gathered rows: one run each. Where they lie depends on the index
      // values, which a timing run does not know: the first rows stand in.
      if (g.value == static_cast<int>(lds)) st.runs = split_runs(st.runs, b.layout.find(g.dim)->stride, b.hbm_base);
    }
    if (b.read) (is_broadcast_operand(s, static_cast<int>(lds)) ? cached : loads).push_back(st);
    if (b.written) (is_broadcast_operand(s, static_cast<int>(lds)) ? final_out : stores).push_back(st);
  }
  int64_t streamed = 0, cached_bytes = 0, min_sticks = INT64_MAX;
  for (const auto& v : {&loads, &stores}) {
    for (const auto& st : *v) {
      streamed += st.bytes;
      min_sticks = std::min(min_sticks, st.bytes / kStickBytes);
    }
  }
  for (const auto& st : cached) cached_bytes += st.bytes;
  const int64_t staging = arch.staging_bytes();
  const int64_t budget = std::max(staging - cached_bytes, staging / 8) / 2;  // double buffered
  int64_t n = streamed > 0 ? std::max<int64_t>(1, (streamed + budget - 1) / budget) : 1;
  if (min_sticks != INT64_MAX) n = std::max<int64_t>(1, std::min(n, min_sticks));
  check_tile_count(s, core, n);
  cw.tiles.resize(static_cast<size_t>(n));

  auto place = [&](const std::vector<Stream>& list, bool is_load) {
    for (const auto& st : list) {
      const auto parts = split_sticks(st.bytes, n);
      size_t run = 0;
      int64_t used = 0;  // bytes of runs[run] already given to earlier tiles
      for (int64_t i = 0; i < n; ++i) {
        if (parts[i] == 0) continue;
        Transfer t;
        t.bytes = parts[i];
        for (int64_t need = parts[i]; need > 0 && run < st.runs.size();) {
          const int64_t take = std::min(need, st.runs[run].second - used);
          t.runs.emplace_back(st.runs[run].first + used, take);
          need -= take;
          used += take;
          if (used == st.runs[run].second) {
            ++run;
            used = 0;
          }
        }
        t.address = t.runs.empty() ? st.address : t.runs.front().first;
        (is_load ? cw.tiles[i].loads : cw.tiles[i].stores).push_back(std::move(t));
      }
    }
  };
  auto whole = [](const Stream& st) { return Transfer{st.address, st.bytes, st.runs}; };
  place(loads, true);
  place(stores, false);
  for (const auto& st : cached) cw.tiles.front().loads.push_back(whole(st));
  // Results of a reduced dim: stored after the last tile, or after the ring
  // combine by the first core of the group.
  for (const auto& st : final_out) {
    if (cw.reduce_group < 0) {
      cw.tiles.back().stores.push_back(whole(st));
    } else if (w.reduce_groups[cw.reduce_group].cores.front() == core) {
      cw.final_stores.push_back(whole(st));
    }
  }
  // Compute: every op of the SDSC, spread evenly over the tiles.
  double sfu = 0, pt = 0;
  int64_t lx = 0;
  const int corelets = arch.corelets_per_core;
  for (const auto& op : s.ops) {
    const bool reduction = op.info->kind == OpKind::Reduction;
    int64_t elems = 0;
    if (reduction && op.info->windowed) {
      // Every output reads its whole window: the iteration space, not the input's span.
      elems = 1;
      for (const auto& d : s.dims) elems *= s.per_core.at(d);
    } else if (reduction) {
      for (int in : op.inputs) {
        if (in != op.outputs[0]) elems = std::max(elems, op_elements(k, in, core));
      }
    } else if (op.info->kind == OpKind::TopK) {
      // One pass over the searched values per result the core ranks (an
      // assumption: the public sources say only that a core ranks at most
      // sfu.topk_k_per_core of them).
      elems = op_elements(k, op.inputs[0], core) * s.per_core.at(op.k_dim);
    } else {
      elems = op_elements(k, op.outputs[0], core);
    }
    if (op.ex_unit == "pt") {
      pt += static_cast<double>(elems) / (arch.pt.elementwise_elems_per_cycle * corelets);
    } else {
      const double vectors = std::ceil(static_cast<double>(elems) / arch.sfu.lanes);
      sfu += vectors * sfu_cycles_per_vector(arch, op.info->cost) / corelets;
    }
    for (int in : op.inputs) {
      if (!(reduction && in == op.outputs[0])) lx += box_bytes(k.tensors[in], core);
    }
    lx += box_bytes(k.tensors[op.outputs[0]], core);
  }
  for (auto& t : cw.tiles) {
    t.sfu_cycles = sfu / n;
    t.pt_cycles = pt / n;
    t.lx_bytes = lx / n;
  }
  cw.staging_bytes = std::min(staging, cached_bytes + 2 * ((streamed + n - 1) / n));
}

// A core's bytes of an HBM tensor as absolute runs (none for LX).
ByteRuns hbm_runs(const TensorBinding& b, int core) {
  if (b.component != MemComponent::Hbm) return {};
  const Box& box = b.core_box.at(core);
  ByteRuns runs = b.layout.box_runs(box.origin, box.extent);
  for (auto& run : runs) run.first += b.hbm_base;
  return runs;
}

// The transfer of bytes [offset, offset + bytes) of the sequence the runs make.
Transfer stretch(const ByteRuns& runs, int64_t offset, int64_t bytes) {
  Transfer t;
  t.bytes = bytes;
  int64_t skipped = 0;
  for (const auto& [address, length] : runs) {
    if (bytes <= 0) break;
    if (skipped + length <= offset) {
      skipped += length;
      continue;
    }
    const int64_t from = std::max<int64_t>(0, offset - skipped);
    const int64_t take = std::min(length - from, bytes);
    t.runs.emplace_back(address + from, take);
    bytes -= take;
    skipped += length;
    offset = skipped;
  }
  t.address = t.runs.empty() ? 0 : t.runs.front().first;
  return t;
}

struct MatmulDims {
  std::vector<std::string> batch, rows, cols, contraction;  // SDSC dim names by role
  int64_t x = 1, m = 1, n = 1, k = 1;                       // per-core extents
};

MatmulDims matmul_dims(const Sdsc& s, int la, int lb, int lc) {
  auto normal = [&](int lds, const std::string& d) { return s.reads_dim(lds, d); };
  MatmulDims md;
  for (const auto& d : s.dims) {
    const bool a = normal(la, d), b = normal(lb, d), c = normal(lc, d);
    const int64_t e = s.per_core.at(d);
    if (a && b && c) {
      md.batch.push_back(d);
      md.x *= e;
    } else if (a && c) {
      md.rows.push_back(d);
      md.m *= e;
    } else if (b && c) {
      md.cols.push_back(d);
      md.n *= e;
    } else if (a && b) {
      md.contraction.push_back(d);
      md.k *= e;
    }
  }
  return md;
}

int64_t slices_of(const Sdsc& s, const std::string& d) {
  auto it = s.slices.find(d);
  return it == s.slices.end() ? 1 : it->second;
}

// A part of a core's box: `dim` narrowed to [from, from + count) of the core's range.
ByteRuns sub_box_runs(const TensorBinding& b, int core,
                      const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>>& narrow) {
  if (b.component != MemComponent::Hbm) return {};
  Box box = b.core_box.at(core);
  for (const auto& [dim, range] : narrow) {
    if (!box.extent.count(dim)) continue;
    box.origin[dim] += range.first;
    box.extent[dim] = range.second;
  }
  ByteRuns runs = b.layout.box_runs(box.origin, box.extent);
  for (auto& run : runs) run.first += b.hbm_base;
  return runs;
}

Transfer runs_transfer(ByteRuns runs) {
  Transfer t;
  for (const auto& r : runs) t.bytes += r.second;
  t.address = runs.empty() ? 0 : runs.front().first;
  t.runs = std::move(runs);
  return t;
}

// A batched matmul (one batch dim shared by A, B and C) as the backend runs
// it: a tile holds as many batch elements as fit the staging space with their
// B slice, one pass of pe_rows rows of A and an fp32 accumulator; B is
// streamed again for every pass of pe_rows rows (kept across the passes when
// the backend has pt.bmm_keep_b_lx_fraction of LX or more). The batch dim sits innermost
// in torch-spyre's bmm layouts, so a tile's DRAM runs are (batch elements per
// tile) x 128 bytes: a small staging space means short runs, and each run
// costs the DMA engine dma.run_ns and LPDDR5 lpddr5.access_ns (so a tile
// whose runs would be shorter than a request takes B by column blocks
// instead, below). Each output stick of the result costs
// pt.output_stick_ns scaled by LX size over the staging space (docs/model.md).
// Several batch dims (an attention's batch and heads) or row dims (the query
// heads of a GQA group, which share one K/V batch element) run as nested
// loops: a tile holds batch elements of the last batch dim and a pass rows of
// the last row dim, one element of each outer dim at a time.
void plan_batched_matmul(const Kernel& k, const ComputeOp& op, const MatmulDims& md, const ArchConfig& arch,
                         KernelWork& w, CoreWork& cw) {
  const Sdsc& s = *k.sdsc;
  const int core = cw.core;
  const TensorBinding &A = k.tensors[op.inputs[0]], &B = k.tensors[op.inputs[1]], &C = k.tensors[op.outputs[0]];
  const std::string& xd = md.batch.back();
  const std::string& rd = md.rows.back();
  const int64_t b = s.per_core.at(xd), m = s.per_core.at(rd), n = md.n, kk = md.k;
  const int64_t outer_batches = md.x / b, outer_rows = md.m / m;
  const int64_t elem = A.layout.elem_bytes();
  const int64_t g = arch.pt.pe_rows;
  const int64_t staging = arch.staging_bytes();
  // Staging bytes one batch element of a tile takes with `cols` columns of B.
  auto per_batch_of = [&](int64_t cols) { return kk * cols * elem + g * kk * elem + g * cols * 4; };
  int64_t per_batch = per_batch_of(n);
  int64_t bt = std::clamp<int64_t>(staging / std::max<int64_t>(1, per_batch), 1, b);
  // The batch dim is innermost in the bmm layouts, so a tile's runs are bt x
  // 128 bytes. When that is shorter than a DMA request (each run costs the
  // DMA engine dma.run_ns and LPDDR5 lpddr5.access_ns), the tile takes all
  // the core's batch elements and B a block of column sticks at a time (runs
  // of b x 128 bytes), if one stick per batch element fits; A's rows stay for
  // the pass's column blocks.
  int64_t col_block = n;
  const std::string* cd = md.cols.size() == 1 ? &md.cols.front() : nullptr;
  if (bt < b && bt * kStickBytes < arch.dma.request_bytes && cd != nullptr && n > 64) {
    const int64_t fit = staging / b;  // bytes per batch element
    int64_t sticks = 0;
    for (int64_t c = (n + 63) / 64; c >= 1; --c)
      if (per_batch_of(std::min(n, c * 64)) <= fit) {
        sticks = c;
        break;
      }
    if (sticks >= 1) {
      col_block = std::min(n, sticks * 64);
      bt = b;
      per_batch = per_batch_of(col_block);
    }
  }
  const int64_t col_blocks = (n + col_block - 1) / col_block;
  const int64_t passes = (m + g - 1) / g;
  const int64_t blocks = (b + bt - 1) / bt;
  // With a large share of LX the backend keeps the tile's B across its row
  // passes; with a small one it streams B again for every pass. B taken by
  // column blocks does not fit the staging space whole: streamed per pass.
  const bool keep_b = col_blocks == 1 && static_cast<double>(staging) >=
                                             arch.pt.bmm_keep_b_lx_fraction * static_cast<double>(arch.lx.size_bytes);
  check_tile_count(s, core, outer_batches * blocks * outer_rows * passes * col_blocks);
  // The element of each outer dim that a flat index of their loop nest names.
  auto outer = [&](const std::vector<std::string>& dims, int64_t index) {
    std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> narrow;
    for (size_t i = dims.size() - 1; i-- > 0;) {
      const int64_t extent = s.per_core.at(dims[i]);
      narrow.push_back({dims[i], {index % extent, 1}});
      index /= extent;
    }
    return narrow;
  };
  const double macs_per_cycle = matmul_macs_per_cycle(arch, true, false, m, n);
  int64_t split_k = 1;
  for (const auto& d : md.contraction) split_k *= slices_of(s, d);
  const double out_stick_cycles = output_stick_cycles(arch, n, kk, split_k);  // the core's whole block
  const bool leader = cw.reduce_group < 0 || w.reduce_groups[cw.reduce_group].cores.front() == core;
  for (int64_t ob = 0; ob < outer_batches; ++ob) {
    const auto batch_at = outer(md.batch, ob);
    for (int64_t bi = 0; bi < b; bi += bt) {
      const int64_t bc = std::min(bt, b - bi);
      auto batch_tile = batch_at;
      batch_tile.push_back({xd, {bi, bc}});
      for (int64_t pr = 0; pr < outer_rows * passes; ++pr) {
        const int64_t p = pr % passes;
        const int64_t rows = std::min(g, m - p * g);
        auto row_tile = batch_tile;
        for (auto& part : outer(md.rows, pr / passes)) row_tile.push_back(part);
        row_tile.push_back({rd, {p * g, rows}});
        for (int64_t cb = 0; cb < col_blocks; ++cb) {
          const int64_t cols = std::min(col_block, n - cb * col_block);
          auto b_tile = batch_tile;
          auto c_tile = row_tile;
          if (col_blocks > 1) {
            b_tile.push_back({*cd, {cb * col_block, cols}});
            c_tile.push_back({*cd, {cb * col_block, cols}});
          }
          Tile t;
          const ByteRuns a_runs = cb > 0 ? ByteRuns{} : sub_box_runs(A, core, row_tile);
          if (!a_runs.empty()) t.loads.push_back(runs_transfer(a_runs));
          const ByteRuns b_runs = (keep_b && pr > 0) ? ByteRuns{} : sub_box_runs(B, core, b_tile);
          if (!b_runs.empty()) t.loads.push_back(runs_transfer(b_runs));
          const double macs = static_cast<double>(bc) * rows * cols * kk;
          t.pt_cycles = macs / macs_per_cycle;
          const double sticks = static_cast<double>(bc * rows * ((cols + 63) / 64));
          t.sfu_cycles = sticks * out_stick_cycles;  // per corelet: both drain in parallel
          t.lx_bytes = (bc * rows * kk + bc * kk * cols + bc * rows * cols) * elem;
          const ByteRuns c_runs = sub_box_runs(C, core, c_tile);
          if (!c_runs.empty()) {
            if (cw.reduce_group < 0) {
              t.stores.push_back(runs_transfer(c_runs));
            } else if (leader) {
              cw.final_stores.push_back(runs_transfer(c_runs));
            }
          }
          cw.tiles.push_back(std::move(t));
        }
      }
    }
  }
  cw.staging_bytes = std::min(staging, bt * per_batch);
}

void plan_matmul(const Kernel& k, const ComputeOp& op, const ArchConfig& arch, KernelWork& w, CoreWork& cw) {
  const Sdsc& s = *k.sdsc;
  const int core = cw.core;
  const int la = op.inputs[0], lb = op.inputs[1], lc = op.outputs[0];
  const MatmulDims md = matmul_dims(s, la, lb, lc);
  const int64_t x = md.x, m = md.m, n = md.n, kk = md.k;
  const double macs = static_cast<double>(x) * m * n * kk;
  w.compute_macs += macs;
  if (!md.batch.empty() && !md.rows.empty()) {
    plan_batched_matmul(k, op, md, arch, w, cw);
    return;
  }
  const TensorBinding &A = k.tensors[la], &B = k.tensors[lb], &C = k.tensors[lc];
  auto hbm_bytes = [&](const TensorBinding& t) { return t.component == MemComponent::Hbm ? box_bytes(t, core) : 0; };
  const int64_t a_all = hbm_bytes(A), b_all = hbm_bytes(B), c_all = hbm_bytes(C);
  // B without a batch dim is shared by every batch (3D x 2D matmul).
  const bool b_batched = x > 1;
  const int64_t a_bytes = a_all / x, b_bytes = b_batched ? b_all / x : b_all, c_bytes = c_all / x;
  const int64_t n_units = std::max<int64_t>(1, (n + 63) / 64), k_units = std::max<int64_t>(1, (kk + 63) / 64);
  const MatmulBlocking blk =
      choose_matmul_blocking(a_bytes, b_bytes, c_bytes, m, n_units, k_units, arch.staging_bytes());

  bool split_k = false;
  for (const auto& d : md.contraction) split_k |= slices_of(s, d) > 1;
  const double macs_per_cycle = matmul_macs_per_cycle(arch, !md.batch.empty(), split_k, m, n);
  const int64_t tiles_per_batch = blk.bm * blk.bn * blk.bk;
  const double tile_cycles = macs / macs_per_cycle / static_cast<double>(x * tiles_per_batch);
  const int64_t a_blk = a_bytes / (blk.bm * blk.bk), b_blk = b_bytes / (blk.bk * blk.bn),
                c_blk = c_bytes / (blk.bm * blk.bn);
  // Each operand's bytes in HBM as the core's box covers them: a block is a
  // stretch of that sequence, so blocks of cores whose parts interleave
  // (a weight split by columns) fetch their own bytes, not their neighbours'.
  const ByteRuns a_runs = hbm_runs(A, core), b_runs = hbm_runs(B, core), c_runs = hbm_runs(C, core);
  const bool leader = cw.reduce_group < 0 || w.reduce_groups[cw.reduce_group].cores.front() == core;
  check_tile_count(s, core, x * tiles_per_batch);
  for (int64_t xi = 0; xi < x; ++xi) {
    for (int64_t mi = 0; mi < blk.bm; ++mi) {
      for (int64_t ni = 0; ni < blk.bn; ++ni) {
        for (int64_t ki = 0; ki < blk.bk; ++ki) {
          Tile t;
          const bool load_a = a_blk > 0 && (!blk.a_resident || ni == 0);
          if (load_a) t.loads.push_back(stretch(a_runs, xi * a_bytes + (mi * blk.bk + ki) * a_blk, a_blk));
          if (b_blk > 0)
            t.loads.push_back(stretch(b_runs, (b_batched ? xi * b_bytes : 0) + (ki * blk.bn + ni) * b_blk, b_blk));
          t.pt_cycles = tile_cycles;
          t.lx_bytes = (a_bytes / (blk.bm * blk.bk)) + (b_bytes / (blk.bk * blk.bn)) + c_bytes / (blk.bm * blk.bn);
          if (ki == blk.bk - 1 && c_blk > 0) {
            const Transfer out = stretch(c_runs, xi * c_bytes + (mi * blk.bn + ni) * c_blk, c_blk);
            if (cw.reduce_group < 0) {
              t.stores.push_back(out);
            } else if (leader) {
              cw.final_stores.push_back(out);
            }
          }
          cw.tiles.push_back(t);
        }
      }
    }
  }
  const int64_t acc = 2 * c_bytes / (blk.bm * blk.bn);
  cw.staging_bytes = std::min(arch.staging_bytes(), (blk.a_resident ? a_bytes / blk.bm : 2 * a_blk) + 2 * b_blk + acc);
}

// SHUFFLE: each destination core receives, over the data ring, the parts of
// its destination state that other cores' source states hold.
void plan_shuffle(const Kernel& k, const ComputeOp& op, KernelWork& w, CoreWork& cw) {
  const TensorBinding& src = k.tensors[op.inputs[0]];
  const TensorBinding& dst = k.tensors[op.outputs[0]];
  const Box& dbox = dst.core_box.at(cw.core);
  Tile local;
  for (const auto& [score, sbox] : src.core_box) {
    DimMap origin, extent;
    bool empty = false;
    for (const auto& [d, e] : dbox.extent) {
      const int64_t lo = std::max(dbox.origin.at(d), sbox.origin.count(d) ? sbox.origin.at(d) : 0);
      const int64_t hi = std::min(dbox.origin.at(d) + e, (sbox.origin.count(d) ? sbox.origin.at(d) : 0) +
                                                             (sbox.extent.count(d) ? sbox.extent.at(d) : 1));
      if (hi <= lo) empty = true;
      origin[d] = lo;
      extent[d] = hi - lo;
    }
    if (empty) continue;
    const int64_t bytes = dst.layout.box_bytes(origin, extent);
    if (score == cw.core) {
      local.lx_bytes += 2 * bytes;  // read and write in the same LX
    } else {
      w.shuffle.push_back({score, cw.core, bytes});
    }
  }
  cw.tiles.push_back(local);
}

// The backend's relayout of LX inputs held elsewhere (TensorBinding::held):
// each core receives, over the data ring, the sticks of its part other cores
// hold; the sticks it holds itself are copied within its LX (a leading tile).
// Parts are compared as byte runs of the whole tensor, the frame in which
// holder and SDSC name dims alike.
void plan_relayout(const Kernel& k, KernelWork& w) {
  for (size_t t = 0; t < k.tensors.size(); ++t) {
    const TensorBinding& b = k.tensors[t];
    if (!b.relayout || !b.read) continue;
    const TensorLayout frame = whole_tensor_layout(*k.sdsc, static_cast<int>(t));
    std::map<int, ByteRuns> held;
    for (const auto& [holder, box] : b.held.box) held[holder] = b.held.whole.box_runs(box.origin, box.extent);
    for (auto& cw : w.cores) {
      const Box& used = b.core_box.at(cw.core);
      ByteRuns need = frame.box_runs(used.origin, used.extent);
      // A stick two holders hold comes once, from the core itself when it is one of them.
      int64_t local = 0;
      if (held.count(cw.core)) {
        local = overlap_bytes(need, held.at(cw.core));
        need = subtract_runs(need, held.at(cw.core));
      }
      for (const auto& [holder, runs] : held) {
        if (holder == cw.core) continue;
        const int64_t bytes = overlap_bytes(need, runs);
        if (bytes == 0) continue;
        w.relayout.push_back({holder, cw.core, bytes});
        need = subtract_runs(need, runs);
      }
      if (local > 0) {
        Tile copy;
        copy.lx_bytes = 2 * local;  // read and write in the same LX
        cw.tiles.insert(cw.tiles.begin(), copy);
      }
    }
  }
}

}  // namespace

double sfu_cycles_per_vector(const ArchConfig& arch, SfuCost cost) {
  switch (cost) {
    case SfuCost::Simple:
      return arch.sfu.cycles_simple;
    case SfuCost::Divide:
      return arch.sfu.cycles_divide;
    case SfuCost::Transcendental:
      return arch.sfu.cycles_transcendental;
    case SfuCost::Reduce:
      return arch.sfu.cycles_reduce;
    case SfuCost::ReduceStick:
      return arch.sfu.cycles_reduce_stick;
  }
  return 1;
}

// The factors are fitted to the measured Granite splits (docs/model.md): the
// bands they form are measured, their cause is not known.
double matmul_macs_per_cycle(const ArchConfig& arch, bool batched, bool split_k, int64_t m, int64_t n) {
  double rate = arch.pt.efficiency;
  if (!batched) {
    if (split_k) rate *= arch.pt.split_k_rate;
    // The band's edges, measured at one staging space, grow with the backend's.
    const double scale =
        (split_k ? 2.0 : 1.0) * std::max(1.0, static_cast<double>(arch.staging_bytes()) /
                                                  static_cast<double>(arch.pt.large_block_staging_bytes));
    if (static_cast<double>(m) >= scale * static_cast<double>(arch.pt.large_block_rows) &&
        static_cast<double>(n) >= scale * static_cast<double>(arch.pt.large_block_cols))
      rate *= arch.pt.large_block_rate;
  }
  return static_cast<double>(arch.pt.pe_rows) * arch.pt.pe_cols * arch.pt.simd_lanes * arch.corelets_per_core * rate;
}

double output_stick_cycles(const ArchConfig& arch, int64_t n_per_core, int64_t k_per_core, int64_t split_k) {
  constexpr int64_t kStickColumns = 64;  // fp16 elements per stick, as plan_batched_matmul counts sticks
  const double one_stick = n_per_core <= kStickColumns ? arch.pt.one_stick_output_factor : 1.0;
  return arch.pt.output_stick_ns / arch.cycle_ns() * static_cast<double>(arch.lx.size_bytes) /
         static_cast<double>(arch.staging_bytes()) *
         std::min(1.0, static_cast<double>(k_per_core) / static_cast<double>(arch.pt.output_stick_k)) * one_stick /
         std::pow(static_cast<double>(split_k), arch.pt.split_k_output_exponent);
}

MatmulBlocking choose_matmul_blocking(int64_t a_bytes, int64_t b_bytes, int64_t c_bytes, int64_t m_units,
                                      int64_t n_units, int64_t k_units, int64_t staging_bytes) {
  MatmulBlocking best;
  bool found = false;
  MatmulBlocking finest;
  finest.traffic = INT64_MAX;
  for (int64_t bm : divisors(std::max<int64_t>(1, m_units))) {
    for (int64_t bn : divisors(std::max<int64_t>(1, n_units))) {
      for (int64_t bk : divisors(std::max<int64_t>(1, k_units))) {
        const int64_t a_blk = a_bytes / (bm * bk), b_blk = b_bytes / (bk * bn);
        const int64_t acc = 2 * c_bytes / (bm * bn);  // fp32 accumulator
        const int64_t panel = a_bytes / bm;
        const bool a_resident = bn > 1 && panel + 2 * b_blk + acc <= staging_bytes;
        const int64_t working = (a_resident ? panel : 2 * a_blk) + 2 * b_blk + acc;
        const int64_t traffic =
            (a_resident || bn == 1 ? a_bytes : a_bytes * bn) + (bm == 1 ? b_bytes : b_bytes * bm) + c_bytes;
        MatmulBlocking cand{bm, bn, bk, a_resident, traffic};
        if (working > staging_bytes) {
          if (bm * bn * bk > finest.bm * finest.bn * finest.bk || finest.traffic == INT64_MAX) finest = cand;
          continue;
        }
        const int64_t tiles = bm * bn * bk, best_tiles = best.bm * best.bn * best.bk;
        if (!found || traffic < best.traffic || (traffic == best.traffic && tiles < best_tiles)) {
          best = cand;
          found = true;
        }
      }
    }
  }
  return found ? best : finest;
}

KernelWork plan_kernel(const Program& program, int kernel_index, const ArchConfig& arch) {
  const Kernel& k = program.kernels.at(static_cast<size_t>(kernel_index));
  const Sdsc& s = *k.sdsc;
  KernelWork w;
  w.kernel = kernel_index;
  for (int core : s.core_ids) {
    CoreWork cw;
    cw.core = core;
    w.cores.push_back(cw);
  }
  build_reduce_groups(k, w);
  const ComputeOp* matmul = nullptr;
  const ComputeOp* shuffle = nullptr;
  for (const auto& op : s.ops) {
    if (op.info->kind == OpKind::Matmul) matmul = &op;
    if (op.info->kind == OpKind::Shuffle) shuffle = &op;
  }
  if ((matmul || shuffle) && s.ops.size() > 1)
    fail(s.file, s.ops[1].path, "unsupported: batchmatmul or shuffle fused with other ops in one SDSC");
  for (auto& cw : w.cores) {
    if (matmul) {
      plan_matmul(k, *matmul, arch, w, cw);
    } else if (shuffle) {
      plan_shuffle(k, *shuffle, w, cw);
    } else {
      plan_streaming(k, arch, w, cw);
    }
  }
  plan_relayout(k, w);
  for (auto& cw : w.cores) {
    for (const auto& t : cw.tiles) {
      for (const auto& l : t.loads) cw.hbm_read_bytes += l.bytes;
      for (const auto& st : t.stores) cw.hbm_write_bytes += st.bytes;
    }
    for (const auto& st : cw.final_stores) cw.hbm_write_bytes += st.bytes;
    w.hbm_read_bytes += cw.hbm_read_bytes;
    w.hbm_write_bytes += cw.hbm_write_bytes;
  }
  return w;
}

}  // namespace spyre::sim
