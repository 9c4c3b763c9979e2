// Generation. See sample.h.
#include "model/sample.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"
#include "base/rng.h"
#include "model/top_k.h"

namespace nanotrn::model {

int32_t pick_token(const float* logits, int64_t vocab, float temperature, int64_t top_k, float u) {
  check(vocab >= 1, "pick_token: empty vocabulary");
  check(temperature >= 0.0f, "sample: temperature must be >= 0");
  if (temperature == 0.0f) return static_cast<int32_t>(std::max_element(logits, logits + vocab) - logits);
  const int64_t k = top_k > 0 ? std::min(top_k, vocab) : vocab;
  const std::vector<int32_t> ids = top_k_indices(logits, vocab, k);
  const double mx = logits[ids[0]];
  std::vector<double> p(static_cast<size_t>(k));
  double total = 0.0;
  for (int64_t i = 0; i < k; i++) total += p[i] = std::exp((logits[ids[i]] - mx) / temperature);
  double acc = 0.0;
  for (int64_t i = 0; i < k; i++) {
    acc += p[i] / total;
    if (u < acc) return ids[i];
  }
  return ids[k - 1];
}

std::vector<int32_t> generate(Ctx& ctx, Gpt& gpt, const std::vector<int32_t>& prompt, const SampleOptions& o) {
  check(!prompt.empty(), "sample: the prompt must have at least one token");
  NoGradGuard no_grad(ctx);
  const int64_t V = gpt.config().vocab_size;
  KvCache cache;
  std::vector<int32_t> out;
  Tensor ids = Tensor::from_ints({1, static_cast<int64_t>(prompt.size())}, prompt);
  for (int64_t step = 0; step < o.max_tokens; step++) {
    const Tensor logits = gpt.logits(ctx, ids, &cache);
    const float* last = logits.data<float>() + (logits.size(1) - 1) * V;
    for (int64_t v = 0; v < V; v++) {
      if (!std::isfinite(last[v])) {
        throw Error("sample: the logit of id " + std::to_string(v) + " at position " +
                    std::to_string(static_cast<int64_t>(prompt.size()) - 1 + step) + " is " + std::to_string(last[v]) +
                    " (non-finite): the model's output is meaningless there");
      }
    }
    const int32_t next = pick_token(last, V, o.temperature, o.top_k, random_uniform(o.seed, 77, step));
    if (next == o.stop_token) break;
    out.push_back(next);
    ids = Tensor::from_ints({1, 1}, {next});
  }
  return out;
}

}  // namespace nanotrn::model
