// The event-driven timing model (see timing.h for the model and its formulas). Not here: functional results.
#include "neuron/timing.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int kComputeTracks = 4;

struct Region {
  int buffer;
  int64_t p0, p1, f0, f1;
};

Region region(const View& v) { return {v.buffer, v.p0, v.p0 + v.np, v.f0, v.f0 + v.nf}; }

bool overlap(const Region& a, const Region& b) {
  return a.buffer == b.buffer && a.p0 < b.p1 && b.p0 < a.p1 && a.f0 < b.f1 && b.f0 < a.f1;
}

void reads_of(const Instruction& ins, std::vector<Region>& r) {
  r.clear();
  for (const View& v : ins.srcs) r.push_back(region(v));
  if (ins.op == Opcode::matmul && ins.accumulate) r.push_back(region(ins.dst));
}

double engine_clock_ghz(Engine e, const NeuronCoreSpec& s) {
  switch (e) {
    case Engine::tensor:
      return s.tensor_clock_ghz.value;
    case Engine::vector:
      return s.vector_clock_ghz.value;
    case Engine::scalar:
      return s.scalar_clock_ghz.value;
    case Engine::gpsimd:
      return s.gpsimd_clock_ghz.value;
    case Engine::dma:
      return 0;
  }
  return 0;
}

double compute_cycles(const Instruction& ins, const Program& p, const NeuronCoreSpec& s) {
  const double min_ii = s.min_ii_cycles.value;
  const double n = static_cast<double>(ins.dst.nf);
  auto dtype = [&](const View& v) { return p.buffers[static_cast<size_t>(v.buffer)].dtype; };
  auto memory = [&](const View& v) { return p.buffers[static_cast<size_t>(v.buffer)].memory; };
  switch (ins.op) {
    case Opcode::matmul: {
      const double m = static_cast<double>(ins.srcs[0].nf), n_mov = static_cast<double>(ins.srcs[1].nf);
      const double c = std::max(std::min(s.matmul_min_ii_cycles.value, m), n_mov);
      return dtype(ins.srcs[0]) == DType::f32 ? c * s.matmul_fp32_factor.value : c;
    }
    case Opcode::transpose:
      return std::max(static_cast<double>(ins.srcs[0].np), std::min(64.0, static_cast<double>(ins.srcs[0].nf)));
    case Opcode::activation:
    case Opcode::tensor_scalar:
    case Opcode::copy:
      return std::max(min_ii, n);
    case Opcode::tensor_tensor: {
      const View &a = ins.srcs[0], &b = ins.srcs[1];
      const bool one_psum = memory(a) == Memory::psum || memory(b) == Memory::psum;
      const bool fast_bf16 = dtype(a) == DType::bf16 && dtype(b) == DType::bf16 && dtype(ins.dst) == DType::bf16 &&
                             memory(a) == Memory::sbuf && memory(b) == Memory::sbuf &&
                             (ins.alu0 == AluOp::add || ins.alu0 == AluOp::subtract || ins.alu0 == AluOp::multiply);
      return one_psum || fast_bf16 ? std::max(min_ii, n) : std::max(min_ii, 2 * n);
    }
    case Opcode::reduce: {
      const double n_in = static_cast<double>(ins.srcs[0].nf);
      const bool half = dtype(ins.srcs[0]) == DType::bf16 && dtype(ins.dst) == DType::bf16 &&
                        (ins.alu0 == AluOp::add || ins.alu0 == AluOp::max);
      return half ? n_in / 2 : n_in;
    }
    case Opcode::memset: {
      const DType t = dtype(ins.dst);
      const bool half = ins.value == 0.0f && (t == DType::bf16 || t == DType::f16);
      return half ? std::max(min_ii, n / 2) : std::max(min_ii, n);
    }
    case Opcode::iota:
    case Opcode::affine_select:
      return s.gpsimd_startup_cycles.value + n;
    case Opcode::dma_copy:
      return 0;
  }
  return 0;
}

}  // namespace

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

