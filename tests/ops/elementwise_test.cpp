// Element-wise ops and reductions: forward vs fp64, backward vs finite differences (broadcasting included).
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <tuple>
#include <vector>

#include "autograd/tape.h"
#include "ops/ops.h"
#include "support/error_of.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::InputSpec;
using testing::OpCase;

OpCase binary_case(const char* name, ref::BinaryOp op, Shape a, Shape b) {
  OpCase c;
  c.name = std::string(name) + " " + shape_str(a) + " x " + shape_str(b);
  const bool is_div = op == ref::BinaryOp::div;
  c.inputs = {{a}, {b, is_div ? InputSpec::Kind::positive : InputSpec::Kind::normal}};
  c.host = [op](Ctx& ctx, const std::vector<Tensor>& in) {
    switch (op) {
      case ref::BinaryOp::add:
        return ops::add(ctx, in[0], in[1]);
      case ref::BinaryOp::sub:
        return ops::sub(ctx, in[0], in[1]);
      case ref::BinaryOp::mul:
        return ops::mul(ctx, in[0], in[1]);
      case ref::BinaryOp::div:
        return ops::div(ctx, in[0], in[1]);
    }
    return Tensor();
  };
  c.reference = [op](const std::vector<RefTensor>& in) { return ref::binary(in[0], in[1], op); };
  return c;
}

TEST(ElementwiseOps, BinaryWithBroadcasting) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{3, 4}, {3, 4}}, {{2, 3, 4}, {4}},       {{2, 3, 4}, {3, 1}},
                                                       {{1, 5}, {4, 1}}, {{2, 1, 3}, {2, 4, 1}}, {{3}, {}}};
  for (auto op : {ref::BinaryOp::add, ref::BinaryOp::sub, ref::BinaryOp::mul, ref::BinaryOp::div}) {
    for (auto& [a, b] : shapes) testing::check_op(binary_case("binary", op, a, b));
  }
}

