// The reference timing simulator (see timing.h): the model computed the straightforward way, every track scanned at
// every event and per-buffer access lists scanned in full. simulate_timing (timing.cpp) must match it bit for bit.
// Not here: the formulas (timing_costs.cpp).
#include <algorithm>
#include <deque>
#include <limits>

#include "base/error.h"
#include "neuron/isa/encoding.h"
#include "neuron/isa/regions.h"
#include "neuron/sim/timing_detail.h"

namespace nanotrn::neuron {

using detail::kComputeTracks;

namespace {

// Dependencies of every instruction of one program (local indices), as timing.h describes: per buffer, lists of
// earlier reads and writes; a write drops every earlier access its region contains (a later access overlapping a
// dropped one also overlaps the write, so it is ordered after it through the write).
void find_dependencies(const Program& program, TimingResult& out) {
  struct Access {
    size_t instruction;
    Region region;
  };
  struct BufferAccesses {
    std::vector<Access> reads, writes;
  };
  std::vector<BufferAccesses> accesses(program.buffers.size());
  std::vector<Region> reads, writes;
  std::vector<size_t> deps;
  for (size_t i = 0; i < program.instructions.size(); ++i) {
    const Instruction& ins = program.instructions[i];
    reads_of(ins, program, reads);
    writes_of(ins, program, writes);
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
    out.instructions[i].dep_begin = static_cast<uint32_t>(out.dep_list.size());
    out.instructions[i].dep_count = static_cast<uint32_t>(deps.size());
    out.dep_list.insert(out.dep_list.end(), deps.begin(), deps.end());
    for (const Region& w : writes) {
      BufferAccesses& ba = accesses[static_cast<size_t>(w.buffer)];
      auto covered = [&](const Access& a) { return contains(w, a.region); };
      ba.reads.erase(std::remove_if(ba.reads.begin(), ba.reads.end(), covered), ba.reads.end());
      ba.writes.erase(std::remove_if(ba.writes.begin(), ba.writes.end(), covered), ba.writes.end());
    }
    for (const Region& r : reads) accesses[static_cast<size_t>(r.buffer)].reads.push_back({i, r});
    for (const Region& w : writes) accesses[static_cast<size_t>(w.buffer)].writes.push_back({i, w});
  }
}

}  // namespace

std::vector<TimingResult> simulate_timing_spmd_reference(const std::vector<const Program*>& programs,
                                                         const NeuronCoreSpec& spec, const TimingOptions& o) {
  const size_t cores = programs.size();
  check(cores >= 1 && cores <= 8 && static_cast<double>(cores) <= spec.max_physical_cores.value,
        "SPMD launch of " + std::to_string(cores) + " physical cores; NeuronCore-" + spec.name + " allows 1 to " +
            std::to_string(static_cast<int>(spec.max_physical_cores.value)) + " [LNC]");
  const int queues = static_cast<int>(spec.dma_queues.value);
  const size_t per_core = static_cast<size_t>(kComputeTracks + queues);
  std::vector<TimingResult> out(cores);
  struct Ref {
    size_t core, local;
  };
  std::vector<Ref> all;  // global instruction index -> (core, local index)
  std::vector<size_t> base(cores);
  std::vector<std::vector<EncodedInstruction>> encoded(cores);  // encoded here, whatever the program carries
  std::vector<std::deque<size_t>> pending(cores * per_core);    // global track -> global instructions in order
  for (size_t c = 0; c < cores; ++c) {
    const Program& p = *programs[c];
    TimingResult& r = out[c];
    r.instructions.resize(p.instructions.size());
    r.tracks = detail::engine_tracks(queues);
    find_dependencies(p, r);
    encode_program(p, encoded[c]);
    base[c] = all.size();
    for (size_t i = 0; i < p.instructions.size(); ++i) {
      const int tk = track_of(p.instructions[i]);
      check(tk < static_cast<int>(per_core), "DMA queue out of range for this spec", p.instructions[i].where);
      r.instructions[i].track = tk;
      pending[c * per_core + static_cast<size_t>(tk)].push_back(all.size());
      all.push_back({c, i});
    }
  }
  const size_t n = all.size();
  auto ins_of = [&](size_t g) -> const Instruction& { return programs[all[g].core]->instructions[all[g].local]; };
  auto tim_of = [&](size_t g) -> InstructionTiming& { return out[all[g].core].instructions[all[g].local]; };

  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<int> state(n, 0);  // 0 waiting, 1 running, 2 done
  std::vector<double> transfer_begin(n, 0), target(n, 0), transfer_bytes(n, 0);
  std::vector<unsigned char> activated(n, 0);
  std::vector<double> track_free(cores * per_core, 0);
  std::vector<long> running(cores * per_core, -1);
  std::vector<detail::TensorState> tensor(cores);
  std::vector<int> active(cores);
  std::vector<double> rate, service(cores, 0.0), min_target(cores);
  const double core_cap = spec.dma_engines.value * spec.dma_engine_bytes_per_ns.value;
  const double hbm = static_cast<double>(cores) * spec.hbm_share_bytes_per_ns.value;
  std::vector<double> finish_at(cores, kInf);
  double t = 0, committed = 0;  // committed: when the service levels were last brought up to date
  auto commit = [&](double now) {
    for (size_t c = 0; c < cores; ++c)
      if (active[c] > 0) service[c] += (now - committed) * rate[c];
    committed = now;
  };
  size_t done = 0;
  while (done < n) {
    // Start every track head whose dependencies are done.
    for (size_t gk = 0; gk < cores * per_core; ++gk) {
      if (running[gk] >= 0 || pending[gk].empty()) continue;
      const size_t g = pending[gk].front();
      const size_t c = all[g].core;
      InstructionTiming& ti = tim_of(g);
      const Instruction& ins = ins_of(g);
      const std::span<const uint32_t> deps = out[c].deps(all[g].local);
      bool ready = true;
      for (size_t j : deps) ready = ready && state[base[c] + j] == 2;
      if (!ready) continue;
      const double free_at = track_free[gk];
      double start = free_at;
      long blocked_by = -1;
      const double sync_ns = ins.engine == Engine::dma
                                 ? 0.0
                                 : spec.sync_overhead_cycles.value / detail::engine_clock_ghz(ins.engine, spec);
      for (size_t j : deps) {
        const InstructionTiming& dj = out[c].instructions[j];
        const double earliest = dj.end_ns + (dj.track != ti.track ? sync_ns : 0.0);
        if (earliest > start) {
          start = earliest;
          blocked_by = static_cast<long>(j);
        }
      }
      pending[gk].pop_front();
      running[gk] = static_cast<long>(g);
      state[g] = 1;
      ti.start_ns = std::max(start, t);  // start >= t always holds; kept as a guard
      ti.blocked_by = blocked_by;
      ti.stall_ns = ti.start_ns - free_at;
      if (ins.engine == Engine::dma) {
        transfer_begin[g] = ti.start_ns + spec.dma_fixed_latency_ns.value;
        transfer_bytes[g] = detail::dma_cost_bytes(encoded[c][all[g].local], spec, o);
        ti.end_ns = kInf;
      } else if (ins.engine == Engine::tensor) {
        const double clock = detail::engine_clock_ghz(ins.engine, spec);
        const EncodedInstruction& e = encoded[c][all[g].local];
        const bool reuse = (e.flags & EncodedInstruction::reuses_stationary) != 0;
        const double ls = o.load_stationary && !reuse ? detail::load_stationary_cycles(e, spec) / clock : 0.0;
        const double mm = detail::compute_cycles(e, spec) / clock;
        const detail::TensorStart ts = detail::tensor_start(mm, ls, ti.start_ns, free_at, tensor[c], spec, o);
        ti.end_ns = ti.start_ns + ts.duration;
        ti.ls_ns = ts.ls_exposed;
        ti.throttle = ts.level;
      } else {
        ti.end_ns = ti.start_ns +
                    detail::compute_cycles(encoded[c][all[g].local], spec) / detail::engine_clock_ghz(ins.engine, spec);
      }
    }
    // DMA in virtual time. Transfers in flight on a core share its rate equally, so they all receive the same
    // service: service[c] counts the bytes each active transfer of core c has received, and a transfer that became
    // active when it stood at S finishes when it reaches S + its bytes (processor sharing). The levels are brought up
    // to date (committed) only when the DMA state changes: when a transfer's fixed latency ends (it joins at the
    // committed level) and when a core's earliest finish comes due (every transfer within tolerance then finishes).
    bool joining = false;
    for (size_t gk = 0; gk < cores * per_core; ++gk) {
      const long lg = running[gk];
      if (lg >= 0 && ins_of(static_cast<size_t>(lg)).engine == Engine::dma && !activated[static_cast<size_t>(lg)] &&
          transfer_begin[static_cast<size_t>(lg)] <= t)
        joining = true;
    }
    if (joining) {
      commit(t);
      for (size_t gk = 0; gk < cores * per_core; ++gk) {
        const long lg = running[gk];
        if (lg < 0) continue;
        const auto g = static_cast<size_t>(lg);
        if (ins_of(g).engine != Engine::dma || activated[g] || transfer_begin[g] > t) continue;
        activated[g] = 1;
        target[g] = service[gk / per_core] + transfer_bytes[g];
      }
    }
    // Rates from the counts; each core's earliest finish at its committed level.
    std::fill(active.begin(), active.end(), 0);
    std::fill(min_target.begin(), min_target.end(), kInf);
    double next = kInf;
    for (size_t gk = 0; gk < cores * per_core; ++gk) {
      const long lg = running[gk];
      if (lg < 0) continue;
      const auto g = static_cast<size_t>(lg);
      const size_t c = gk / per_core;
      if (ins_of(g).engine != Engine::dma) {
        next = std::min(next, tim_of(g).end_ns);
      } else if (activated[g]) {
        ++active[c];
        min_target[c] = std::min(min_target[c], target[g]);
      } else {
        next = std::min(next, transfer_begin[g]);
      }
    }
    detail::dma_rates(active, core_cap, hbm, rate);
    for (size_t c = 0; c < cores; ++c) {
      finish_at[c] = active[c] > 0 ? committed + (min_target[c] - service[c]) / rate[c] : kInf;
      next = std::min(next, finish_at[c]);
    }
    check(next < kInf, "timing model deadlock (an instruction waits on a later one)");
    t = next;
    // Finish what is due: compute instructions that end by t; when a core's earliest finish is due, every transfer
    // within tolerance of its target (detail::transfer_done).
    bool dma_due = false;
    for (size_t c = 0; c < cores; ++c) dma_due = dma_due || finish_at[c] <= t;
    if (dma_due) commit(t);
    for (size_t gk = 0; gk < cores * per_core; ++gk) {
      const long lg = running[gk];
      if (lg < 0) continue;
      const auto g = static_cast<size_t>(lg);
      InstructionTiming& ti = tim_of(g);
      if (dma_due && activated[g] && detail::transfer_done(target[g], service[gk / per_core], transfer_bytes[g]))
        ti.end_ns = t;
      if (ti.end_ns <= t) {
        state[g] = 2;
        ++done;
        running[gk] = -1;
        track_free[gk] = ti.end_ns;
        TimingResult& r = out[all[g].core];
        Track& tr = r.tracks[gk % per_core];
        tr.busy_ns += ti.end_ns - ti.start_ns;
        ++tr.instructions;
        r.total_ns = std::max(r.total_ns, ti.end_ns);
      }
    }
  }
  return out;
}

TimingResult simulate_timing_reference(const Program& program, const NeuronCoreSpec& spec, const TimingOptions& o) {
  return std::move(simulate_timing_spmd_reference({&program}, spec, o)[0]);
}

}  // namespace nanotrn::neuron
