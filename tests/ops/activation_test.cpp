// Activations and softmax: forward vs fp64, backward vs finite differences of the fp64 reference.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>

#include "ops/ops.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::OpCase;

OpCase unary_case(const char* name, std::function<Tensor(Ctx&, const Tensor&)> host, ref::Unary f, double p,
                  double scale = 1.5) {
  OpCase c;
  c.name = name;
  c.inputs = {{{3, 37}, testing::InputSpec::Kind::normal, true, 0, scale}};
  c.host = [host](Ctx& ctx, const std::vector<Tensor>& in) { return host(ctx, in[0]); };
  c.reference = [f, p](const std::vector<RefTensor>& in) { return ref::unary(in[0], f, p); };
  return c;
}

TEST(ActivationOps, EachAgainstFp64AndFiniteDifferences) {
  testing::check_op(unary_case(
      "relu2", [](Ctx& c, const Tensor& x) { return ops::relu2(c, x); }, ref::Unary::relu2, 0));
  for (float slope : {0.0f, 0.1f, 0.5f, 1.0f}) {
    testing::check_op(unary_case(
        "leaky_relu2", [slope](Ctx& c, const Tensor& x) { return ops::leaky_relu2(c, x, slope); },
        ref::Unary::leaky_relu2, slope));
  }
  testing::check_op(unary_case(
      "gelu", [](Ctx& c, const Tensor& x) { return ops::gelu(c, x); }, ref::Unary::gelu, 0));
  testing::check_op(unary_case(
      "gelu tanh", [](Ctx& c, const Tensor& x) { return ops::gelu(c, x, true); }, ref::Unary::gelu_tanh, 0));
  testing::check_op(unary_case(
      "silu", [](Ctx& c, const Tensor& x) { return ops::silu(c, x); }, ref::Unary::silu, 0));
  testing::check_op(unary_case(
      "sigmoid", [](Ctx& c, const Tensor& x) { return ops::sigmoid(c, x); }, ref::Unary::sigmoid, 0));
  testing::check_op(unary_case(
      "tanh", [](Ctx& c, const Tensor& x) { return ops::tanh(c, x); }, ref::Unary::tanh, 0));
  for (float cap : {1.0f, 15.0f}) {
    testing::check_op(unary_case(
        "tanh_softcap", [cap](Ctx& c, const Tensor& x) { return ops::tanh_softcap(c, x, cap); }, ref::Unary::softcap,
        cap, 10.0));
  }
}

// Clamp: the forward against fp64 and the gradient against finite differences (the check's inputs lie away from the
// bounds: h is far below their distance to either), two-sided and one-sided (gpt-oss's gate: no lower bound).
TEST(ActivationOps, ClampAgainstFp64AndFiniteDifferences) {
  for (const auto& [lo, hi] : {std::pair{-0.7f, 0.45f}, {-INFINITY, 0.45f}}) {
    OpCase c;
    c.name = "clamp";
    c.inputs = {{{3, 37}, testing::InputSpec::Kind::normal, true, 0, 1.5}};
    c.host = [lo, hi](Ctx& ctx, const std::vector<Tensor>& in) { return ops::clamp(ctx, in[0], lo, hi); };
    c.reference = [lo, hi](const std::vector<RefTensor>& in) { return ref::clamp(in[0], lo, hi); };
    testing::check_op(c);
  }
  Engine e;
  Ctx ctx{e};
  EXPECT_THROW(ops::clamp(ctx, Tensor::from_vector({1}, {0.0f}), 1.0f, -1.0f), Error);
}

TEST(ActivationOps, Softmax) {
  OpCase c;
  c.name = "softmax over the last dim";
  c.inputs = {{{4, 3, 19}, testing::InputSpec::Kind::normal, true, 0, 3.0}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) { return ops::softmax(ctx, in[0]); };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::softmax(in[0]); };
  testing::check_op(c);
}

TEST(ActivationOps, SoftmaxIsStableForHugeLogits) {
  Engine e;
  Ctx ctx{e};
  Tensor x = Tensor::from_vector({1, 3}, {1000.0f, 1000.0f, -1000.0f});
  const std::vector<float> y = ops::softmax(ctx, x).to_vector();
  EXPECT_FLOAT_EQ(y[0], 0.5f);
  EXPECT_FLOAT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.0f);
}

}  // namespace
}  // namespace nanotrn
