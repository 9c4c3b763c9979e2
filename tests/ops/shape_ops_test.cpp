// Shape ops with autograd: values vs fp64 index arithmetic, gradients vs finite differences, views share storage.
#include <gtest/gtest.h>

#include "ops/ops.h"
#include "support/op_check.h"

namespace nanotrn {
namespace {

using ref::RefTensor;
using testing::OpCase;

TEST(ShapeOps, TransposeReshapeNarrow) {
  OpCase c;
  c.name = "reshape -> transpose -> narrow -> mul";
  c.inputs = {{{2, 6}}, {{3, 1, 2}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) {
    Tensor r = ops::reshape(ctx, in[0], {2, 3, 2});
    Tensor t = ops::transpose(ctx, r, 0, 1);  // [3, 2, 2]
    Tensor n = ops::narrow(ctx, t, 2, 1, 1);  // [3, 2, 1]
    return ops::mul(ctx, n, ops::transpose(ctx, in[1], 1, 2));
  };
  c.reference = [](const std::vector<RefTensor>& in) {
    RefTensor r = in[0];
    r.shape = {2, 3, 2};
    RefTensor n = ref::narrow(ref::transpose(r, 0, 1), 2, 1, 1);
    return ref::binary(n, ref::transpose(in[1], 1, 2), ref::BinaryOp::mul);
  };
  testing::check_op(c);
}

TEST(ShapeOps, ConcatAndSplit) {
  OpCase c;
  c.name = "concat along dim 1 then split differently";
  c.inputs = {{{2, 3, 2}}, {{2, 1, 2}}, {{2, 2, 2}}};
  c.host = [](Ctx& ctx, const std::vector<Tensor>& in) {
    Tensor cat = ops::concat(ctx, {in[0], in[1], in[2]}, 1);  // [2, 6, 2]
    auto parts = ops::split(ctx, cat, {4, 2}, 1);
    return ops::concat(ctx, {ops::scale(ctx, parts[1], 3.0f), parts[0]}, 1);
  };
  c.reference = [](const std::vector<RefTensor>& in) {
    RefTensor cat = ref::concat({in[0], in[1], in[2]}, 1);
    return ref::concat({ref::scale(ref::narrow(cat, 1, 4, 2), 3.0), ref::narrow(cat, 1, 0, 4)}, 1);
  };
  testing::check_op(c);
}

TEST(ShapeOps, ViewsShareStorageAndContiguousCopies) {
  Tensor x = Tensor::from_vector({2, 3}, {0, 1, 2, 3, 4, 5});
  Tensor t = x.transpose(0, 1);
  EXPECT_TRUE(t.same_storage(x));
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.at({2, 1}), 5.0f);
  Tensor c = t.contiguous();
  EXPECT_FALSE(c.same_storage(x));
  EXPECT_EQ(c.to_vector(), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  Tensor n = x.narrow(1, 1, 2);
  EXPECT_TRUE(n.same_storage(x));
  EXPECT_EQ(n.to_vector(), (std::vector<float>{1, 2, 4, 5}));
  EXPECT_TRUE(x.reshape({3, 2}).same_storage(x));
}

TEST(ShapeOps, BadShapesAreErrors) {
  Engine e;
  Ctx ctx{e};
  Tensor x = Tensor::zeros({2, 3});
  EXPECT_THROW(ops::reshape(ctx, x, {4, 2}), Error);
  EXPECT_THROW(ops::split(ctx, x, {1, 1}, 1), Error);
  EXPECT_THROW(ops::concat(ctx, {x, Tensor::zeros({3, 3})}, 1), Error);
  EXPECT_THROW(ops::narrow(ctx, x, 1, 2, 2), Error);
}

}  // namespace
}  // namespace nanotrn
