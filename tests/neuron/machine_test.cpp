// Tests of neuron/isa/machine.h: every number has a well-formed source whose tags resolve (tests/support/citation.h),
// every parameter of every generation equals the cited documents (docs/SOURCES.md; copied here by hand from the
// fact sheet, not read from the table under test), and unknown generations are refused. Not here: how numbers are
// used, the agreement with the device catalog (machine_catalog_test.cpp), repository-wide tags (sources_test.cpp).
#include "neuron/isa/machine.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>

#include "base/error.h"
#include "hw/catalog.h"
#include "support/citation.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronMachine, EveryParamHasAResolvingSourceAndAPositiveValue) {
  const hw::Catalog catalog = hw::builtin_catalog();
  for (const char* name : {"v2", "v3", "v4"}) {
    for (const auto& [key, p] : spec_for(name).params()) {
      EXPECT_GT(p->value, 0) << name << "." << key;
      EXPECT_EQ(testing_support::citation_problem(p->source, catalog.sources()), "") << name << "." << key;
    }
  }
}

constexpr double kKiB = 1024.0, kGiB = 1024.0 * 1024.0 * 1024.0;

// Every parameter of every generation, {v2 (Trn1), v3 (Trn2), v4 (Trn3)}, written from the documents (the
// hardware fact sheet's sections, summarised in docs/SOURCES.md; "assumed" where the table says so).
struct Expected {
  const char* name;
  double v2, v3, v4;
};
const Expected kExpected[] = {
    // §4.1 memories: 128 partitions; SBUF 24 / 28 / 32 MiB; PSUM 2 MiB = 8 banks x 2 KiB (512 fp32) per partition.
    {"partitions", 128, 128, 128},
    {"sbuf_bytes_per_partition", 192 * kKiB, 224 * kKiB, 256 * kKiB},
    {"psum_bytes_per_partition", 16 * kKiB, 16 * kKiB, 16 * kKiB},
    {"psum_bank_bytes", 2 * kKiB, 2 * kKiB, 2 * kKiB},
    // §3.2 TensorE 2.8 / 2.4 / 2.4 GHz; §3.3 128 x 128 PE array, K <= 128, stationary free <= 128, moving free
    // <= 512 (one fp32 PSUM bank).
    {"tensor_clock_ghz", 2.8, 2.4, 2.4},
    {"pe_rows", 128, 128, 128},
    {"pe_cols", 128, 128, 128},
    {"matmul_max_k", 128, 128, 128},
    {"matmul_max_stationary_free", 128, 128, 128},
    {"matmul_max_moving_free", 512, 512, 512},
    // §6.3 nc_matmul: max(min(64, N_stationary), N_moving) cycles, fp32 4x.
    {"matmul_min_ii_cycles", 64, 64, 64},
    {"matmul_fp32_factor", 4, 4, 4},
    // §1.1 per-core TensorE: FP8 at the BF16 rate on v2, 158 vs 79 TFLOPS on v3 (double row, kept on v4 [ISA]);
    // MX 315 vs 79 TFLOPS on v4 only.
    {"fp8_double_row_speedup", 1, 2, 2},
    {"mx_speedup", 1, 1, 4},
    // §3.3 / §9 fast LoadStationary: up to 4x faster than a MultiplyMoving of the same free size.
    {"load_stationary_speedup", 4, 4, 4},
    // §9 throttling: none documented on Trn1; 50 % after idle, full after ~3 us on Trn2 / Trn3; the idle trigger is
    // assumed as half of that window.
    {"tensor_throttle_start", 1, 0.5, 0.5},
    {"tensor_throttle_ramp_ns", 3000, 3000, 3000},
    {"tensor_throttle_idle_ns", 1500, 1500, 1500},
    // §3.2 engine clocks.
    {"vector_clock_ghz", 1.12, 0.96, 1.2},
    {"scalar_clock_ghz", 1.4, 1.2, 1.2},
    {"gpsimd_clock_ghz", 1.4, 1.2, 1.2},
    // §6.3 MIN_II ~ 64, iota / affine_select 150 + N; ~100 cycles static overhead of dependent instructions.
    {"min_ii_cycles", 64, 64, 64},
    {"gpsimd_startup_cycles", 150, 150, 150},
    {"sync_overhead_cycles", 100, 100, 100},
    // §9 Vector: 4 elements / partition / cycle for BF16/FP16 on v3, BF16/FP16/FP8 on v4; 1 on v2.
    {"vector_perf_mode_speedup", 1, 4, 4},
    {"vector_perf_mode_fp8_speedup", 1, 1, 4},
    // §5.1 DMA: 16 engines and queues 0-15 per core, table peak 17 / 23 / 33 B/ns per engine, ~1.3 us fixed cost;
    // per-descriptor overhead assumed 256 B (efficiency 50 % at 256 B, fitted to "< 256 B badly overhead-bound").
    {"dma_engines", 16, 16, 16},
    {"dma_engine_bytes_per_ns", 17, 23, 33},
    {"dma_fixed_latency_ns", 1300, 1300, 1300},
    {"dma_descriptor_overhead_bytes", 256, 256, 256},
    // §1.1 chip HBM 820 GiB/s over 2 cores, 2.9 TB/s and 4.9 TB/s over 8; §4.1 HBM share 16 / 12 / 18 GiB.
    {"hbm_share_bytes_per_ns", 820 * kGiB / 1e9 / 2, 2.9e12 / 1e9 / 8, 4.9e12 / 1e9 / 8},
    {"dma_queues", 16, 16, 16},
    {"hbm_bytes", 16 * kGiB, 12 * kGiB, 18 * kGiB},
    // §1.2 LNC: none on Trn1; a core pair (LNC=2) on Trn2 and later.
    {"max_physical_cores", 1, 2, 2},
};

