// Tests of neuron/kernels/matmul.h: both schedules compute C = A_T^T B within the fp32-accumulation bound of an
// fp64 product of the bf16-rounded inputs (ragged tile edges included), agree bit for bit with each other, the
// naive schedule never overlaps two instructions, and the pipelined one is faster; timing only at v3 4096^3 bf16:
// pipelined >= 85 % of TensorE peak, naive stalled on DMA (also in the report's stall sums). The K-blocked plans
// (sbuf and psum accumulators; bf16, fp32, fp8 double-row) on ragged data, `pipelined` choosing one when SBUF is
// short, and at deep K (v2, K = 8192): operands read only as often as the blocking requires, near the I/O lower
// bound, and >= 85 % of TensorE peak. Not here: rule errors of the builder.
#include "neuron/kernels/matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/error.h"
#include "dtype/convert.h"
#include "neuron/sim/executor.h"
#include "neuron/sim/report.h"
#include "neuron/sim/timing.h"

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

// Timing only (no functional execution): the v3 4096^3 bf16 matmul. Peak = the timing model's own matmul rate,
// 2 x 128 x 128 flops per TensorE cycle (a [128,128]x[128,512] bf16 matmul costs 512 cycles).
TEST(NeuronMatmulKernel, PipelinedReachesTensorPeakNaiveStallsOnDma) {
  const NeuronCoreSpec& s = spec_for("v3");
  const int64_t m = 4096, k = 4096, n = 4096;
  const double flops = 2.0 * m * n * k;
  const double peak_flops_per_ns = 2.0 * s.pe_rows.value * s.pe_cols.value * s.tensor_clock_ghz.value;
  auto build = [&](MatmulSchedule sched) {
    KernelBuilder b(s);
    View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
    matmul_kernel(b, at, bm, c, DType::bf16, sched);
    return b.take();
  };
  const Program pp = build(MatmulSchedule::pipelined), pn = build(MatmulSchedule::naive);
  const TimingResult tp = simulate_timing(pp, s), tn = simulate_timing(pn, s);
  const double frac_p = flops / tp.total_ns / peak_flops_per_ns, frac_n = flops / tn.total_ns / peak_flops_per_ns;
  std::printf("v3 4096^3 bf16: pipelined %.1f us (%.1f%% of peak), naive %.1f us (%.1f%%)\n", tp.total_ns / 1e3,
              100 * frac_p, tn.total_ns / 1e3, 100 * frac_n);
  EXPECT_GE(frac_p, 0.85);
  // Same matmuls, but naive's each start after TensorE idled: exposed LoadStationary and a throttled (50 %)
  // TensorE [EXPL-SUM] make its Tensor track busier; it still idles most of the time.
  EXPECT_GT(tn.tracks[0].busy_ns, 1.9 * tp.tracks[0].busy_ns);
  EXPECT_LT(tn.tracks[0].busy_ns / tn.total_ns, 0.3);
  // Naive's matmul stalls are caused by DMA loads, and they add up to most of its time.
  double dma_stall = 0;
  for (size_t i = 0; i < pn.instructions.size(); ++i) {
    const InstructionTiming& t = tn.instructions[i];
    if (pn.instructions[i].op != Opcode::matmul || t.blocked_by < 0) continue;
    EXPECT_EQ(pn.instructions[static_cast<size_t>(t.blocked_by)].op, Opcode::dma_copy) << i;
    dma_stall += t.stall_ns;
  }
  EXPECT_GT(dma_stall, 0.5 * tn.total_ns);
  // The report says the same: all of TensorE's stall time is waiting on DMA q0.
  const Report rep = make_report(pn, tn, s);
  size_t tensor_sums = 0;
  for (const StallSum& sum : rep.stall_sums) {
    if (sum.track != "Tensor") continue;
    ++tensor_sums;
    EXPECT_EQ(sum.cause_track, "DMA q0");
    EXPECT_NEAR(sum.stall_ns, dma_stall, 1e-6 * dma_stall);
  }
  EXPECT_EQ(tensor_sums, 1u);
}

