// What binds a kernel (hw/bound.h): on kernels whose bound is known by construction, timed on the software
// NeuronCore (a large square bf16 matmul does 2MNK FLOPs on 3 x 4096^2 elements, far above the ridge: TensorE; a
// transpose moves bytes and does no arithmetic: DMA; a row softmax is exp / sum / scale passes over SBUF tiles:
// VectorE or ScalarE), and the rules themselves (threshold, DMA by bandwidth, the ridge point).
#include <cmath>
#include <type_traits>

#include <gtest/gtest.h>

#include "base/error.h"
#include "hw/bound.h"
#include "neuron/isa/machine.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::hw {
namespace {

TEST(Bound, LargeSquareMatmulIsTensorEBound) {
  const neuron::Report r = neuron::time_kernel("matmul", neuron::MatmulShape{4096, 4096, 4096}, DType::bf16, "v3");
  const BoundVerdict v = neuron::bound_verdict(r);
  EXPECT_EQ(v.bound, Engine::tensor) << v.verdict;
  // intensity is FLOPs over the bytes the kernel's DMAs actually move: never above 2 * 4096^3 FLOPs over the minimum
  // traffic (each bf16 input read once, the fp32 output written once), and re-reads keep it within 4x of that
  const double best = 2.0 * 4096.0 * 4096 * 4096 / (4096.0 * 4096 * (2 + 2 + 4));
  EXPECT_LE(v.intensity, best * (1 + 1e-12));
  EXPECT_GT(v.intensity, best / 4);
  EXPECT_GT(v.intensity, v.ridge);
  const neuron::NeuronCoreSpec& s = neuron::spec_for("v3");
  EXPECT_NEAR(v.ridge,
              2.0 * s.pe_rows.value * s.pe_cols.value * s.tensor_clock_ghz.value * 1e9 / (r.dma_peak_gbps * 1e9),
              1e-9 * v.ridge);
  EXPECT_NE(v.verdict.find("TensorE-bound"), std::string::npos);
  EXPECT_NE(v.verdict.find("compute side"), std::string::npos);
}

TEST(Bound, LargeTransposeIsDmaBound) {
  const neuron::Report r = neuron::time_kernel("transpose", neuron::RowsShape{4096, 4096}, DType::bf16, "v3");
  const BoundVerdict v = neuron::bound_verdict(r);
  EXPECT_EQ(v.bound, Engine::dma) << v.verdict;
  EXPECT_EQ(v.intensity, 0.0);  // no arithmetic
  // DMA's utilisation is the achieved bandwidth's share of peak, which the report states independently
  EXPECT_NEAR(v.utilisation, r.dma_gbps / r.dma_peak_gbps, 1e-9);
  // ... while no single queue is half busy: the busiest queue would have called this stall-bound
  for (const neuron::TrackUse& t : r.tracks) {
    if (t.engine == neuron::Engine::dma) {
      EXPECT_LT(t.busy_fraction, kBoundThreshold) << t.name;
    }
  }
}

TEST(Bound, RowSoftmaxIsVectorOrScalarBound) {
  const neuron::Report r = neuron::time_kernel("softmax", neuron::RowsShape{4096, 4096}, DType::bf16, "v3");
  const BoundVerdict v = neuron::bound_verdict(r);
  EXPECT_TRUE(v.bound == Engine::vector || v.bound == Engine::scalar) << v.verdict;
  EXPECT_LT(v.intensity, v.ridge);
}

TEST(Bound, BelowTheThresholdIsStallBoundAndNamesTheBusiestEngine) {
  EngineUse u;
  u[Engine::tensor] = 0.3;
  u[Engine::vector] = 0.45;
  const BoundVerdict v = classify_bound(u, 1.0, 1e12, 1e9, 1e14, 1e11);
  EXPECT_FALSE(v.bound.has_value());
  EXPECT_EQ(bound_name(v), "stalls");
  EXPECT_EQ(v.busiest, Engine::vector);
  EXPECT_DOUBLE_EQ(v.utilisation, 0.45);
  EXPECT_DOUBLE_EQ(v.intensity, 1000.0);
  EXPECT_DOUBLE_EQ(v.ridge, 1000.0);
  EXPECT_NE(v.verdict.find("stall-bound"), std::string::npos);
  u[Engine::vector] = 0.5;  // exactly at the threshold: bound
  EXPECT_EQ(classify_bound(u, 1.0, 1e12, 1e9, 1e14, 1e11).bound, Engine::vector);
}

TEST(Bound, NoBytesIsInfiniteIntensityAndBadTimesAreErrors) {
  EngineUse u;
  u[Engine::tensor] = 1.0;
  EXPECT_TRUE(std::isinf(classify_bound(u, 1.0, 1e9, 0, 1e12, 1e9).intensity));
  EXPECT_TRUE(bound_json(classify_bound(u, 1.0, 1e9, 0, 1e12, 1e9))["intensity"].is_null());
  EXPECT_THROW(classify_bound(u, 0.0, 1, 1, 1, 1), Error);
  EXPECT_THROW(classify_bound(u, 1.0, 1, 1, 0, 1), Error);
}

TEST(Bound, TheSimulatorsEngineIsTheBoundVerdictsEngine) {
  // One enum (hw/engine.h): the program's engine is the verdict's, and the verdict's name extends the track's.
  static_assert(std::is_same_v<neuron::Engine, Engine>);
  for (int i = 0; i < kEngineCount; i++) {
    const Engine e = static_cast<Engine>(i);
    EXPECT_EQ(engine_name(e).substr(0, engine_track_name(e).size()), engine_track_name(e));  // TensorE for Tensor
  }
}

}  // namespace
}  // namespace nanotrn::hw