TimingResult simulate_timing_reference(const Program& program, const NeuronCoreSpec& spec) {
  const size_t n = program.instructions.size();
  const int queues = static_cast<int>(spec.dma_queues.value);
  TimingResult out;
  out.instructions.resize(n);
  out.tracks.resize(static_cast<size_t>(kComputeTracks + queues));
  const char* names[kComputeTracks] = {"Tensor", "Vector", "Scalar", "GpSimd"};
  for (int k = 0; k < kComputeTracks; ++k) out.tracks[static_cast<size_t>(k)].name = names[k];
  for (int q = 0; q < queues; ++q)
    out.tracks[static_cast<size_t>(kComputeTracks + q)].name = "DMA q" + std::to_string(q);

  // Dependencies and per-track program-order queues.
  std::vector<Region> reads, writes;  // of the instruction being added
  std::vector<std::deque<size_t>> pending(out.tracks.size());
  // Earlier accesses per buffer, reads and writes apart: a read scans only writes (RAW), a write scans both (WAR,
  // WAW). A write drops every earlier access its region contains: a later access overlapping one of those also
  // overlaps the write, depends on it, and so is ordered after the dropped one through it. This keeps the lists
  // short (deps then holds the nearest conflicts, not every earlier one).
  struct Access {
    size_t instruction;
    Region region;
  };
  struct BufferAccesses {
    std::vector<Access> reads, writes;
  };
  auto contains = [](const Region& outer, const Region& inner) {
    return outer.p0 <= inner.p0 && inner.p1 <= outer.p1 && outer.f0 <= inner.f0 && inner.f1 <= outer.f1;
  };
  std::vector<BufferAccesses> accesses(program.buffers.size());
  std::vector<size_t> deps;
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = program.instructions[i];
    reads_of(ins, reads);
    writes.assign(1, region(ins.dst));
    InstructionTiming& ti = out.instructions[i];
    ti.track = track_of(ins);
    check(ti.track < static_cast<int>(out.tracks.size()), "DMA queue out of range for this spec", ins.where);
    pending[static_cast<size_t>(ti.track)].push_back(i);
    deps.clear();
    for (const Region& r : reads)  // RAW
      for (const Access& a : accesses[static_cast<size_t>(r.buffer)].writes)
        if (overlap(a.region, r)) deps.push_back(a.instruction);
    for (const Region& w : writes) {  // WAR and WAW
      const BufferAccesses& ba = accesses[static_cast<size_t>(w.buffer)];
      for (const Access& a : ba.reads)
        if (overlap(a.region, w)) deps.push_back(a.instruction);
      for (const Access& a : ba.writes)
        if (overlap(a.region, w)) deps.push_back(a.instruction);
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    ti.deps = deps;
    for (const Region& w : writes) {
      BufferAccesses& ba = accesses[static_cast<size_t>(w.buffer)];
      auto covered = [&](const Access& a) { return contains(w, a.region); };
      ba.reads.erase(std::remove_if(ba.reads.begin(), ba.reads.end(), covered), ba.reads.end());
      ba.writes.erase(std::remove_if(ba.writes.begin(), ba.writes.end(), covered), ba.writes.end());
    }
    for (const Region& r : reads) accesses[static_cast<size_t>(r.buffer)].reads.push_back({i, r});
    for (const Region& w : writes) accesses[static_cast<size_t>(w.buffer)].writes.push_back({i, w});
  }

  // Event loop.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<int> state(n, 0);  // 0 waiting, 1 running, 2 done
  std::vector<double> transfer_begin(n, 0), remaining(n, 0), transfer_bytes(n, 0);
  std::vector<size_t> dep_cursor(n, 0);
  std::vector<double> track_free(out.tracks.size(), 0);
  std::vector<long> running(out.tracks.size(), -1);
  const double dma_bw = spec.dma_total_bytes_per_ns();
  double t = 0;
  size_t done = 0;
  while (done < n) {
    // Start every track head whose dependencies are done.
    for (size_t k = 0; k < out.tracks.size(); ++k) {
      if (running[k] >= 0 || pending[k].empty()) continue;
      const size_t i = pending[k].front();
      InstructionTiming& ti = out.instructions[i];
      const Instruction& ins = program.instructions[i];
      // Dependencies finish in no particular order but stay finished: skip the finished prefix once.
      size_t& cursor = dep_cursor[i];
      while (cursor < ti.deps.size() && state[ti.deps[cursor]] == 2) ++cursor;
      if (cursor < ti.deps.size()) continue;
      const double free_at = track_free[k];
      double start = free_at;
      long blocked_by = -1;
      const double sync_ns =
          ins.engine == Engine::dma ? 0.0 : spec.sync_overhead_cycles.value / engine_clock_ghz(ins.engine, spec);
      for (size_t j : ti.deps) {
        const bool cross = out.instructions[j].track != ti.track;
        const double earliest = out.instructions[j].end_ns + (cross ? sync_ns : 0.0);
        if (earliest > start) {
          start = earliest;
          blocked_by = static_cast<long>(j);
        }
      }
      pending[k].pop_front();
      running[k] = static_cast<long>(i);
      state[i] = 1;
      ti.start_ns = std::max(start, t);  // start >= t always holds; kept as a guard
      ti.blocked_by = blocked_by;
      ti.stall_ns = ti.start_ns - free_at;
      if (ins.engine == Engine::dma) {
        transfer_begin[i] = ti.start_ns + spec.dma_fixed_latency_ns.value;
        remaining[i] = transfer_bytes[i] = dma_bytes(ins, program);
        ti.end_ns = kInf;
      } else {
        ti.end_ns = ti.start_ns + compute_cycles(ins, program, spec) / engine_clock_ghz(ins.engine, spec);
      }
    }
    // Next event.
    int active = 0;
    for (size_t k = 0; k < out.tracks.size(); ++k) {
      const long i = running[k];
      if (i >= 0 && program.instructions[static_cast<size_t>(i)].engine == Engine::dma &&
          transfer_begin[static_cast<size_t>(i)] <= t)
        ++active;
    }
    const double rate = active > 0 ? dma_bw / active : 0;
    double next = kInf;
    for (size_t k = 0; k < out.tracks.size(); ++k) {
      const long li = running[k];
      if (li < 0) continue;
      const auto i = static_cast<size_t>(li);
      if (program.instructions[i].engine != Engine::dma)
        next = std::min(next, out.instructions[i].end_ns);
      else if (transfer_begin[i] > t)
        next = std::min(next, transfer_begin[i]);
      else
        next = std::min(next, t + remaining[i] / rate);
    }
    check(next < kInf, "timing model deadlock (an instruction waits on a later one)");
    // Advance.
    for (size_t k = 0; k < out.tracks.size(); ++k) {
      const long li = running[k];
      if (li < 0) continue;
      const auto i = static_cast<size_t>(li);
      if (program.instructions[i].engine == Engine::dma && transfer_begin[i] <= t) {
        remaining[i] -= (next - t) * rate;
        if (remaining[i] <= 1e-9 * std::max(1.0, transfer_bytes[i])) {
          out.instructions[i].end_ns = next;
        }
      }
    }
    t = next;
    for (size_t k = 0; k < out.tracks.size(); ++k) {
      const long li = running[k];
      if (li < 0) continue;
      const auto i = static_cast<size_t>(li);
      if (out.instructions[i].end_ns <= t) {
        state[i] = 2;
        ++done;
        running[k] = -1;
        track_free[k] = out.instructions[i].end_ns;
        Track& tr = out.tracks[k];
        tr.busy_ns += out.instructions[i].end_ns - out.instructions[i].start_ns;
        ++tr.instructions;
        out.total_ns = std::max(out.total_ns, out.instructions[i].end_ns);
      }
    }
  }
  return out;
}