TEST(NeuronMatmulKernel, RejectsMismatchedShapes) {
  KernelBuilder b(spec_for("v3"));
  View at = b.hbm("a_t", 128, 64, DType::f32), bm = b.hbm("b", 96, 64, DType::f32), c = b.hbm("c", 64, 64, DType::f32);
  EXPECT_THROW(matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::naive), Error);
}

// ---- The K-blocked plans (deep K) ----

using MatmulCall = std::function<void(KernelBuilder&, const View&, const View&, const View&)>;

// C = A_T^T B through each of `kernels` on `s` (HBM inputs fp32, cast to `compute` by the loads), checked against
// fp64 host math on the rounded inputs within the fp32-accumulation bound (K + 2) 2^-24 sum_k |a b|.
void expect_matches_host(const NeuronCoreSpec& s, int64_t m, int64_t k, int64_t n, DType compute,
                         const std::vector<MatmulCall>& kernels, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> va(static_cast<size_t>(k * m)), vb(static_cast<size_t>(k * n));
  for (float& x : va) x = d(g);
  for (float& x : vb) x = d(g);
  std::vector<double> ref(static_cast<size_t>(m * n)), mag(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk) {
      const double a = round_to(compute, va[static_cast<size_t>(kk * m + i)]);
      for (int64_t j = 0; j < n; ++j) {
        const double prod = a * round_to(compute, vb[static_cast<size_t>(kk * n + j)]);
        ref[static_cast<size_t>(i * n + j)] += prod;
        mag[static_cast<size_t>(i * n + j)] += std::fabs(prod);
      }
    }
  const double gamma = static_cast<double>(k + 2) * std::ldexp(1.0, -24);
  for (size_t run = 0; run < kernels.size(); ++run) {
    KernelBuilder b(s);
    View at = b.hbm("a_t", k, m, DType::f32), bm = b.hbm("b", k, n, DType::f32), c = b.hbm("c", m, n, DType::f32);
    kernels[run](b, at, bm, c);
    const Program p = b.take();
    Executor ex(p);
    ex.set(at, va);
    ex.set(bm, vb);
    ex.run();
    const std::vector<float> got = ex.get(c);
    for (size_t e = 0; e < got.size(); ++e)
      ASSERT_LE(std::fabs(got[e] - ref[e]), gamma * mag[e]) << "kernel " << run << " element " << e;
  }
}

MatmulCall forced(const MatmulBlocking& blk, DType compute) {
  return [blk, compute](KernelBuilder& b, const View& at, const View& bm, const View& c) {
    matmul_kernel_blocked(b, at, bm, c, compute, blk);
  };
}

// Ragged M, N and K for the K-blocked plans: 2 M tiles (128 + 8), 2 N tiles (512 + 8), K = 392 (the last K block
// short, its last tile 8 rows).
constexpr int64_t kM = 136, kK = 392, kN = 520;

// bf16 on v3: SBUF accumulator with one and several output tiles per block, PSUM accumulator.
TEST(NeuronMatmulKernel, KBlockedPlansMatchTheReference) {
  using A = MatmulAccumulate;
  expect_matches_host(spec_for("v3"), kM, kK, kN, DType::bf16,
                      {forced({A::sbuf, 128, 512, 256}, DType::bf16), forced({A::sbuf, 256, 1024, 384}, DType::bf16),
                       forced({A::psum, 256, 1024, 256}, DType::bf16)},
                      1);
}

