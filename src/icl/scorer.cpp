// Scoring one CORE example, the shared prefix once. See scorer.h.
#include "icl/scorer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "base/error.h"
#include "ops/embedding.h"
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

// The host bytes one row of the rest pass holds at its peak: its logits from F, the attention scores over the
// prefix and itself, its replica of the prefix cache plus its own keys and values, and a dozen model-width
// activations per position (fp32). An estimate to size chunks, not an allocator's count.
double rest_row_bytes(const model::GptConfig& c, int64_t L, int64_t M, int64_t F) {
  const double keys = static_cast<double>(L + M);
  const double kv_width = static_cast<double>(c.n_kv_head * c.head_dim);
  return 4.0 * (static_cast<double>(M - F) * static_cast<double>(c.vocab_size) +
                static_cast<double>(M) * keys * static_cast<double>(c.n_head) +
                2.0 * static_cast<double>(c.depth) * keys * kv_width + 12.0 * static_cast<double>(M * c.model_dim));
}

}  // namespace

int64_t Scorer::rows_per_pass(int64_t R, int64_t L, int64_t M, int64_t F) const {
  const double per_row = rest_row_bytes(gpt_.config(), L, M, F);
  const double fit = std::floor(pass_bytes_ / std::max(per_row, 1.0));
  return std::clamp<int64_t>(static_cast<int64_t>(std::min(fit, 1e18)), 1, std::max<int64_t>(R, 1));
}

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

  model::KvCache prefix_cache;
  Tensor prefix_logits;  // [1, 1, V]: the prediction of the token after the prefix
  if (L > 0) {
    const std::vector<int32_t> ids(rows.rows[0].begin(), rows.rows[0].begin() + L);
    const Tensor h = gpt_.hidden(ctx, Tensor::from_ints({1, L}, ids), &prefix_cache);
    prefix_logits = gpt_.head(ctx, ops::narrow(ctx, h, 1, L - 1, 1)).contiguous();
    out.tokens += L;
  }
  // The rest of each row that predicts a scored token: positions L .. end - 2, padded to M for every row.
  int64_t M = 0;
  for (int64_t i = 0; i < R; ++i) M = std::max(M, rows.end[static_cast<size_t>(i)] - 1 - L);
  // The head only from the first position any row scores (a schema's options score only their common suffix).
  int64_t F = M;
  for (int64_t i = 0; i < R; ++i) F = std::min(F, std::max<int64_t>(0, rows.start[static_cast<size_t>(i)] - 1 - L));
  for (int64_t i = 0; i < R; ++i) out.tokens += std::max<int64_t>(0, rows.end[static_cast<size_t>(i)] - 1 - L);

  std::vector<double> means(static_cast<size_t>(R));
  bool all_hit = true;
  const int64_t chunk = rows_per_pass(R, L, M, F);
  for (int64_t first = 0; first < R; first += chunk) {
    const int64_t n = std::min(chunk, R - first);
    const ScoredPositions at = scored_positions(rows, first, n, L, M);
    const Tensor rest_logits = rest_pass(ctx, rows, first, n, L, M, at, prefix_cache);  // [at.index.size(), V]
    for (int64_t i = first; i < first + n; ++i) {
      const auto& r = rows.rows[static_cast<size_t>(i)];
      const int64_t s = rows.start[static_cast<size_t>(i)], e = rows.end[static_cast<size_t>(i)];
      double sum = 0.0;
      for (int64_t pos = s - 1; pos <= e - 2; ++pos) {
        const float* z = pos == L - 1 ? prefix_logits.data<float>()
                                      : rest_logits.data<float>() +
                                            (at.first[static_cast<size_t>(i - first)] + pos - std::max(s - 1, L)) * V;
        const PositionLoss pl = position_loss(z, V, r[static_cast<size_t>(pos + 1)]);
        sum += pl.loss;
        all_hit = all_hit && pl.argmax_hit;
      }
      means[static_cast<size_t>(i)] =
          e > s ? sum / static_cast<double>(e - s) : std::numeric_limits<double>::quiet_NaN();
    }
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

Scorer::ScoredPositions Scorer::scored_positions(const ScoredRows& rows, int64_t first, int64_t n, int64_t L,
                                                 int64_t M) {
  ScoredPositions at;
  for (int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(first + i);
    at.first.push_back(static_cast<int64_t>(at.index.size()));
    for (int64_t pos = std::max(rows.start[k] - 1, L); pos <= rows.end[k] - 2; ++pos)
      at.index.push_back(i * M + pos - L);
  }
  return at;
}

Tensor Scorer::rest_pass(Ctx& ctx, const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M,
                         const ScoredPositions& at, const model::KvCache& prefix_cache) {
  if (M <= 0 || at.index.empty()) return {};
  std::vector<int32_t> ids(static_cast<size_t>(n * M), 0);  // padding never reaches a scored position (causal)
  for (int64_t i = 0; i < n; ++i) {
    const auto& r = rows.rows[static_cast<size_t>(first + i)];
    const int64_t len = std::min<int64_t>(M, static_cast<int64_t>(r.size()) - L);
    std::copy(r.begin() + L, r.begin() + L + len, ids.begin() + i * M);
  }
  model::KvCache cache = prefix_cache;  // the pass appends to its own copy
  if (L > 0 && n > 1) {
    for (size_t layer = 0; layer < cache.k.size(); ++layer) {
      cache.k[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(n), cache.k[layer]), 0);
      cache.v[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(n), cache.v[layer]), 0);
    }
  }
  const Tensor h = gpt_.hidden(ctx, Tensor::from_ints({n, M}, ids), L > 0 ? &cache : nullptr);
  const int64_t D = h.shape()[2];
  // The scored positions' hidden rows, gathered as an embedding lookup of the pass's [n * M, D] rows.
  const Tensor scored = ops::embedding(ctx, Tensor::from_ints({1, static_cast<int64_t>(at.index.size())}, at.index),
                                       ops::reshape(ctx, h.contiguous(), {n * M, D}));
  return gpt_.head(ctx, scored).contiguous();
}

}  // namespace nanotrn::icl
