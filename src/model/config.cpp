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
  require(c.rotary_base > 1.0, "model.rotary_base", "must be > 1");
  require(c.window >= 0, "model.window", "must be >= 0 (0 = full causal)");
  require(c.softcap >= 0.0f, "model.softcap", "must be >= 0 (0 = off)");
  require(c.qk_gain > 0.0f, "model.qk_gain", "must be > 0");
  if (c.value_embeds != ValueEmbeds::none) {
    require(
        c.ve_gate_channels >= 1 && c.ve_gate_channels <= c.model_dim, "model.ve_gate_channels",
        "must be in [1, model_dim = " + std::to_string(c.model_dim) + "], got " + std::to_string(c.ve_gate_channels));
  }
  // count_params() works in int64: refuse a shape whose count would overflow it long before any allocation. 2^53
  // parameters (32 PiB of fp32 weights) is far beyond any machine, so this never refuses a model that could train.
  const double d = static_cast<double>(c.model_dim), heads = static_cast<double>(c.n_head * c.head_dim);
  const double approx = static_cast<double>(c.depth) * (2 * heads + 2 * static_cast<double>(c.mlp_mult) * d) * d * 2 +
                        4 * static_cast<double>(c.vocab_size) * d;
  require(approx < std::ldexp(1.0, 53), "model",
          "has about " + format_number("%.3g", approx) + " parameters (" + format_number("%.3g", approx * 4) +
              " bytes of fp32 weights alone): more than any machine can hold (model.depth = " +
              std::to_string(c.depth) + ", model_dim = " + std::to_string(c.model_dim) + ")");
  return c;
}

bool has_value_embed(const GptConfig& c, int64_t layer) {
  return c.value_embeds == ValueEmbeds::alternating && layer % 2 == (c.depth - 1) % 2;
}

int64_t value_embed_layers(const GptConfig& c) {
  int64_t n = 0;
  for (int64_t i = 0; i < c.depth; i++) n += has_value_embed(c, i) ? 1 : 0;
  return n;
}

ParamCounts count_params(const GptConfig& c) {
  const int64_t d = c.model_dim, kv = c.n_kv_head * c.head_dim, q = c.n_head * c.head_dim;
  const int64_t hidden = c.mlp_mult * d;
  ParamCounts n;
  n.wte = c.vocab_size * d;
  n.lm_head = c.vocab_size * d;
  const int64_t ve = value_embed_layers(c);
  n.value_embeds = ve * c.vocab_size * kv;
  n.ve_gates = ve * c.ve_gate_channels * c.n_kv_head;
  n.block_matrices = c.depth * (q * d + 2 * kv * d + d * q + 2 * hidden * d);
  n.scalars = 2 * c.depth;
  return n;
}

double flops_per_token(const GptConfig& c, int64_t seq_len) {
  const int64_t span = c.window > 0 ? std::min(c.window, seq_len) : seq_len;
  return 6.0 * static_cast<double>(count_params(c).scaling()) +
         12.0 * static_cast<double>(c.depth * c.n_head * c.head_dim * span);
}

std::string to_string(Activation a) { return a == Activation::relu2 ? "relu2" : "leaky_relu2"; }
std::string to_string(ValueEmbeds v) { return v == ValueEmbeds::none ? "none" : "alternating"; }

}  // namespace nanotrn::model
