// The fast executor path against the reference path (neuron/sim/executor.h): every shipped tile kernel, in both
// schedules and in the dtypes it takes, gives the same bits in every HBM tensor on both paths; so do a stochastic-
// rounding program, an fp8 double-row matmul, instructions whose destination overlaps a source (which must fall back
// to the reference order) and the errors an uninitialised read raises.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "base/error.h"
#include "neuron/isa/builder.h"
#include "neuron/isa/machine.h"
#include "neuron/kernels/attention.h"
#include "neuron/kernels/attention_backward.h"
#include "neuron/kernels/matmul.h"
#include "neuron/kernels/rmsnorm.h"
#include "neuron/kernels/softmax.h"
#include "neuron/kernels/transpose.h"
#include "neuron/kernels/vector_add.h"
#include "neuron/sim/executor.h"
#include "support/release_only.h"

namespace nanotrn::neuron {
namespace {

View whole(const Program& p, size_t i) { return View{static_cast<int>(i), 0, p.buffers[i].rows, 0, p.buffers[i].cols}; }

// Builds a program with `kernel`, fills every HBM tensor the kernel reads (all but `outputs`, the last declared)
// with seeded values in [-1, 1), runs it on both paths and expects every HBM tensor bit for bit equal.
void expect_same_bits(const std::string& what, const char* core, const std::function<void(KernelBuilder&)>& kernel,
                      size_t outputs) {
  SCOPED_TRACE(what);
  KernelBuilder b(spec_for(core));
  kernel(b);
  const Program p = b.take();
  std::vector<size_t> hbm;
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].memory == Memory::hbm) hbm.push_back(i);
  ASSERT_GT(hbm.size(), outputs);
  Executor fast(p, 3, ExecutorMode::fast), ref(p, 3, ExecutorMode::reference);
  std::mt19937 g(11);
  std::uniform_real_distribution<float> u(-1, 1);
  for (size_t n = 0; n + outputs < hbm.size(); ++n) {
    const View v = whole(p, hbm[n]);
    std::vector<float> x(static_cast<size_t>(v.np * v.nf));
    for (float& e : x) e = u(g);
    fast.set(v, x);
    ref.set(v, x);
  }
  fast.run();
  ref.run();
  for (size_t n = hbm.size() - outputs; n < hbm.size(); ++n) {
    const std::vector<float> a = fast.get(whole(p, hbm[n])), r = ref.get(whole(p, hbm[n]));
    ASSERT_EQ(a.size(), r.size());
    EXPECT_EQ(std::memcmp(a.data(), r.data(), a.size() * sizeof(float)), 0) << p.buffers[hbm[n]].name;
  }
}

// Shapes that cross every tile edge: the matmul contracts over K in 128-row tiles and splits N into 512-column
// banks (M 200 and N 600 leave tails), the forward attention's columns are two heads of T 512 (four 128-row tiles
// each; the sliding window of 150 crosses tile edges). Under the sanitizers (-O1, ASan + UBSan) this test took 40 s
// on a 2-core Zen 3, most of it the reference path through the matmuls and the attentions; there K is 256 (still
// accumulating over tiles), N 520 (a tail of 8 after the first bank) and the heads T 256 (two tiles each).
constexpr int kMatmulK = testing_support::kSanitized ? 256 : 384;
constexpr int kMatmulN = testing_support::kSanitized ? 520 : 600;
constexpr int kAttentionColumns = testing_support::kSanitized ? 512 : 1024;

