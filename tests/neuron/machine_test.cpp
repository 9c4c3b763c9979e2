// Tests of neuron/machine.h: every number has a source, the values match the cited documents (docs/SOURCES.md; copied
// here by hand, not read from the table under test), and unknown generations are refused. Not here: how numbers
// are used, whether the tags resolve (tests/hw/sources_test.cpp).
#include "neuron/machine.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronMachine, EveryParamHasASourceAndAPositiveValue) {
  for (const char* name : {"v2", "v3", "v4"}) {
    const NeuronCoreSpec& s = spec_for(name);
    const auto params = s.params();
    EXPECT_EQ(params.size(), 34u);
    for (const auto& [key, p] : params) {
      EXPECT_GT(p->value, 0) << name << "." << key;
      const bool cited = !p->source.empty() && (p->source[0] == '[' || p->source.rfind("assumed", 0) == 0);
      EXPECT_TRUE(cited) << name << "." << key << " source '" << p->source << "'";
    }
  }
}

TEST(NeuronMachine, ValuesMatchTheFactSheet) {
  const NeuronCoreSpec& v2 = spec_for("trn1");
  const NeuronCoreSpec& v3 = spec_for("trn2");
  const NeuronCoreSpec& v4 = spec_for("v4");
  EXPECT_EQ(v2.name, "v2");
  EXPECT_EQ(v3.name, "v3");
  EXPECT_DOUBLE_EQ(v2.sbuf_bytes_per_partition.value * 128, 24.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(v3.sbuf_bytes_per_partition.value * 128, 28.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(v4.sbuf_bytes_per_partition.value * 128, 32.0 * 1024 * 1024);
  for (const NeuronCoreSpec* s : {&v2, &v3, &v4}) {
    EXPECT_DOUBLE_EQ(s->psum_bytes_per_partition.value * 128, 2.0 * 1024 * 1024);
    EXPECT_DOUBLE_EQ(s->psum_bank_bytes.value, 2048);
    EXPECT_DOUBLE_EQ(s->partitions.value, 128);
    EXPECT_DOUBLE_EQ(s->matmul_max_moving_free.value, 512);
  }
  EXPECT_DOUBLE_EQ(v2.tensor_clock_ghz.value, 2.8);
  EXPECT_DOUBLE_EQ(v3.tensor_clock_ghz.value, 2.4);
  EXPECT_DOUBLE_EQ(v3.vector_clock_ghz.value, 0.96);
  EXPECT_DOUBLE_EQ(v4.vector_clock_ghz.value, 1.2);
  // [derived] 2 x 128 x 128 x 2.4 GHz = 78.6 TFLOPS per core on v3.
  EXPECT_NEAR(2 * v3.pe_rows.value * v3.pe_cols.value * v3.tensor_clock_ghz.value / 1e3, 78.6, 0.1);
  // DMA pool: min(16 x 23 B/ns, 2900/8 B/ns) = 362.5 B/ns on v3.
  EXPECT_DOUBLE_EQ(v3.dma_total_bytes_per_ns(), 362.5);
  EXPECT_DOUBLE_EQ(v4.dma_total_bytes_per_ns(), 16 * 33.0);
  // [EXPL-SUM] TensorE throttling on Trn2/Trn3 only: 50 % after idle, full after ~3 us.
  EXPECT_DOUBLE_EQ(v2.tensor_throttle_start.value, 1.0);
  for (const NeuronCoreSpec* s : {&v3, &v4}) {
    EXPECT_DOUBLE_EQ(s->tensor_throttle_start.value, 0.5);
    EXPECT_DOUBLE_EQ(s->tensor_throttle_ramp_ns.value, 3000);
    EXPECT_DOUBLE_EQ(s->max_physical_cores.value, 2);  // [LNC] LNC=2
    EXPECT_DOUBLE_EQ(s->fp8_double_row_speedup.value, 2);
  }
  EXPECT_DOUBLE_EQ(v2.max_physical_cores.value, 1);
  // [NKI-A3] VectorE performance mode 4x (BF16/FP16); [NKI-A4] FP8 too; none on v2 (128 elements/cycle).
  EXPECT_DOUBLE_EQ(v2.vector_perf_mode_speedup.value, 1);
  EXPECT_DOUBLE_EQ(v3.vector_perf_mode_speedup.value, 4);
  EXPECT_DOUBLE_EQ(v3.vector_perf_mode_fp8_speedup.value, 1);
  EXPECT_DOUBLE_EQ(v4.vector_perf_mode_fp8_speedup.value, 4);
  EXPECT_DOUBLE_EQ(v4.mx_speedup.value, 4);               // [NC4] 315 TFLOPS MX per core
  EXPECT_DOUBLE_EQ(v3.load_stationary_speedup.value, 4);  // [NKI-A2] fast LS: 128 -> 32 cycles
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
