// A Hugging Face `config.json` read as a GptConfig (model/config.h), so `nanotrn predict --model-config` prices any
// dense Llama-family model: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM.
//
//   HfModel m = read_hf_config("configs/hf/llama-3.1-8b.json");
//   m.config (resolved: SwiGLU, GQA, RMSNorm gains, rotary base, tied or untied head, sliding window), m.notes
//
// Mapping: hidden_size -> model_dim, num_hidden_layers -> depth, num_attention_heads -> n_head,
// num_key_value_heads -> n_kv_head (default: n_head), head_dim (default hidden_size / heads), intermediate_size ->
// mlp_hidden with activation swiglu (hidden_act must be "silu"), rope_theta -> rotary_base (default 10000),
// tie_word_embeddings -> tie_embeddings, sliding_window -> window (Mistral; Qwen2 only with use_sliding_window on
// every layer), Qwen3's q/k RMSNorm -> qk_norm; no logit softcap, no value embeddings, learned norm gains.
// Strict: an architecture outside the list, a mixture of experts (num_local_experts, num_experts, n_routed_experts),
// a non-SiLU activation, MLP biases, or any field the reader does not know is an Error naming the file and the field,
// because an unknown field may change the cost. Fields known not to change a training step's cost (token ids,
// dtype, eps, initialiser range, maximum positions, rope scaling, ...) are accepted; Qwen2's q/k/v biases are
// accepted and their parameters named in `notes` as not counted.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/config.h"

namespace nanotrn::model {

struct HfModel {
  std::string architecture;
  GptConfig config;                // resolved
  std::vector<std::string> notes;  // what the mapping approximates
};

HfModel read_hf_config(const std::string& path);
// `where` names the source in errors ("config.json").
HfModel hf_config_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace nanotrn::model
