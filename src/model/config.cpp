// GPT shape arithmetic. See config.h.
#include "model/config.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "base/format.h"

namespace nanotrn::model {

namespace {

void require(bool ok, const std::string& field, const std::string& why) {
  check(ok, "model config: " + field + " " + why);
}

// The parameter groups of count_params(), in any number type: int64 for the counts, double for the overflow guard
// in resolve() (one formula for both).
template <typename N>
struct Groups {
  N wte, lm_head, value_embeds, positions, ve_gates, block_matrices, scalars;
  N total() const { return wte + lm_head + value_embeds + positions + ve_gates + block_matrices + scalars; }
};

template <typename N>
Groups<N> param_groups(const GptConfig& c) {
  // Every factor converted before multiplying, so the double instance (resolve's overflow guard) never overflows.
  const N hd = static_cast<N>(c.head_dim), d = static_cast<N>(c.model_dim), kv = static_cast<N>(c.n_kv_head) * hd;
  const N q = static_cast<N>(c.n_head) * hd, hidden = static_cast<N>(c.mlp_hidden);
  const N vocab = static_cast<N>(c.vocab_size), depth = static_cast<N>(c.depth);
  const N ve = static_cast<N>(value_embed_layers(c));
  const N mlp_matrices = gated(c.activation) ? 3 : 2;
  // A mixture of experts: `experts` MLPs and the router's d x experts matrix.
  const N experts = c.experts > 0 ? static_cast<N>(c.experts) : 1,
          router = c.experts > 0 ? static_cast<N>(c.experts) * d : 0;
  const N norms = (2 * depth + 1) * d + (c.qk_norm ? 2 * depth * hd : 0);
  const N biases = c.attention_bias == AttentionBias::none
                       ? 0
                       : depth * (q + 2 * kv + (c.attention_bias == AttentionBias::qkvo ? d : 0));
  // LayerNorm's biases beside the gains; each MLP's biases (every expert's).
  const N sinks = c.attention_sinks ? depth * static_cast<N>(c.n_head) : 0;
  const N norm_biases = c.norm == NormKind::layer && c.norm_weights ? (2 * depth + 1) * d : 0;
  const N mlp_biases = c.mlp_bias ? depth * experts * ((mlp_matrices - 1) * hidden + d) : 0;
  return {.wte = vocab * d,
          .lm_head = c.tie_embeddings ? 0 : vocab * d,
          .value_embeds = ve * vocab * kv,
          .positions = static_cast<N>(c.learned_positions) * d,
          .ve_gates = ve * static_cast<N>(c.ve_gate_channels) * static_cast<N>(c.n_kv_head),
          .block_matrices = depth * (q * d + 2 * kv * d + d * q + experts * mlp_matrices * hidden * d + router),
          .scalars = (c.norm_weights ? norms : 2 * depth) + biases + norm_biases + mlp_biases + sinks};
}

}  // namespace

GptConfig resolve(const GptConfig& config) {
  GptConfig c = config;
  require(c.vocab_size >= 2, "model.vocab_size", "must be >= 2, got " + std::to_string(c.vocab_size));
  require(c.depth >= 1, "model.depth", "must be >= 1, got " + std::to_string(c.depth));
  require(c.head_dim >= 2 && c.head_dim % 2 == 0, "model.head_dim",
          "must be even and >= 2 (rotary pairs), got " + std::to_string(c.head_dim));
  if (c.model_dim == 0) {
    require(c.aspect_ratio >= 1, "model.aspect_ratio", "must be >= 1, got " + std::to_string(c.aspect_ratio));
    c.model_dim = (c.depth * c.aspect_ratio + c.head_dim - 1) / c.head_dim * c.head_dim;
  }
  require(c.model_dim >= 1, "model.model_dim", "must be >= 1, got " + std::to_string(c.model_dim));
  if (c.n_head == 0) {
    require(c.model_dim % c.head_dim == 0, "model.model_dim",
            "(" + std::to_string(c.model_dim) + ") must be a multiple of model.head_dim (" +
                std::to_string(c.head_dim) + ") when model.n_head is derived");
    c.n_head = c.model_dim / c.head_dim;
  }
  require(c.n_head >= 1, "model.n_head", "must be >= 1, got " + std::to_string(c.n_head));
  if (c.n_kv_head == 0) c.n_kv_head = c.n_head;
  require(c.n_kv_head >= 1 && c.n_head % c.n_kv_head == 0, "model.n_kv_head",
          "(" + std::to_string(c.n_kv_head) + ") must divide model.n_head (" + std::to_string(c.n_head) + ")");
  require(c.mlp_mult >= 1, "model.mlp_mult", "must be >= 1, got " + std::to_string(c.mlp_mult));
  require(c.mlp_hidden >= 0, "model.mlp_hidden", "must be >= 0 (0 = mlp_mult * model_dim)");
  if (c.mlp_hidden == 0) {
    require(static_cast<double>(c.mlp_mult) * static_cast<double>(c.model_dim) < std::ldexp(1.0, 53), "model.mlp_mult",
            "times model_dim is beyond any model (" + std::to_string(c.mlp_mult) + " x " + std::to_string(c.model_dim) +
                ")");
    c.mlp_hidden = c.mlp_mult * c.model_dim;
  }
  require(c.experts == 0 || c.experts >= 2, "model.experts",
          "must be 0 (a dense MLP) or >= 2, got " + std::to_string(c.experts));
  require(c.experts == 0 ? c.experts_per_token == 0 : c.experts_per_token >= 1 && c.experts_per_token <= c.experts,
          "model.experts_per_token",
          c.experts == 0 ? "needs model.experts (a dense MLP routes nothing)"
                         : "must be in [1, model.experts = " + std::to_string(c.experts) + "], got " +
                               std::to_string(c.experts_per_token));
  require(c.rotary_base > 1.0, "model.rotary_base", "must be > 1");
  require(c.learned_positions >= 0, "model.learned_positions", "must be >= 0 (0 = rotary positions)");
  const RopeScaling& rs = c.rope_scaling;
  if (rs.kind != RopeScalingKind::none) {
    require(rs.factor >= 1.0, "model.rope_scaling.factor", "must be >= 1");
    require(rs.original_max_positions >= 1, "model.rope_scaling.original_max_positions", "must be >= 1");
    require(rs.kind != RopeScalingKind::llama3 || (rs.low_freq_factor > 0 && rs.high_freq_factor > rs.low_freq_factor),
            "model.rope_scaling", "needs 0 < low_freq_factor < high_freq_factor (llama3)");
    require(rs.kind != RopeScalingKind::yarn || (rs.beta_fast > 0 && rs.beta_slow > 0 && rs.attention_factor >= 0),
            "model.rope_scaling", "needs beta_fast, beta_slow > 0 and attention_factor >= 0 (yarn)");
  }
  require(c.swiglu_limit >= 0.0f, "model.swiglu_limit", "must be >= 0 (0 = Llama's SwiGLU)");
  require(c.swiglu_limit == 0.0f || c.activation == Activation::swiglu, "model.swiglu_limit",
          "needs model.activation swiglu (it clamps SwiGLU's gate and up projections)");
  require(c.window >= 0, "model.window", "must be >= 0 (0 = full causal)");
  require(c.window_pattern.find_first_not_of("SL") == std::string::npos, "model.window_pattern",
          "must be made of S (windowed) and L (full causal) layers, got \"" + c.window_pattern + "\"");
  require(c.window_pattern.empty() || c.window > 0, "model.window_pattern", "needs model.window > 0");
  require(c.softcap >= 0.0f, "model.softcap", "must be >= 0 (0 = off)");
  require(c.qk_gain > 0.0f, "model.qk_gain", "must be > 0");
  if (c.value_embeds != ValueEmbeds::none) {
    require(
        c.ve_gate_channels >= 1 && c.ve_gate_channels <= c.model_dim, "model.ve_gate_channels",
        "must be in [1, model_dim = " + std::to_string(c.model_dim) + "], got " + std::to_string(c.ve_gate_channels));
  }
  // count_params() works in int64: refuse a shape whose count would overflow it, counted in double by the same
  // formula, before any allocation. 2^53 parameters (32 PiB of fp32 weights) is far beyond any machine, so this
  // never refuses a model that could train.
  const double params = param_groups<double>(c).total();
  require(params < std::ldexp(1.0, 53), "model",
          "has about " + format_number("%.3g", params) + " parameters (" + format_number("%.3g", params * 4) +
              " bytes of fp32 weights alone): more than any machine can hold (model.depth = " +
              std::to_string(c.depth) + ", model_dim = " + std::to_string(c.model_dim) + ")");
  return c;
}

bool has_value_embed(const GptConfig& c, int64_t layer) {
  return c.value_embeds == ValueEmbeds::alternating && layer % 2 == (c.depth - 1) % 2;
}

bool layer_windowed(const GptConfig& c, int64_t layer) {
  return c.window > 0 &&
         (c.window_pattern.empty() || c.window_pattern[static_cast<size_t>(layer) % c.window_pattern.size()] == 'S');
}

int64_t layer_keys(const GptConfig& c, int64_t layer, int64_t seq_len) {
  return layer_windowed(c, layer) ? std::min(c.window, seq_len) : seq_len;
}

int64_t value_embed_layers(const GptConfig& c) {
  int64_t n = 0;
  for (int64_t i = 0; i < c.depth; i++) n += has_value_embed(c, i) ? 1 : 0;
  return n;
}

ParamCounts count_params(const GptConfig& c) {
  const Groups<int64_t> g = param_groups<int64_t>(c);
  ParamCounts n;
  n.wte = g.wte;
  n.lm_head = g.lm_head;
  n.value_embeds = g.value_embeds;
  n.positions = g.positions;
  n.ve_gates = g.ve_gates;
  n.block_matrices = g.block_matrices;
  n.scalars = g.scalars;
  return n;
}

int64_t inactive_expert_params(const GptConfig& c) {
  if (c.experts == 0) return 0;
  const int64_t mlp_matrices = gated(c.activation) ? 3 : 2;
  return c.depth * (c.experts - c.experts_per_token) * mlp_matrices * c.mlp_hidden * c.model_dim;
}

double flops_per_token(const GptConfig& c, int64_t seq_len) {
  double spans = 0;
  for (int64_t i = 0; i < c.depth; ++i) spans += static_cast<double>(layer_keys(c, i, seq_len));
  const ParamCounts n = count_params(c);
  // A tied head still multiplies by the (shared) embedding matrix.
  const int64_t head = c.tie_embeddings ? n.wte : n.lm_head;
  // In double: heads x head_dim x the layers' spans can pass int64 for shapes resolve() admits.
  return 6.0 * static_cast<double>(n.block_matrices - inactive_expert_params(c) + n.ve_gates + head) +
         12.0 * static_cast<double>(c.n_head) * static_cast<double>(c.head_dim) * spans;
}

std::string describe_shape(const GptConfig& c) {
  return "depth " + std::to_string(c.depth) + ", width " + std::to_string(c.model_dim) + ", " +
         std::to_string(c.n_head) + " heads of " + std::to_string(c.head_dim) + " (" + std::to_string(c.n_kv_head) +
         " kv), vocab " + std::to_string(c.vocab_size);
}

std::string describe_variants(const GptConfig& c) {
  std::vector<std::string> parts;
  if (c.norm_weights)
    parts.push_back("Llama block (norm gains" + std::string(c.qk_norm ? ", QK-norm gains" : "") + ")");
  if (c.activation != Activation::relu2 && c.activation != Activation::leaky_relu2)
    parts.push_back(to_string(c.activation) + " MLP of " + std::to_string(c.mlp_hidden));
  if (c.experts > 0)
    parts.push_back(std::to_string(c.experts) + " experts, top " + std::to_string(c.experts_per_token) +
                    " (each token through its k experts)");
  if (c.norm == NormKind::layer) parts.push_back("LayerNorm");
  if (c.attention_bias != AttentionBias::none) parts.push_back(to_string(c.attention_bias) + " biases");
  if (c.mlp_bias) parts.push_back("MLP biases");
  if (c.learned_positions > 0) parts.push_back(std::to_string(c.learned_positions) + " learned positions");
  if (c.attention_sinks) parts.push_back("attention sinks");
  if (c.rope_scaling.kind != RopeScalingKind::none)
    parts.push_back(to_string(c.rope_scaling.kind) + " rope scaling x" + format_number("%g", c.rope_scaling.factor));
  if (c.swiglu_limit > 0) parts.push_back("SwiGLU clamped at " + format_number("%g", c.swiglu_limit));
  if (c.tie_embeddings) parts.push_back("tied head");
  if (c.window > 0)
    parts.push_back("window " + std::to_string(c.window) +
                    (c.window_pattern.empty() ? std::string(" on every layer") : " on S of " + c.window_pattern));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string to_string(Activation a) {
  switch (a) {
    case Activation::relu2:
      return "relu2";
    case Activation::leaky_relu2:
      return "leaky_relu2";
    case Activation::gelu:
      return "gelu";
    case Activation::swiglu:
      return "swiglu";
    case Activation::geglu:
      return "geglu";
  }
  return "?";
}
std::string to_string(ValueEmbeds v) { return v == ValueEmbeds::none ? "none" : "alternating"; }
bool gated(Activation a) { return a == Activation::swiglu || a == Activation::geglu; }

std::string to_string(NormKind n) { return n == NormKind::rms ? "rms" : "layer"; }
std::string to_string(RopeScalingKind k) {
  switch (k) {
    case RopeScalingKind::none:
      return "none";
    case RopeScalingKind::llama3:
      return "llama3";
    case RopeScalingKind::yarn:
      return "yarn";
  }
  return "?";
}
std::string to_string(AttentionBias b) {
  switch (b) {
    case AttentionBias::none:
      return "none";
    case AttentionBias::qkv:
      return "qkv";
    case AttentionBias::qkvo:
      return "qkvo";
  }
  return "?";
}

}  // namespace nanotrn::model
