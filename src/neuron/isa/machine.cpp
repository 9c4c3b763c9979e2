// The per-generation NeuronCore parameter tables (see machine.h). Every number carries its source: the reference
// tags of docs/SOURCES.md it is copied from (tests/hw/sources_test.cpp checks each resolves), or "assumed: ...".
// A core's HBM bandwidth and capacity are not written here: they are the chip's figures from the device catalog
// (src/hw/devices.json.inc, the one place a chip-level number lives) over the chip's physical cores.
// Not here: any formula.
#include "neuron/isa/machine.h"

#include <algorithm>

#include "base/error.h"
#include "hw/catalog.h"

namespace nanotrn::neuron {
namespace {

constexpr double kKiB = 1024.0;

// Sets the core's HBM bandwidth (B/ns) and capacity to its chip's catalog figures divided by the chip's cores.
void set_hbm_share(NeuronCoreSpec& s, const hw::Catalog& catalog, const std::string& chip) {
  const hw::Device& d = catalog.find(chip);
  const double cores = static_cast<double>(d.physical_cores_per_chip());
  const std::string per_core = " / " + std::to_string(d.physical_cores_per_chip()) + " cores: ";
  const hw::Number& bw = d.number("hbm_bytes_per_s_per_chip");
  const hw::Number& bytes = d.number("hbm_bytes_per_chip");
  s.hbm_share_bytes_per_ns = {bw.value / 1e9 / cores,
                              "[derived] catalog " + chip + ".hbm_bytes_per_s_per_chip" + per_core + bw.source};
  s.hbm_bytes = {bytes.value / cores, "[derived] catalog " + chip + ".hbm_bytes_per_chip" + per_core + bytes.source};
}

NeuronCoreSpec common(std::string name, std::string generation) {
  NeuronCoreSpec s;
  s.name = std::move(name);
  s.generation = std::move(generation);
  s.partitions = {128, "[NKI-A2] [TILESZ] pmax = 128"};
  s.psum_bytes_per_partition = {16 * kKiB, "[NKI-A2] 2 MiB PSUM = 128 partitions x 8 banks x 2 KiB"};
  s.psum_bank_bytes = {2 * kKiB, "[NKI-A2] [TILESZ] psum_bank_fmax = 512 fp32"};
  s.pe_rows = {128, "[NKI-A2] 128x128 systolic array"};
  s.pe_cols = {128, "[NKI-A2] 128x128 systolic array"};
  s.matmul_max_k = {128, "[ISA] partition (K) of stationary and moving <= 128"};
  s.matmul_max_stationary_free = {128, "[ISA] [TILESZ] gemm_stationary_fmax = 128"};
  s.matmul_max_moving_free = {512, "[ISA] [TILESZ] gemm_moving_fmax = 512 (one 2 KiB PSUM bank of fp32)"};
  s.matmul_min_ii_cycles = {64, "[ISA-2025-10] cost = max(min(64, N_stationary), N_moving)"};
  s.matmul_fp32_factor = {4, "[ISA-2025-10] [NKI-A2] fp32 inputs cost about 4x"};
  s.min_ii_cycles = {64, "[ISA-2025-10] MIN_II ~ 64"};
  s.gpsimd_startup_cycles = {150, "[ISA-2025-10] iota / affine_select = 150 + N GpSimd cycles"};
  s.sync_overhead_cycles = {100,
                            "[NKI-A2] [PERF] ~100 engine cycles static overhead for serially dependent "
                            "instructions; assumed: charged once per cross-engine wait"};
  s.dma_engines = {16, "[DMAOV] [DMABW] 16 DMA engines per core"};
  s.dma_fixed_latency_ns = {1300,
                            "[DMABW] ~1,300 ns descriptor/sync/semaphore fixed cost per transfer (hwdge on v3+ "
                            "may be ~600 ns [DGE]; the larger documented figure is used)"};
  s.load_stationary_speedup = {4,
                               "[NKI-A2] [PERF] fast LoadStationary: up to 4x faster than a MultiplyMoving of the "
                               "same free size (128 -> 32 cycles)"};
  s.tensor_throttle_ramp_ns = {3000, "[EXPL-SUM] [EXPL-GLOSS] ramps to full over about 3 us"};
  s.tensor_throttle_idle_ns = {1500,
                               "assumed: [EXPL-SUM] re-engages when utilisation < 50 % over a ~3 us window; an idle "
                               "gap of half that window is taken as the trigger"};
  s.dma_descriptor_overhead_bytes = {256,
                                     "assumed: efficiency b / (b + 256) per contiguous buffer of b bytes = 50 % at "
                                     "256 B, 89 % at 2 KiB, 94 % at 4 KiB, fitted to [DMABW] [DMAOV] (< 256 B "
                                     "overhead-bound, >= 2 KiB minimum, >= 4 KiB saturates)"};
  s.dma_queues = {16, "[DMAOV] queues 0-15; assumed: the model offers 16 independent in-order queues per core"};
  return s;
}

std::vector<NeuronCoreSpec> make_specs() {
  const hw::Catalog catalog = hw::builtin_catalog();
  std::vector<NeuronCoreSpec> out;
  {
    NeuronCoreSpec s = common("v2", "NeuronCore-v2 (Trn1)");
    s.sbuf_bytes_per_partition = {192 * kKiB, "[NKI-A2] 24 MiB SBUF / 128 partitions"};
    s.tensor_clock_ghz = {2.8, "[NKI-A2]"};
    s.fp8_double_row_speedup = {1, "[NKI-A2] cFP8 at BF16 rate on v2"};
    s.mx_speedup = {1, "[ISA] nc_matmul_mx is v4-only (1: no MX rate)"};
    s.tensor_throttle_start = {1, "assumed: no throttling; none documented for Trn1 (hardware-facts §9)"};
    s.max_physical_cores = {1, "[LNC] LNC applies to Trn2 and later"};
    s.vector_clock_ghz = {1.12, "[NKI-A2]"};
    s.scalar_clock_ghz = {1.4, "[NKI-A2]"};
    s.gpsimd_clock_ghz = {1.4, "[NKI-A2]"};
    s.vector_perf_mode_speedup = {1, "[NKI-A2] Vector data path 128 elements/cycle: no performance mode"};
    s.vector_perf_mode_fp8_speedup = {1, "[NKI-A2] no performance mode"};
    s.dma_engine_bytes_per_ns = {17,
                                 "[DMAOV] [DMABW] table: 17 B/ns per engine (text says 27.2 GB/s; hardware-facts §10)"};
    set_hbm_share(s, catalog, "trn1");
    out.push_back(s);
  }
  {
    NeuronCoreSpec s = common("v3", "NeuronCore-v3 (Trn2)");
    s.sbuf_bytes_per_partition = {224 * kKiB, "[NKI-A3] 28 MiB SBUF / 128 partitions"};
    s.tensor_clock_ghz = {2.4, "[NKI-A3]"};
    s.fp8_double_row_speedup = {2, "[NKI-A3] [NC3] fp8 double-row: 158 vs 79 TFLOPS"};
    s.mx_speedup = {1, "[ISA] nc_matmul_mx is v4-only (1: no MX rate)"};
    s.tensor_throttle_start = {0.5, "[EXPL-SUM] [EXPL-GLOSS] after idle TensorE starts at about 50 % utilisation"};
    s.max_physical_cores = {
        2, "[LNC] [LNC-NKI] LNC=2: a kernel launched on 2 cores, a core pair sharing one 24 GB HBM bank"};
    s.vector_clock_ghz = {0.96, "[NKI-A3]"};
    s.scalar_clock_ghz = {1.2, "[NKI-A3]"};
    s.gpsimd_clock_ghz = {1.2, "[NKI-A3]"};
    s.vector_perf_mode_speedup = {4,
                                  "[NKI-A3] performance mode: tensor_copy / tensor_scalar 4x for BF16/FP16 SBUF in and "
                                  "out at unit stride, 2x non-contiguous or one side in PSUM (Vector data path 512 "
                                  "elements/cycle for BF16/FP16)"};
    s.vector_perf_mode_fp8_speedup = {1, "[NKI-A3] the performance mode names BF16/FP16 only"};
    s.dma_engine_bytes_per_ns = {23, "[DMAOV] [DMABW] table: 23 B/ns per engine (matches 32 KiB in 1,416 ns)"};
    set_hbm_share(s, catalog, "trn2");  // 12 GiB: half of a core pair's 24 GB bank [LNC]
    out.push_back(s);
  }
  {
    NeuronCoreSpec s = common("v4", "NeuronCore-v4 (Trn3)");
    s.sbuf_bytes_per_partition = {256 * kKiB, "[NKI-A4] 32 MiB SBUF / 128 partitions"};
    s.tensor_clock_ghz = {2.4, "[NKI-A4]"};
    s.fp8_double_row_speedup = {2, "[ISA] double-row fp8 still supported on v4"};
    s.mx_speedup = {4, "[NKI-A4] [NC4] MXFP8/MXFP4 at 4x BF16 (315 TFLOPS): a 4K contraction in the cycles of K"};
    s.tensor_throttle_start = {0.5, "[EXPL-SUM] [EXPL-GLOSS] same as Trn2"};
    s.max_physical_cores = {2, "[LNC] LNC=2 on Trn2 and later; assumed: a core pair shares HBM as on Trn2"};
    s.vector_clock_ghz = {1.2, "[NKI-A4]"};
    s.scalar_clock_ghz = {1.2, "[NKI-A4]"};
    s.gpsimd_clock_ghz = {1.2, "[NKI-A4]"};
    s.vector_perf_mode_speedup = {4,
                                  "[NKI-A4] Vector data path 512 elements/cycle for BF16/FP16/FP8 (as v3's performance "
                                  "mode [NKI-A3]; assumed: the same 4x / 2x rules)"};
    s.vector_perf_mode_fp8_speedup = {4, "[NKI-A4] the 512 elements/cycle data path includes FP8"};
    s.dma_engine_bytes_per_ns = {33, "[DMAOV] [DMABW] table: 33 B/ns per engine"};
    set_hbm_share(s, catalog, "trn3");
    out.push_back(s);
  }
  return out;
}

}  // namespace

double NeuronCoreSpec::dma_total_bytes_per_ns() const {
  return std::min(dma_engines.value * dma_engine_bytes_per_ns.value, hbm_share_bytes_per_ns.value);
}

std::vector<std::pair<std::string, const Param*>> NeuronCoreSpec::params() const {
  return {{"partitions", &partitions},
          {"sbuf_bytes_per_partition", &sbuf_bytes_per_partition},
          {"psum_bytes_per_partition", &psum_bytes_per_partition},
          {"psum_bank_bytes", &psum_bank_bytes},
          {"tensor_clock_ghz", &tensor_clock_ghz},
          {"pe_rows", &pe_rows},
          {"pe_cols", &pe_cols},
          {"matmul_max_k", &matmul_max_k},
          {"matmul_max_stationary_free", &matmul_max_stationary_free},
          {"matmul_max_moving_free", &matmul_max_moving_free},
          {"matmul_min_ii_cycles", &matmul_min_ii_cycles},
          {"matmul_fp32_factor", &matmul_fp32_factor},
          {"fp8_double_row_speedup", &fp8_double_row_speedup},
          {"mx_speedup", &mx_speedup},
          {"load_stationary_speedup", &load_stationary_speedup},
          {"tensor_throttle_start", &tensor_throttle_start},
          {"tensor_throttle_ramp_ns", &tensor_throttle_ramp_ns},
          {"tensor_throttle_idle_ns", &tensor_throttle_idle_ns},
          {"vector_clock_ghz", &vector_clock_ghz},
          {"scalar_clock_ghz", &scalar_clock_ghz},
          {"gpsimd_clock_ghz", &gpsimd_clock_ghz},
          {"min_ii_cycles", &min_ii_cycles},
          {"gpsimd_startup_cycles", &gpsimd_startup_cycles},
          {"sync_overhead_cycles", &sync_overhead_cycles},
          {"vector_perf_mode_speedup", &vector_perf_mode_speedup},
          {"vector_perf_mode_fp8_speedup", &vector_perf_mode_fp8_speedup},
          {"dma_engines", &dma_engines},
          {"dma_engine_bytes_per_ns", &dma_engine_bytes_per_ns},
          {"dma_fixed_latency_ns", &dma_fixed_latency_ns},
          {"dma_descriptor_overhead_bytes", &dma_descriptor_overhead_bytes},
          {"hbm_share_bytes_per_ns", &hbm_share_bytes_per_ns},
          {"dma_queues", &dma_queues},
          {"hbm_bytes", &hbm_bytes},
          {"max_physical_cores", &max_physical_cores}};
}

const NeuronCoreSpec& spec_for(std::string_view name) {
  static const std::vector<NeuronCoreSpec> specs = make_specs();  // immutable after first use
  for (const NeuronCoreSpec& s : specs)
    if (s.name == name) return s;
  // A Trainium device's name: its generation as the device catalog states it (the one chip-to-core map).
  static const hw::Catalog catalog = hw::builtin_catalog();  // immutable after first use
  for (const hw::Device& d : catalog.devices())
    if (d.kind == hw::DeviceKind::trainium && d.name == name) return spec_for(d.neuron_core);
  std::string known;
  for (const NeuronCoreSpec& s : specs) known += (known.empty() ? "" : ", ") + s.name;
  for (const hw::Device& d : catalog.devices())
    if (d.kind == hw::DeviceKind::trainium) known += ", " + d.name + " (" + d.neuron_core + ")";
  throw Error("unknown NeuronCore generation '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace nanotrn::neuron