TEST(ElementwiseOps, StridedViewInputs) {
  OpCase c;
  c.name = "mul of a transposed view";
  c.inputs = {{{4, 3}}, {{3, 4}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) {
    return ops::mul(ctx, ops::transpose(ctx, in[0], 0, 1), in[1]);
  };
  c.reference = [](const std::vector<RefTensor>& in) {
    return ref::binary(ref::transpose(in[0], 0, 1), in[1], ref::BinaryOp::mul);
  };
  testing::check_op(c);
}

TEST(ElementwiseOps, ScaleAndAddScalar) {
  OpCase c;
  c.name = "scale(-2.5) then add_scalar(0.75)";
  c.inputs = {{{5, 7}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) {
    return ops::add_scalar(ctx, ops::scale(ctx, in[0], -2.5f), 0.75f);
  };
  c.reference = [](const std::vector<RefTensor>& in) { return ref::add_scalar(ref::scale(in[0], -2.5), 0.75); };
  testing::check_op(c);
}

TEST(ElementwiseOps, ScaledAddIsTwoProductsAndASum) {
  OpCase c;
  c.name = "scaled_add: a x + b z";
  c.inputs = {{{2, 3, 4}}, {{1}}, {{2, 3, 4}}, {{1}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) { return ops::scaled_add(ctx, in[0], in[1], in[2], in[3]); };
  c.reference = [](const std::vector<RefTensor>& in) {
    return ref::binary(ref::binary(in[0], in[1], ref::BinaryOp::mul), ref::binary(in[2], in[3], ref::BinaryOp::mul),
                       ref::BinaryOp::add);
  };
  testing::check_op(c);
}

// Over several 64K-element chunks: the scalars' gradients against fp64 sums written here, bit for bit the same on 1
// and 2 threads; the forward to fp32 rounding and the tensors' gradients exactly (each one product).
TEST(ElementwiseOps, ScaledAddScalarGradientsAreFp64SumsOnAnyThreadCount) {
  const int64_t n = 3 * 70000;
  std::vector<float> xv(n), zv(n), gv(n);
  for (int64_t i = 0; i < n; i++) {
    const auto f = static_cast<float>(i);
    xv[static_cast<size_t>(i)] = std::sin(0.37f * f), zv[static_cast<size_t>(i)] = std::cos(0.11f * f) + 0.25f;
    gv[static_cast<size_t>(i)] = std::sin(0.05f * f + 1.0f);
  }
  auto run = [&](int threads) {
    omp_set_num_threads(threads);
    Engine e;
    Tape tape;
    Ctx ctx{e, &tape};
    Tensor x = Tensor::from_vector({3, 70000}, xv), z = Tensor::from_vector({3, 70000}, zv);
    Tensor a = Tensor::from_vector({1}, {0.75f}), b = Tensor::from_vector({1}, {-1.5f});
    for (Tensor* t : {&x, &z, &a, &b}) t->set_requires_grad();
    const Tensor y = ops::scaled_add(ctx, x, a, z, b);
    tape.backward(ops::sum(ctx, ops::mul(ctx, y, Tensor::from_vector({3, 70000}, gv))));
    std::vector<float> out = y.to_vector();
    for (const float d : x.grad().to_vector()) out.push_back(d);
    for (const float d : z.grad().to_vector()) out.push_back(d);
    return std::tuple{out, a.grad().item(), b.grad().item()};
  };
  const int threads = omp_get_max_threads();
  const auto [out1, da1, db1] = run(1);
  const auto [out2, da2, db2] = run(2);
  omp_set_num_threads(threads);
  EXPECT_EQ(out1, out2);
  EXPECT_EQ(da1, da2);
  EXPECT_EQ(db1, db2);
  long double gx = 0, gz = 0;
  for (size_t i = 0; i < gv.size(); i++) {
    gx += static_cast<long double>(gv[i]) * xv[i];
    gz += static_cast<long double>(gv[i]) * zv[i];
    ASSERT_NEAR(out1[i], 0.75 * xv[i] - 1.5 * zv[i], 1e-6 * (std::fabs(xv[i]) + std::fabs(zv[i]))) << i;
    ASSERT_EQ(out1[gv.size() + i], 0.75f * gv[i]) << i;
    ASSERT_EQ(out1[2 * gv.size() + i], -1.5f * gv[i]) << i;
  }
  EXPECT_NEAR(da1, static_cast<double>(gx), 1e-6 * std::fabs(static_cast<double>(gx)));  // the sum, rounded to fp32
  EXPECT_NEAR(db1, static_cast<double>(gz), 1e-6 * std::fabs(static_cast<double>(gz)));
}

TEST(ElementwiseOps, ScaledAddShapesAreCheckedAndNamed) {
  Engine e;
  Ctx ctx{e};
  const Tensor x = Tensor::zeros({2, 3}), one = Tensor::zeros({1});
  EXPECT_NE(testing_support::error_message_of([&] {
              ops::scaled_add(ctx, x, one, Tensor::zeros({3, 2}), one);
            }).find("[2, 3] and [3, 2]"),
            std::string::npos);
  EXPECT_NE(testing_support::error_message_of([&] {
              ops::scaled_add(ctx, x, Tensor::zeros({2}), x, one);
            }).find("one element each"),
            std::string::npos);
}

TEST(ElementwiseOps, IncompatibleShapesNameBoth) {
  Engine e;
  Ctx ctx{e};
  Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({4});
  try {
    ops::add(ctx, a, b);
    FAIL() << "expected an error";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("[2, 3]"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("[4]"), std::string::npos) << err.what();
  }
}

TEST(ReduceOps, SumAndMeanOverDims) {
  struct R {
    Shape shape;
    std::vector<int64_t> dims;
    bool keepdim;
  };
  const std::vector<R> rs = {{{3, 4}, {0, 1}, false},
                             {{2, 3, 4}, {-1}, true},
                             {{2, 3, 4}, {0, 1}, false},
                             {{2, 3, 4}, {1}, false},
                             {{5}, {0}, true}};
  for (const R& r : rs) {
    for (bool is_mean : {false, true}) {
      OpCase c;
      c.name = std::string(is_mean ? "mean" : "sum") + " of " + shape_str(r.shape);
      c.inputs = {{r.shape}};
      c.host = [=](Ctx& ctx, const std::vector<Tensor>& in) {
        return is_mean ? ops::mean(ctx, in[0], r.dims, r.keepdim) : ops::sum(ctx, in[0], r.dims, r.keepdim);
      };
      c.reference = [=](const std::vector<RefTensor>& in) {
        return is_mean ? ref::mean(in[0], r.dims, r.keepdim) : ref::sum(in[0], r.dims, r.keepdim);
      };
      testing::check_op(c);
    }
  }
}

TEST(ReduceOps, FullReductionOfALargeTensorIsAccurate) {
  // 2^20 copies of 0.1f: a naive fp32 running sum drifts by ~1e-2 relative; the double accumulator does not.
  Engine e;
  Ctx ctx{e};
  Tensor x = Tensor::full({1 << 20}, 0.1f);
  const double expect = static_cast<double>(0.1f) * (1 << 20);
  EXPECT_NEAR(ops::sum(ctx, x).item(), expect, expect * 1e-7);
}

}  // namespace
}  // namespace nanotrn
