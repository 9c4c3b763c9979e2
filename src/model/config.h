// The GPT family of the challenge baseline (recipe-spec §2), as plain data, and the arithmetic that follows from it:
// the depth dial, parameter counts (§2.3, tested against §9.1) and FLOPs per token (§2.4, tested against §9.2).
//
//   GptConfig c;  c.depth = 8;  c.vocab_size = 8192;
//   GptConfig r = resolve(c);                 // model_dim = 512, 4 heads of 128 (the depth dial), checked
//   ParamCounts n = count_params(r);          // n.total == 50,332,176 for autoresearch d8
//   double f = flops_per_token(r, 1024);      // 6 * matmul params + attention term
//
// resolve() fills every field left at 0 (derived) and throws an Error naming the field for an impossible shape.
// Not here: the parameters themselves (model/gpt.h), JSON (recipe/recipe.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanotrn::model {

// swiglu: the Llama MLP, down(SiLU(gate x) * up x) with three matrices; gelu: GPT-2 / GPT-3's MLP (the host GPT uses
// GPT-2's tanh approximation, "gelu_new"); geglu: the gated form with GELU (tanh form) in place of SiLU, down(GELU(gate
// x) * up x) (T5 v1.1's, Gemma's; a Llama-family config with hidden_act gelu_pytorch_tanh). The host GPT trains all.
enum class Activation { relu2, leaky_relu2, swiglu, gelu, geglu };
// Whether the MLP has a gate matrix (three matrices): swiglu and geglu.
bool gated(Activation a);
enum class ValueEmbeds { none, alternating };
// Biases of the attention's linear layers (Hugging Face configs bring them; zeros at init, AdamW group bias):
// qkv: on q, k and v (Qwen2's block); qkvo: on the output projection too (Llama's and Mistral's attention_bias,
// gpt-oss).
enum class AttentionBias { none, qkv, qkvo };
// Rotary frequency scaling as Hugging Face configs bring it (rope_scaling; model/rope.h computes the frequencies):
// llama3 (Llama 3.1's: the low frequencies divided by factor, a smooth blend between low_freq_factor and
// high_freq_factor) or yarn (gpt-oss's: interpolation blended with extrapolation over a ramp between beta_fast and
// beta_slow rotations, and cos/sin scaled by attention_factor, 0 = 0.1 ln(factor) + 1).
enum class RopeScalingKind { none, llama3, yarn };
struct RopeScaling {
  RopeScalingKind kind = RopeScalingKind::none;
  double factor = 1.0;
  int64_t original_max_positions = 8192;
  double low_freq_factor = 1.0, high_freq_factor = 4.0;  // llama3
  double beta_fast = 32.0, beta_slow = 1.0;              // yarn
  bool truncate = true;                                  // yarn: the ramp's ends rounded outwards to whole channels
  double attention_factor = 0.0;                         // yarn
};

// The block's norms: rms (RMSNorm, the baseline's and Llama's) or layer (LayerNorm: the mean subtracted first, and a
// bias beside each gain under norm_weights: GPT-2's).
enum class NormKind { rms, layer };

// Initial weight scales. s = 1/sqrt(model_dim); "uniform x" means U(-x*sqrt(3)*s, +x*sqrt(3)*s), which has the std
// of N(0, (x*s)^2) (recipe-spec §2.2). Zero-initialised output projections make every block the identity at step 0.
struct InitScales {
  float wte_std = 1.0f;        // N(0, wte_std^2)
  float lm_head_std = 0.001f;  // N(0, lm_head_std^2)
  float qkv = 1.0f;            // uniform, times s
  float attn_proj = 0.0f;      // uniform, times s (0 = zero init)
  float fc = 1.0f;             // uniform, times s (nanochat HEAD and the Trainium teams: 0.4)
  float mlp_proj = 0.0f;       // uniform, times s
  float value_embed = 1.0f;    // uniform, times s
  float ve_gate = 0.0f;        // U(0, ve_gate) (0 = zero init, so the gate starts at ve_gate_max / 2)
};

