// The GPT-specific ops: embedding, RMSNorm, rotary, fused linear cross-entropy - fp64 forward and finite-difference
// gradients, plus the error cases a user hits first.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ops/ops.h"
#include "support/error_of.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::InputSpec;
using testing::OpCase;

std::vector<int32_t> as_ints(const RefTensor& t) {
  std::vector<int32_t> v;
  for (double x : t.v) v.push_back(static_cast<int32_t>(x));
  return v;
}

TEST(ModelOps, Embedding) {
  OpCase c;
  c.name = "embedding ids[2,5] table[11,6]";
  c.inputs = {{{2, 5}, InputSpec::Kind::ints, false, 11}, {{11, 6}}};
  c.values = {{0, 3, 3, 10, 7, 1, 3, 0, 10, 2}, {}};  // repeated ids: their gradients must add up
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) { return ops::embedding(ctx, in[0], in[1]); };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::embedding(as_ints(in[0]), in[0].shape, in[1]); };
  testing::check_op(c);
}

TEST(ModelOps, EmbeddingIdOutOfRangeNamesIt) {
  Engine e;
  Ctx ctx{e};
  try {
    ops::embedding(ctx, Tensor::from_ints({3}, {1, 12, 0}), Tensor::zeros({11, 4}));
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("token id 12 at flat position 1"), std::string::npos) << err.what();
  }
}

TEST(ModelOps, RmsNorm) {
  for (double scale : {1.0, 1e-3}) {
    OpCase c;
    c.name = "rms_norm [3,4,24] scale " + std::to_string(scale);
    c.inputs = {{{3, 4, 24}, InputSpec::Kind::normal, true, 0, scale}};
    c.host = [](Ctx& ctx, const std::vector<Tensor>& in) { return ops::rms_norm(ctx, in[0]); };
    c.reference = [](const std::vector<RefTensor>& in) { return ref::rms_norm(in[0], ops::kRmsNormDefaultEps); };
    testing::check_op(c);
  }
}

TEST(ModelOps, Rotary) {
  struct R {
    double base, fraction;
    int64_t offset;
    Shape shape;
  };
  for (const R& r : {R{10000.0, 1.0, 0, {2, 5, 3, 8}}, R{100000.0, 0.5, 0, {1, 6, 2, 16}},
                     R{10000.0, 0.25, 7, {1, 3, 2, 16}}, R{500.0, 1.0, 1000, {1, 4, 1, 6}}}) {
    OpCase c;
    c.name = "rotary base " + std::to_string(r.base) + " fraction " + std::to_string(r.fraction) + " offset " +
             std::to_string(r.offset);
    c.inputs = {{r.shape}};
    ops::RotaryOptions ro{r.base, r.fraction, r.offset};
    c.host = [ro](Ctx& ctx, const std::vector<Tensor>& in) { return ops::rotary(ctx, in[0], ro); };
    c.reference = [r](const std::vector<RefTensor>& in) { return ref::rotary(in[0], r.base, r.fraction, r.offset); };
    testing::check_op(c);
  }
}

// Scaled rotary (model/rope.h hands the op its frequencies and magnitude): against the fp64 reference with the same
// frequencies, and the backward against its finite differences.
TEST(ModelOps, RotaryWithGivenFrequenciesAndMagnitude) {
  OpCase c;
  c.name = "rotary with 4 given frequencies, magnitude 1.3";
  c.inputs = {{{2, 5, 3, 8}}};
  const std::vector<double> f = {1.0, 0.013, 0.00125, 0.000125};
  ops::RotaryOptions ro{.base = 10000.0, .fraction = 1.0, .position_offset = 3, .inv_freq = f, .magnitude = 1.3};
  c.host = [ro](Ctx& ctx, const std::vector<Tensor>& in) { return ops::rotary(ctx, in[0], ro); };
  c.reference = [f](const std::vector<RefTensor>& in) { return ref::rotary(in[0], 10000.0, 1.0, 3, f, 1.3); };
  testing::check_op(c);
  Engine e;
  Ctx ctx{e};
  ops::RotaryOptions three = ro;
  three.inv_freq.pop_back();
  EXPECT_THROW(ops::rotary(ctx, Tensor::zeros({1, 2, 1, 8}), three), Error);
}

