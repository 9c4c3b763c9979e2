// The baseline GPT. See gpt.h.
#include "model/gpt.h"

#include <cmath>

#include "base/error.h"
#include "base/rng.h"
#include "ops/ops.h"

namespace nanotrn::model {

std::string to_string(ParamGroup g) {
  switch (g) {
    case ParamGroup::matrix:
      return "matrix";
    case ParamGroup::wte:
      return "wte";
    case ParamGroup::lm_head:
      return "lm_head";
    case ParamGroup::value_embed:
      return "value_embed";
    case ParamGroup::resid_lambda:
      return "resid_lambda";
    case ParamGroup::x0_lambda:
      return "x0_lambda";
  }
  return "?";
}

namespace {

enum class Init { zeros, normal, uniform_sym, uniform_pos, constant };

Tensor make_param(const Ctx& ctx, const Shape& shape, Init kind, float scale, uint64_t seed, uint64_t stream) {
  Tensor t = ctx.empty(shape);
  float* d = t.data<float>();
  const size_t n = static_cast<size_t>(t.numel());
  if (kind == Init::zeros || (scale == 0.0f && kind != Init::constant)) {
    t.zero();
  } else if (kind == Init::normal) {
    fill_normal(d, n, 0.0f, scale, seed, stream);
  } else if (kind == Init::uniform_sym) {
    fill_uniform(d, n, -scale, scale, seed, stream);
  } else if (kind == Init::uniform_pos) {
    fill_uniform(d, n, 0.0f, scale, seed, stream);
  } else {
    t.fill(scale);
  }
  t.set_requires_grad();
  return t;
}

}  // namespace

Tensor shift_targets(const Tensor& targets, int64_t shift) {
  check(targets.dim() == 2 && targets.dtype() == DType::i32, "shift_targets: targets must be i32 [B, T]");
  check(shift >= 0, "shift_targets: shift must be >= 0");
  const int64_t B = targets.size(0), T = targets.size(1);
  const Tensor src = targets.contiguous();
  const int32_t* s = src.data<int32_t>();
  std::vector<int32_t> out(static_cast<size_t>(B * T), -1);
  for (int64_t b = 0; b < B; b++) {
    for (int64_t t = 0; t + shift < T; t++) out[b * T + t] = s[b * T + t + shift];
  }
  return Tensor::from_ints({B, T}, out, targets.allocator());
}

Gpt::Gpt(const Ctx& ctx, const GptConfig& config, uint64_t seed) : config_(config) {
  const GptConfig& c = config_;
  check(c.model_dim > 0 && c.n_head > 0 && c.n_kv_head > 0, "Gpt: the config must be resolved (model::resolve)");
  // Hugging Face shapes are priced by `nanotrn predict --model-config`; this GPT trains the baseline family only.
  const bool priced_only = c.activation == Activation::swiglu || c.activation == Activation::gelu;
  if (!c.window_pattern.empty()) {
    throw Error(
        "model: model.window_pattern (windows on some layers) is priced by nanotrn predict only; the host "
        "GPT windows every layer or none");
  }
  if (c.experts > 0) {
    throw Error(
        "model: model.experts (a mixture of experts) is priced by nanotrn predict only; the host GPT trains "
        "the baseline family's dense MLP");
  }
  if (priced_only || c.tie_embeddings || c.norm_weights) {
    throw Error(std::string("model: ") +
                (priced_only        ? "model.activation " + to_string(c.activation)
                 : c.tie_embeddings ? std::string("model.tie_embeddings")
                                    : std::string("model.norm_weights")) +
                " is priced by nanotrn predict only; the host GPT trains the baseline family (relu2 or leaky_relu2, "
                "untied head, no norm gains)");
  }
  const int64_t d = c.model_dim, qd = c.n_head * c.head_dim, kvd = c.n_kv_head * c.head_dim, V = c.vocab_size;
  const InitScales& in = c.init;
  // U(-a, a) with a = sqrt(3) * scale * d^-1/2 has the std of N(0, scale^2 / d).
  const float s = std::sqrt(3.0f) / std::sqrt(static_cast<float>(d));
  uint64_t stream = 0;
  auto add = [&](std::string name, const Shape& shape, Init kind, float scale, ParamGroup group) {
    params_.push_back({std::move(name), make_param(ctx, shape, kind, scale, seed, stream++), group});
    params_.back().value.set_name(params_.back().name);
    return params_.size() - 1;
  };
  wte_ = add("wte", {V, d}, Init::normal, in.wte_std, ParamGroup::wte);
  for (int64_t i = 0; i < c.depth; i++) {
    const std::string b = "blocks." + std::to_string(i) + ".";
    LayerIndex L;
    L.c_q = add(b + "attn.c_q", {qd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
    L.c_k = add(b + "attn.c_k", {kvd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
    L.c_v = add(b + "attn.c_v", {kvd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
    L.c_o = add(b + "attn.c_proj", {d, qd}, Init::uniform_sym, in.attn_proj * s, ParamGroup::matrix);
    L.c_fc = add(b + "mlp.c_fc", {c.mlp_hidden, d}, Init::uniform_sym, in.fc * s, ParamGroup::matrix);
    L.c_proj = add(b + "mlp.c_proj", {d, c.mlp_hidden}, Init::uniform_sym, in.mlp_proj * s, ParamGroup::matrix);
    if (has_value_embed(c, i)) {
      L.ve_gate = static_cast<int64_t>(add(b + "attn.ve_gate", {c.n_kv_head, c.ve_gate_channels}, Init::uniform_pos,
                                           in.ve_gate, ParamGroup::matrix));
      L.ve = static_cast<int64_t>(add("value_embeds." + std::to_string(i), {V, kvd}, Init::uniform_sym,
                                      in.value_embed * s, ParamGroup::value_embed));
    }
    layers_.push_back(L);
  }
  lm_head_ = add("lm_head", {V, d}, Init::normal, in.lm_head_std, ParamGroup::lm_head);
  resid_ = add("resid_lambdas", {c.depth}, Init::constant, c.resid_lambda_init, ParamGroup::resid_lambda);
  x0_ = add("x0_lambdas", {c.depth}, Init::constant, c.x0_lambda_init, ParamGroup::x0_lambda);
}

Parameter& Gpt::parameter(const std::string& name) {
  for (Parameter& q : params_) {
    if (q.name == name) return q;
  }
  throw Error("Gpt: no parameter named '" + name + "'");
}

Tensor Gpt::hidden(Ctx& ctx, const Tensor& ids, KvCache* cache) {
  const GptConfig& c = config_;
  check(ids.dim() == 2 && ids.dtype() == DType::i32,
        "Gpt: ids must be i32 [B, T], got shape " + shape_str(ids.shape()));
  check(!cache || ctx.tape == nullptr, "Gpt: a KV cache is for inference only (use a NoGradGuard)");
  const int64_t B = ids.size(0), T = ids.size(1), D = c.head_dim;
  const int64_t offset = cache ? cache->length() : 0;
  if (cache && cache->k.empty()) {
    cache->k.resize(static_cast<size_t>(c.depth));
    cache->v.resize(static_cast<size_t>(c.depth));
  }
  const ops::RotaryOptions ro{.base = c.rotary_base, .fraction = 1.0, .position_offset = offset};
  ops::AttentionOptions ao;
  ao.window = c.window;
  ao.scale = c.qk_gain / std::sqrt(static_cast<float>(D));
  const Tensor x0 = ops::rms_norm(ctx, ops::embedding(ctx, ids, p(wte_)));
  Tensor x = x0;
  for (int64_t i = 0; i < c.depth; i++) {
    const LayerIndex& L = layers_[static_cast<size_t>(i)];
    x = ops::add(ctx, ops::mul(ctx, x, ops::narrow(ctx, p(resid_), 0, i, 1)),
                 ops::mul(ctx, x0, ops::narrow(ctx, p(x0_), 0, i, 1)));
    const Tensor h = ops::rms_norm(ctx, x);
    Tensor q = ops::reshape(ctx, ops::linear(ctx, h, p(L.c_q)), {B, T, c.n_head, D});
    Tensor k = ops::reshape(ctx, ops::linear(ctx, h, p(L.c_k)), {B, T, c.n_kv_head, D});
    Tensor v = ops::reshape(ctx, ops::linear(ctx, h, p(L.c_v)), {B, T, c.n_kv_head, D});
    if (L.ve >= 0) {
      const Tensor ve =
          ops::reshape(ctx, ops::embedding(ctx, ids, p(static_cast<size_t>(L.ve))), {B, T, c.n_kv_head, D});
      const Tensor logit =
          ops::linear(ctx, ops::narrow(ctx, h, 2, 0, c.ve_gate_channels), p(static_cast<size_t>(L.ve_gate)));
      const Tensor gate = ops::scale(ctx, ops::sigmoid(ctx, logit), c.ve_gate_max);
      v = ops::add(ctx, v, ops::mul(ctx, ops::reshape(ctx, gate, {B, T, c.n_kv_head, 1}), ve));
    }
    q = ops::rotary(ctx, q, ro);
    k = ops::rotary(ctx, k, ro);
    if (c.qk_norm) {
      q = ops::rms_norm(ctx, q);
      k = ops::rms_norm(ctx, k);
    }
    if (cache) {
      Tensor& ck = cache->k[static_cast<size_t>(i)];
      Tensor& cv = cache->v[static_cast<size_t>(i)];
      ck = ck.defined() ? ops::concat(ctx, {ck, k}, 1) : k.contiguous();
      cv = cv.defined() ? ops::concat(ctx, {cv, v}, 1) : v.contiguous();
      k = ck;
      v = cv;
    }
    const Tensor a = ops::reshape(ctx, ops::attention(ctx, q, k, v, ao), {B, T, c.n_head * D});
    x = ops::add(ctx, x, ops::linear(ctx, a, p(L.c_o)));
    Tensor f = ops::linear(ctx, ops::rms_norm(ctx, x), p(L.c_fc));
    f = c.activation == Activation::relu2 ? ops::relu2(ctx, f) : ops::leaky_relu2(ctx, f, c.leaky_slope);
    x = ops::add(ctx, x, ops::linear(ctx, f, p(L.c_proj)));
  }
  return ops::rms_norm(ctx, x);
}

Tensor Gpt::loss(Ctx& ctx, const Tensor& ids, const Tensor& targets, const std::vector<float>& mtp_weights) {
  check(targets.shape() == ids.shape() && targets.dtype() == DType::i32,
        "Gpt: targets must be i32 with the shape of ids " + shape_str(ids.shape()) + ", got " +
            shape_str(targets.shape()));
  const Tensor h = hidden(ctx, ids);
  const ops::CrossEntropyOptions ce{.softcap = config_.softcap};
  if (mtp_weights.empty() || (mtp_weights.size() == 1 && mtp_weights[0] == 1.0f)) {
    return ops::linear_cross_entropy(ctx, h, p(lm_head_), targets, ce);
  }
  Tensor total;
  for (size_t j = 0; j < mtp_weights.size(); j++) {
    if (mtp_weights[j] == 0.0f) continue;
    const Tensor t = j == 0 ? targets : shift_targets(targets, static_cast<int64_t>(j));
    const Tensor term = ops::scale(ctx, ops::linear_cross_entropy(ctx, h, p(lm_head_), t, ce), mtp_weights[j]);
    total = total.defined() ? ops::add(ctx, total, term) : term;
  }
  check(total.defined(), "Gpt: every multi-token-prediction weight is 0");
  return total;
}

Tensor Gpt::per_token_nll(Ctx& ctx, const Tensor& ids, const Tensor& targets) {
  NoGradGuard no_grad(ctx);
  const Tensor h = hidden(ctx, ids);
  const Tensor nll = ops::linear_cross_entropy_per_token(ctx, h, p(lm_head_), targets, {.softcap = config_.softcap});
  return nll.reshape(ids.shape());
}

Tensor Gpt::logits(Ctx& ctx, const Tensor& ids, KvCache* cache) {
  NoGradGuard no_grad(ctx);
  return head(ctx, hidden(ctx, ids, cache));
}

Tensor Gpt::head(Ctx& ctx, const Tensor& hidden) {
  NoGradGuard no_grad(ctx);
  const Tensor z = ops::linear(ctx, hidden, p(lm_head_));
  return config_.softcap > 0.0f ? ops::tanh_softcap(ctx, z, config_.softcap) : z;
}

}  // namespace nanotrn::model
