// Tests of the fused causal attention tile kernel (neuron/kernels/attention.h): functional results against fp64
// host math (the bound of registry/attention_entry.cpp) on random data, both schedules, a stack of heads on one core
// and split over an SPMD pair, d = 256 (two contraction tiles); the causal property (changing future keys and values
// leaves earlier outputs bit for bit unchanged); a bad shape rejected naming the calling line; that the scores never
// touch HBM (the only DMA traffic is q, k, v in and o out); and that the pipelined schedule beats the naive one.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <set>
#include <string>

#include "base/error.h"
#include "neuron/hbm_traffic.h"
#include "neuron/isa/builder.h"
#include "neuron/kernels/attention.h"
#include "neuron/registry/kernel_run.h"
#include "neuron/sim/executor.h"

namespace nanotrn::neuron {
namespace {

KernelRunOptions attention(int64_t heads, int64_t seq, int64_t d, Schedule sched) {
  KernelRunOptions o = kernel_options("attention", AttentionShape{});
  o.kernel = "attention";
  shape_of<AttentionShape>(o).heads = heads;
  shape_of<AttentionShape>(o).seq = seq;
  shape_of<AttentionShape>(o).head_dim = d;
  o.dtype = DType::bf16;
  o.core = "v3";
  o.schedule = sched;
  return o;
}

TEST(AttentionKernel, MatchesHostMathWithinItsBound) {
  for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
    KernelRunOptions o = attention(1, 256, 64, sched);
    o.check = true;
    o.seed = 3;
    const KernelRunResult r = run_kernel(o);
    SCOPED_TRACE(schedule_name(sched));
    EXPECT_TRUE(r.checked);
    EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error << "; " << r.bound_rule;
    EXPECT_GT(r.max_abs_error, 0.0);  // bf16 probabilities: not exact
    EXPECT_LT(r.max_abs_error, 0.02);
  }
}

TEST(AttentionKernel, DenseAndSlidingWindowMatchHostMathWithinTheBound) {
  for (const AttentionVariant& var :
       {AttentionVariant{AttentionMask::none, 0}, AttentionVariant{AttentionMask::sliding_window, 1},
        AttentionVariant{AttentionMask::sliding_window, 200}, AttentionVariant{AttentionMask::sliding_window, 640}})
    for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
      KernelRunOptions o = attention(1, 768, 64, sched);
      shape_of<AttentionShape>(o).variant = var;
      o.check = true;
      const KernelRunResult r = run_kernel(o);
      SCOPED_TRACE(var.describe() + " " + schedule_name(sched));
      EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
    }
  // Fully masked chunks are skipped: a 128-key window visits 2 of the 8 chunks per query tile, dense all 8.
  const KernelRunResult causal = run_kernel(attention(2, 1024, 64, Schedule::pipelined));
  KernelRunOptions w = attention(2, 1024, 64, Schedule::pipelined), d = w;
  shape_of<AttentionShape>(w).variant = {AttentionMask::sliding_window, 128};
  shape_of<AttentionShape>(d).variant = {AttentionMask::none, 0};
  EXPECT_LT(run_kernel(w).report.total_ns, causal.report.total_ns);
  EXPECT_GT(run_kernel(d).report.total_ns, causal.report.total_ns);
}

TEST(AttentionKernel, StackedHeadsOneCoreAndSpmdPairAndWideHeads) {
  KernelRunOptions o = attention(2, 128, 32, Schedule::pipelined);
  o.check = true;
  const KernelRunResult one = run_kernel(o);
  EXPECT_TRUE(one.check_passed) << one.failures << " failures";
  o.physical_cores = 2;  // one head per core
  const KernelRunResult pair = run_kernel(o);
  EXPECT_TRUE(pair.check_passed) << pair.failures << " failures";
  EXPECT_EQ(pair.report.cores, 2u);
  KernelRunOptions wide = attention(1, 128, 256, Schedule::pipelined);  // d = 256: two contraction tiles
  wide.check = true;
  const KernelRunResult w = run_kernel(wide);
  EXPECT_TRUE(w.check_passed) << w.failures << " failures";
  shape_of<AttentionShape>(o).heads = 1;  // one head cannot be split over two cores
  EXPECT_THROW(run_kernel(o), Error);
}

// Runs the kernel on (q_t, k_t, v) for one head and returns o.
std::vector<float> run_attention(int64_t seq, int64_t d, const std::vector<float>& q_t, const std::vector<float>& k_t,
                                 const std::vector<float>& v) {
  KernelBuilder b(spec_for("v3"));
  const View qt = b.hbm("q_t", d, seq, DType::bf16), kt = b.hbm("k_t", d, seq, DType::bf16);
  const View vv = b.hbm("v", seq, d, DType::bf16), o = b.hbm("o", seq, d, DType::bf16);
  attention_kernel(b, qt, kt, vv, o, 1, Schedule::pipelined);
  const Program p = b.take();
  Executor ex(p, 1);
  ex.set(qt, q_t);
  ex.set(kt, k_t);
  ex.set(vv, v);
  ex.run();
  return ex.get(o);
}

