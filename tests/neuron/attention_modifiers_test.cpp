// ALiBi and grouped kv heads (GQA / MQA) in the attention tile kernels (kernels/attention.h forward,
// kernels/attention_backward.h backward, kernels/attention_alibi.h): both against fp64 within their derived bounds
// for every mask and both schedules, on one core and an SPMD pair; the checks have teeth (the kernel's ALiBi checked
// against other slopes, or its GQA output against the plain per-head answer, fails); heads that share a kv head get
// the same K and V (the sum of their dK / dV is what the kernel returns); a kv head is loaded once for its group;
// the slopes and groups are validated by name.
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "neuron/hbm_traffic.h"
#include "neuron/kernels/attention.h"
#include "neuron/kernels/attention_backward.h"
#include "neuron/registry/kernel_run.h"
#include "support/release_only.h"

namespace nanotrn::neuron {
namespace {

KernelRunOptions options(const std::string& kernel, int64_t heads, int64_t seq, AttentionVariant var, Schedule s) {
  KernelRunOptions o = kernel_options("attention", AttentionShape{});
  o.kernel = kernel;
  shape_of<AttentionShape>(o).heads = heads;
  shape_of<AttentionShape>(o).seq = seq;
  shape_of<AttentionShape>(o).head_dim = 64;
  shape_of<AttentionShape>(o).variant = std::move(var);
  o.schedule = s;
  o.check = true;
  o.seed = 3;
  return o;
}

AttentionVariant variant(AttentionMask m, int64_t window, bool alibi, int64_t group, int64_t heads) {
  AttentionVariant v{m, window};
  if (alibi) v.alibi_slopes = standard_alibi_slopes(heads);
  v.group = group;
  return v;
}

TEST(AttentionModifiers, ForwardAndBackwardMatchFp64WithinTheirBoundsForEveryMask) {
  NANOTRN_RELEASE_ONLY(
      "36 kernel checks, 85 s under the sanitizers; the other AttentionModifiers tests run the same masks there");
  for (const char* kernel : {"attention", "attention_bwd"})
    for (AttentionMask m : {AttentionMask::causal, AttentionMask::none, AttentionMask::sliding_window})
      for (const auto& [alibi, group] : {std::pair{true, 1}, std::pair{false, 2}, std::pair{true, 4}})
        for (Schedule s : {Schedule::naive, Schedule::pipelined}) {
          const AttentionVariant v = variant(m, m == AttentionMask::sliding_window ? 200 : 0, alibi, group, 4);
          const KernelRunResult r = run_kernel(options(kernel, 4, 384, v, s));
          SCOPED_TRACE(std::string(kernel) + " " + v.describe() + " " + schedule_name(s));
          EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
          EXPECT_GT(r.max_abs_error, 0.0);
          EXPECT_LT(r.max_abs_error, r.error_bound);
        }
}

TEST(AttentionModifiers, SpmdPairSplitsWholeKvGroups) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    KernelRunOptions o = options(kernel, 8, 256, variant(AttentionMask::causal, 0, true, 2, 8), Schedule::pipelined);
    o.physical_cores = 2;
    const KernelRunResult r = run_kernel(o);
    EXPECT_TRUE(r.check_passed) << kernel << ": " << r.failures << " failures";
  }
}

// The kernel with ALiBi, checked as if its slopes were halved or absent: the bounds must refuse both. (The
// backward's inputs o and lse come from the other variant's fp64 forward, so only the kernel's bias differs.)
TEST(AttentionModifiers, TheChecksSeeTheBias) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    const bool bwd = std::string(kernel) == "attention_bwd";
    KernelRunOptions with = options(kernel, 2, 256, variant(AttentionMask::none, 0, true, 1, 2), Schedule::naive);
    KernelRunOptions halved = with, none = with;
    for (float& s : shape_of<AttentionShape>(halved).variant.alibi_slopes) s *= 0.5f;
    shape_of<AttentionShape>(none).variant.alibi_slopes.clear();
    for (const KernelRunOptions* other : {&halved, &none}) {
      const auto inputs = bwd ? check_inputs(*other) : check_inputs(*other);
      const auto outs = run_kernel_outputs(with, inputs);
      const CheckOutcome c = bwd ? check_outputs(*other, inputs, outs) : check_outputs(*other, inputs, outs);
      EXPECT_GT(c.failures, 0u) << kernel << " checked as " << shape_of<AttentionShape>(*other).variant.describe();
      const CheckOutcome right =
          bwd ? check_outputs(with, check_inputs(with), run_kernel_outputs(with, check_inputs(with)))
              : check_outputs(with, inputs, outs);
      EXPECT_EQ(right.failures, 0u) << kernel;
    }
  }
}

