// The timing model's formulas (see timing.h for the table and timing_detail.h for the contracts). Not here: the
// event loops (timing.cpp, timing_reference.cpp).
#include <algorithm>

#include "neuron/sim/timing_detail.h"

namespace nanotrn::neuron::detail {

std::vector<Track> engine_tracks(int queues) {
  std::vector<Track> t;
  for (const Engine e : {Engine::tensor, Engine::vector, Engine::scalar, Engine::gpsimd})
    t.push_back({std::string(hw::engine_track_name(e)), e});
  for (int q = 0; q < queues; ++q) t.push_back({"DMA q" + std::to_string(q), Engine::dma, q});
  return t;
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

double compute_cycles(const EncodedInstruction& e, const NeuronCoreSpec& s) {
  using F = EncodedInstruction::Flag;
  const double min_ii = s.min_ii_cycles.value;
  const double n = static_cast<double>(e.a);
  const bool one_pass = (e.flags & F::one_pass) != 0;
  switch (e.op) {
    case Opcode::matmul: {
      // Double-row fp8 / MX: the same cycles for twice / four times the contraction [NKI-A3] [NKI-A4].
      const double m = static_cast<double>(e.a), n_mov = static_cast<double>(e.b);
      const double c = std::max(std::min(s.matmul_min_ii_cycles.value, m), n_mov);
      return (e.flags & F::fp32) != 0 ? c * s.matmul_fp32_factor.value : c;
    }
    case Opcode::transpose:
      return std::max(static_cast<double>(e.a), std::min(64.0, static_cast<double>(e.b)));
    case Opcode::activation:  // activation_reduce adds MIN_II [ISA-2025-10]
      return std::max(min_ii, n) + ((e.flags & F::with_reduce) != 0 ? min_ii : 0.0);
    case Opcode::tensor_scalar:
    case Opcode::copy: {  // VectorE performance mode (v3/v4) [NKI-A3] [NKI-A4]
      double speedup = 1;
      if ((e.flags & F::perf_mode) != 0) {
        speedup =
            (e.flags & F::perf_fp8) != 0 ? s.vector_perf_mode_fp8_speedup.value : s.vector_perf_mode_speedup.value;
        if ((e.flags & F::perf_half) != 0) speedup = std::max(1.0, speedup / 2);
      }
      return std::max(min_ii, n / speedup);
    }
    case Opcode::reciprocal:
      return std::max(min_ii, 8 * n);
    case Opcode::tensor_tensor:
      return one_pass ? std::max(min_ii, n) : std::max(min_ii, 2 * n);
    case Opcode::reduce:
      return one_pass ? n / 2 : n;
    case Opcode::memset:
      return one_pass ? std::max(min_ii, n / 2) : std::max(min_ii, n);
    case Opcode::iota:
    case Opcode::affine_select:
      return s.gpsimd_startup_cycles.value + n;
    case Opcode::dma_copy:
      return 0;
  }
  return 0;
}

double load_stationary_cycles(const EncodedInstruction& e, const NeuronCoreSpec& s) {
  if (e.op != Opcode::matmul) return 0;
  const double c = static_cast<double>(e.a) / s.load_stationary_speedup.value;
  return (e.flags & EncodedInstruction::fp32) != 0 ? c * s.matmul_fp32_factor.value : c;
}

double dma_cost_bytes(const EncodedInstruction& e, const NeuronCoreSpec& s, const TimingOptions& o) {
  const double bytes = static_cast<double>(e.a);
  return o.dma_descriptors ? bytes + static_cast<double>(e.b) * s.dma_descriptor_overhead_bytes.value : bytes;
}

void dma_rates(const std::vector<int>& active, double core_cap, double hbm_total, std::vector<double>& rate) {
  const size_t n = active.size();
  rate.assign(n, 0.0);
  double h = hbm_total;
  int k = 0;
  for (int a : active) k += a;
  unsigned char done[8] = {};  // n <= 8 cores (checked by the simulators)
  // Cap the cores whose per-transfer cap is below the fair share, smallest cap first; the rest share what is left.
  for (size_t round = 0; round < n && k > 0; ++round) {
    const double fair = h / k;
    size_t worst = n;
    for (size_t c = 0; c < n; ++c)
      if (!done[c] && active[c] > 0 && core_cap / active[c] < fair &&
          (worst == n || active[c] > active[worst]))  // smallest cap per transfer = most transfers
        worst = c;
    if (worst == n) {
      for (size_t c = 0; c < n; ++c)
        if (!done[c] && active[c] > 0) rate[c] = fair;
      return;
    }
    rate[worst] = core_cap / active[worst];
    done[worst] = 1;
    h -= core_cap;
    k -= active[worst];
  }
}

}  // namespace nanotrn::neuron::detail
