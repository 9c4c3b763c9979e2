// A Hugging Face `config.json` read as a GptConfig (model/config.h), so `nanotrn predict --model-config` prices any
// dense Llama-family model: LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM; the mixtures of
// experts MixtralForCausalLM, Qwen3MoeForCausalLM and GptOssForCausalLM; and the GPT-2 layout (GPT2LMHeadModel), in
// which GPT-3 shapes are written (configs/hf/gpt3-175b.json).
//
//   HfModel m = read_hf_config("configs/hf/llama-3.1-8b.json");
//   m.config (resolved: SwiGLU, GQA, RMSNorm gains, rotary base, tied or untied head, sliding window), m.notes
//
// Mapping: hidden_size -> model_dim, num_hidden_layers -> depth, num_attention_heads -> n_head,
// num_key_value_heads -> n_kv_head (default: n_head), head_dim (default hidden_size / heads), intermediate_size ->
// mlp_hidden with activation swiglu (hidden_act "silu") or geglu (hidden_act "gelu_pytorch_tanh" or "gelu_new"; an
// exact "gelu" is refused), rope_theta -> rotary_base (default 10000), tie_word_embeddings -> tie_embeddings,
// sliding_window -> window (Mistral; Qwen2 only with use_sliding_window on every layer), Qwen3's q/k RMSNorm ->
// qk_norm; no logit softcap, no value embeddings, learned norm gains. Experts: Mixtral's num_local_experts,
// num_experts_per_tok and intermediate_size (each expert's); Qwen3-MoE's num_experts, num_experts_per_tok,
// moe_intermediate_size, with every layer sparse (decoder_sparse_step 1, no mlp_only_layers) -> model.experts,
// experts_per_token, mlp_hidden. Router training settings (aux loss, jitter, norm_topk_prob) are accepted as not
// changing the cost. gpt-oss: num_local_experts, num_experts_per_tok (or experts_per_token), intermediate_size, experts
// with biases (model.mlp_bias), attention sinks (model.attention_sinks) and the clamped SwiGLU (swiglu_limit, default
// 7); `notes` say that the MXFP4 release format is not what is priced and that the sinks' and the clamp's element-wise
// work is not priced. layer_types (sliding_attention / full_attention per layer) -> model.window_pattern with
// sliding_window as the window. Strict: an architecture outside the list, a mixture of experts not lowered (Qwen2-MoE's
// shared expert, DeepSeek-V3's latent attention: named in the error), a non-SiLU activation, use_mrope (Qwen2-VL's
// sections), or any field the reader does not know is an Error naming the file and the field, because an unknown field
// may change the cost. Fields known not to change a training step's cost (token ids, dtype, eps, initialiser range,
// maximum positions, ...) are accepted. rope_scaling -> model.rope_scaling: llama3 and yarn (their Hugging Face
// defaults where a field is absent); other types are refused by name. Attention biases -> model.attention_bias: qkv for
// Qwen2 (its q/k/v projections always have them), qkvo where attention_bias is true; mlp_bias -> model.mlp_bias. GPT-2
// fields: n_embd, n_layer, n_head (head_dim = n_embd / n_head), n_inner (default 4 n_embd) with a GELU
// activation_function, tie_word_embeddings (default true), n_positions (default 1024) -> model.learned_positions, and
// its LayerNorm (model.norm layer) and biases on every linear layer (attention_bias qkvo, mlp_bias); dropout
// probabilities are accepted (assumed off when priced), and older configs' output_past, n_special and
// predict_special_tokens (which GPT2LMHeadModel does not read).
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
