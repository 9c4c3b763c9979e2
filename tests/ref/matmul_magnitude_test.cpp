// ref::matmul_with_magnitude: the product is ref::matmul's, and the magnitude is the product of the inputs' absolute
// values (sum_k |a_ik| |b_kj|), checked by hand-written loops over every transposition and a batch.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ref/ops_ref.h"

namespace nanotrn::ref {
namespace {

RefTensor random_tensor(Shape shape, std::mt19937& gen) {
  RefTensor t{shape, {}};
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < n; ++i) t.v.push_back(u(gen));
  return t;
}

TEST(RefMatmulMagnitude, IsTheProductOfAbsoluteValuesBesideTheProduct) {
  std::mt19937 gen(7);
  const int64_t batch = 2, M = 3, K = 5, N = 4;
  for (const bool ta : {false, true}) {
    for (const bool tb : {false, true}) {
      const RefTensor a = random_tensor(ta ? Shape{batch, K, M} : Shape{batch, M, K}, gen);
      const RefTensor b = random_tensor(tb ? Shape{batch, N, K} : Shape{batch, K, N}, gen);
      const MatmulRef r = matmul_with_magnitude(a, b, ta, tb);
      const RefTensor plain = matmul(a, b, ta, tb);
      ASSERT_EQ(r.product.shape, (Shape{batch, M, N}));
      ASSERT_EQ(r.magnitude.shape, r.product.shape);
      for (int64_t z = 0; z < batch; ++z) {
        for (int64_t i = 0; i < M; ++i) {
          for (int64_t j = 0; j < N; ++j) {
            double want = 0, want_mag = 0;
            for (int64_t k = 0; k < K; ++k) {
              const double x = ta ? a.v[(z * K + k) * M + i] : a.v[(z * M + i) * K + k];
              const double y = tb ? b.v[(z * N + j) * K + k] : b.v[(z * K + k) * N + j];
              want += x * y;
              want_mag += std::fabs(x) * std::fabs(y);
            }
            const size_t at = static_cast<size_t>((z * M + i) * N + j);
            EXPECT_NEAR(r.product.v[at], want, 1e-14) << ta << tb;
            EXPECT_EQ(r.product.v[at], plain.v[at]);
            EXPECT_NEAR(r.magnitude.v[at], want_mag, 1e-14) << ta << tb;
            EXPECT_GE(r.magnitude.v[at], std::fabs(r.product.v[at]));
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace nanotrn::ref