// GQA: every query head of a group reads the same K and V, so the kernel with group g on kv inputs equals the plain
// kernel on the inputs with each kv head repeated g times (forward: bit for bit; backward: dq bit for bit, dk / dv
// the group's sum).
TEST(AttentionModifiers, GroupedHeadsEqualRepeatedKvHeads) {
  const int64_t heads = 4, group = 2, T = 256, d = 64, n = T * d;
  KernelRunOptions gqa =
      options("attention", heads, T, variant(AttentionMask::causal, 0, false, group, heads), Schedule::pipelined);
  gqa.check = false;
  KernelRunOptions mha = gqa;
  shape_of<AttentionShape>(mha).variant.group = 1;
  const auto in = check_inputs(gqa);  // q_t [d, heads T], k_t [d, kv T], v [kv T, d]
  std::vector<std::vector<float>> rep = {in[0], std::vector<float>(static_cast<size_t>(heads * n)),
                                         std::vector<float>(static_cast<size_t>(heads * n))};
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t i = 0; i < d; ++i) {
        const int64_t kv = h / group;
        rep[1][static_cast<size_t>(i * heads * T + h * T + t)] =
            in[1][static_cast<size_t>(i * heads / group * T + kv * T + t)];
        rep[2][static_cast<size_t>((h * T + t) * d + i)] = in[2][static_cast<size_t>((kv * T + t) * d + i)];
      }
  EXPECT_EQ(run_kernel_outputs(gqa, in)[0], run_kernel_outputs(mha, rep)[0]);

  KernelRunOptions bg = gqa, bm = mha;
  bg.kernel = bm.kernel = "attention_bwd";
  const auto bin = check_inputs(bg);  // q, k, v, o, dout, lse
  std::vector<std::vector<float>> brep = bin;
  for (size_t which : {size_t{1}, size_t{2}}) {
    brep[which].assign(static_cast<size_t>(heads * n), 0.0f);
    for (int64_t h = 0; h < heads; ++h)
      std::copy_n(bin[which].begin() + (h / group) * n, n, brep[which].begin() + h * n);
  }
  const auto g = run_kernel_outputs(bg, bin), m = run_kernel_outputs(bm, brep);
  EXPECT_EQ(g[0], m[0]);  // dq
  for (size_t which : {size_t{1}, size_t{2}})
    for (int64_t kv = 0; kv < heads / group; ++kv)
      for (int64_t i = 0; i < n; i += 97) {
        double sum = 0, mag = 0;
        for (int64_t r = 0; r < group; ++r) {
          const double part = m[which][static_cast<size_t>((kv * group + r) * n + i)];
          sum += part;
          mag += std::fabs(part);
        }
        // Each per-head part and the kernel's fp32 total are rounded to bf16 once (2^-9 relative each).
        const double got = g[which][static_cast<size_t>(kv * n + i)];
        EXPECT_NEAR(got, sum, std::ldexp(1.0, -8) * (mag + std::fabs(got)) + 1e-7);
      }
}

TEST(AttentionModifiers, AKvHeadIsLoadedOnceForItsGroup) {
  const int64_t heads = 8, T = 512, d = 128;
  for (int64_t group : {1, 4, 8}) {
    KernelBuilder b(spec_for("v3"));
    const View qt = b.hbm("q_t", d, heads * T, DType::bf16);
    const View kt = b.hbm("k_t", d, heads / group * T, DType::bf16);
    const View v = b.hbm("v", heads / group * T, d, DType::bf16);
    const View o = b.hbm("o", heads * T, d, DType::bf16);
    AttentionVariant var;
    var.group = group;
    attention_kernel(b, qt, kt, v, o, heads, var, Schedule::pipelined);
    const HbmTraffic t = hbm_traffic(b.take());
    EXPECT_EQ(t.loaded, heads * T * d + 2 * (heads / group) * T * d) << "group " << group;
    EXPECT_EQ(t.stored, heads * T * d);
  }
}

TEST(AttentionModifiers, BadSlopesAndGroupsAreRefusedByName) {
  KernelRunOptions o = options("attention", 4, 256, variant(AttentionMask::causal, 0, false, 3, 4), Schedule::naive);
  try {
    run_kernel(o);
    ADD_FAILURE() << "group 3 of 4 heads accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("multiple of the kv group (3)"), std::string::npos) << e.what();
  }
  shape_of<AttentionShape>(o).variant.group = 1;
  shape_of<AttentionShape>(o).variant.alibi_slopes = {0.5f, 0.25f};
  EXPECT_THROW(run_kernel(o), Error);  // 2 slopes for 4 heads
  shape_of<AttentionShape>(o).variant.alibi_slopes = {0.5f, -0.25f, 0.1f, 0.1f};
  EXPECT_THROW(run_kernel(o), Error);
}

}  // namespace
}  // namespace nanotrn::neuron
