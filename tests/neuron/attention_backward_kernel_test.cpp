// Tests of the flash-attention backward tile kernel (neuron/kernels/attention_backward.h): dq, dk, dv against the
// fp64 chain rule (ref/attention_ref.h) within the derived bound of registry/attention_backward_check.h, for each mask
// and both schedules, stacked heads and an SPMD pair; that the bound is not vacuous (a log-sum-exp off by 5 % of e
// fails it); the two schedules agree bit for bit; the HBM traffic is the nine operands once each (nothing T x T);
// masked tiles are skipped; bad shapes are refused naming the calling line.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>

#include "base/error.h"
#include "neuron/hbm_traffic.h"
#include "neuron/isa/builder.h"
#include "neuron/kernels/attention_backward.h"
#include "neuron/registry/kernel_run.h"
#include "neuron/sim/executor.h"

namespace nanotrn::neuron {
namespace {

KernelRunOptions backward(int64_t heads, int64_t seq, int64_t d, Schedule sched, AttentionVariant var = {}) {
  KernelRunOptions o = kernel_options("attention", AttentionShape{});
  o.kernel = "attention_bwd";
  shape_of<AttentionShape>(o).heads = heads;
  shape_of<AttentionShape>(o).seq = seq;
  shape_of<AttentionShape>(o).head_dim = d;
  o.dtype = DType::bf16;
  o.core = "v3";
  o.schedule = sched;
  shape_of<AttentionShape>(o).variant = var;
  return o;
}

// Builds the kernel for `o` on one core, runs the executor on `inputs` and returns dq, dk, dv.
std::vector<std::vector<float>> run_backward(const KernelRunOptions& o, const std::vector<std::vector<float>>& inputs,
                                             Program* program = nullptr) {
  KernelBuilder b(spec_for(o.core));
  const int64_t rows = shape_of<AttentionShape>(o).heads * shape_of<AttentionShape>(o).seq,
                d = shape_of<AttentionShape>(o).head_dim;
  std::vector<View> in;
  for (const char* name : {"q", "k", "v", "o", "dout"}) in.push_back(b.hbm(name, rows, d, o.dtype));
  in.push_back(b.hbm("lse", rows, 1, DType::f32));
  const View dq = b.hbm("dq", rows, d, o.dtype), dk = b.hbm("dk", rows, d, o.dtype), dv = b.hbm("dv", rows, d, o.dtype);
  attention_backward_kernel(
      b, {.q = in[0], .k = in[1], .v = in[2], .o = in[3], .dout = in[4], .lse = in[5], .dq = dq, .dk = dk, .dv = dv},
      shape_of<AttentionShape>(o).heads, shape_of<AttentionShape>(o).variant, o.schedule);
  const Program p = b.take();
  Executor ex(p, 1);
  for (size_t i = 0; i < in.size(); ++i) ex.set(in[i], inputs[i]);
  ex.run();
  if (program) *program = p;
  return {ex.get(dq), ex.get(dk), ex.get(dv)};
}

TEST(AttentionBackwardKernel, MatchesFp64ChainRuleWithinItsBoundForEveryMask) {
  for (const AttentionVariant& var :
       {AttentionVariant{AttentionMask::causal, 0}, AttentionVariant{AttentionMask::none, 0},
        AttentionVariant{AttentionMask::sliding_window, 160}})
    for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
      KernelRunOptions o = backward(1, 384, 64, sched, var);
      o.check = true;
      o.seed = 7;
      const KernelRunResult r = run_kernel(o);
      SCOPED_TRACE(var.describe() + " " + schedule_name(sched));
      EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
      EXPECT_GT(r.max_abs_error, 0.0);  // bf16 P and dS: not exact
      EXPECT_LT(r.max_abs_error, 0.02);
      EXPECT_LT(r.max_abs_error, r.error_bound);
    }
}

TEST(AttentionBackwardKernel, StackedHeadsOnOneCoreSplitOverAnSpmdPairAndWideHeads) {
  KernelRunOptions o = backward(2, 256, 128, Schedule::pipelined);
  o.check = true;
  const KernelRunResult one = run_kernel(o);
  EXPECT_TRUE(one.check_passed) << one.failures << " failures";
  o.physical_cores = 2;
  const KernelRunResult pair = run_kernel(o);
  EXPECT_TRUE(pair.check_passed) << pair.failures << " failures";
  EXPECT_EQ(pair.report.cores, 2u);
  EXPECT_LT(pair.report.total_ns, one.report.total_ns);
  KernelRunOptions wide = backward(1, 128, 256, Schedule::pipelined);  // d = 256: two contraction tiles
  wide.check = true;
  const KernelRunResult w = run_kernel(wide);
  EXPECT_TRUE(w.check_passed) << w.failures << " failures, max error " << w.max_abs_error;
}

TEST(AttentionBackwardKernel, TheBoundCatchesAWrongLogSumExp) {
  KernelRunOptions o = backward(1, 256, 64, Schedule::pipelined);
  std::vector<std::vector<float>> inputs = check_inputs(o);
  const CheckOutcome right = check_outputs(o, inputs, run_backward(o, inputs));
  EXPECT_EQ(right.failures, 0u);
  std::vector<std::vector<float>> shifted = inputs;
  for (float& l : shifted[5]) l += 0.05f;  // P scaled by exp(-0.05): a 5 % error, ~12 bf16 ulps
  const CheckOutcome wrong = check_outputs(o, inputs, run_backward(o, shifted));
  EXPECT_GT(wrong.failures, 0u);
}

TEST(AttentionBackwardKernel, SchedulesAgreeBitForBit) {
  const AttentionVariant window{AttentionMask::sliding_window, 200};
  const KernelRunOptions n = backward(2, 256, 64, Schedule::naive, window);
  const KernelRunOptions p = backward(2, 256, 64, Schedule::pipelined, window);
  const std::vector<std::vector<float>> inputs = check_inputs(n);
  EXPECT_EQ(run_backward(n, inputs), run_backward(p, inputs));
}

TEST(AttentionBackwardKernel, HbmTrafficIsTheOperandsOnceNothingTByT) {
  const int64_t heads = 2, seq = 1024, d = 128;
  for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
    KernelBuilder b(spec_for("v3"));
    const int64_t rows = heads * seq;
    auto t = [&](const char* name) { return b.hbm(name, rows, d, DType::bf16); };
    const View q = t("q"), k = t("k"), v = t("v"), o = t("o"), dout = t("dout");
    const View lse = b.hbm("lse", rows, 1, DType::f32);
    const View dq = t("dq"), dk = t("dk"), dv = t("dv");
    attention_backward_kernel(b,
                              {.q = q, .k = k, .v = v, .o = o, .dout = dout, .lse = lse, .dq = dq, .dk = dk, .dv = dv},
                              heads, {AttentionMask::causal, 0}, sched);
    const HbmTraffic h = hbm_traffic(b.program());
    EXPECT_EQ(h.tensors, 9u);                                                  // no scratch tensor in HBM
    EXPECT_EQ(h.stored_to, (std::set<int>{dq.buffer, dk.buffer, dv.buffer}));  // only the gradients are written
    // q, k, v, o, dO read once and lse once; dq, dk, dv written once.
    EXPECT_EQ(h.loaded, 5 * rows * d + rows) << schedule_name(sched);
    EXPECT_EQ(h.stored, 3 * rows * d) << schedule_name(sched);
  }
}

