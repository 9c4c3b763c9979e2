// The logit softcap in the attention tile kernels (attention_mask.h: scores c tanh(scale q.k / c), before ALiBi and
// the mask): forward and backward against fp64 (ref/attention_ref.h applies the cap) within their derived bounds for
// every mask, alone and with ALiBi and GQA (pipelined; naive on the causal mask); the bounds refuse a kernel checked as
// if its cap were another or absent; a cap far above every score changes nothing beyond bf16 rounding; bad caps are
// refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "base/error.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::neuron {
namespace {

KernelRunOptions capped(const std::string& kernel, AttentionMask m, float cap, bool alibi, int64_t group, Schedule s) {
  AttentionShape shape{
      .seq = 256, .head_dim = 64, .heads = 4, .variant = {m, m == AttentionMask::sliding_window ? 100 : 0}};
  shape.variant.softcap = cap;
  shape.variant.group = group;
  if (alibi) shape.variant.alibi_slopes = standard_alibi_slopes(4);
  KernelRunOptions o = kernel_options(kernel, shape);
  o.schedule = s;
  o.check = true;
  o.seed = 5;
  return o;
}

TEST(AttentionSoftcap, ForwardAndBackwardMatchFp64WithinTheirBounds) {
  for (const char* kernel : {"attention", "attention_bwd"})
    for (AttentionMask m : {AttentionMask::causal, AttentionMask::none, AttentionMask::sliding_window})
      for (const auto& [alibi, group] : {std::pair{false, 1}, std::pair{true, 2}})
        for (Schedule s : {Schedule::naive, Schedule::pipelined}) {
          if (s == Schedule::naive && m != AttentionMask::causal) continue;  // naive: once per kernel and combination
          const KernelRunOptions o = capped(kernel, m, 2.0f, alibi, group, s);
          SCOPED_TRACE(std::string(kernel) + " " + shape_of<AttentionShape>(o).variant.describe() + " " +
                       schedule_name(s));
          const KernelRunResult r = run_kernel(o);
          EXPECT_TRUE(r.check_passed) << r.failures << " failures, max error " << r.max_abs_error;
          EXPECT_GT(r.max_abs_error, 0.0);
        }
}

// Scores reach |scale q.k| ~ 2 here, so a cap of 2 bends them hard: checked as if the cap were 4 or absent (inputs,
// o and lse of that other variant; the kernel's outputs with its own cap), both must fail.
TEST(AttentionSoftcap, TheChecksSeeTheCap) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    const KernelRunOptions with = capped(kernel, AttentionMask::none, 2.0f, false, 1, Schedule::naive);
    KernelRunOptions wider = with, none = with;
    shape_of<AttentionShape>(wider).variant.softcap = 4.0f;
    shape_of<AttentionShape>(none).variant.softcap = 0.0f;
    for (const KernelRunOptions* other : {&wider, &none}) {
      const HostTensors inputs = check_inputs(*other);
      const CheckOutcome c = check_outputs(*other, inputs, run_kernel_outputs(with, inputs));
      EXPECT_GT(c.failures, 0u) << kernel << " checked as " << shape_of<AttentionShape>(*other).variant.describe();
    }
    const HostTensors inputs = check_inputs(with);
    EXPECT_EQ(check_outputs(with, inputs, run_kernel_outputs(with, inputs)).failures, 0u) << kernel;
  }
}

// c tanh(x / c) = x (1 - x^2 / (3 c^2) + ...): with c = 1e4 and |x| <= 4 the cap moves a score by < 3e-8 relative,
// far below bf16's 2^-8, so the capped kernel's outputs equal the uncapped kernel's within two bf16 roundings.
TEST(AttentionSoftcap, AFarCapIsTheUncappedKernel) {
  for (const char* kernel : {"attention", "attention_bwd"}) {
    const KernelRunOptions far = capped(kernel, AttentionMask::causal, 1e4f, false, 1, Schedule::pipelined);
    KernelRunOptions plain = far;
    shape_of<AttentionShape>(plain).variant.softcap = 0.0f;
    const HostTensors inputs = check_inputs(plain);
    const HostTensors a = run_kernel_outputs(far, inputs), b = run_kernel_outputs(plain, inputs);
    ASSERT_EQ(a.size(), b.size());
    double worst = 0;
    for (size_t t = 0; t < a.size(); ++t)
      for (size_t i = 0; i < a[t].size(); ++i) {
        const double scale = std::max(std::fabs(static_cast<double>(b[t][i])), 1e-2);
        worst = std::max(worst, std::fabs(static_cast<double>(a[t][i]) - b[t][i]) / scale);
      }
    EXPECT_LE(worst, 2 * std::ldexp(1.0, -8)) << kernel;
  }
}

TEST(AttentionSoftcap, BadCapsAreRefusedByName) {
  for (float bad : {-1.0f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    AttentionVariant v;
    v.softcap = bad;
    try {
      check_attention_variant(v, 1);
      ADD_FAILURE() << "softcap " << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("softcap"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace nanotrn::neuron
