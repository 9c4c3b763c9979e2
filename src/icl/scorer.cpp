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

Scorer::Layout Scorer::layout(const ScoredRows& rows) const {
  const auto R = static_cast<int64_t>(rows.rows.size());
  check(R > 0, "Scorer: an example without rows");
  const int64_t V = gpt_.config().vocab_size;
  for (const auto& r : rows.rows) {
    for (int32_t t : r) check(t >= 0 && t < V, "Scorer: token " + std::to_string(t) + " is outside the vocabulary");
  }
  Layout x;
  // One row shares its prefix with nothing: it runs as one forward (a separate prefix pass would only read every
  // weight a second time, for the same FLOPs).
  x.L = R > 1 ? common_length(rows.rows, false) : 0;
  for (int64_t i = 0; i < R; ++i) x.L = std::min(x.L, rows.start[static_cast<size_t>(i)]);
  // The rest of each row that predicts a scored token: positions L .. end - 2, padded to M for every row.
  for (int64_t i = 0; i < R; ++i) x.M = std::max(x.M, rows.end[static_cast<size_t>(i)] - 1 - x.L);
  // The first rest position any row scores (a schema's options score only their common suffix).
  x.F = x.M;
  for (int64_t i = 0; i < R; ++i)
    x.F = std::min(x.F, std::max<int64_t>(0, rows.start[static_cast<size_t>(i)] - 1 - x.L));
  x.tokens = x.L;
  for (int64_t i = 0; i < R; ++i) x.tokens += std::max<int64_t>(0, rows.end[static_cast<size_t>(i)] - 1 - x.L);
  return x;
}

ExampleScore Scorer::score(TaskType type, const ScoredRows& rows, int64_t gold) {
  Ctx ctx = ctx_;
  ctx.matmul_dtype = DType::f32;
  NoGradGuard no_grad(ctx);
  const Layout x = layout(rows);
  const auto R = static_cast<int64_t>(rows.rows.size());
  const int64_t V = gpt_.config().vocab_size;
  model::KvCache prefix_cache;
  Tensor prefix_row;  // [1, 1, D]: the prefix's last hidden row, whose logits predict the token after the prefix
  if (x.L > 0) {
    const std::vector<int32_t> ids(rows.rows[0].begin(), rows.rows[0].begin() + x.L);
    const Tensor h = gpt_.hidden(ctx, Tensor::from_ints({1, x.L}, ids), &prefix_cache);
    prefix_row = ops::narrow(ctx, h, 1, x.L - 1, 1);
  }
  Tensor prefix_logits;  // [1, V]: the first pass's head computes it along with that pass's scored rows
  std::vector<double> means(static_cast<size_t>(R));
  bool all_hit = true;
  const int64_t chunk = rows_per_pass(R, x.L, x.M, x.F);
  for (int64_t first = 0; first < R; first += chunk) {
    const int64_t n = std::min(chunk, R - first);
    const ScoredPositions at = scored_positions(rows, first, n, x.L, x.M);
    model::KvCache cache = prefix_cache;  // the pass appends to its own copy, one replica per row
    if (x.L > 0 && n > 1) {
      for (size_t layer = 0; layer < cache.k.size(); ++layer) {
        cache.k[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(n), cache.k[layer]), 0);
        cache.v[layer] = ops::concat(ctx, std::vector<Tensor>(static_cast<size_t>(n), cache.v[layer]), 0);
      }
    }
    const bool runs_rest = x.M > 0 && !at.index.empty();
    const Tensor tail = prefix_logits.defined() ? Tensor() : prefix_row;
    const Tensor logits = head_logits(ctx, runs_rest ? rest_ids(rows, first, n, x.L, x.M) : Tensor(), at,
                                      x.L > 0 ? &cache : nullptr, tail);
    if (tail.defined()) {
      prefix_logits = ops::narrow(ctx, logits, 0, logits.size(0) - 1, 1).contiguous();
    }
    for (int64_t r = 0; r < n; ++r) {
      const float* z = runs_rest ? logits.data<float>() + at.first_of[static_cast<size_t>(r)] * V : nullptr;
      means[static_cast<size_t>(first + r)] = span_mean(rows, static_cast<size_t>(first + r), x.L,
                                                        x.L > 0 ? prefix_logits.data<float>() : nullptr, z, V, all_hit);
    }
  }
  return verdict(type, std::move(means), all_hit, gold, x.tokens);
}

double Scorer::span_mean(const ScoredRows& rows, size_t i, int64_t L, const float* prefix, const float* rest, int64_t V,
                         bool& all_hit) {
  const auto& r = rows.rows[i];
  const int64_t s = rows.start[i], e = rows.end[i];
  double sum = 0.0;
  for (int64_t pos = s - 1; pos <= e - 2; ++pos) {
    const float* z = pos == L - 1 ? prefix : rest + (pos - std::max(s - 1, L)) * V;
    const PositionLoss pl = position_loss(z, V, r[static_cast<size_t>(pos + 1)]);
    sum += pl.loss;
    all_hit = all_hit && pl.argmax_hit;
  }
  return e > s ? sum / static_cast<double>(e - s) : std::numeric_limits<double>::quiet_NaN();
}

ExampleScore Scorer::verdict(TaskType type, std::vector<double> means, bool all_hit, int64_t gold, int64_t tokens) {
  ExampleScore out;
  out.tokens = tokens;
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
  for (int64_t r = 0; r < n; ++r) {
    const auto k = static_cast<size_t>(first + r);
    at.first_of.push_back(static_cast<int64_t>(at.index.size()));
    for (int64_t pos = std::max(rows.start[k] - 1, L); pos <= rows.end[k] - 2; ++pos)
      at.index.push_back(static_cast<int32_t>(r * M + pos - L));
  }
  return at;
}

Tensor Scorer::rest_ids(const ScoredRows& rows, int64_t first, int64_t n, int64_t L, int64_t M) {
  std::vector<int32_t> ids(static_cast<size_t>(n * M), 0);  // padding never reaches a scored position (causal)
  for (int64_t r = 0; r < n; ++r) {
    const auto& row = rows.rows[static_cast<size_t>(first + r)];
    const int64_t len = std::min<int64_t>(M, static_cast<int64_t>(row.size()) - L);
    std::copy(row.begin() + L, row.begin() + L + len, ids.begin() + r * M);
  }
  return Tensor::from_ints({n, M}, ids);
}

Tensor Scorer::head_logits(Ctx& ctx, const Tensor& ids, const ScoredPositions& at, model::KvCache* cache,
                           const Tensor& tail) {
  std::vector<Tensor> hidden;  // [1, rows, D] each
  if (ids.defined()) {
    const int64_t n = ids.size(0), M = ids.size(1);
    const Tensor h = gpt_.hidden(ctx, ids, cache);
    const int64_t D = h.size(2);
    // The scored positions' hidden rows, gathered as an embedding lookup of the pass's [n * M, D] rows.
    hidden.push_back(ops::embedding(ctx, Tensor::from_ints({1, static_cast<int64_t>(at.index.size())}, at.index),
                                    ops::reshape(ctx, h.contiguous(), {n * M, D})));
  }
  if (tail.defined()) hidden.push_back(tail);
  if (hidden.empty()) return Tensor();
  const Tensor rows = hidden.size() == 1 ? hidden[0] : ops::concat(ctx, hidden, 1);
  return ops::reshape(ctx, gpt_.head(ctx, rows).contiguous(), {rows.size(1), gpt_.config().vocab_size});
}

}  // namespace nanotrn::icl