TEST(AttentionBackwardKernel, PipelinedBeatsNaiveAndMaskedTilesAreSkipped) {
  const KernelRunResult n = run_kernel(backward(2, 1024, 128, Schedule::naive));
  const KernelRunResult p = run_kernel(backward(2, 1024, 128, Schedule::pipelined));
  const KernelRunResult dense = run_kernel(backward(2, 1024, 128, Schedule::pipelined, {AttentionMask::none, 0}));
  const KernelRunResult window =
      run_kernel(backward(2, 1024, 128, Schedule::pipelined, {AttentionMask::sliding_window, 128}));
  std::printf(
      "attention_bwd 2 x T 1024 x d 128 bf16 v3: naive %.1f us, pipelined %.1f us (%.1f %% of peak); dense "
      "%.1f us, window 128 %.1f us\n",
      n.report.total_ns / 1e3, p.report.total_ns / 1e3, 100 * p.report.peak_fraction, dense.report.total_ns / 1e3,
      window.report.total_ns / 1e3);
  EXPECT_LT(p.report.total_ns, 0.5 * n.report.total_ns);
  // 8 query tiles: causal visits 36 tile pairs, dense 64, a 128-key window 15 (the diagonal and the one below it).
  EXPECT_GT(dense.report.instructions, p.report.instructions);
  EXPECT_LT(window.report.instructions, 0.7 * static_cast<double>(p.report.instructions));
  EXPECT_LT(window.report.total_ns, p.report.total_ns);
  EXPECT_LT(p.report.total_ns, dense.report.total_ns);
  EXPECT_DOUBLE_EQ(p.report.flops, 2.5 * (4 * 128 + 2) * 2 * (1024.0 * 1025 / 2));  // attention-gym's convention
}

