// The small GPT shape tests build real models of: 3 layers, width 48 in 3 heads of 16 over 1 KV head (grouped-query
// attention), value embeddings, vocabulary 97. Resolved.
#pragma once

#include "model/config.h"

namespace nanotrn::testing_support {

inline model::GptConfig tiny_gpt_config() {
  model::GptConfig c;
  c.vocab_size = 97;
  c.depth = 3;
  c.model_dim = 48;
  c.head_dim = 16;
  c.n_head = 3;
  c.n_kv_head = 1;
  c.ve_gate_channels = 8;
  return model::resolve(c);
}

}  // namespace nanotrn::testing_support