TimingResult simulate_timing(const Program& program, const NeuronCoreSpec& spec) {
  const size_t n = program.instructions.size();
  const int queues = static_cast<int>(spec.dma_queues.value);
  const size_t ntracks = static_cast<size_t>(kComputeTracks + queues);
  TimingResult out;
  out.instructions.resize(n);
  out.tracks.resize(ntracks);
  const char* names[kComputeTracks] = {"Tensor", "Vector", "Scalar", "GpSimd"};
  for (int k = 0; k < kComputeTracks; ++k) out.tracks[static_cast<size_t>(k)].name = names[k];
  for (int q = 0; q < queues; ++q)
    out.tracks[static_cast<size_t>(kComputeTracks + q)].name = "DMA q" + std::to_string(q);

  // Per-instruction facts the event loop needs, computed once: compute duration (DMA: bytes), sync overhead.
  std::vector<double> cost(n);  // compute: duration in ns; DMA: bytes
  std::vector<double> sync(n);  // sync overhead in ns when waiting on another track (0 for DMA)
  // Per-track program-order queues, flat: instructions of track k are order[track_begin[k] .. track_begin[k+1]).
  std::vector<size_t> track_begin(ntracks + 1, 0), order(n);
  std::vector<int> track(n);

  // Dependencies (as simulate_timing_reference): per-buffer lists of earlier reads and writes; a write drops every
  // earlier access its region contains. Flat storage: deps of i are flat[dep_begin[i] .. dep_begin[i+1]).
  struct Access {
    Region region;
    size_t instruction;
  };
  struct BufferAccesses {
    std::vector<Access> reads, writes;
  };
  std::vector<BufferAccesses> accesses(program.buffers.size());
  std::vector<Region> reads;
  std::vector<size_t> flat, dep_begin(n + 1, 0);
  flat.reserve(2 * n);
  constexpr size_t kNone = std::numeric_limits<size_t>::max();
  std::vector<size_t> gates, gate_begin(n + 1, 0), last_on_track(ntracks, kNone), touched;
  gates.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = program.instructions[i];
    reads_of(ins, reads);
    const Region w = region(ins.dst);
    const int tk = track_of(ins);
    if (tk >= static_cast<int>(ntracks)) check(false, "DMA queue out of range for this spec", ins.where);
    track[i] = tk;
    ++track_begin[static_cast<size_t>(tk) + 1];
    if (ins.engine == Engine::dma) {
      cost[i] = dma_bytes(ins, program);
      sync[i] = 0.0;
    } else {
      const double clock = engine_clock_ghz(ins.engine, spec);
      cost[i] = compute_cycles(ins, program, spec) / clock;
      sync[i] = spec.sync_overhead_cycles.value / clock;
    }
    const size_t first = flat.size();
    for (const Region& r : reads)  // RAW
      for (const Access& a : accesses[static_cast<size_t>(r.buffer)].writes)
        if (overlap(a.region, r)) flat.push_back(a.instruction);
    BufferAccesses& ba = accesses[static_cast<size_t>(w.buffer)];
    // WAR and WAW; then drop the accesses w contains (in the same pass, keeping order).
    auto scan = [&](std::vector<Access>& list) {
      size_t keep = 0;
      for (size_t x = 0; x < list.size(); ++x) {
        const Access& a = list[x];
        const Region& r = a.region;
        if (r.p0 < w.p1 && w.p0 < r.p1 && r.f0 < w.f1 && w.f0 < r.f1) {
          flat.push_back(a.instruction);
          if (w.p0 <= r.p0 && r.p1 <= w.p1 && w.f0 <= r.f0 && r.f1 <= w.f1) continue;  // covered: drop
        }
        if (keep != x) list[keep] = a;
        ++keep;
      }
      list.resize(keep);
    };
    scan(ba.reads);
    scan(ba.writes);
    std::sort(flat.begin() + static_cast<std::ptrdiff_t>(first), flat.end());
    flat.erase(std::unique(flat.begin() + static_cast<std::ptrdiff_t>(first), flat.end()), flat.end());
    dep_begin[i + 1] = flat.size();
    // Gates: the latest dependency on each track. A track finishes its instructions in program order, so the
    // dependencies are all done exactly when the gates are.
    for (size_t x = first; x < flat.size(); ++x) {
      const auto dk = static_cast<size_t>(track[flat[x]]);
      if (last_on_track[dk] == kNone) touched.push_back(dk);
      last_on_track[dk] = flat[x];
    }
    for (size_t dk : touched) {
      gates.push_back(last_on_track[dk]);
      last_on_track[dk] = kNone;
    }
    touched.clear();
    gate_begin[i + 1] = gates.size();
    out.instructions[i].track = tk;
    out.instructions[i].deps.assign(flat.begin() + static_cast<std::ptrdiff_t>(first), flat.end());
    for (const Region& r : reads) accesses[static_cast<size_t>(r.buffer)].reads.push_back({r, i});
    ba.writes.push_back({w, i});
  }
  for (size_t k = 0; k < ntracks; ++k) track_begin[k + 1] += track_begin[k];
  {
    std::vector<size_t> fill(track_begin.begin(), track_begin.end() - 1);
    for (size_t i = 0; i < n; ++i) order[fill[static_cast<size_t>(track[i])]++] = i;
  }

  // Event loop: the same events, in the same order and with the same arithmetic as simulate_timing_reference, but
  // only running tracks are visited, and starts are tried only after a completion (nothing else can enable one).
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<unsigned char> finished(n, 0);
  std::vector<double> transfer_begin(n, 0), remaining(n, 0);
  std::vector<size_t> dep_cursor(n, 0);
  std::vector<size_t> head(track_begin.begin(), track_begin.end() - 1);
  std::vector<double> track_free(ntracks, 0);
  std::vector<long> running(ntracks, -1);
  std::vector<size_t> run_list;  // tracks with a running instruction
  run_list.reserve(ntracks);
  const double dma_bw = spec.dma_total_bytes_per_ns();
  const double dma_latency = spec.dma_fixed_latency_ns.value;
  double t = 0;
  size_t done = 0;
  bool try_start = true;
  while (done < n) {
    if (try_start) {
      for (size_t k = 0; k < ntracks; ++k) {
        if (running[k] >= 0 || head[k] == track_begin[k + 1]) continue;
        const size_t i = order[head[k]];
        const size_t* g = gates.data() + gate_begin[i];
        const size_t ng = gate_begin[i + 1] - gate_begin[i];
        size_t& cursor = dep_cursor[i];
        while (cursor < ng && finished[g[cursor]]) ++cursor;
        if (cursor < ng) continue;
        const size_t* d = flat.data() + dep_begin[i];
        const size_t nd = dep_begin[i + 1] - dep_begin[i];
        InstructionTiming& ti = out.instructions[i];
        const double free_at = track_free[k];
        double start = free_at;
        long blocked_by = -1;
        const double sync_ns = sync[i];
        for (size_t x = 0; x < nd; ++x) {
          const size_t j = d[x];
          const bool cross = track[j] != static_cast<int>(k);
          const double earliest = out.instructions[j].end_ns + (cross ? sync_ns : 0.0);
          if (earliest > start) {
            start = earliest;
            blocked_by = static_cast<long>(j);
          }
        }
        ++head[k];
        running[k] = static_cast<long>(i);
        run_list.push_back(k);
        ti.start_ns = std::max(start, t);
        ti.blocked_by = blocked_by;
        ti.stall_ns = ti.start_ns - free_at;
        if (k >= static_cast<size_t>(kComputeTracks)) {
          transfer_begin[i] = ti.start_ns + dma_latency;
          remaining[i] = cost[i];
          ti.end_ns = kInf;
        } else {
          ti.end_ns = ti.start_ns + cost[i];
        }
      }
      try_start = false;
    }
    // Next event.
    int active = 0;
    for (size_t k : run_list)
      if (k >= static_cast<size_t>(kComputeTracks) && transfer_begin[static_cast<size_t>(running[k])] <= t) ++active;
    const double rate = active > 0 ? dma_bw / active : 0;
    double next = kInf;
    for (size_t k : run_list) {
      const auto i = static_cast<size_t>(running[k]);
      if (k < static_cast<size_t>(kComputeTracks))
        next = std::min(next, out.instructions[i].end_ns);
      else if (transfer_begin[i] > t)
        next = std::min(next, transfer_begin[i]);
      else
        next = std::min(next, t + remaining[i] / rate);
    }
    if (!(next < kInf)) check(false, "timing model deadlock (an instruction waits on a later one)");
    // Advance.
    if (active > 0)
      for (size_t k : run_list) {
        if (k < static_cast<size_t>(kComputeTracks)) continue;
        const auto i = static_cast<size_t>(running[k]);
        if (transfer_begin[i] <= t) {
          remaining[i] -= (next - t) * rate;
          if (remaining[i] <= 1e-9 * std::max(1.0, cost[i])) out.instructions[i].end_ns = next;
        }
      }
    t = next;
    size_t keep = 0;
    for (size_t x = 0; x < run_list.size(); ++x) {
      const size_t k = run_list[x];
      const auto i = static_cast<size_t>(running[k]);
      const InstructionTiming& ti = out.instructions[i];
      if (ti.end_ns <= t) {
        finished[i] = 1;
        ++done;
        running[k] = -1;
        track_free[k] = ti.end_ns;
        Track& tr = out.tracks[k];
        tr.busy_ns += ti.end_ns - ti.start_ns;
        ++tr.instructions;
        out.total_ns = std::max(out.total_ns, ti.end_ns);
        try_start = true;
      } else {
        run_list[keep++] = k;
      }
    }
    run_list.resize(keep);
  }
  return out;
}

}  // namespace nanotrn::neuron
