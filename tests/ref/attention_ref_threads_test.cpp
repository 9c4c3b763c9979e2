// The fp64 attention reference runs its rows on OpenMP threads (ref/attention_ref.cpp); each output element is
// written by one thread in a fixed order, so its results must be bit-identical on 1 and 3 threads, with every
// modifier on (GQA, causal window, softcap, ALiBi, document segments and bounds).
#include <gtest/gtest.h>
#include <omp.h>

#include <random>

#include "ref/attention_ref.h"

namespace nanotrn::ref {
namespace {

TEST(AttentionRefThreads, ResultsDoNotDependOnTheThreadCount) {
  const int64_t B = 2, T = 70, H = 4, Hkv = 2, D = 8;
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> q(B * T * H * D), k(B * T * Hkv * D), v(k.size()), dy(q.size());
  for (auto* x : {&q, &k, &v, &dy})
    for (double& e : *x) e = u(gen);
  AttentionSpec spec;
  spec.window = 40;
  spec.softcap = 3;
  spec.alibi_slopes = {0.5, 0.25, 0.125, 0.0625};
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) spec.segment_ids.push_back(t < 30 + b ? 0 : 1);
  for (int64_t t = 0; t < T; ++t) {
    spec.bound_min.push_back(t < 50 ? 0 : 50);
    spec.bound_max.push_back(t < 50 ? 49 : static_cast<int32_t>(T - 1));
  }
  const int before = omp_get_max_threads();
  std::vector<double> lse1, lse3;
  omp_set_num_threads(1);
  const std::vector<double> o1 = attention_forward_ref(q, k, v, B, T, T, H, Hkv, D, spec, &lse1);
  const AttentionGradsRef g1 = attention_backward_ref(dy, q, k, v, B, T, T, H, Hkv, D, spec);
  omp_set_num_threads(3);
  const std::vector<double> o3 = attention_forward_ref(q, k, v, B, T, T, H, Hkv, D, spec, &lse3);
  const AttentionGradsRef g3 = attention_backward_ref(dy, q, k, v, B, T, T, H, Hkv, D, spec);
  omp_set_num_threads(before);
  EXPECT_EQ(o1, o3);
  EXPECT_EQ(lse1, lse3);
  EXPECT_EQ(g1.dq, g3.dq);
  EXPECT_EQ(g1.dk, g3.dk);
  EXPECT_EQ(g1.dv, g3.dv);
  double norm = 0;
  for (double x : g1.dk) norm += x * x;
  EXPECT_GT(norm, 0);  // the gradients are not trivially zero
}

}  // namespace
}  // namespace nanotrn::ref
