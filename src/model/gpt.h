// The GPT of the challenge baseline (recipe-spec §2.2) and the Llama-family variants Hugging Face configs bring.
//
// Baseline: untied embedding and head, weightless RMSNorm, per-layer residual and x0 scalars, rotary + QK-norm
// attention with GQA, value embeddings with gates on alternating layers, ReLU^2 (or LeakyReLU^2) MLP, softcapped fused
// cross-entropy, optional multi-token-prediction targets.
//
//   Gpt gpt(ctx, resolve(config), /*seed=*/42);          // initialised as §2.2 says (zero output projections, ...)
//   Tensor loss = gpt.loss(ctx, ids, targets);          // ids/targets i32 [B, T]; records onto ctx.tape
//   tape.backward(loss);  for (Parameter& p : gpt.parameters()) ... p.value.grad() ...
//   Tensor nll = gpt.per_token_nll(ctx, ids, targets);  // [B, T] nats, no autograd (val_bpb)
//
// One forward, per block i:  x = resid[i] x + x0[i] x0;  h = norm(x);  q, k, v = h W_q, h W_k, h W_v;
//   v += gate(h) * ve_i(ids) on value-embedding layers;  q, k = rotary(q), rotary(k);  q, k = norm(q), norm(k);
//   x += attention(q, k, v) W_o;  x += act(norm(x) W_fc) W_proj.
// Then logits = softcap(norm(x) lm_head^T) and the mean cross-entropy over targets != -1. With MTP weights
// (w_1, ..., w_k) the same logits are also scored against the targets k - 1 positions further on, and the loss is
// sum_j w_j * CE_j (FrontierForge's variant, recipe-spec §6.4).
//
// The variants, each a field of GptConfig (any combination):
//   norm_weights    the Llama block: every norm has a gain g (ones at init, AdamW group norm_gain), the embedding is
//                   not normalised and there are no resid/x0 scalars:  x = wte(ids);  x += attn(norm(x) g_attn);
//                   x += mlp(norm(x) g_mlp);  hidden = norm(x) g_f.  QK-norm with gains comes before rotary (Qwen3's
//                   order; without gains the two commute, as rotary keeps each head's norm).
//   swiglu          mlp(h) = (silu(h W_gate^T) * (h W_fc^T)) W_proj^T  (W_gate "mlp.c_gate", initialised as W_fc).
//   gelu            mlp(h) = gelu_tanh(h W_fc^T) W_proj^T  (GPT-2's "gelu_new").
//   geglu           mlp(h) = (gelu_tanh(h W_gate^T) * (h W_fc^T)) W_proj^T  (T5 v1.1's, Gemma's).
//   tie_embeddings  the head multiplies by wte (no lm_head parameter; wte's init, model.init.wte_std, is the head's).
//   attention_bias  q, k, v = h W^T + b ("blocks.i.attn.c_q_bias", ...; zeros at init, AdamW group bias): qkv is
//                   Qwen2's; qkvo also adds one to the output projection (Llama's attention_bias, gpt-oss).
//   mlp_bias        every MLP linear layer (each expert's) has a bias ("blocks.i.mlp.c_fc_bias", ...; zeros, bias).
//   norm layer      LayerNorm: norm(x) = rms_norm(x - mean(x)), which is (x - mean) / sqrt(var + eps); under
//                   norm_weights a bias beside each gain ("blocks.i.attn_norm_bias", "norm_f_bias"; zeros, bias).
//   attention_sinks  a logit per query head in every softmax's denominator ("blocks.i.attn.sinks"; zeros, bias).
//   swiglu_limit    gpt-oss's SwiGLU: g = min(h W_gate^T, L), u = clamp(h W_fc^T, -L, L), (u + 1) g sigmoid(1.702 g).
//   rope_scaling    the rotary frequencies scaled as Llama 3.1 (llama3) or gpt-oss (yarn) do (model/rope.h).
//   learned_positions  x = wte(ids) + wpe(positions) with wpe [learned_positions, d] ("wpe", N(0, 0.02^2), AdamW
//                   group wte), and no rotary embedding: GPT-2's positions.
//   window_pattern  the sliding window on the layers the pattern marks 'S' only.
//   experts         a mixture of experts in place of the MLP (Mixtral's): router logits r = h W_router^T, p =
//                   softmax(r), the top experts_per_token of p renormalised to sum 1 weigh their experts' MLPs
//                   ("blocks.i.mlp.experts.j.*", each the block's MLP), dropless (no capacity: every token reaches its
//                   k experts); the loss adds moe_aux_loss x E sum_e f_e P_e summed over layers (Switch Transformer,
//                   per layer; f_e the fraction of tokens routed to e, P_e its mean probability; Hugging Face's
//                   Mixtral pools the layers' tokens into one such term instead). Each expert's MLP runs on the
//                   rows routed to it (gathered), and each token sums its k weighted outputs: k / E of a dense pass.
// A Hugging Face config trains as its nearest member of this family: norms with eps 2^-23 (the configs say 1e-5 or
// 1e-6).
// Not here: optimisers, data, the training loop.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "model/config.h"
#include "model/rope.h"
#include "ops/rotary.h"

namespace nanotrn::model {

// Which optimiser group a parameter belongs to (recipe-spec §3.1, §3.2).
enum class ParamGroup { matrix, wte, lm_head, value_embed, resid_lambda, x0_lambda, norm_gain, bias };
std::string to_string(ParamGroup g);

struct Parameter {
  std::string name;  // "wte", "blocks.3.attn.c_q", ... (the names checkpoints and the PyTorch parity test use)
  Tensor value;      // f32, contiguous, requires grad
  ParamGroup group;
};

// Keys and values of earlier positions, per layer, for incremental decoding (sampling).
struct KvCache {
  std::vector<Tensor> k, v;  // per layer: [B, T_so_far, n_kv_head, head_dim]
  int64_t length() const { return k.empty() || !k[0].defined() ? 0 : k[0].size(1); }
};

struct ParamMaker;  // gpt.cpp: draws each new parameter from its own Philox stream of the seed

class Gpt {
 public:
  // `config` must be resolved. Weights are drawn from Philox streams of `seed` (one stream per parameter).
  Gpt(const Ctx& ctx, const GptConfig& config, uint64_t seed);