TEST(ExecutorFast, EveryShippedKernelGivesTheReferenceBits) {
  for (Schedule s : {Schedule::naive, Schedule::pipelined}) {
    const std::string sched = schedule_name(s);
    for (DType t : {DType::bf16, DType::f32})
      expect_same_bits(
          "matmul " + std::string(dtype_name(t)) + " " + sched, "v3",
          [&](KernelBuilder& b) {
            const View a = b.hbm("a_t", kMatmulK, 200, t), x = b.hbm("b", kMatmulK, kMatmulN, t);
            const View c = b.hbm("c", 200, kMatmulN, DType::f32);
            matmul_kernel(b, a, x, c, t, s);
          },
          1);
    expect_same_bits(
        "matmul fp8 double-row " + sched, "v3",
        [&](KernelBuilder& b) {
          const View a = b.hbm("a_t", 256, 128, DType::f8e4m3), x = b.hbm("b", 256, 256, DType::f8e4m3);
          matmul_kernel(b, a, x, b.hbm("c", 128, 256, DType::f32), DType::f8e4m3, s);
        },
        1);
    expect_same_bits(
        "transpose " + sched, "v3",
        [&](KernelBuilder& b) {
          const View x = b.hbm("x", 200, 300, DType::bf16);  // declared first: an input
          transpose_kernel(b, x, b.hbm("y", 300, 200, DType::bf16), s);
        },
        1);
    expect_same_bits(
        "softmax " + sched, "v2",
        [&](KernelBuilder& b) {
          const View x = b.hbm("x", 200, 300, DType::bf16);
          softmax_kernel(b, x, b.hbm("y", 200, 300, DType::bf16), s);
        },
        1);
    expect_same_bits(
        "rmsnorm " + sched, "v3",
        [&](KernelBuilder& b) {
          const View x = b.hbm("x", 200, 300, DType::f32), g = b.hbm("gamma", 1, 300, DType::f32);
          rmsnorm_kernel(b, x, g, b.hbm("y", 200, 300, DType::f32), 1e-6f, s);
        },
        1);
    for (const AddTile tile : {AddTile{.rows = 128, .cols = 1}, AddTile{.rows = 128, .cols = 64}})
      expect_same_bits(
          "vector_add " + sched, "v3",
          [&](KernelBuilder& b) {
            const View a = b.hbm("a", 256, 128, DType::f32), x = b.hbm("b", 256, 128, DType::f32);
            vector_add_kernel(b, a, x, b.hbm("out", 256, 128, DType::f32), tile, s);
          },
          1);
    for (const AttentionVariant& var :
         {AttentionVariant{AttentionMask::causal, 0}, AttentionVariant{AttentionMask::sliding_window, 150}})
      expect_same_bits(
          "attention " + var.describe() + " " + sched, "v3",
          [&](KernelBuilder& b) {
            const View q = b.hbm("q_t", 64, kAttentionColumns, DType::bf16),
                       k = b.hbm("k_t", 64, kAttentionColumns, DType::bf16);
            const View v = b.hbm("v", kAttentionColumns, 64, DType::bf16);
            attention_kernel(b, q, k, v, b.hbm("o", kAttentionColumns, 64, DType::bf16), 2, var, s);
          },
          1);
    for (const AttentionVariant& var :
         {AttentionVariant{AttentionMask::causal, 0}, AttentionVariant{AttentionMask::sliding_window, 150}})
      expect_same_bits(
          "attention_bwd " + var.describe() + " " + sched, "v3",
          [&](KernelBuilder& b) {
            auto t = [&](const char* n) { return b.hbm(n, 512, 64, DType::bf16); };
            const View q = t("q"), k = t("k"), v = t("v"), o = t("o"), dy = t("dout");
            const View lse = b.hbm("lse", 512, 1, DType::f32);
            const View dq = t("dq"), dk = t("dk"), dv = t("dv");
            attention_backward_kernel(b, {q, k, v, o, dy, lse, dq, dk, dv}, 2, var, s);
          },
          3);
  }
}

TEST(ExecutorFast, StochasticRoundingAndOverlappingOperandsGiveTheReferenceBits) {
  expect_same_bits(
      "stochastic rounding", "v3",
      [](KernelBuilder& b) {
        const View x = b.hbm("x", 128, 256, DType::f32), y = b.hbm("y", 128, 256, DType::bf16);
        const View t = b.sbuf("t", 128, 256, DType::f32), r = b.sbuf("r", 128, 256, DType::bf16);
        b.dma_copy(t, x);
        b.set_rounding(Rounding::stochastic);
        b.activation(r, t, Act::exp, 0.5f, 0.0f);
        b.dma_copy(y, r);
      },
      1);
  expect_same_bits(
      "overlapping operands", "v3",
      [](KernelBuilder& b) {
        const View x = b.hbm("x", 64, 64, DType::f32), y = b.hbm("y", 64, 64, DType::f32);
        const View t = b.sbuf("t", 64, 64, DType::f32);
        b.dma_copy(t, x);
        // Column 0 is the per-partition operand of the op writing it: the reference reads it anew for every column.
        b.tensor_scalar(t, t, AluOp::add, b.slice(t, 0, 64, 0, 1));
        // A shifted in-place add: each element reads one the same instruction wrote a column before.
        b.tensor_tensor(b.slice(t, 0, 64, 1, 63), b.slice(t, 0, 64, 0, 63), b.slice(t, 0, 64, 1, 63), AluOp::add);
        b.reduce(b.slice(t, 0, 64, 0, 1), t, AluOp::max);
        b.dma_copy(y, t);
      },
      1);
}

TEST(ExecutorFast, UninitialisedReadsAreRefusedOnBothPaths) {
  KernelBuilder b(spec_for("v3"));
  const View a = b.hbm("a", 128, 128, DType::bf16);
  const View ta = b.sbuf("ta", 128, 128, DType::bf16), tx = b.sbuf("tx", 128, 128, DType::bf16);
  const View acc = b.psum("acc", 128, 128, DType::f32);
  b.dma_copy(ta, a);
  b.matmul(acc, ta, tx);  // tx never loaded
  const Program p = b.take();
  for (ExecutorMode mode : {ExecutorMode::fast, ExecutorMode::reference}) {
    Executor ex(p, 0, mode);
    ex.set(a, std::vector<float>(128 * 128, 1.0f));
    try {
      ex.run();
      ADD_FAILURE() << "an unwritten tile was read";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("[uninitialized-read]"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("'tx'"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace nanotrn::neuron
