// Tests of neuron/kernels/matmul.h: both schedules compute C = A_T^T B within the fp32-accumulation bound of an
// fp64 product of the bf16-rounded inputs (ragged tile edges included), agree bit for bit with each other, the
// naive schedule never overlaps two instructions, and the pipelined one is faster. Not here: rule errors.
#include "neuron/kernels/matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "base/error.h"
#include "dtype/convert.h"
#include "neuron/executor.h"
#include "neuron/timing.h"

namespace nanotrn::neuron {
namespace {

struct KernelRun {
  std::vector<float> c;
  TimingResult timing;
};

KernelRun run_kernel(MatmulSchedule sched, int64_t m, int64_t k, int64_t n, const std::vector<float>& va,
                     const std::vector<float>& vb) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View at = b.hbm("a_t", k, m, DType::f32), bm = b.hbm("b", k, n, DType::f32), c = b.hbm("c", m, n, DType::f32);
  matmul_kernel(b, at, bm, c, DType::bf16, sched);
  const Program p = b.take();
  Executor ex(p);
  ex.set(at, va);
  ex.set(bm, vb);
  ex.run();
  return {ex.get(c), simulate_timing(p, s)};
}

TEST(NeuronMatmulKernel, BothSchedulesMatchTheReference) {
  const int64_t m = 200, k = 300, n = 600;  // ragged in every dimension
  std::mt19937 g(5);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> va(static_cast<size_t>(k * m)), vb(static_cast<size_t>(k * n));
  for (float& x : va) x = d(g);
  for (float& x : vb) x = d(g);
  const KernelRun naive = run_kernel(MatmulSchedule::naive, m, k, n, va, vb);
  const KernelRun piped = run_kernel(MatmulSchedule::pipelined, m, k, n, va, vb);
  EXPECT_EQ(naive.c, piped.c);
  const double gamma = (k + 1) * std::ldexp(1.0, -24);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double prod = double(round_to(DType::bf16, va[static_cast<size_t>(kk * m + i)])) *
                            round_to(DType::bf16, vb[static_cast<size_t>(kk * n + j)]);
        ref += prod;
        mag += std::fabs(prod);
      }
      ASSERT_LE(std::fabs(naive.c[static_cast<size_t>(i * n + j)] - ref), gamma * mag) << i << "," << j;
    }

  // Naive: no two instructions overlap in time.
  std::vector<std::pair<double, double>> spans;
  for (const auto& t : naive.timing.instructions) spans.emplace_back(t.start_ns, t.end_ns);
  std::sort(spans.begin(), spans.end());
  for (size_t i = 1; i < spans.size(); ++i) ASSERT_GE(spans[i].first, spans[i - 1].second - 1e-6) << i;
  // Pipelined overlaps DMA with compute: faster, and never below its busiest track.
  EXPECT_LT(piped.timing.total_ns, 0.8 * naive.timing.total_ns);
  double busiest = 0;
  for (const Track& t : piped.timing.tracks) busiest = std::max(busiest, t.busy_ns);
  EXPECT_GE(piped.timing.total_ns, busiest - 1e-6);
}

TEST(NeuronMatmulKernel, RejectsMismatchedShapes) {
  KernelBuilder b(spec_for("v3"));
  View at = b.hbm("a_t", 128, 64, DType::f32), bm = b.hbm("b", 96, 64, DType::f32), c = b.hbm("c", 64, 64, DType::f32);
  EXPECT_THROW(matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::naive), Error);
}

}  // namespace
}  // namespace nanotrn::neuron