  const GptConfig& config() const { return config_; }
  std::vector<Parameter>& parameters() { return params_; }
  const std::vector<Parameter>& parameters() const { return params_; }
  Parameter& parameter(const std::string& name);  // throws naming the unknown name

  // Final normalised hidden states [B, T, C]. With a cache, ids are the next positions after cache->length() and
  // the cache grows by T (no autograd then). With experts and `aux_loss`, *aux_loss is the sum over layers of the
  // load-balancing loss (undefined without experts).
  Tensor hidden(Ctx& ctx, const Tensor& ids, KvCache* cache = nullptr, Tensor* aux_loss = nullptr);
  // Weighted mean cross-entropy (+ moe_aux_loss x the load-balancing loss with experts); `mtp_weights` empty means {1}
  // (plain next-token prediction).
  Tensor loss(Ctx& ctx, const Tensor& ids, const Tensor& targets, const std::vector<float>& mtp_weights = {});
  // Per-token next-token loss in nats [B, T] (0 where the target is -1); no autograd.
  Tensor per_token_nll(Ctx& ctx, const Tensor& ids, const Tensor& targets);
  // Logits [B, T, V] of the given positions (softcapped), no autograd: for sampling with a cache.
  Tensor logits(Ctx& ctx, const Tensor& ids, KvCache* cache = nullptr);
  // The head on hidden states [..., C] from hidden(): logits [..., V] (softcapped), no autograd. Lets a caller
  // that needs few positions' logits (CORE scoring, icl/scorer.h) skip the head on the others.
  Tensor head(Ctx& ctx, const Tensor& hidden);

 private:
  Tensor& p(size_t index) { return params_[index].value; }
  static constexpr size_t kNone = static_cast<size_t>(-1);
  struct MlpIndex {
    size_t c_fc, c_proj;
    size_t c_gate = kNone;                                         // swiglu's gate matrix
    size_t fc_bias = kNone, gate_bias = kNone, proj_bias = kNone;  // model.mlp_bias
  };
  struct LayerIndex {
    size_t c_q, c_k, c_v, c_o;
    std::vector<MlpIndex> mlp;           // one dense MLP, or the experts
    size_t router = kNone;               // [experts, d], with experts
    size_t ve = kNone, ve_gate = kNone;  // the value embedding and its gate, on value-embedding layers
    size_t attn_norm = kNone, mlp_norm = kNone, q_norm = kNone, k_norm = kNone;  // gains (norm_weights)
    size_t q_bias = kNone, k_bias = kNone, v_bias = kNone, o_bias = kNone;       // model.attention_bias
    size_t attn_norm_bias = kNone, mlp_norm_bias = kNone;                        // LayerNorm's (model.norm layer)
    size_t sinks = kNone;                                                        // [n_head] (attention_sinks)
  };
  LayerIndex add_block(ParamMaker& make, int64_t layer) const;
  // The block's norm of x (RMSNorm, or LayerNorm under model.norm layer), times the gain params_[gain] and plus the
  // bias params_[bias], each unless kNone.
  Tensor norm(Ctx& ctx, const Tensor& x, size_t gain, size_t bias = kNone);
  // The token embedding of ids, plus the learned positions from `offset` on (model.learned_positions).
  Tensor embed(Ctx& ctx, const Tensor& ids, int64_t offset);
  // x W^T with W = params_[weight], plus params_[bias] unless bias is kNone.
  Tensor project(Ctx& ctx, const Tensor& x, size_t weight, size_t bias);
  // `rope`: the forward's rotary table (ops::rotary_table), or none where positions are learned.
  Tensor attention(Ctx& ctx, int64_t layer, const Tensor& h, const Tensor& ids, KvCache* cache,
                   const std::shared_ptr<const ops::RotaryTable>& rope);
  MlpIndex add_mlp(ParamMaker& make, const std::string& prefix) const;
  Tensor mlp(Ctx& ctx, const MlpIndex& m, const Tensor& h);
  // gpt-oss's SwiGLU of the gate and up projections (model.swiglu_limit).
  Tensor clamped_swiglu(Ctx& ctx, const Tensor& gate, const Tensor& up);
  // The mixture of experts' output for h [B, T, d]; adds the layer's load-balancing loss to *aux when aux is given.
  Tensor experts(Ctx& ctx, const LayerIndex& L, const Tensor& h, Tensor* aux);
  // The (multi-token) cross-entropy of hidden states h against targets.
  Tensor language_model_loss(Ctx& ctx, const Tensor& h, const Tensor& targets, const std::vector<float>& mtp_weights);
  GptConfig config_;
  std::vector<Parameter> params_;
  std::vector<LayerIndex> layers_;
  RotaryFrequencies rope_;  // of the config's rotary (model.rope_scaling), computed once
  size_t wte_ = 0, lm_head_ = 0, resid_ = kNone, x0_ = kNone, norm_f_ = kNone, norm_f_bias_ = kNone, wpe_ = kNone;
};

// Targets shifted for multi-token prediction: out[b, t] = targets[b, t + shift] when t + shift < T, else -1.
Tensor shift_targets(const Tensor& targets, int64_t shift);

}  // namespace nanotrn::model
