// Text generation with a KV cache: greedy, temperature and top-k sampling.
//
//   std::vector<int32_t> out = generate(ctx, gpt, prompt_ids, {.max_tokens = 64, .temperature = 0.8f, .top_k = 40});
//
// The prompt is run once (prefill), then one position per new token reuses the cached keys and values. temperature
// 0 is greedy (argmax; ties to the lowest id). Sampling draws from Philox(seed, step), so a seed reproduces a sample.
// Generation stops after max_tokens or at `stop_token` (not included). Returns only the new tokens. A non-finite logit
// is an Error naming its position and id (argmax or a draw over NaN would pick an arbitrary token).
#pragma once

#include <cstdint>
#include <vector>

#include "model/gpt.h"

namespace nanotrn::model {

struct SampleOptions {
  int64_t max_tokens = 64;
  float temperature = 0.0f;  // 0 = greedy
  int64_t top_k = 0;         // 0 = the whole vocabulary
  uint64_t seed = 0;
  int32_t stop_token = -1;
};

std::vector<int32_t> generate(Ctx& ctx, Gpt& gpt, const std::vector<int32_t>& prompt, const SampleOptions& options);

// Picks a token from one row of logits (exposed for tests): argmax when temperature == 0, else a draw from
// softmax(logits / temperature) restricted to the top_k largest, using uniform u in [0, 1).
int32_t pick_token(const float* logits, int64_t vocab, float temperature, int64_t top_k, float u);

}  // namespace nanotrn::model