TEST(AttentionBackwardKernel, RefusesBadShapesNamingTheCallingLine) {
  KernelBuilder b(spec_for("v3"));
  auto t = [&](const char* name, int64_t rows, int64_t d) { return b.hbm(name, rows, d, DType::bf16); };
  const View x = t("x", 256, 192), l = b.hbm("l", 256, 1, DType::f32);
  const int line = __LINE__ + 2;
  try {
    attention_backward_kernel(b, {x, x, x, x, x, l, x, x, x}, 1, {}, Schedule::pipelined);
    FAIL() << "d = 192 accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("attention_backward_kernel_test.cpp:" + std::to_string(line)), std::string::npos) << what;
    EXPECT_NE(what.find("[shape]"), std::string::npos) << what;
    EXPECT_NE(what.find("d = 192"), std::string::npos) << what;
  }
  const View y = t("y", 200, 64), ly = b.hbm("ly", 200, 1, DType::f32);
  EXPECT_THROW(attention_backward_kernel(b, {y, y, y, y, y, ly, y, y, y}, 1, {}, Schedule::pipelined), Error);
  const View z = t("z", 256, 64), lz = b.hbm("lz", 256, 1, DType::f32);
  EXPECT_THROW(attention_backward_kernel(b, {z, z, z, z, z, lz, z, z, z}, 1, {AttentionMask::sliding_window, 0},
                                         Schedule::pipelined),
               Error);  // a window of 0
  EXPECT_THROW(attention_backward_kernel(b, {z, z, z, z, z, z, z, z, z}, 1, {}, Schedule::pipelined),
               Error);  // lse [T, d]
}

TEST(AttentionMask, TileCutsMatchThePairRule) {
  for (const AttentionVariant& var :
       {AttentionVariant{AttentionMask::causal, 0}, AttentionVariant{AttentionMask::none, 0},
        AttentionVariant{AttentionMask::sliding_window, 100}})
    for (int64_t q0 = 0; q0 < 512; q0 += 128)
      for (int64_t k0 = 0; k0 < 512; k0 += 128) {
        int64_t seen = 0;
        for (int64_t t = q0; t < q0 + 128; ++t)
          for (int64_t s = k0; s < k0 + 128; ++s) seen += var.visible(t, s);
        const TileCut c = var.tile(q0, k0, 128, 128);
        EXPECT_EQ(c.any, seen > 0) << var.describe() << " " << q0 << " " << k0;
        EXPECT_EQ(c.all, seen == 128 * 128) << var.describe() << " " << q0 << " " << k0;
      }
  for (const AttentionVariant& var :
       {AttentionVariant{AttentionMask::causal, 0}, AttentionVariant{AttentionMask::sliding_window, 100}}) {
    double pairs = 0;
    for (int64_t t = 0; t < 512; ++t)
      for (int64_t s = 0; s < 512; ++s) pairs += var.visible(t, s);
    EXPECT_DOUBLE_EQ(var.pairs(512), pairs) << var.describe();
  }
  EXPECT_EQ(parse_attention_mask("dense"), AttentionMask::none);
  EXPECT_THROW(parse_attention_mask("diagonal"), Error);
}

}  // namespace
}  // namespace nanotrn::neuron
