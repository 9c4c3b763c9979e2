// Internal to the timing model (timing.cpp, timing_reference.cpp): the per-instruction cost formulas, the TensorE start
// rule (LoadStationary, throttling) and the DMA bandwidth split. Both simulators call exactly these functions, so they
// do the same arithmetic and agree bit for bit. Not here: the event loops; the access regions dependencies are found
// from (isa/regions.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "neuron/isa/machine.h"
#include "neuron/isa/program.h"
#include "neuron/sim/timing.h"

namespace nanotrn::neuron::detail {

inline constexpr int kComputeTracks = 4;
// One core's tracks: Tensor, Vector, Scalar, GpSimd, then "DMA q<q>" for each of `queues` queues.
std::vector<Track> engine_tracks(int queues);

// A transfer is finished when the core's service level is within tolerance of its target: 1e-9 of its bytes (at
// least 1e-9 B), plus 1e-12 of the service level itself, which grows with simulated time, so that rounding of a
// long run's large service level (its ulp passes 1e-9 B after about 10 ms of a busy queue) cannot leave a
// transfer forever a few ulps short of its target (the event loop would stop advancing).
inline bool transfer_done(double target, double service, double bytes) {
  return target - service <= 1e-9 * std::max(1.0, bytes) + 1e-12 * std::abs(service);
}

double engine_clock_ghz(Engine e, const NeuronCoreSpec& s);
// Engine cycles of a compute instruction (timing.h table) from its encoding (encoding.h); 0 for dma_copy.
double compute_cycles(const EncodedInstruction& e, const NeuronCoreSpec& s);
// A matmul's LoadStationary cycles when its stationary has to be loaded: M / load_stationary_speedup, x4 for fp32.
// Whether it has to be is the encoding's reuses_stationary flag.
double load_stationary_cycles(const EncodedInstruction& e, const NeuronCoreSpec& s);
// The bytes-equivalent a DMA's transfer phase moves: bytes + descriptors x dma_descriptor_overhead_bytes
// (descriptors: np when both sides are unit-stride in the free axis, else np x nf).
double dma_cost_bytes(const EncodedInstruction& e, const NeuronCoreSpec& s, const TimingOptions& o);

// TensorE per-core state for the start rule.
struct TensorState {
  bool any = false;       // an instruction has run
  double ramp_start = 0;  // when the current throttle ramp began
};
struct TensorStart {
  double duration, ls_exposed, level;
};
// A TensorE instruction starting at `start` on a track free since `free_at`: mm_ns its formula time, ls_ns its
// LoadStationary time (0 when the stationary is reused). Idle before it (first, or start > free_at): the LS is
// exposed, duration ls + mm; else it ran in the background, duration max(mm, ls). Throttle (v3/v4): after an idle
// gap >= tensor_throttle_idle_ns (or at the first instruction) a ramp starts; level = min(1, start_level +
// (1 - start_level) (start - ramp_start) / ramp_ns) at the instruction's start divides its whole duration.
inline TensorStart tensor_start(double mm_ns, double ls_ns, double start, double free_at, TensorState& st,
                                const NeuronCoreSpec& s, const TimingOptions& o) {
  const bool idle = !st.any || start > free_at;
  if (!st.any || start - free_at >= s.tensor_throttle_idle_ns.value) st.ramp_start = start;
  st.any = true;
  double level = 1;
  const double u0 = s.tensor_throttle_start.value;
  if (o.tensor_throttle && u0 < 1)
    level = std::min(1.0, u0 + (1 - u0) * (start - st.ramp_start) / s.tensor_throttle_ramp_ns.value);
  const double base = idle ? ls_ns + mm_ns : std::max(mm_ns, ls_ns);
  return {base / level, idle ? ls_ns / level : 0.0, level};
}

// Per-transfer DMA rate (B/ns) of each core's transfers, `active[c]` transfers in flight on core c: max-min fair
// sharing of `hbm_total` over all transfers, each core's transfers together capped at `core_cap`.
void dma_rates(const std::vector<int>& active, double core_cap, double hbm_total, std::vector<double>& rate);

}  // namespace nanotrn::neuron::detail
