// The fast timing simulator (see timing.h for the model; timing_costs.cpp for its formulas): compute instructions
// timed by dataflow over the program's recorded dependencies, DMA transfers by an event loop over DMA events only.
// It computes the same numbers with the same arithmetic as simulate_timing_spmd_reference (timing_reference.cpp).
// Not here: functional results.
#include "neuron/sim/timing.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <utility>

#include "base/error.h"
#include "neuron/isa/dependencies.h"
#include "neuron/isa/encoding.h"
#include "neuron/sim/timing_detail.h"

namespace nanotrn::neuron {

using detail::kComputeTracks;

double dma_bytes(const Instruction& ins, const Program& p) {
  return static_cast<double>(encode(ins, p, nullptr).a);  // the encoding's bytes, which the model charges
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

// A set of tracks as a bit mask: at most kMaxTracks (8 cores x (4 compute + up to 28 DMA queues)).
constexpr size_t kMaxTracks = 256;
static_assert(kComputeTracks == 4, "the event loop reads the four compute tracks of a core as one group");
// kWords 64-bit words (1 when a single core's tracks fit in one, so the loops fold away).
template <size_t kWords>
class TrackSet {
 public:
  void set(size_t k) { w_[k >> 6] |= uint64_t{1} << (k & 63); }
  void reset(size_t k) { w_[k >> 6] &= ~(uint64_t{1} << (k & 63)); }
  // Calls f(k) for every member in ascending order; f may change membership of k and of members already visited.
  template <class F>
  void for_each(F f) const {
    for (size_t w = 0; w < kWords; ++w)
      for (uint64_t b = w_[w]; b != 0; b &= b - 1) f((w << 6) + static_cast<size_t>(std::countr_zero(b)));
  }

 private:
  uint64_t w_[kWords] = {};
};

// kOne: a single core, so the per-core loops and lookups fold away (the common case, and the benchmark's).
template <bool kOne>
std::vector<TimingResult> simulate(const std::vector<const Program*>& programs, const NeuronCoreSpec& spec,
                                   const TimingOptions& o) {
  const size_t cores = kOne ? 1 : programs.size();
  check(cores >= 1 && cores <= 8 && static_cast<double>(cores) <= spec.max_physical_cores.value,
        "SPMD launch of " + std::to_string(cores) + " physical cores; NeuronCore-" + spec.name + " allows 1 to " +
            std::to_string(static_cast<int>(spec.max_physical_cores.value)) + " [LNC]");
  const int queues = static_cast<int>(spec.dma_queues.value);
  const size_t per_core = static_cast<size_t>(kComputeTracks + queues);
  const size_t ntracks = cores * per_core;
  check(ntracks <= kMaxTracks && per_core <= 64,
        "timing model: more than 256 tracks (cores x (4 + DMA queues)) or 60 DMA queues");
  std::vector<size_t> base(cores + 1, 0);
  for (size_t c = 0; c < cores; ++c) base[c + 1] = base[c] + programs[c]->instructions.size();
  const size_t n = base[cores];
  check(n < std::numeric_limits<uint32_t>::max() / 2, "timing model: too many instructions in one launch");
  auto first = [&](size_t c) -> size_t { return kOne ? 0 : base[c]; };  // a core's first global index
  std::vector<TimingResult> out(cores);
  std::vector<InstructionTiming*> tim(cores);
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // Static facts per instruction (global index g = base[core] + local index), structure of arrays: the global track,
  // the compute duration in ns (TensorE: the MultiplyMoving formula) or the DMA cost bytes, the LoadStationary ns
  // (TensorE, 0 when the stationary is reused), and the gates: of its dependencies, the latest on each other track,
  // gates[gate_begin[g] .. gate_begin[g + 1]). Per track: the sync overhead in ns of waiting on another track (0 for
  // DMA). A track runs its instructions in order and every duration is positive, so the gates finish last and end
  // strictly latest on their tracks, and a dependency on the own track has ended by the time the track is free (it
  // can neither delay the start nor tie with a later one): readiness and the start (the first dependency, in index
  // order, with the latest end + sync) are decided on the gates alone.
  std::vector<double> cost(n), ls(n, 0.0), sync(ntracks, 0.0);
  std::vector<uint32_t> track(n), gates, gate_begin(n + 1, 0);
  std::vector<uint32_t> track_begin(ntracks + 1, 0), order(n);
  {
    size_t all_deps = 0;  // the gates are a subset of the dependencies
    for (const Program* p : programs) all_deps += p->has_dependencies() ? p->dep_list.size() : 0;
    gates.resize(all_deps);
  }
  static_assert(static_cast<int>(Engine::tensor) == 0 && static_cast<int>(Engine::vector) == 1 &&
                    static_cast<int>(Engine::scalar) == 2 && static_cast<int>(Engine::gpsimd) == 3,
                "a compute engine's track is its Engine value (track_of)");
  double clock[kComputeTracks];
  for (int k = 0; k < kComputeTracks; ++k) clock[k] = detail::engine_clock_ghz(static_cast<Engine>(k), spec);
  {
    std::vector<uint32_t> local_deps, local_begin;
    std::vector<EncodedInstruction> local_encoding;
    uint32_t* const trk = track.data();
    uint32_t* const tcount = track_begin.data() + 1;
    double *const cst = cost.data(), *const lsn = ls.data();
    uint32_t* const gbegin = gate_begin.data() + 1;
    uint32_t ngates = 0;
    for (size_t c = 0; c < cores; ++c) {
      const Program& program = *programs[c];
      const size_t count = program.instructions.size();
      TimingResult& r = out[c];
      r.instructions.resize(count);
      tim[c] = r.instructions.data();
      r.tracks = detail::engine_tracks(queues);
      if (!program.has_dependencies()) {  // else: recorded
        find_dependencies(program, local_deps, local_begin);
        gates.resize(gates.size() + local_deps.size());
      }
      const std::vector<uint32_t>& pdeps = program.has_dependencies() ? program.dep_list : local_deps;
      const std::vector<uint32_t>& pbegin = program.has_dependencies() ? program.dep_begin : local_begin;
      r.dep_list.assign(pdeps.begin(), pdeps.end());
      const uint32_t *const pd = pdeps.data(), *const pb = pbegin.data();
      uint32_t* const gw = gates.data();
      const auto shift = static_cast<uint32_t>(first(c));
      const auto first_track = static_cast<uint32_t>(c * per_core);
      for (int k = 0; k < kComputeTracks; ++k) sync[first_track + k] = spec.sync_overhead_cycles.value / clock[k];
      if (!program.has_encoding()) encode_program(program, local_encoding);  // else: recorded
      const EncodedInstruction* const e0 = program.has_encoding() ? program.encoded.data() : local_encoding.data();
      InstructionTiming* const ti = r.instructions.data();
      for (size_t i = 0; i < count; ++i) {
        const size_t g = shift + i;
        const EncodedInstruction& e = e0[i];
        uint32_t tk = static_cast<uint32_t>(e.engine);
        if (e.engine == Engine::dma) {
          tk = static_cast<uint32_t>(kComputeTracks + e.dma_queue);
          if (e.dma_queue < 0 || tk >= per_core)
            check(false, "DMA queue out of range for this spec", program.instructions[i].where);
          cst[g] = detail::dma_cost_bytes(e, spec, o);
        } else {
          cst[g] = detail::compute_cycles(e, spec) / clock[tk];
          if (tk == 0 && o.load_stationary && (e.flags & EncodedInstruction::reuses_stationary) == 0)
            lsn[g] = detail::load_stationary_cycles(e, spec) / clock[0];
        }
        const uint32_t gk = first_track + tk;
        trk[g] = gk;
        ++tcount[gk];
        // The gates: the last dependency (they are sorted) on each of this core's other tracks (at most 64 of them).
        uint64_t seen = uint64_t{1} << tk;
        const uint32_t d0 = pb[i], d1 = pb[i + 1];
        for (uint32_t x = d1; x-- > d0;) {
          const uint32_t j = pd[x] + shift;
          const uint64_t bit = uint64_t{1} << (trk[j] - first_track);
          if ((seen & bit) == 0) gw[ngates++] = j;
          seen |= bit;
        }
        gbegin[g] = ngates;
        ti[i].track = static_cast<int>(tk);
        ti[i].dep_begin = d0;
        ti[i].dep_count = d1 - d0;
      }
    }
    gates.resize(ngates);
  }
  for (size_t k = 0; k < ntracks; ++k) track_begin[k + 1] += track_begin[k];
  {
    std::vector<uint32_t> fill(track_begin.begin(), track_begin.end() - 1);
    for (size_t g = 0; g < n; ++g) order[fill[track[g]]++] = static_cast<uint32_t>(g);
  }

  // Simulation. A compute instruction's start depends only on when its gates ended and when its track became free
  // (the reference starts it at the event where the last of those ended, so its start is never earlier than that
  // event), so compute instructions are timed by dataflow: as soon as its gates have ended, an instruction's start
  // and end are known, whatever the time of other events. Only DMA transfers interact through time (they share
  // bandwidth), so the event loop visits DMA events alone: a transfer's fixed latency ending, and a core's earliest
  // transfer finishing. The DMA state changes at exactly the events where the reference changes it, with the same
  // arithmetic (timing_reference.cpp: service levels committed at those events), so the results are bit-identical.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<uint32_t> head(track_begin.begin(), track_begin.end() - 1), core_index(ntracks), local_of(ntracks);
  for (size_t k = 0; k < ntracks; ++k) {
    core_index[k] = static_cast<uint32_t>(k / per_core);
    local_of[k] = static_cast<uint32_t>(k % per_core);
  }
  auto core_of = [&](size_t k) -> size_t { return kOne ? 0 : core_index[k]; };
  auto local_track = [&](size_t k) -> size_t { return kOne ? k : local_of[k]; };
  // Tracks whose head waits for instruction g: wait_first[g], then wait_next[track] (a list through the tracks).
  std::vector<uint32_t> running(ntracks, kNone), wait_next(ntracks, kNone), wait_first(n, kNone);
  std::vector<double> begin_at(ntracks, kInf), target(ntracks, kInf), track_free(ntracks, 0.0);
  std::vector<uint32_t> ready;  // tracks to try
  ready.reserve(ntracks * 2);
  std::vector<double> end_ns(n, -1.0);  // an instruction has ended (its end is known) when >= 0
  TrackSet<kOne ? 1 : kMaxTracks / 64> latent, active_set;
  std::vector<detail::TensorState> tensor(cores);
  std::vector<int> active(cores, 0), rated(cores, -1);
  std::vector<double> rate(cores, 0.0), service(cores, 0.0), min_target(cores, kInf), finish_at(cores, kInf);
  std::vector<double> rate_memo(static_cast<size_t>(queues) + 1, -1.0);  // one core: the rate per active count
  const double core_cap = spec.dma_engines.value * spec.dma_engine_bytes_per_ns.value;
  const double hbm = static_cast<double>(cores) * spec.hbm_share_bytes_per_ns.value;
  const double dma_latency = spec.dma_fixed_latency_ns.value;
  double committed = 0, next_latent = kInf;
  size_t done = 0;
  // Raw views of the per-instruction and per-track arrays for the hot loop.
  const uint32_t *const gate = gates.data(), *const gate_at = gate_begin.data();
  const uint32_t *const ord = order.data(), *const tend = track_begin.data() + 1;
  const double *const cst = cost.data(), *const lsn = ls.data(), *const syn = sync.data();
  uint32_t *const hd = head.data(), *const run = running.data();
  uint32_t *const wfirst = wait_first.data(), *const wnext = wait_next.data();
  double *const endv = end_ns.data(), *const tfree = track_free.data();
  std::vector<double> busy(ntracks, 0.0);  // per track, copied out at the end

  // Instruction g on track k ended at `end`: record it and wake the tracks waiting for it.
  auto ended = [&](size_t k, uint32_t g, double end) {
    const size_t c = core_of(k);
    InstructionTiming& ti = tim[c][g - first(c)];
    ti.end_ns = endv[g] = end;
    ++done;
    tfree[k] = end;
    busy[k] += end - ti.start_ns;
    for (uint32_t w = wfirst[g]; w != kNone; w = wnext[w]) ready.push_back(w);
  };
  // Starts track k's instructions in order while their gates have ended: compute instructions end at once; a DMA
  // holds its queue until the event loop finishes it.
  auto advance = [&](size_t k) {
    if (run[k] != kNone) return;
    const uint32_t last = tend[k];
    for (uint32_t h = hd[k]; h != last; hd[k] = ++h) {
      const uint32_t g = ord[h];
      const uint32_t *d = gate + gate_at[g], *const d_end = gate + gate_at[g + 1];
      const double free_at = tfree[k], sync_ns = syn[k];
      double start = free_at;
      uint32_t blocked_by = kNone;
      for (; d != d_end; ++d) {
        const uint32_t j = *d;
        const double e = endv[j];
        if (e < 0) {  // not ended: wait for it (and rescan the gates when it has)
          wnext[k] = wfirst[j];
          wfirst[j] = static_cast<uint32_t>(k);
          return;
        }
        const double earliest = e + sync_ns;
        if (earliest > start || (earliest == start && blocked_by != kNone && j < blocked_by)) {
          start = earliest;
          blocked_by = j;
        }
      }
      const size_t c = core_of(k), local = local_track(k);
      InstructionTiming& ti = tim[c][g - first(c)];
      ti.start_ns = start;
      ti.blocked_by = blocked_by == kNone ? -1 : static_cast<long>(blocked_by) - static_cast<long>(first(c));
      ti.stall_ns = start - free_at;
      if (local >= static_cast<size_t>(kComputeTracks)) {
        hd[k] = h + 1;
        run[k] = g;
        begin_at[k] = start + dma_latency;
        next_latent = std::min(next_latent, begin_at[k]);
        latent.set(k);
        ti.end_ns = kInf;
        return;
      }
      double end = 0;
      if (local == 0) {
        const detail::TensorStart ts = detail::tensor_start(cst[g], lsn[g], start, free_at, tensor[c], spec, o);
        end = start + ts.duration;
        ti.ls_ns = ts.ls_exposed;
        ti.throttle = ts.level;
      } else {
        end = start + cst[g];
      }
      ended(k, g, end);
    }
  };
  auto propagate = [&] {
    while (!ready.empty()) {
      const size_t k = ready.back();
      ready.pop_back();
      advance(k);
    }
  };
  auto commit = [&](double now) {
    for (size_t c = 0; c < cores; ++c)
      if (active[c] > 0) service[c] += (now - committed) * rate[c];
    committed = now;
  };

  for (size_t k = 0; k < ntracks; ++k) ready.push_back(static_cast<uint32_t>(ntracks - 1 - k));
  propagate();
  while (done < n) {
    double t = next_latent;
    for (size_t c = 0; c < cores; ++c) t = std::min(t, finish_at[c]);
    if (!(t < kInf)) check(false, "timing model deadlock (an instruction waits on a later one)");
    // A core's earliest finish is due: every transfer within tolerance of its target finishes.
    bool dma_due = false;
    for (size_t c = 0; c < cores; ++c) dma_due = dma_due || finish_at[c] <= t;
    bool changed = false;
    if (dma_due) {
      commit(t);
      active_set.for_each([&](size_t k) {
        const size_t c = core_of(k);
        const uint32_t g = run[k];
        if (!detail::transfer_done(target[k], service[c], cst[g])) return;
        active_set.reset(k);
        target[k] = kInf;
        --active[c];
        run[k] = kNone;
        ended(k, g, t);
        ready.push_back(static_cast<uint32_t>(k));
      });
      changed = true;
      propagate();
    }
    // Transfers whose fixed latency is over join the transfer phase at the committed service level.
    if (next_latent <= t) {
      commit(t);
      next_latent = kInf;
      latent.for_each([&](size_t k) {
        if (begin_at[k] > t) {
          next_latent = std::min(next_latent, begin_at[k]);
          return;
        }
        const size_t c = core_of(k);
        target[k] = service[c] + cst[run[k]];
        begin_at[k] = kInf;
        latent.reset(k);
        active_set.set(k);
        ++active[c];
      });
      changed = true;
    }
    if (!changed) continue;
    // Rates from the counts (they depend only on the counts; one core: remembered per count), each core's lowest
    // target, and its earliest finish at the committed level.
    bool recount = false;
    for (size_t c = 0; c < cores; ++c) recount |= active[c] != rated[c];
    if (recount) {
      if (cores == 1 && rate_memo[static_cast<size_t>(active[0])] >= 0) {
        rate[0] = rate_memo[static_cast<size_t>(active[0])];
      } else {
        detail::dma_rates(active, core_cap, hbm, rate);
        if (cores == 1) rate_memo[static_cast<size_t>(active[0])] = rate[0];
      }
      for (size_t c = 0; c < cores; ++c) rated[c] = active[c];
    }
    std::fill(min_target.begin(), min_target.end(), kInf);
    active_set.for_each([&](size_t k) { min_target[core_of(k)] = std::min(min_target[core_of(k)], target[k]); });
    for (size_t c = 0; c < cores; ++c)
      finish_at[c] = active[c] > 0 ? committed + (min_target[c] - service[c]) / rate[c] : kInf;
  }
  for (size_t k = 0; k < ntracks; ++k) {
    Track& tr = out[core_of(k)].tracks[local_track(k)];
    tr.busy_ns = busy[k];
    tr.instructions = tend[k] - track_begin[k];
    // A track's ends increase along it: its last is its latest.
    out[core_of(k)].total_ns = std::max(out[core_of(k)].total_ns, tfree[k]);
  }
  return out;
}

}  // namespace

std::vector<TimingResult> simulate_timing_spmd(const std::vector<const Program*>& programs, const NeuronCoreSpec& spec,
                                               const TimingOptions& o) {
  return programs.size() == 1 ? simulate<true>(programs, spec, o) : simulate<false>(programs, spec, o);
}

TimingResult simulate_timing(const Program& program, const NeuronCoreSpec& spec, const TimingOptions& options) {
  return std::move(simulate_timing_spmd({&program}, spec, options)[0]);
}

}  // namespace nanotrn::neuron