struct GptConfig {
  int64_t vocab_size = 8192;
  int64_t depth = 8;
  int64_t aspect_ratio = 64;  // depth dial: model_dim = ceil(depth * aspect_ratio / head_dim) * head_dim
  int64_t head_dim = 128;
  int64_t model_dim = 0;   // 0: from the depth dial
  int64_t n_head = 0;      // 0: model_dim / head_dim
  int64_t n_kv_head = 0;   // 0: n_head (MHA); fewer for GQA/MQA (n_head % n_kv_head == 0)
  int64_t mlp_mult = 4;    // MLP hidden size = mlp_mult * model_dim, unless mlp_hidden is set
  int64_t mlp_hidden = 0;  // 0: mlp_mult * model_dim (Hugging Face intermediate_size); per expert with experts
  // Mixture of experts: every layer's MLP is `experts` MLPs of mlp_hidden and a router (model_dim x experts) that
  // sends each token to experts_per_token of them (top-k, weights renormalised over the k). 0 = a dense MLP.
  int64_t experts = 0;
  int64_t experts_per_token = 0;
  // The load-balancing loss added to the training loss, times this: Switch Transformer's E * sum_e f_e P_e (f_e: the
  // share of routed slots expert e got, P_e: its mean router probability); Mixtral's router_aux_loss_coef default.
  float moe_aux_loss = 0.01f;
  Activation activation = Activation::relu2;
  // Hugging Face conventions (the host GPT trains them: model/gpt.h): the lm_head shares the embedding
  // (tie_word_embeddings), and every RMSNorm has a learned gain (d per norm, head_dim for QK-norm) in place of the
  // baseline's per-layer residual scalars (the Llama block: no norm on the embedding, no x0 path).
  bool tie_embeddings = false;
  bool norm_weights = false;
  AttentionBias attention_bias = AttentionBias::none;
  NormKind norm = NormKind::rms;
  bool mlp_bias = false;          // biases on the MLP's linear layers (GPT-2's, Llama's mlp_bias, gpt-oss's experts)
  int64_t learned_positions = 0;  // > 0: a learned table of this many positions added to the embedding, no rotary
  // gpt-oss's attention sinks: a learned logit per query head in every softmax's denominator (ops/attention.h).
  bool attention_sinks = false;
  // > 0: gpt-oss's clamped SwiGLU instead of Llama's: (clamp(up, -L, L) + 1) g sigmoid(1.702 g), g = min(gate, L).
  float swiglu_limit = 0.0f;
  float leaky_slope = 0.5f;  // LeakyReLU^2 negative slope
  double rotary_base = 10000.0;
  RopeScaling rope_scaling;
  bool qk_norm = true;   // RMSNorm on q and k after rotary
  float qk_gain = 1.0f;  // multiplies the attention scores (nanochat HEAD: 1.2^2 = 1.44)
  int64_t window = 0;    // sliding attention window, 0 = full causal
  // Which layers the window applies to: 'S' (windowed) or 'L' (full causal) per layer, repeated over the depth
  // ("SL": alternating, gpt-oss); empty = every layer.
  std::string window_pattern;
  float softcap = 15.0f;                                // logits = softcap * tanh(logits / softcap); 0 = off
  ValueEmbeds value_embeds = ValueEmbeds::alternating;  // on layers i % 2 == (depth - 1) % 2
  int64_t ve_gate_channels = 32;                        // gate = ve_gate_max * sigmoid(W x[..., :channels])
  float ve_gate_max = 2.0f;
  float resid_lambda_init = 1.0f;  // before block i: x = resid_lambda[i] * x + x0_lambda[i] * x0
  float x0_lambda_init = 0.1f;
  InitScales init;
};

// The config with every derived field filled in; throws an Error naming the field when the shape is impossible.
GptConfig resolve(const GptConfig& config);
bool has_value_embed(const GptConfig& resolved, int64_t layer);
// Whether `layer` attends through the sliding window (model.window on the layers window_pattern marks 'S').
bool layer_windowed(const GptConfig& resolved, int64_t layer);
// The keys each query of `layer` attends to at sequence length T: min(window, T) on a windowed layer, else T.
int64_t layer_keys(const GptConfig& resolved, int64_t layer, int64_t seq_len);
int64_t value_embed_layers(const GptConfig& resolved);

struct ParamCounts {
  int64_t wte = 0, lm_head = 0, value_embeds = 0, positions = 0, block_matrices = 0, ve_gates = 0, scalars = 0;
  int64_t total() const { return wte + lm_head + value_embeds + positions + block_matrices + ve_gates + scalars; }
  // nanochat's "scaling params" (transformer matrices + lm_head); also the matmul parameters of the FLOP count.
  int64_t scaling() const { return block_matrices + ve_gates + lm_head; }
  // Kaplan et al. 2020's count (no embedding, no lm_head): the N of the forecast's scaling law (forecast/).
  int64_t non_embedding() const { return block_matrices + ve_gates; }
};
ParamCounts count_params(const GptConfig& resolved);

// The expert parameters a token does not use: depth x (experts - experts_per_token) x one expert MLP (0 when dense).
int64_t inactive_expert_params(const GptConfig& resolved);

// 6 * (matmul params a token uses: all but the inactive experts) + sum over layers of 12 * n_head * head_dim *
// layer_keys (recipe-spec §2.4).
double flops_per_token(const GptConfig& resolved, int64_t seq_len);

// The model's size in words, for a run's header and its report: "depth 4, width 256, 4 heads of 64 (4 kv), vocab 300".
std::string describe_shape(const GptConfig& resolved);

// What sets the block apart from the baseline's, for a run's header: "" for the baseline, else e.g. "Llama block
// (norm gains), swiglu MLP of 256, tied head, window 5 on S of SL".
std::string describe_variants(const GptConfig& resolved);

std::string to_string(Activation a);
std::string to_string(ValueEmbeds v);
std::string to_string(AttentionBias b);
std::string to_string(NormKind n);
std::string to_string(RopeScalingKind k);

}  // namespace nanotrn::model