TEST(NeuronMachine, EveryValueMatchesTheFactSheet) {
  for (int g = 0; g < 3; ++g) {
    const char* gen = g == 0 ? "v2" : g == 1 ? "v3" : "v4";
    const auto params = spec_for(gen).params();
    ASSERT_EQ(params.size(), std::size(kExpected)) << gen << ": a parameter was added or removed; pin it here";
    for (size_t i = 0; i < params.size(); ++i) {
      const Expected& e = kExpected[i];
      ASSERT_EQ(params[i].first, e.name) << gen;
      const double want = g == 0 ? e.v2 : g == 1 ? e.v3 : e.v4;
      EXPECT_NEAR(params[i].second->value, want, want * 1e-12) << gen << "." << e.name;
    }
  }
  EXPECT_EQ(spec_for("trn1").name, "v2");
  EXPECT_EQ(spec_for("trn2").name, "v3");
  EXPECT_EQ(spec_for("trn3").name, "v4");
  // Any Trainium device of the catalog, by the generation its entry names (the one chip-to-core map).
  EXPECT_EQ(spec_for("trn2-server").name, "v3");
  EXPECT_EQ(spec_for("trn3-ultraserver").name, "v4");
  try {
    spec_for("h100");
    ADD_FAILURE() << "h100 has no NeuronCore";
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("known: v2, v3, v4, trn1 (v2), trn2 (v3), trn3 (v4)"), std::string::npos) << e.message();
  }
}

TEST(NeuronMachine, DerivedRatesFollowTheFacts) {
  const NeuronCoreSpec& v3 = spec_for("v3");
  // [derived] 2 x 128 x 128 x 2.4 GHz = 78.6 TFLOPS per core on v3 (documented: 79).
  EXPECT_NEAR(2 * v3.pe_rows.value * v3.pe_cols.value * v3.tensor_clock_ghz.value / 1e3, 78.6, 0.1);
  // DMA pool: min(16 x per-engine peak, HBM share): v2 min(272, 440.2), v3 min(368, 362.5), v4 min(528, 612.5).
  EXPECT_DOUBLE_EQ(spec_for("v2").dma_total_bytes_per_ns(), 16 * 17.0);
  EXPECT_DOUBLE_EQ(v3.dma_total_bytes_per_ns(), 362.5);
  EXPECT_DOUBLE_EQ(spec_for("v4").dma_total_bytes_per_ns(), 16 * 33.0);
}

TEST(NeuronMachine, UnknownGenerationIsAnError) {
  try {
    spec_for("v9");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'v9'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nanotrn::neuron
