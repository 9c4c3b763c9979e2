// The tape: gradient accumulation across passes, shared sub-expressions, no-grad mode, intermediate-grad release,
// and errors.
#include <gtest/gtest.h>

#include "base/error.h"

#include "autograd/tape.h"
#include "ops/ops.h"

namespace nanotrn {
namespace {

TEST(Tape, SharedInputsAndGradientAccumulation) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor x = Tensor::from_vector({3}, {1.0f, -2.0f, 0.5f});
  x.set_requires_grad();
  // y = sum(x * x + 3 x): dy/dx = 2x + 3. x is used three times.
  auto step = [&] {
    Tensor y = ops::sum(ctx, ops::add(ctx, ops::mul(ctx, x, x), ops::scale(ctx, x, 3.0f)));
    tape.backward(y);
  };
  step();
  EXPECT_EQ(x.grad().to_vector(), (std::vector<float>{5.0f, -1.0f, 4.0f}));
  EXPECT_EQ(tape.size(), 0u);  // cleared after backward
  step();                      // a second micro-batch accumulates
  EXPECT_EQ(x.grad().to_vector(), (std::vector<float>{10.0f, -2.0f, 8.0f}));
  x.zero_grad();
  EXPECT_FALSE(x.grad().defined());
}

TEST(Tape, AliasedGradientsAreNotCorrupted) {
  // add's backward hands the same gradient tensor to both inputs; accumulating more into one must not leak into
  // the other.
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor a = Tensor::from_vector({2}, {1.0f, 2.0f}), b = Tensor::from_vector({2}, {3.0f, 4.0f});
  a.set_requires_grad();
  b.set_requires_grad();
  Tensor y = ops::sum(ctx, ops::add(ctx, ops::add(ctx, a, b), ops::scale(ctx, a, 2.0f)));
  tape.backward(y);
  EXPECT_EQ(a.grad().to_vector(), (std::vector<float>{3.0f, 3.0f}));
  EXPECT_EQ(b.grad().to_vector(), (std::vector<float>{1.0f, 1.0f}));
}

TEST(Tape, RetainRunsTheSameGraphTwice) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor x = Tensor::from_vector({2}, {1.5f, -0.5f});
  x.set_requires_grad();
  Tensor y = ops::sum(ctx, ops::mul(ctx, ops::scale(ctx, x, 2.0f), x));  // 2 x^2: dy/dx = 4x
  tape.backward(y, Tensor(), /*retain=*/true);
  EXPECT_EQ(x.grad().to_vector(), (std::vector<float>{6.0f, -2.0f}));
  tape.backward(y);  // intermediates start clean: exactly twice the gradient
  EXPECT_EQ(x.grad().to_vector(), (std::vector<float>{12.0f, -4.0f}));
}

TEST(Tape, NoGradRecordsNothing) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor x = Tensor::full({4}, 2.0f);
  x.set_requires_grad();
  {
    NoGradGuard guard(ctx);
    Tensor y = ops::mul(ctx, x, x);
    EXPECT_FALSE(y.requires_grad());
  }
  EXPECT_EQ(tape.size(), 0u);
  Tensor y = ops::mul(ctx, x, x);
  EXPECT_TRUE(y.requires_grad());
  EXPECT_EQ(tape.size(), 1u);
}

TEST(Tape, InputsWithoutGradGetNone) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor w = Tensor::full({2, 3}, 0.5f);
  w.set_requires_grad();
  Tensor x = Tensor::full({4, 3}, 1.0f);  // data: no grad
  tape.backward(ops::sum(ctx, ops::linear(ctx, x, w)));
  EXPECT_FALSE(x.grad().defined());
  EXPECT_EQ(w.grad().to_vector(), std::vector<float>(6, 4.0f));
}

TEST(Tape, BackwardFromANonGradRootIsAnError) {
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor x = Tensor::full({2}, 1.0f);
  EXPECT_THROW(tape.backward(ops::sum(ctx, x)), Error);
}

TEST(Tape, LeafHookReportsEachLeafOnceWhenItsGradientIsFinal) {
  // y = sum(a * b) + sum(a * 3): a is read by two nodes, b by one, c by none. At the hook each leaf's gradient must
  // already equal its final value (the data-parallel reducer copies it then), and every read leaf is reported once.
  Engine e;
  Tape tape;
  Ctx ctx{e, &tape};
  Tensor a = Tensor::from_vector({2}, {1.0f, 2.0f}), b = Tensor::from_vector({2}, {3.0f, -4.0f});
  Tensor c = Tensor::from_vector({2}, {5.0f, 6.0f});
  for (Tensor* t : {&a, &b, &c}) t->set_requires_grad();
  const Tensor y = ops::add(ctx, ops::sum(ctx, ops::mul(ctx, a, b)), ops::sum(ctx, ops::scale(ctx, a, 3.0f)));
  std::vector<std::pair<const AutogradMeta*, std::vector<float>>> seen;
  tape.backward(y, Tensor(), false, [&](AutogradMeta& leaf) { seen.emplace_back(&leaf, leaf.grad.to_vector()); });
  ASSERT_EQ(seen.size(), 2u);
  for (const auto& [meta, grad] : seen) {
    if (meta == a.autograd().get()) {
      EXPECT_EQ(grad, (std::vector<float>{6.0f, -1.0f}));  // b + 3
    } else {
      EXPECT_EQ(meta, b.autograd().get());
      EXPECT_EQ(grad, (std::vector<float>{1.0f, 2.0f}));  // a
    }
  }
  EXPECT_EQ(a.grad().to_vector(), (std::vector<float>{6.0f, -1.0f}));
  EXPECT_FALSE(c.grad().defined());
}

}  // namespace
}  // namespace nanotrn
