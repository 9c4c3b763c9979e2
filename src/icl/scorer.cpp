// Scoring one CORE example, the shared prefix once. See scorer.h.
#include "icl/scorer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "ops/shape_ops.h"

namespace nanotrn::icl {

namespace {

struct PositionLoss {
  double loss;
  bool argmax_hit;
};

// Cross-entropy (double) of `target` under logits z[0..V), and whether the first maximum is the target.
PositionLoss position_loss(const float* z, int64_t V, int32_t target) {
  int64_t best = 0;
  for (int64_t j = 1; j < V; ++j) best = z[j] > z[best] ? j : best;
  const double m = z[best];
  double sum = 0.0;
  for (int64_t j = 0; j < V; ++j) sum += std::exp(static_cast<double>(z[j]) - m);
  return {m + std::log(sum) - static_cast<double>(z[target]), best == target};
}

}  // namespace

ExampleScore Scorer::score(TaskType type, const ScoredRows& rows, int64_t gold) {
  Ctx ctx = ctx_;
  ctx.matmul_dtype = DType::f32;
  NoGradGuard no_grad(ctx);
  const auto R = static_cast<int64_t>(rows.rows.size());
  check(R > 0, "Scorer: an example without rows");
  const int64_t V = gpt_.config().vocab_size;
  for (const auto& r : rows.rows) {
    for (int32_t t : r) check(t >= 0 && t < V, "Scorer: token " + std::to_string(t) + " is outside the vocabulary");
  }
  // The shared prefix, never past a span's first predicting position.
  int64_t L = common_length(rows.rows, false);
  for (int64_t i = 0; i < R; ++i) L = std::min(L, rows.start[static_cast<size_t>(i)]);
  ExampleScore out;

  model::KvCache cache;
  Tensor prefix_logits;  // [1, 1, V]: the prediction of the token after the prefix
  if (L > 0) {
    const std::vector<int32_t> ids(rows.rows[0].begin(), rows.rows[0].begin() + L);
    const Tensor h = gpt_.hidden(ctx, Tensor::from_ints({1, L}, ids), &cache);
    prefix_logits = gpt_.head(ctx, ops::narrow(ctx, h, 1, L - 1, 1)).contiguous();
    out.tokens += L;
  }
  // The rest of each row that predicts a scored token: positions L .. end - 2.
  int64_t M = 0;
  for (int64_t i = 0; i < R; ++i) M = std::max(M, rows.end[static_cast<size_t>(i)] - 1 - L);
  Tensor rest_logits;  // [R, M - F, V]: the rest's positions F .. M - 1
  int64_t F = 0;
  if (M > 0) {
    std::vector<int32_t> ids(static_cast<size_t>(R * M), 0);  // padding never reaches a scored position (causal)
    for (int64_t i = 0; i < R; ++i) {
      const auto& r = rows.rows[static_cast<size_t>(i)];
      const int64_t n = std::min<int64_t>(M, static_cast<int64_t>(r.size()) - L);
      std::copy(r.begin() + L, r.begin() + L + n, ids.begin() + i * M);
      out.tokens += std::max<int64_t>(0, rows.end[static_cast<size_t>(i)] - 1 - L);
    }
    if (L > 0 && R > 1) {
      for (size_t layer = 0; layer < cache.k.size(); ++layer) {
        cache.k[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(R), cache.k[layer]), 0);
        cache.v[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(R), cache.v[layer]), 0);
      }
    }
    const Tensor h = gpt_.hidden(ctx, Tensor::from_ints({R, M}, ids), L > 0 ? &cache : nullptr);
    // The head only from the first position any row scores (a schema's options score only their common suffix).
    F = M;
    for (int64_t i = 0; i < R; ++i) F = std::min(F, std::max<int64_t>(0, rows.start[static_cast<size_t>(i)] - 1 - L));
    rest_logits = gpt_.head(ctx, ops::narrow(ctx, h, 1, F, M - F)).contiguous();
  }
  auto logits_at = [&](int64_t row, int64_t pos) -> const float* {
    if (pos == L - 1) return prefix_logits.data<float>();
    return rest_logits.data<float>() + (row * (M - F) + (pos - L - F)) * V;
  };

  std::vector<double> means(static_cast<size_t>(R));
  bool all_hit = true;
  for (int64_t i = 0; i < R; ++i) {
    const auto& r = rows.rows[static_cast<size_t>(i)];
    const int64_t s = rows.start[static_cast<size_t>(i)], e = rows.end[static_cast<size_t>(i)];
    double sum = 0.0;
    for (int64_t pos = s - 1; pos <= e - 2; ++pos) {
      const PositionLoss pl = position_loss(logits_at(i, pos), V, r[static_cast<size_t>(pos + 1)]);
      sum += pl.loss;
      all_hit = all_hit && pl.argmax_hit;
    }
    means[static_cast<size_t>(i)] = e > s ? sum / static_cast<double>(e - s) : std::numeric_limits<double>::quiet_NaN();
  }
  if (type == TaskType::language_modeling) {
    out.correct = all_hit;
    return out;
  }
  size_t best = 0;  // Python's min(): the first of the smallest; a comparison with NaN is false
  for (size_t i = 1; i < means.size(); ++i) best = means[i] < means[best] ? i : best;
  out.correct = static_cast<int64_t>(best) == gold;
  out.losses = std::move(means);
  return out;
}

}  // namespace nanotrn::icl