TEST(AttentionKernel, FutureKeysAndValuesDoNotChangeEarlierOutputs) {
  const int64_t seq = 256, d = 32, cut = 200;  // cut inside the second query tile: its diagonal block is masked
  std::mt19937 g(5);
  std::uniform_real_distribution<float> u(-2, 2);
  std::vector<float> q(static_cast<size_t>(seq * d)), k(q.size()), v(q.size());
  for (auto* x : {&q, &k, &v})
    for (float& f : *x) f = u(g);
  const std::vector<float> before = run_attention(seq, d, q, k, v);
  for (int64_t j = cut; j < seq; ++j)
    for (int64_t i = 0; i < d; ++i) {
      k[static_cast<size_t>(i * seq + j)] = 50 * u(g);  // k_t [d, T]: column j is key j
      v[static_cast<size_t>(j * d + i)] = 50 * u(g);    // v [T, d]: row j
    }
  const std::vector<float> after = run_attention(seq, d, q, k, v);
  size_t changed_early = 0, changed_late = 0;
  for (int64_t t = 0; t < seq; ++t)
    for (int64_t i = 0; i < d; ++i) {
      const auto at = static_cast<size_t>(t * d + i);
      if (before[at] != after[at]) ++(t < cut ? changed_early : changed_late);
    }
  EXPECT_EQ(changed_early, 0u);
  EXPECT_GT(changed_late, 0u);  // the change is visible where it should be
}

TEST(AttentionKernel, RejectsTNotAMultipleOf128NamingTheCallingLine) {
  KernelBuilder b(spec_for("v3"));
  const View qt = b.hbm("q_t", 64, 200, DType::bf16), kt = b.hbm("k_t", 64, 200, DType::bf16);
  const View v = b.hbm("v", 200, 64, DType::bf16), o = b.hbm("o", 200, 64, DType::bf16);
  const int line = __LINE__ + 2;
  try {
    attention_kernel(b, qt, kt, v, o, 1, Schedule::pipelined);
    FAIL() << "T = 200 accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("attention_kernel_test.cpp:" + std::to_string(line)), std::string::npos) << what;
    EXPECT_NE(what.find("[shape]"), std::string::npos) << what;
    EXPECT_NE(what.find("T = 200"), std::string::npos) << what;
  }
  const View o2 = b.hbm("o2", 256, 48, DType::bf16), q2 = b.hbm("q2", 64, 256, DType::bf16);
  EXPECT_THROW(attention_kernel(b, q2, q2, o2, o2, 1, Schedule::pipelined), Error);  // v / o width != d
}

TEST(AttentionKernel, ScoresNeverTouchHbm) {
  const int64_t heads = 2, seq = 1024, d = 128;
  for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
    KernelBuilder b(spec_for("v3"));
    const View qt = b.hbm("q_t", d, heads * seq, DType::bf16), kt = b.hbm("k_t", d, heads * seq, DType::bf16);
    const View v = b.hbm("v", heads * seq, d, DType::bf16), o = b.hbm("o", heads * seq, d, DType::bf16);
    attention_kernel(b, qt, kt, v, o, heads, sched);
    const HbmTraffic h = hbm_traffic(b.program());
    EXPECT_EQ(h.tensors, 4u);                         // no scratch tensor in HBM
    EXPECT_EQ(h.stored_to, std::set<int>{o.buffer});  // the only tensor written is o
    // q, k and v read once, o written once: 4 heads T d elements, nothing of size T x T.
    EXPECT_EQ(h.loaded, 3 * heads * seq * d) << schedule_name(sched);
    EXPECT_EQ(h.stored, heads * seq * d) << schedule_name(sched);
  }
}

TEST(AttentionKernel, PipelinedBeatsNaiveAndSkipsMaskedBlocks) {
  const KernelRunResult n = run_kernel(attention(2, 1024, 128, Schedule::naive));
  const KernelRunResult p = run_kernel(attention(2, 1024, 128, Schedule::pipelined));
  std::printf("attention 2 x T 1024 x d 128 bf16 v3: naive %.1f us, pipelined %.1f us (%.1f %% of TensorE peak)\n",
              n.report.total_ns / 1e3, p.report.total_ns / 1e3, 100 * p.report.peak_fraction);
  EXPECT_LT(p.report.total_ns, 0.7 * n.report.total_ns);
  // FLOPs by attention-gym's convention: 4 d + 2 per visible (query, key) pair.
  EXPECT_DOUBLE_EQ(p.report.flops, 2 * (4.0 * 128 + 2) * (1024.0 * 1025 / 2));
  // Masked blocks are skipped: causal runs well under the instructions of dense (596 against 414 here).
  KernelRunOptions dense = attention(2, 1024, 128, Schedule::pipelined);
  shape_of<AttentionShape>(dense).variant.mask = AttentionMask::none;
  EXPECT_GT(static_cast<double>(run_kernel(dense).report.instructions),
            1.3 * static_cast<double>(p.report.instructions));
}

}  // namespace
}  // namespace nanotrn::neuron
