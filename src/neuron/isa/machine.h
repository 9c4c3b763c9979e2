// The machine description of one NeuronCore generation (v2 = Trn1, v3 = Trn2, v4 = Trn3) as data: every number
// the software NeuronCore uses, each with the reference tags of the documents it comes from ("[NKI-A3]": keys of the
// device catalog's sources table, listed with their URLs in docs/SOURCES.md), or "assumed: <why>" when no public
// document gives it.
//
//   const NeuronCoreSpec& s = spec_for("v3");        // also "trn2"; throws nanotrn::Error for unknown names
//   double ns = s.tensor_clock_ghz.value;             // every field is a Param {value, source}
//
// Not here: chips, servers, links (hw catalog), the cost formulas themselves (timing_costs.cpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/sourced.h"

namespace nanotrn::neuron {

// One number with where it comes from: "[NKI-A3]" style reference tags, or "assumed: <reason>" (base/sourced.h).
using Param = Sourced;

struct NeuronCoreSpec {
  std::string name;        // "v2", "v3", "v4"
  std::string generation;  // "NeuronCore-v2 (Trn1)" ...

  // Memories.
  Param partitions;                // SBUF/PSUM partition count (128)
  Param sbuf_bytes_per_partition;  // 192 / 224 / 256 KiB
  Param psum_bytes_per_partition;  // 16 KiB
  Param psum_bank_bytes;           // 2 KiB (512 fp32)

  // TensorE.
  Param tensor_clock_ghz;            // 2.8 / 2.4 / 2.4
  Param pe_rows, pe_cols;            // 128 x 128
  Param matmul_max_k;                // contraction (partition) size <= 128
  Param matmul_max_stationary_free;  // M <= 128
  Param matmul_max_moving_free;      // N <= 512 (fp32 dst; v4 allows more, not modelled)
  Param matmul_min_ii_cycles;        // 64: the min(64, N_stationary) term of the matmul cost
  Param matmul_fp32_factor;          // fp32 inputs cost 4x
  Param fp8_double_row_speedup;      // 1 on v2, 2 on v3/v4 (double-row mode: 2 K rows per cycle)
  Param mx_speedup;                  // 4 on v4 (MXFP8/MXFP4 quad rate, matmul_mx), 1 before (no MX path)
  Param load_stationary_speedup;     // fast LoadStationary: LS of free size M takes M / this cycles
  // TensorE power throttling after idle (v3/v4): utilisation limit starts at throttle_start and ramps linearly to
  // 1 over throttle_ramp_ns; an idle gap of throttle_idle_ns re-engages it. v2: start 1 (none documented).
  Param tensor_throttle_start;
  Param tensor_throttle_ramp_ns;
  Param tensor_throttle_idle_ns;

  // Vector / Scalar / GpSimd engines.
  Param vector_clock_ghz;
  Param scalar_clock_ghz;
  Param gpsimd_clock_ghz;
  Param min_ii_cycles;          // MIN_II of the ISA cost table (64)
  Param gpsimd_startup_cycles;  // the 150 of iota / affine_select
  Param sync_overhead_cycles;   // cost of a cross-engine semaphore wait, consumer-engine cycles
  // VectorE performance mode (v3/v4): tensor_copy / tensor_scalar with 16-bit float input and output run this many
  // times faster SBUF -> SBUF at unit stride, half that with a side in PSUM; 1 on v2 (none).
  Param vector_perf_mode_speedup;
  Param vector_perf_mode_fp8_speedup;  // the same for fp8 input or output (v4: as 16-bit; 1 before: no mode)

  // DMA.
  Param dma_engines;              // 16 per core
  Param dma_engine_bytes_per_ns;  // per-engine peak, B/ns (= GB/s)
  Param dma_fixed_latency_ns;     // per-transfer fixed cost
  // Per-descriptor (contiguous DMA buffer) overhead, as bytes of transfer time: efficiency = b / (b + this).
  Param dma_descriptor_overhead_bytes;
  Param hbm_share_bytes_per_ns;  // chip HBM bandwidth / cores, B/ns
  Param dma_queues;              // independent in-order DMA queues the timing model offers
  Param hbm_bytes;               // HBM capacity share per core
  Param max_physical_cores;      // SPMD launch width: 1 on v2, 2 (LNC=2, a core pair sharing an HBM bank) v3/v4

  // Bandwidth all DMA queues of the core share: min(engines x per-engine peak, HBM share) [derived].
  double dma_total_bytes_per_ns() const;
  // Every parameter by name, for docs, tests and `nanotrn kernel --spec`.
  std::vector<std::pair<std::string, const Param*>> params() const;
};

// "v2", "v3", "v4", or a Trainium device of the catalog ("trn2", "trn3-ultraserver", ...: the generation its entry
// names, hw/devices.json.inc). Throws nanotrn::Error naming the unknown name and the known ones.
const NeuronCoreSpec& spec_for(std::string_view name);

}  // namespace nanotrn::neuron