// One table for several tensors (the model builds one per forward for every layer's q and k): against the fp64
// reference like the per-call path, bit for bit the per-call path on a tensor of other heads, and a tensor of another
// length or head dimension refused with both shapes named.
TEST(ModelOps, RotaryTableBuiltOnceRotatesLikeEachCall) {
  const ops::RotaryOptions ro{.base = 10000.0, .fraction = 0.5, .position_offset = 5};
  const auto table = std::make_shared<const ops::RotaryTable>(ops::rotary_table(6, 16, ro));
  OpCase c;
  c.name = "rotary from a table, fraction 0.5, offset 5";
  c.inputs = {{{2, 6, 3, 16}}};
  c.host = [table](Ctx& ctx, const std::vector<Tensor>& in) { return ops::rotary(ctx, in[0], table); };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::rotary(in[0], 10000.0, 0.5, 5); };
  testing::check_op(c);
  Engine e;
  Ctx ctx{e};
  std::vector<float> v(1 * 6 * 1 * 16);
  for (size_t i = 0; i < v.size(); i++) v[i] = std::cos(0.3f * static_cast<float>(i));
  const Tensor k = Tensor::from_vector({1, 6, 1, 16}, v);
  EXPECT_EQ(ops::rotary(ctx, k, table).to_vector(), ops::rotary(ctx, k, ro).to_vector());
  const std::string e1 = testing_support::error_message_of([&] {
    ops::rotary(ctx, Tensor::zeros({1, 5, 1, 16}), table);
  });
  EXPECT_NE(e1.find("T 6 and D 16, got [1, 5, 1, 16]"), std::string::npos) << e1;
}

TEST(ModelOps, RotaryPreservesNormsAndRejectsOddChannelCounts) {
  Engine e;
  Ctx ctx{e};
  std::vector<float> v(1 * 4 * 2 * 8);
  for (size_t i = 0; i < v.size(); i++) v[i] = std::sin(static_cast<float>(i));
  Tensor x = Tensor::from_vector({1, 4, 2, 8}, v);
  Tensor y = ops::rotary(ctx, x);
  const std::vector<float> yv = y.to_vector();
  for (int row = 0; row < 8; row++) {
    double nx = 0, ny = 0;
    for (int j = 0; j < 8; j++) {
      nx += v[row * 8 + j] * v[row * 8 + j];
      ny += yv[row * 8 + j] * yv[row * 8 + j];
    }
    EXPECT_NEAR(nx, ny, 1e-5 * nx);
  }
  EXPECT_THROW(ops::rotary(ctx, x, {10000.0, 0.375, 0}), Error);  // 3 channels
}

OpCase ce_case(const char* name, Shape xs, int64_t V, float softcap, int64_t chunk, std::vector<float> targets) {
  OpCase c;
  c.name = name;
  c.inputs = {{xs},
              {{V, xs.back()}, InputSpec::Kind::normal, true, 0, 0.7},
              {Shape(xs.begin(), xs.end() - 1), InputSpec::Kind::ints, false, static_cast<int32_t>(V)}};
  c.values = {{}, {}, targets};
  ops::CrossEntropyOptions o;
  o.softcap = softcap;
  o.chunk_rows = chunk;
  c.host = [o](Ctx& ctx, const std::vector<Tensor>& in) {
    return ops::linear_cross_entropy(ctx, in[0], in[1], in[2], o);
  };
  c.reference = [softcap](const std::vector<RefTensor>& in) {
    RefTensor out{{}, {ref::linear_cross_entropy(in[0], in[1], as_ints(in[2]), softcap, -1)}};
    return out;
  };
  return c;
}

TEST(ModelOps, LinearCrossEntropyChunkedSoftcapped) {
  testing::check_op(ce_case("ce no cap, one chunk", {6, 8}, 13, 0.0f, 0, {}));
  testing::check_op(ce_case("ce cap 15, chunks of 4", {2, 5, 8}, 13, 15.0f, 4, {}));
  testing::check_op(ce_case("ce cap 2 (strong), chunks of 3", {7, 8}, 11, 2.0f, 3, {}));
  testing::check_op(ce_case("ce with ignored targets", {6, 8}, 13, 15.0f, 4, {3, -1, 0, 12, -1, 5}));
}

TEST(ModelOps, CrossEntropyOfZeroLogitsIsLogV) {
  // A zero head gives uniform predictions: the loss is exactly ln V for every target.
  Engine e;
  Ctx ctx{e};
  const int64_t V = 8192;
  Tensor x = Tensor::full({4, 16}, 0.3f);
  Tensor w = Tensor::zeros({V, 16});
  Tensor t = Tensor::from_ints({4}, {0, 8191, 17, 4000});
  EXPECT_NEAR(ops::linear_cross_entropy(ctx, x, w, t, {15.0f}).item(), std::log(8192.0), 1e-5);
  const std::vector<float> per = ops::linear_cross_entropy_per_token(ctx, x, w, t).to_vector();
  for (float v : per) EXPECT_NEAR(v, std::log(8192.0), 1e-5);
}

TEST(ModelOps, CrossEntropyTargetOutOfRangeNamesIt) {
  Engine e;
  Ctx ctx{e};
  try {
    ops::linear_cross_entropy(ctx, Tensor::zeros({2, 4}), Tensor::zeros({5, 4}), Tensor::from_ints({2}, {1, 5}));
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("target 5 at position 1"), std::string::npos) << err.what();
  }
}

}  // namespace
}  // namespace nanotrn