// fp32 inputs on v2 (4x slower matmuls, one K tile per block), fp8 double-row on v3 in both accumulators.
TEST(NeuronMatmulKernel, KBlockedFp32AndFp8DoubleRowMatchTheReference) {
  using A = MatmulAccumulate;
  expect_matches_host(spec_for("v2"), kM, kK, kN, DType::f32, {forced({A::sbuf, 128, 512, 128}, DType::f32)}, 2);
  expect_matches_host(
      spec_for("v3"), kM, kK, kN, DType::f8e4m3,
      {forced({A::sbuf, 256, 512, 256}, DType::f8e4m3), forced({A::psum, 128, 1024, 256}, DType::f8e4m3)}, 3);
  // ... and the fp8 plans do pair full K tiles into double-row matmuls.
  KernelBuilder b(spec_for("v3"));
  View at = b.hbm("a_t", kK, kM, DType::f32), bm = b.hbm("b", kK, kN, DType::f32), c = b.hbm("c", kM, kN, DType::f32);
  matmul_kernel_blocked(b, at, bm, c, DType::f8e4m3, {A::sbuf, 256, 512, 256});
  size_t pairs = 0;
  for (const Instruction& ins : b.program().instructions) pairs += ins.double_row ? 1 : 0;
  EXPECT_EQ(pairs, 2u * 2u);  // 2 M tiles x 2 N tiles x one pair (K blocks 256 and 128 + 8: the second unpaired)
}

// `pipelined` plans by SBUF capacity: with a 24 KiB SBUF the resident A block no longer fits at K = 520, so it
// K-blocks on its own (and still computes the product).
TEST(NeuronMatmulKernel, PipelinedKBlocksWhenSbufIsShort) {
  NeuronCoreSpec small = spec_for("v3");
  small.sbuf_bytes_per_partition.value = 24 * 1024;
  const int64_t m = kM, k = 520, n = kN;
  EXPECT_EQ(plan_matmul(spec_for("v3"), m, k, n, DType::f32, DType::bf16).mode, MatmulAccumulate::resident_k);
  const MatmulBlocking blk = plan_matmul(small, m, k, n, DType::f32, DType::bf16);
  EXPECT_NE(blk.mode, MatmulAccumulate::resident_k);
  EXPECT_LT(blk.k_rows, k);
  expect_matches_host(small, m, k, n, DType::bf16,
                      {[](KernelBuilder& b, const View& at, const View& bm, const View& c) {
                        matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::pipelined);
                      }},
                      4);
  // A blocking that does not fit, or breaks the rules, is refused with the rule's name before anything is issued.
  KernelBuilder b(small);
  View at = b.hbm("a_t", k, m, DType::f32), bm = b.hbm("b", k, n, DType::f32), c = b.hbm("c", m, n, DType::f32);
  auto message = [&](const MatmulBlocking& bad) -> std::string {
    try {
      matmul_kernel_blocked(b, at, bm, c, DType::bf16, bad);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(message({MatmulAccumulate::sbuf, 256, 1024, 1024}).find("[sbuf-capacity]"), std::string::npos);
  EXPECT_NE(message({MatmulAccumulate::psum, 512, 1536, 128}).find("[shape]"), std::string::npos);  // 12 banks
  EXPECT_NE(message({MatmulAccumulate::sbuf, 128, 384, 128}).find("[shape]"), std::string::npos);   // N not x512
  EXPECT_TRUE(b.program().instructions.empty());
}

// HBM bytes each dma_copy reads from (or writes to) `hbm`.
double dma_bytes_of(const Program& p, const View& hbm) {
  double bytes = 0;
  for (const Instruction& ins : p.instructions) {
    if (ins.op != Opcode::dma_copy) continue;
    for (const View& v : {ins.dst, ins.srcs.at(0)})
      if (v.buffer == hbm.buffer)
        bytes += static_cast<double>(v.np * v.nf) *
                 static_cast<double>(dtype_size(p.buffers[static_cast<size_t>(v.buffer)].dtype));
  }
  return bytes;
}

// The NKI tutorial's shape on a Trn1 core (program only, not timed): each operand is read only as often as the
// plan's blocks of the other require, the loads stay within 4x the I/O lower bound of a matmul through a fast
// memory of the SBUF's size (2 M N K / sqrt(SBUF elements), Hong-Kung / Smith et al.), C is written once, and
// at the core's DMA bandwidth all of it needs well under the TensorE time, so the DMA cannot bind.
TEST(NeuronMatmulKernel, DeepKReadsOperandsNearTheMinimum) {
  const NeuronCoreSpec& s = spec_for("v2");
  const int64_t m = 4096, k = 8192, n = 8192;
  const MatmulBlocking blk = plan_matmul(s, m, k, n, DType::bf16, DType::bf16);
  ASSERT_NE(blk.mode, MatmulAccumulate::resident_k);
  KernelBuilder b(s);
  View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
  matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::pipelined);
  const Program p = b.take();
  const double a_once = 2.0 * k * m, b_once = 2.0 * k * n, c_once = 4.0 * m * n;
  const double a_reads = dma_bytes_of(p, at) / a_once, b_reads = dma_bytes_of(p, bm) / b_once;
  std::printf("v2 %lldx%lldx%lld bf16: blocks m %lld n %lld k %lld; A read %.0fx, B %.0fx\n", (long long)m,
              (long long)k, (long long)n, (long long)blk.m_cols, (long long)blk.n_cols, (long long)blk.k_rows, a_reads,
              b_reads);
  EXPECT_EQ(a_reads, static_cast<double>(ceil_div(n, blk.n_cols)));
  EXPECT_EQ(b_reads, static_cast<double>(ceil_div(m, blk.m_cols)));
  EXPECT_EQ(dma_bytes_of(p, c), c_once);
  const double sbuf_elems = s.sbuf_bytes_per_partition.value * s.partitions.value / 2;
  const double io_bound = 2.0 * m * n * k / std::sqrt(sbuf_elems);
  EXPECT_LT((a_reads * a_once + b_reads * b_once) / 2, 4 * io_bound);
  double tensor_ns = 0;  // every matmul here is a full [128,128] x [128,512]: 512 cycles
  for (const Instruction& ins : p.instructions)
    if (ins.op == Opcode::matmul) tensor_ns += 512 / s.tensor_clock_ghz.value;
  EXPECT_LT((a_reads * a_once + b_reads * b_once + c_once) / s.dma_total_bytes_per_ns(), 0.75 * tensor_ns);
}

