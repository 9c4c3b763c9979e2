// The fast timing simulator (see timing.h for the model; timing_costs.cpp for its formulas). It computes the same
// events in the same order with the same arithmetic as simulate_timing_spmd_reference (timing_reference.cpp).
// Not here: functional results.
#include "neuron/timing.h"

#include <algorithm>
#include <limits>
#include <span>
#include <utility>

#include "base/error.h"
#include "neuron/timing_detail.h"

namespace nanotrn::neuron {

using detail::kComputeTracks;
using detail::Region;

double dma_bytes(const Instruction& ins, const Program& p) {
  auto bytes = [&](const View& v) {
    return static_cast<double>(v.np * v.nf) *
           static_cast<double>(dtype_size(p.buffers[static_cast<size_t>(v.buffer)].dtype));
  };
  return std::max(bytes(ins.dst), bytes(ins.srcs[0]));
}

int track_of(const Instruction& ins) {
  switch (ins.engine) {
    case Engine::tensor:
      return 0;
    case Engine::vector:
      return 1;
    case Engine::scalar:
      return 2;
    case Engine::gpsimd:
      return 3;
    case Engine::dma:
      return kComputeTracks + ins.dma_queue;
  }
  return 0;
}

namespace {

// Earlier accesses of one buffer for the dependency search, indexed by buckets of 2^shift rows (HBM tensors) or
// free-axis columns (tiles). The bucket size is set by the buffer's first access (its extent along that axis,
// rounded up to a power of two, at least 64), so a kernel's usual accesses fall in one or two buckets. An access
// lives in every bucket it touches; a search scans the buckets its own region touches, so it meets every
// overlapping access (duplicates go with the rest through sort + unique), and a write that contains an access
// meets, and drops, every copy of it.
struct Access {
  Region region;
  size_t instruction;  // global
};
struct Bucket {
  std::vector<Access> reads, writes;
};
struct BufferIndex {
  bool rows = false;  // bucket by rows (HBM) or by columns (tiles)
  int shift = -1;     // -1: no access yet
  int64_t extent = 0;
  std::vector<Bucket> buckets;
  // Buckets [b0, b1] of region r; sizes the index on the first call.
  std::pair<size_t, size_t> range(const Region& r) {
    const int64_t lo = rows ? r.p0 : r.f0, hi = rows ? r.p1 : r.f1;
    if (shift < 0) {
      shift = 6;
      while ((int64_t{1} << shift) < hi - lo) ++shift;
      buckets.resize(static_cast<size_t>(((extent - 1) >> shift) + 1));
    }
    return {static_cast<size_t>(lo >> shift), static_cast<size_t>((hi - 1) >> shift)};
  }
};

BufferIndex make_index(const Buffer& b) {
  BufferIndex ix;
  ix.rows = b.memory == Memory::hbm;
  ix.extent = ix.rows ? b.rows : b.cols;
  return ix;
}

// Scans `list` for accesses overlapping w, appending their instructions to `deps`; when `drop`, removes the ones w
// contains (keeping order).
inline void scan(std::vector<Access>& list, const Region& w, std::vector<size_t>& deps, bool drop) {
  size_t keep = 0;
  const size_t n = list.size();
  Access* a = list.data();
  for (size_t x = 0; x < n; ++x) {
    const Region& ar = a[x].region;
    if (ar.p0 < w.p1 && w.p0 < ar.p1 && ar.f0 < w.f1 && w.f0 < ar.f1) {
      deps.push_back(a[x].instruction);
      if (drop && w.p0 <= ar.p0 && ar.p1 <= w.p1 && w.f0 <= ar.f0 && ar.f1 <= w.f1) continue;  // covered: drop
    }
    if (keep != x) a[keep] = a[x];
    ++keep;
  }
  list.resize(keep);
}

}  // namespace

std::vector<TimingResult> simulate_timing_spmd(const std::vector<const Program*>& programs, const NeuronCoreSpec& spec,
                                               const TimingOptions& o) {
  const size_t cores = programs.size();
  check(cores >= 1 && cores <= 8 && static_cast<double>(cores) <= spec.max_physical_cores.value,
        "SPMD launch of " + std::to_string(cores) + " physical cores; NeuronCore-" + spec.name + " allows 1 to " +
            std::to_string(static_cast<int>(spec.max_physical_cores.value)) + " [LNC]");
  const int queues = static_cast<int>(spec.dma_queues.value);
  const size_t per_core = static_cast<size_t>(kComputeTracks + queues);
  const size_t ntracks = cores * per_core;
  std::vector<size_t> base(cores + 1, 0);
  for (size_t c = 0; c < cores; ++c) base[c + 1] = base[c] + programs[c]->instructions.size();
  const size_t n = base[cores];
  std::vector<TimingResult> out(cores);
  // Per-instruction state of the simulation, one record per instruction (global index) for locality.
  struct Hot {
    double cost = 0, ls = 0, sync = 0;      // see below
    double transfer_begin = 0, target = 0;  // DMA: end of the fixed latency; service level at which it finishes
    InstructionTiming* tim = nullptr;       // its timing record
    uint32_t track = 0, wait_first = 0, cursor = 0;
    unsigned char finished = 0, activated = 0;
  };
  std::vector<Hot> h(n);

  // Per-instruction facts the event loop needs, computed once (global indices): compute duration in ns (TensorE:
  // the MultiplyMoving formula) or DMA cost bytes, LoadStationary ns (TensorE, 0 when the stationary is reused),
  // sync overhead in ns when waiting on another track (0 for DMA), the global track.
  // Per-track program-order queues, flat: instructions of track k are order[track_begin[k] .. track_begin[k+1]).
  std::vector<size_t> track_begin(ntracks + 1, 0), order(n);
  // Dependencies, global indices, flat: deps of g are flat[dep_begin[g] .. dep_begin[g+1]) (as the reference).
  Region reads[12], writes[2];  // an instruction reads at most 11 views (MX matmul with accumulate)
  std::vector<size_t> flat, dep_begin(n + 1, 0);
  flat.reserve(4 * n);
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  // Gates: per instruction, its latest dependency on each track. A track finishes its instructions in program
  // order, so the dependencies are all done exactly when the gates are.
  std::vector<size_t> gates, gate_begin(n + 1, 0), last_on_track(ntracks, kNone), touched;
  gates.reserve(3 * n);
  for (size_t c = 0; c < cores; ++c) {
    const Program& program = *programs[c];
    TimingResult& r = out[c];
    r.instructions.resize(program.instructions.size());
    r.tracks.resize(per_core);
    const char* names[kComputeTracks] = {"Tensor", "Vector", "Scalar", "GpSimd"};
    for (int k = 0; k < kComputeTracks; ++k) r.tracks[static_cast<size_t>(k)].name = names[k];
    for (int q = 0; q < queues; ++q)
      r.tracks[static_cast<size_t>(kComputeTracks + q)].name = "DMA q" + std::to_string(q);
    std::vector<BufferIndex> index;
    index.reserve(program.buffers.size());
    for (const Buffer& b : program.buffers) index.push_back(make_index(b));
    const Instruction* prev_tensor = nullptr;
    for (size_t i = 0; i < program.instructions.size(); ++i) {
      const size_t g = base[c] + i;
      const Instruction& ins = program.instructions[i];
      h[g].tim = &r.instructions[i];
      size_t nr = 0, nw = 1;
      for (const View& v : ins.srcs) reads[nr++] = detail::region(v, program);
      writes[0] = detail::region(ins.dst, program);
      if (ins.op == Opcode::matmul && ins.accumulate) reads[nr++] = writes[0];
      if (ins.has_reduce_dst) writes[nw++] = detail::region(ins.reduce_dst, program);
      const int tk = track_of(ins);
      if (tk >= static_cast<int>(per_core)) check(false, "DMA queue out of range for this spec", ins.where);
      const size_t gk = c * per_core + static_cast<size_t>(tk);
      h[g].track = static_cast<uint32_t>(gk);
      ++track_begin[gk + 1];
      if (ins.engine == Engine::dma) {
        h[g].cost = detail::dma_cost_bytes(ins, program, spec, o);
        h[g].sync = 0.0;
      } else {
        const double clock = detail::engine_clock_ghz(ins.engine, spec);
        h[g].cost = detail::compute_cycles(ins, program, spec) / clock;
        h[g].sync = spec.sync_overhead_cycles.value / clock;
        if (ins.engine == Engine::tensor) {
          const bool reuse = prev_tensor != nullptr && detail::same_stationary(*prev_tensor, ins);
          if (o.load_stationary && !reuse) h[g].ls = detail::load_stationary_cycles(ins, program, spec) / clock;
          prev_tensor = &ins;
        }
      }
      const size_t first = flat.size();
      for (const Region& rd : std::span<const Region>(reads, nr)) {  // RAW
        BufferIndex& ix = index[static_cast<size_t>(rd.buffer)];
        const auto [b0, b1] = ix.range(rd);
        for (size_t bk = b0; bk <= b1; ++bk) scan(ix.buckets[bk].writes, rd, flat, false);
      }
      for (const Region& w : std::span<const Region>(writes, nw)) {  // WAR and WAW; then drop what w contains
        BufferIndex& ix = index[static_cast<size_t>(w.buffer)];
        const auto [b0, b1] = ix.range(w);
        for (size_t bk = b0; bk <= b1; ++bk) {
          scan(ix.buckets[bk].reads, w, flat, true);
          scan(ix.buckets[bk].writes, w, flat, true);
        }
      }
      const auto seg = flat.begin() + static_cast<std::ptrdiff_t>(first);
      if (flat.size() - first > 1) {
        std::sort(seg, flat.end());
        flat.erase(std::unique(seg, flat.end()), flat.end());
      }
      dep_begin[g + 1] = flat.size();
      for (size_t x = first; x < flat.size(); ++x) {
        const size_t dk = h[flat[x]].track;
        if (last_on_track[dk] == kNone) touched.push_back(dk);
        last_on_track[dk] = flat[x];
      }
      for (size_t dk : touched) {
        gates.push_back(last_on_track[dk]);
        last_on_track[dk] = kNone;
      }
      touched.clear();
      gate_begin[g + 1] = gates.size();
      InstructionTiming& ti = r.instructions[i];
      ti.track = tk;
      ti.dep_begin = static_cast<uint32_t>(first - dep_begin[base[c]]);
      ti.dep_count = static_cast<uint32_t>(flat.size() - first);
      for (const Region& rd : std::span<const Region>(reads, nr)) {
        BufferIndex& ix = index[static_cast<size_t>(rd.buffer)];
        const auto [b0, b1] = ix.range(rd);
        for (size_t bk = b0; bk <= b1; ++bk) ix.buckets[bk].reads.push_back({rd, g});
      }
      for (const Region& w : std::span<const Region>(writes, nw)) {
        BufferIndex& ix = index[static_cast<size_t>(w.buffer)];
        const auto [b0, b1] = ix.range(w);
        for (size_t bk = b0; bk <= b1; ++bk) ix.buckets[bk].writes.push_back({w, g});
      }
    }
  }
  // Each core's dependency list, local indices.
  for (size_t c = 0; c < cores; ++c) {
    auto b = flat.begin() + static_cast<std::ptrdiff_t>(dep_begin[base[c]]);
    auto e = flat.begin() + static_cast<std::ptrdiff_t>(dep_begin[base[c + 1]]);
    out[c].dep_list.assign(b, e);
    if (base[c] != 0)
      for (size_t& d : out[c].dep_list) d -= base[c];
  }
  for (size_t k = 0; k < ntracks; ++k) track_begin[k + 1] += track_begin[k];
  {
    std::vector<size_t> fill(track_begin.begin(), track_begin.end() - 1);
    for (size_t g = 0; g < n; ++g) order[fill[h[g].track]++] = g;
  }

  // Event loop: the same events with the same arithmetic as the reference (DMA in virtual time: see there). Only
  // running tracks are visited; a start is tried only on a track whose running instruction just finished or whose
  // head was waiting for an instruction that just finished (the order of starts within one event changes no number).
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<unsigned char> kind(ntracks, 0), queued(ntracks, 0);  // kind: 0 DMA, 1 Vector/Scalar/GpSimd, 2 Tensor
  std::vector<uint32_t> core_of_track(ntracks), local_track(ntracks);
  for (size_t k = 0; k < ntracks; ++k) {
    local_track[k] = static_cast<uint32_t>(k % per_core);
    kind[k] = local_track[k] == 0 ? 2 : local_track[k] < static_cast<uint32_t>(kComputeTracks) ? 1 : 0;
    core_of_track[k] = static_cast<uint32_t>(k / per_core);
  }
  std::vector<size_t> head(track_begin.begin(), track_begin.end() - 1);
  std::vector<double> track_free(ntracks, 0);
  std::vector<long> running(ntracks, -1);
  constexpr uint32_t kNoTrack = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> wait_next(ntracks, kNoTrack);  // tracks waiting on g: h[g].wait_first, then wait_next
  for (Hot& x : h) x.wait_first = kNoTrack;
  std::vector<size_t> run_list, to_try;
  run_list.reserve(ntracks);
  to_try.reserve(ntracks);
  for (size_t k = 0; k < ntracks; ++k) {
    to_try.push_back(k);
    queued[k] = 1;
  }
  std::vector<detail::TensorState> tensor(cores);
  std::vector<int> active(cores, 0), rated(cores, -1);
  std::vector<double> rate(cores, 0.0), service(cores, 0.0), min_target(cores, kInf);
  const double core_cap = spec.dma_engines.value * spec.dma_engine_bytes_per_ns.value;
  const double hbm = static_cast<double>(cores) * spec.hbm_share_bytes_per_ns.value;
  const double dma_latency = spec.dma_fixed_latency_ns.value;
  double t = 0;
  size_t done = 0;
  while (done < n) {
    for (size_t k : to_try) {
      queued[k] = 0;
      if (running[k] >= 0 || head[k] == track_begin[k + 1]) continue;
      const size_t g = order[head[k]];
      const size_t* gt = gates.data() + gate_begin[g];
      const size_t ng = gate_begin[g + 1] - gate_begin[g];
      uint32_t& cursor = h[g].cursor;
      while (cursor < ng && h[gt[cursor]].finished) ++cursor;
      if (cursor < ng) {  // wait for that gate
        wait_next[k] = h[gt[cursor]].wait_first;
        h[gt[cursor]].wait_first = static_cast<uint32_t>(k);
        continue;
      }
      const size_t* d = flat.data() + dep_begin[g];
      const size_t nd = dep_begin[g + 1] - dep_begin[g];
      InstructionTiming& ti = *h[g].tim;
      const double free_at = track_free[k];
      double start = free_at;
      long blocked_by = -1;
      const double sync_ns = h[g].sync;
      for (size_t x = 0; x < nd; ++x) {
        const size_t j = d[x];
        const double earliest = h[j].tim->end_ns + (h[j].track != k ? sync_ns : 0.0);
        if (earliest > start) {
          start = earliest;
          blocked_by = static_cast<long>(j);
        }
      }
      ++head[k];
      running[k] = static_cast<long>(g);
      run_list.push_back(k);
      ti.start_ns = std::max(start, t);
      ti.blocked_by = blocked_by < 0 ? -1 : blocked_by - static_cast<long>(base[core_of_track[k]]);
      ti.stall_ns = ti.start_ns - free_at;
      if (kind[k] == 0) {
        h[g].transfer_begin = ti.start_ns + dma_latency;
        ti.end_ns = kInf;
      } else if (kind[k] == 2) {
        const detail::TensorStart ts =
            detail::tensor_start(h[g].cost, h[g].ls, ti.start_ns, free_at, tensor[core_of_track[k]], spec, o);
        ti.end_ns = ti.start_ns + ts.duration;
        ti.ls_ns = ts.ls_exposed;
        ti.throttle = ts.level;
      } else {
        ti.end_ns = ti.start_ns + h[g].cost;
      }
    }
    to_try.clear();
    // Next event.
    double next = kInf;
    bool any_active = false;
    for (size_t k : run_list) {
      const auto g = static_cast<size_t>(running[k]);
      if (kind[k] != 0) {
        next = std::min(next, h[g].tim->end_ns);
        continue;
      }
      const uint32_t c = core_of_track[k];
      if (!h[g].activated && h[g].transfer_begin <= t) {
        h[g].activated = 1;
        h[g].target = service[c] + h[g].cost;
      }
      if (h[g].activated) {
        if (!any_active) {
          any_active = true;
          std::fill(active.begin(), active.end(), 0);
          std::fill(min_target.begin(), min_target.end(), kInf);
        }
        ++active[c];
        min_target[c] = std::min(min_target[c], h[g].target);
      } else {
        next = std::min(next, h[g].transfer_begin);
      }
    }
    if (any_active) {
      bool changed = false;
      for (size_t c = 0; c < cores; ++c) changed |= active[c] != rated[c];
      if (changed) {  // rates depend only on the counts
        detail::dma_rates(active, core_cap, hbm, rate);
        for (size_t c = 0; c < cores; ++c) rated[c] = active[c];
      }
      for (size_t c = 0; c < cores; ++c)
        if (active[c] > 0) next = std::min(next, t + (min_target[c] - service[c]) / rate[c]);
    }
    if (!(next < kInf)) check(false, "timing model deadlock (an instruction waits on a later one)");
    // Advance.
    if (any_active)
      for (size_t c = 0; c < cores; ++c)
        if (active[c] > 0) service[c] += (next - t) * rate[c];
    t = next;
    size_t keep = 0;
    for (size_t x = 0; x < run_list.size(); ++x) {
      const size_t k = run_list[x];
      const auto g = static_cast<size_t>(running[k]);
      InstructionTiming& ti = *h[g].tim;
      if (kind[k] == 0 && h[g].activated && h[g].target - service[core_of_track[k]] <= 1e-9 * std::max(1.0, h[g].cost))
        ti.end_ns = t;
      if (ti.end_ns <= t) {
        h[g].finished = 1;
        ++done;
        running[k] = -1;
        track_free[k] = ti.end_ns;
        TimingResult& r = out[core_of_track[k]];
        Track& tr = r.tracks[local_track[k]];
        tr.busy_ns += ti.end_ns - ti.start_ns;
        ++tr.instructions;
        r.total_ns = std::max(r.total_ns, ti.end_ns);
        if (!queued[k]) {
          queued[k] = 1;
          to_try.push_back(k);
        }
        for (uint32_t w = h[g].wait_first; w != kNoTrack; w = wait_next[w])
          if (!queued[w]) {
            queued[w] = 1;
            to_try.push_back(w);
          }
        h[g].wait_first = kNoTrack;
      } else {
        run_list[keep++] = k;
      }
    }
    run_list.resize(keep);
  }
  return out;
}

TimingResult simulate_timing(const Program& program, const NeuronCoreSpec& spec, const TimingOptions& options) {
  return std::move(simulate_timing_spmd({&program}, spec, options)[0]);
}

}  // namespace nanotrn::neuron
