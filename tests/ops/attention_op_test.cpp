// The attention op through the tape: every modifier's output and q/k/v gradients against the fp64 dense reference
// and its finite differences. (The raw kernels have their own, wider sweep in attention_kernels_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>

#include "ops/attention_kernels.h"
#include "ops/ops.h"
#include "ref/attention_ref.h"
#include "support/attention_spec.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::OpCase;

struct Case {
  const char* name;
  int64_t B, Tq, Tk, H, Hkv, D;
  ops::AttentionOptions opts;
  std::vector<int32_t> segments;  // [B, Tk] or empty
};

void run(const Case& cs) {
  OpCase c;
  c.name = cs.name;
  c.inputs = {{{cs.B, cs.Tq, cs.H, cs.D}}, {{cs.B, cs.Tk, cs.Hkv, cs.D}}, {{cs.B, cs.Tk, cs.Hkv, cs.D}}};
  ops::AttentionOptions o = cs.opts;
  if (!cs.segments.empty()) o.segment_ids = Tensor::from_ints({cs.B, cs.Tk}, cs.segments);
  c.host = [o](Ctx& ctx, const std::vector<Tensor>& in) { return ops::attention(ctx, in[0], in[1], in[2], o); };
  c.reference = [cs, o](const std::vector<RefTensor>& in) {
    AttentionMods m;
    m.causal = o.causal;
    m.window = o.window;
    m.softcap = o.softcap;
    m.scale = o.scale;
    m.alibi_slopes = o.alibi_slopes.empty() ? nullptr : o.alibi_slopes.data();
    m.segment_ids = cs.segments.empty() ? nullptr : cs.segments.data();
    RefTensor out;
    out.shape = {cs.B, cs.Tq, cs.H, cs.D};
    out.v = ref::attention_forward_ref(in[0].v, in[1].v, in[2].v, cs.B, cs.Tq, cs.Tk, cs.H, cs.Hkv, cs.D,
                                       testing_support::ref_spec(m, cs.H, cs.B, cs.Tk));
    return out;
  };
  c.fd_full_limit = 200;
  c.fd_samples = 40;
  testing::check_op(c);
}

TEST(AttentionOp, EveryModifierThroughTheTape) {
  ops::AttentionOptions causal;
  ops::AttentionOptions full;
  full.causal = false;
  ops::AttentionOptions window;
  window.window = 3;
  ops::AttentionOptions alibi;
  alibi.alibi_slopes = ops::alibi_slopes(4);
  ops::AttentionOptions capped;
  capped.softcap = 2.0f;
  ops::AttentionOptions all;
  all.window = 4;
  all.softcap = 3.0f;
  all.alibi_slopes = ops::alibi_slopes(4);
  run({"causal", 2, 7, 7, 2, 2, 8, causal, {}});
  run({"non-causal", 1, 6, 6, 2, 2, 8, full, {}});
  run({"sliding window 3", 1, 9, 9, 2, 2, 8, window, {}});
  run({"alibi", 1, 7, 7, 4, 4, 4, alibi, {}});
  run({"softcap 2", 1, 7, 7, 2, 2, 8, capped, {}});
  run({"document mask", 1, 8, 8, 2, 2, 4, causal, {0, 0, 0, 1, 1, 2, 2, 2}});
  run({"gqa 4q/2kv", 1, 6, 6, 4, 2, 4, causal, {}});
  run({"mqa 4q/1kv", 1, 6, 6, 4, 1, 4, causal, {}});
  run({"decode tq 2 of tk 7", 1, 2, 7, 2, 1, 8, causal, {}});
  run({"all modifiers", 1, 8, 8, 4, 2, 4, all, {0, 0, 0, 0, 1, 1, 1, 1}});
}

// Attention sinks (gpt-oss): a fourth input, the sink logit per query head, which the fp64 reference puts in every
// softmax's denominator by definition (ref::AttentionSpec::sinks); q, k, v and sink gradients against its finite
// differences. Sinks of scale 2 make some rows give the sink most of the weight.
void run_with_sinks(const char* name, int64_t B, int64_t T, int64_t H, int64_t Hkv, int64_t D, int64_t window) {
  OpCase c;
  c.name = name;
  c.inputs = {
      {{B, T, H, D}}, {{B, T, Hkv, D}}, {{B, T, Hkv, D}}, {{H}, testing::InputSpec::Kind::normal, true, 0, 2.0}};
  c.host = [window](Ctx& ctx, const std::vector<Tensor>& in) {
    ops::AttentionOptions o;
    o.window = window;
    o.sinks = in[3];
    return ops::attention(ctx, in[0], in[1], in[2], o);
  };
  c.reference = [=](const std::vector<RefTensor>& in) {
    AttentionMods m;
    m.window = window;
    ref::AttentionSpec spec = testing_support::ref_spec(m, H, B, T);
    spec.sinks = in[3].v;
    RefTensor out;
    out.shape = {B, T, H, D};
    out.v = ref::attention_forward_ref(in[0].v, in[1].v, in[2].v, B, T, T, H, Hkv, D, spec);
    return out;
  };
  c.fd_full_limit = 200;
  c.fd_samples = 40;
  testing::check_op(c);
}

TEST(AttentionOp, SinksThroughTheTape) {
  run_with_sinks("sinks, causal", 2, 7, 2, 2, 8, 0);
  run_with_sinks("sinks, gqa 4q/2kv, window 3", 1, 8, 4, 2, 4, 3);
  Engine e;
  Ctx ctx{e};
  ops::AttentionOptions o;
  o.sinks = Tensor::zeros({3});
  const Tensor q = Tensor::zeros({1, 4, 2, 8}), kv = Tensor::zeros({1, 4, 2, 8});
  EXPECT_THROW(ops::attention(ctx, q, kv, kv, o), Error);  // 3 sinks for 2 heads
}

TEST(AttentionOp, AlibiSlopesFollowThePaper) {
  // Press et al.: for 8 heads the slopes are 1/2, 1/4, ..., 1/256.
  const std::vector<float> s = ops::alibi_slopes(8);
  for (int h = 0; h < 8; h++) EXPECT_FLOAT_EQ(s[h], std::pow(2.0f, -(h + 1.0f)));
  EXPECT_EQ(ops::alibi_slopes(6).size(), 6u);
}

TEST(AttentionOp, BadShapesAreErrors) {
  Engine e;
  Ctx ctx{e};
  Tensor q = Tensor::zeros({1, 4, 3, 8}), k = Tensor::zeros({1, 4, 2, 8});
  EXPECT_THROW(ops::attention(ctx, q, k, k), Error);  // 3 heads over 2 kv heads
  ops::AttentionOptions o;
  o.segment_ids = Tensor::from_ints({1, 3}, {0, 0, 0});
  Tensor q2 = Tensor::zeros({1, 4, 2, 8});
  EXPECT_THROW(ops::attention(ctx, q2, k, k, o), Error);  // segment ids of the wrong length
}

}  // namespace
}  // namespace nanotrn