// Timed: a deep-K matmul on v2 (K = 8192, where the resident schedule's A block shrank to 128 columns) runs at
// >= 85 % of the TensorE peak, and the plan's estimate agrees with the simulation within 10 %.
TEST(NeuronMatmulKernel, DeepKReachesTensorPeak) {
  const NeuronCoreSpec& s = spec_for("v2");
  const int64_t m = 1024, k = 8192, n = 2048;
  KernelBuilder b(s);
  View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
  matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::pipelined);
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s);
  const double peak_flops_per_ns = 2.0 * s.pe_rows.value * s.pe_cols.value * s.tensor_clock_ghz.value;
  const double frac = 2.0 * m * n * k / t.total_ns / peak_flops_per_ns;
  const MatmulBlocking blk = plan_matmul(s, m, k, n, DType::bf16, DType::bf16);
  const MatmulEstimate e = estimate_matmul(s, m, k, n, DType::bf16, DType::bf16, blk);
  const double estimate = std::max({e.tensor_ns, e.dma_ns, e.vector_ns}) + e.fill_ns;
  std::printf("v2 %lldx%lldx%lld bf16: %.1f us (%.1f%% of peak), estimate %.1f us\n", (long long)m, (long long)k,
              (long long)n, t.total_ns / 1e3, 100 * frac, estimate / 1e3);
  EXPECT_NE(blk.mode, MatmulAccumulate::resident_k);
  EXPECT_GE(frac, 0.85);
  EXPECT_NEAR(t.total_ns / estimate, 1.0, 0.1);
}

}  // namespace
}  // namespace nanotrn::neuron
