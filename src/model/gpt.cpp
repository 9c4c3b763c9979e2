// The baseline GPT. See gpt.h.
#include "model/gpt.h"

#include <cmath>
#include <limits>

#include "base/error.h"
#include "base/rng.h"
#include "model/top_k.h"
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
    case ParamGroup::norm_gain:
      return "norm_gain";
    case ParamGroup::bias:
      return "bias";
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

// Each parameter from its own Philox stream of the seed, in the order they are made (the baseline's order is
// unchanged by the variants: their parameters exist only when they are on).
struct ParamMaker {
  const Ctx& ctx;
  uint64_t seed;
  std::vector<Parameter>& params;
  uint64_t stream = 0;
  size_t operator()(std::string name, const Shape& shape, Init kind, float scale, ParamGroup group) {
    params.push_back({std::move(name), make_param(ctx, shape, kind, scale, seed, stream++), group});
    params.back().value.set_name(params.back().name);
    return params.size() - 1;
  }
};

namespace {

void check_resolved(const GptConfig& c) {
  check(c.model_dim > 0 && c.n_head > 0 && c.n_kv_head > 0, "Gpt: the config must be resolved (model::resolve)");
}

// LayerNorm's biases exist beside its gains (GPT-2's block).
bool layer_norm_biases(const GptConfig& c) { return c.norm == NormKind::layer && c.norm_weights; }

// U(-a, a) with a = sqrt(3) * scale * d^-1/2 has the std of N(0, scale^2 / d).
float uniform_unit(const GptConfig& c) { return std::sqrt(3.0f) / std::sqrt(static_cast<float>(c.model_dim)); }

}  // namespace

Gpt::LayerIndex Gpt::add_block(ParamMaker& make, int64_t i) const {
  const GptConfig& c = config_;
  const InitScales& in = c.init;
  const int64_t d = c.model_dim, qd = c.n_head * c.head_dim, kvd = c.n_kv_head * c.head_dim;
  const float s = uniform_unit(c);
  const std::string b = "blocks." + std::to_string(i) + ".";
  LayerIndex L;
  if (c.norm_weights) L.attn_norm = make(b + "attn_norm", {d}, Init::constant, 1.0f, ParamGroup::norm_gain);
  if (layer_norm_biases(c)) L.attn_norm_bias = make(b + "attn_norm_bias", {d}, Init::zeros, 0.0f, ParamGroup::bias);
  L.c_q = make(b + "attn.c_q", {qd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
  L.c_k = make(b + "attn.c_k", {kvd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
  L.c_v = make(b + "attn.c_v", {kvd, d}, Init::uniform_sym, in.qkv * s, ParamGroup::matrix);
  if (c.attention_bias != AttentionBias::none) {
    L.q_bias = make(b + "attn.c_q_bias", {qd}, Init::zeros, 0.0f, ParamGroup::bias);
    L.k_bias = make(b + "attn.c_k_bias", {kvd}, Init::zeros, 0.0f, ParamGroup::bias);
    L.v_bias = make(b + "attn.c_v_bias", {kvd}, Init::zeros, 0.0f, ParamGroup::bias);
  }
  if (c.norm_weights && c.qk_norm) {
    L.q_norm = make(b + "attn.q_norm", {c.head_dim}, Init::constant, 1.0f, ParamGroup::norm_gain);
    L.k_norm = make(b + "attn.k_norm", {c.head_dim}, Init::constant, 1.0f, ParamGroup::norm_gain);
  }
  if (c.attention_sinks) L.sinks = make(b + "attn.sinks", {c.n_head}, Init::zeros, 0.0f, ParamGroup::bias);
  L.c_o = make(b + "attn.c_proj", {d, qd}, Init::uniform_sym, in.attn_proj * s, ParamGroup::matrix);
  if (c.attention_bias == AttentionBias::qkvo)
    L.o_bias = make(b + "attn.c_proj_bias", {d}, Init::zeros, 0.0f, ParamGroup::bias);
  if (c.norm_weights) L.mlp_norm = make(b + "mlp_norm", {d}, Init::constant, 1.0f, ParamGroup::norm_gain);
  if (layer_norm_biases(c)) L.mlp_norm_bias = make(b + "mlp_norm_bias", {d}, Init::zeros, 0.0f, ParamGroup::bias);
  if (c.experts > 0) {
    L.router = make(b + "mlp.router", {c.experts, d}, Init::uniform_sym, in.fc * s, ParamGroup::matrix);
    for (int64_t e = 0; e < c.experts; e++)
      L.mlp.push_back(add_mlp(make, b + "mlp.experts." + std::to_string(e) + "."));
  } else {
    L.mlp.push_back(add_mlp(make, b + "mlp."));
  }
  if (has_value_embed(c, i)) {
    L.ve_gate =
        make(b + "attn.ve_gate", {c.n_kv_head, c.ve_gate_channels}, Init::uniform_pos, in.ve_gate, ParamGroup::matrix);
    L.ve = make("value_embeds." + std::to_string(i), {c.vocab_size, kvd}, Init::uniform_sym, in.value_embed * s,
                ParamGroup::value_embed);
  }
  return L;
}

Gpt::MlpIndex Gpt::add_mlp(ParamMaker& make, const std::string& prefix) const {
  const GptConfig& c = config_;
  const float s = uniform_unit(c);
  MlpIndex m;
  if (gated(c.activation))
    m.c_gate =
        make(prefix + "c_gate", {c.mlp_hidden, c.model_dim}, Init::uniform_sym, c.init.fc * s, ParamGroup::matrix);
  m.c_fc = make(prefix + "c_fc", {c.mlp_hidden, c.model_dim}, Init::uniform_sym, c.init.fc * s, ParamGroup::matrix);
  m.c_proj =
      make(prefix + "c_proj", {c.model_dim, c.mlp_hidden}, Init::uniform_sym, c.init.mlp_proj * s, ParamGroup::matrix);
  if (c.mlp_bias) {
    if (m.c_gate != kNone) m.gate_bias = make(prefix + "c_gate_bias", {c.mlp_hidden}, Init::zeros, 0, ParamGroup::bias);
    m.fc_bias = make(prefix + "c_fc_bias", {c.mlp_hidden}, Init::zeros, 0.0f, ParamGroup::bias);
    m.proj_bias = make(prefix + "c_proj_bias", {c.model_dim}, Init::zeros, 0.0f, ParamGroup::bias);
  }
  return m;
}

Gpt::Gpt(const Ctx& ctx, const GptConfig& config, uint64_t seed) : config_(config) {
  const GptConfig& c = config_;
  check_resolved(c);
  rope_ = rotary_frequencies(c, c.head_dim);
  ParamMaker make{ctx, seed, params_};
  wte_ = make("wte", {c.vocab_size, c.model_dim}, Init::normal, c.init.wte_std, ParamGroup::wte);
  if (c.learned_positions > 0)  // GPT-2's initializer_range
    wpe_ = make("wpe", {c.learned_positions, c.model_dim}, Init::normal, 0.02f, ParamGroup::wte);
  for (int64_t i = 0; i < c.depth; i++) layers_.push_back(add_block(make, i));
  lm_head_ = c.tie_embeddings
                 ? wte_
                 : make("lm_head", {c.vocab_size, c.model_dim}, Init::normal, c.init.lm_head_std, ParamGroup::lm_head);
  if (c.norm_weights) {
    norm_f_ = make("norm_f", {c.model_dim}, Init::constant, 1.0f, ParamGroup::norm_gain);
    if (layer_norm_biases(c)) norm_f_bias_ = make("norm_f_bias", {c.model_dim}, Init::zeros, 0.0f, ParamGroup::bias);
  } else {
    resid_ = make("resid_lambdas", {c.depth}, Init::constant, c.resid_lambda_init, ParamGroup::resid_lambda);
    x0_ = make("x0_lambdas", {c.depth}, Init::constant, c.x0_lambda_init, ParamGroup::x0_lambda);
  }
}

Parameter& Gpt::parameter(const std::string& name) {
  for (Parameter& q : params_) {
    if (q.name == name) return q;
  }
  throw Error("Gpt: no parameter named '" + name + "'");
}

Tensor Gpt::norm(Ctx& ctx, const Tensor& x, size_t gain, size_t bias) {
  // LayerNorm as the RMSNorm of the centred row: rms(x - mean) = sqrt(var), so (x - mean) / sqrt(var + eps).
  const Tensor centred = config_.norm == NormKind::layer ? ops::sub(ctx, x, ops::mean(ctx, x, {-1}, true)) : x;
  const Tensor y = ops::rms_norm(ctx, centred);
  const Tensor g = gain == kNone ? y : ops::mul(ctx, y, p(gain));
  return bias == kNone ? g : ops::add(ctx, g, p(bias));
}

Tensor Gpt::embed(Ctx& ctx, const Tensor& ids, int64_t offset) {
  const Tensor x = ops::embedding(ctx, ids, p(wte_));
  if (wpe_ == kNone) return x;
  const int64_t T = ids.size(1), P = config_.learned_positions;
  check(offset + T <= P, "Gpt: positions " + std::to_string(offset) + ".." + std::to_string(offset + T - 1) +
                             " are beyond the model's " + std::to_string(P) +
                             " learned positions (model.learned_positions; batch.seq_len must not exceed it)");
  std::vector<int32_t> positions(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; t++) positions[static_cast<size_t>(t)] = static_cast<int32_t>(offset + t);
  const Tensor pos = ops::embedding(ctx, Tensor::from_ints({1, T}, positions, ids.allocator()), p(wpe_));
  return ops::add(ctx, x, pos);  // [B, T, d] + [1, T, d]
}

Tensor Gpt::project(Ctx& ctx, const Tensor& x, size_t weight, size_t bias) {
  const Tensor y = ops::linear(ctx, x, p(weight));
  return bias == kNone ? y : ops::add(ctx, y, p(bias));
}

Tensor Gpt::attention(Ctx& ctx, int64_t layer, const Tensor& h, const Tensor& ids, KvCache* cache,
                      const std::shared_ptr<const ops::RotaryTable>& rope) {
  const GptConfig& c = config_;
  const LayerIndex& L = layers_[static_cast<size_t>(layer)];
  const int64_t B = ids.size(0), T = ids.size(1), D = c.head_dim;
  Tensor q = ops::reshape(ctx, project(ctx, h, L.c_q, L.q_bias), {B, T, c.n_head, D});
  Tensor k = ops::reshape(ctx, project(ctx, h, L.c_k, L.k_bias), {B, T, c.n_kv_head, D});
  Tensor v = ops::reshape(ctx, project(ctx, h, L.c_v, L.v_bias), {B, T, c.n_kv_head, D});
  if (L.ve != kNone) {
    const Tensor ve = ops::reshape(ctx, ops::embedding(ctx, ids, p(L.ve)), {B, T, c.n_kv_head, D});
    const Tensor logit = ops::linear(ctx, ops::narrow(ctx, h, 2, 0, c.ve_gate_channels), p(L.ve_gate));
    const Tensor gate = ops::scale(ctx, ops::sigmoid(ctx, logit), c.ve_gate_max);
    v = ops::add(ctx, v, ops::mul(ctx, ops::reshape(ctx, gate, {B, T, c.n_kv_head, 1}), ve));
  }
  const bool rotary = rope != nullptr;  // else the positions were added to the embedding
  if (c.qk_norm && c.norm_weights) {    // gains: norm first (Qwen3's order); QK-norm is always RMSNorm
    q = ops::mul(ctx, ops::rms_norm(ctx, q), p(L.q_norm));
    k = ops::mul(ctx, ops::rms_norm(ctx, k), p(L.k_norm));
    if (rotary) {
      q = ops::rotary(ctx, q, rope);
      k = ops::rotary(ctx, k, rope);
    }
  } else {
    if (rotary) {
      q = ops::rotary(ctx, q, rope);
      k = ops::rotary(ctx, k, rope);
    }
    if (c.qk_norm) {
      q = ops::rms_norm(ctx, q);
      k = ops::rms_norm(ctx, k);
    }
  }
  if (cache) {
    Tensor& ck = cache->k[static_cast<size_t>(layer)];
    Tensor& cv = cache->v[static_cast<size_t>(layer)];
    ck = ck.defined() ? ops::concat(ctx, {ck, k}, 1) : k.contiguous();
    cv = cv.defined() ? ops::concat(ctx, {cv, v}, 1) : v.contiguous();
    k = ck;
    v = cv;
  }
  ops::AttentionOptions ao;
  ao.window = layer_windowed(c, layer) ? c.window : 0;
  ao.scale = c.qk_gain / std::sqrt(static_cast<float>(D));
  if (L.sinks != kNone) ao.sinks = p(L.sinks);
  const Tensor a = ops::reshape(ctx, ops::attention(ctx, q, k, v, ao), {B, T, c.n_head * D});
  return project(ctx, a, L.c_o, L.o_bias);
}

Tensor Gpt::clamped_swiglu(Ctx& ctx, const Tensor& gate, const Tensor& up) {
  constexpr float kAlpha = 1.702f;  // gpt-oss's
  const float L = config_.swiglu_limit;
  const Tensor g = ops::clamp(ctx, gate, -std::numeric_limits<float>::infinity(), L);
  const Tensor u = ops::clamp(ctx, up, -L, L);
  return ops::mul(ctx, ops::add_scalar(ctx, u, 1.0f), ops::mul(ctx, g, ops::sigmoid(ctx, ops::scale(ctx, g, kAlpha))));
}

Tensor Gpt::mlp(Ctx& ctx, const MlpIndex& m, const Tensor& h) {
  const GptConfig& c = config_;
  const Tensor up = project(ctx, h, m.c_fc, m.fc_bias);
  Tensor f;
  switch (c.activation) {
    case Activation::relu2:
      f = ops::relu2(ctx, up);
      break;
    case Activation::leaky_relu2:
      f = ops::leaky_relu2(ctx, up, c.leaky_slope);
      break;
    case Activation::gelu:
      f = ops::gelu(ctx, up, /*tanh_approximation=*/true);
      break;
    case Activation::geglu:
      f = ops::mul(ctx, ops::gelu(ctx, project(ctx, h, m.c_gate, m.gate_bias), /*tanh_approximation=*/true), up);
      break;
    case Activation::swiglu:
      f = c.swiglu_limit > 0 ? clamped_swiglu(ctx, project(ctx, h, m.c_gate, m.gate_bias), up)
                             : ops::mul(ctx, ops::silu(ctx, project(ctx, h, m.c_gate, m.gate_bias)), up);
      break;
  }
  return project(ctx, f, m.c_proj, m.proj_bias);
}

namespace {

// 1 where p [N, E] is among its row's k largest (ties: the lower index), else 0; a constant (no gradient).
Tensor top_k_mask(const Tensor& probs, int64_t k) {
  const int64_t E = probs.size(probs.dim() - 1), N = probs.numel() / E;
  const std::vector<float> v = probs.contiguous().to_vector();
  std::vector<float> mask(v.size(), 0.0f);
  for (int64_t n = 0; n < N; n++)
    for (const int32_t e : top_k_indices(v.data() + n * E, E, k)) mask[static_cast<size_t>(n * E + e)] = 1.0f;
  return Tensor::from_vector(probs.shape(), mask, probs.allocator());
}

// Expert e's rows: the tokens routed to it, in token order, and where each token's weight for e sits in the
// flattened [N * E] weights.
struct RoutedRows {
  int64_t count = 0;
  Tensor tokens{}, weight_index{};  // i32 [count]
};
struct Routing {
  std::vector<RoutedRows> experts;
  Tensor slot_rows;  // i32 [N, k]: for token n's j-th chosen expert (in expert order), its row in the stacked outputs
};

// The gathers of a top-k routing, from its mask [..., E] (k ones per row).
Routing route_tokens(const Tensor& mask, int64_t k) {
  const std::shared_ptr<CachingAllocator>& allocator = mask.allocator();
  const int64_t E = mask.size(mask.dim() - 1), N = mask.numel() / E;
  const std::vector<float> m = mask.contiguous().to_vector();
  std::vector<std::vector<int32_t>> tokens(static_cast<size_t>(E)), weight_index(static_cast<size_t>(E));
  for (int64_t n = 0; n < N; n++)
    for (int64_t e = 0; e < E; e++)
      if (m[static_cast<size_t>(n * E + e)] != 0.0f) {
        tokens[static_cast<size_t>(e)].push_back(static_cast<int32_t>(n));
        weight_index[static_cast<size_t>(e)].push_back(static_cast<int32_t>(n * E + e));
      }
  Routing r;
  std::vector<int32_t> first(static_cast<size_t>(E) + 1, 0), slot_rows;
  slot_rows.reserve(static_cast<size_t>(N * k));
  for (int64_t e = 0; e < E; e++) {
    const auto& t = tokens[static_cast<size_t>(e)];
    const int64_t count = static_cast<int64_t>(t.size());
    first[static_cast<size_t>(e) + 1] = first[static_cast<size_t>(e)] + static_cast<int32_t>(count);
    RoutedRows rows{.count = count};
    if (count > 0) {
      rows.tokens = Tensor::from_ints({count}, t, allocator);
      rows.weight_index = Tensor::from_ints({count}, weight_index[static_cast<size_t>(e)], allocator);
    }
    r.experts.push_back(std::move(rows));
  }
  std::vector<int32_t> next(first.begin(), first.end() - 1);  // the next unused row of each expert
  for (int64_t n = 0; n < N; n++)
    for (int64_t e = 0; e < E; e++)
      if (m[static_cast<size_t>(n * E + e)] != 0.0f) slot_rows.push_back(next[static_cast<size_t>(e)]++);
  check(static_cast<int64_t>(slot_rows.size()) == N * k, "Gpt: the routing mask must choose k experts per token");
  r.slot_rows = Tensor::from_ints({N, k}, slot_rows, allocator);
  return r;
}

}  // namespace

Tensor Gpt::experts(Ctx& ctx, const LayerIndex& L, const Tensor& h, Tensor* aux) {
  const GptConfig& c = config_;
  const int64_t E = c.experts, k = c.experts_per_token, d = c.model_dim, N = h.numel() / d;
  const Tensor probs = ops::softmax(ctx, ops::linear(ctx, h, p(L.router)));  // [B, T, E]
  const Tensor mask = top_k_mask(probs, k);
  const Tensor chosen = ops::mul(ctx, probs, mask);
  const Tensor weights = ops::div(ctx, chosen, ops::sum(ctx, chosen, {-1}, true));  // 0 off each token's top k
  const Routing route = route_tokens(mask, k);
  const Tensor x = ops::reshape(ctx, h, {N, d});
  const Tensor w = ops::reshape(ctx, weights, {N * E, 1});
  // Each expert's MLP on the rows routed to it (gathered), times their weights; the experts' outputs stacked.
  std::vector<Tensor> outs;
  for (int64_t e = 0; e < E; e++) {
    const RoutedRows& r = route.experts[static_cast<size_t>(e)];
    if (r.count == 0) continue;
    const Tensor y = mlp(ctx, L.mlp[static_cast<size_t>(e)], ops::embedding(ctx, r.tokens, x));
    outs.push_back(ops::mul(ctx, y, ops::embedding(ctx, r.weight_index, w)));
  }
  // Back in token order: each token's k slots (in expert order) gathered from the stack and summed.
  const Tensor slots = ops::embedding(ctx, route.slot_rows, ops::concat(ctx, outs, 0));  // [N, k, d]
  const Tensor out = ops::reshape(ctx, ops::sum(ctx, slots, {1}), h.shape());
  if (aux) {
    // E * sum_e f_e P_e: f_e = the fraction of tokens routed to e (a constant; the f_e sum to k), P_e = mean_n p[n, e].
    const Tensor f = ops::scale(ctx, ops::mean(ctx, mask, {0, 1}), static_cast<float>(E));
    const Tensor layer = ops::sum(ctx, ops::mul(ctx, f, ops::mean(ctx, probs, {0, 1})));
    *aux = aux->defined() ? ops::add(ctx, *aux, layer) : layer;
  }
  return out;
}

Tensor Gpt::hidden(Ctx& ctx, const Tensor& ids, KvCache* cache, Tensor* aux_loss) {
  const GptConfig& c = config_;
  check(ids.dim() == 2 && ids.dtype() == DType::i32,
        "Gpt: ids must be i32 [B, T], got shape " + shape_str(ids.shape()));
  check(!cache || ctx.tape == nullptr, "Gpt: a KV cache is for inference only (use a NoGradGuard)");
  const int64_t offset = cache ? cache->length() : 0;
  if (cache && cache->k.empty()) {
    cache->k.resize(static_cast<size_t>(c.depth));
    cache->v.resize(static_cast<size_t>(c.depth));
  }
  Tensor x = embed(ctx, ids, offset);
  // One rotary table for every layer's q and k (learned positions were added to the embedding instead).
  std::shared_ptr<const ops::RotaryTable> rope;
  if (c.learned_positions == 0) {
    const ops::RotaryOptions ro{.base = c.rotary_base,
                                .fraction = 1.0,
                                .position_offset = offset,
                                .inv_freq = rope_.inv_freq,
                                .magnitude = rope_.magnitude};
    rope = std::make_shared<const ops::RotaryTable>(ops::rotary_table(ids.size(1), c.head_dim, ro));
  }
  const Tensor x0 = c.norm_weights ? Tensor() : norm(ctx, x, kNone);
  if (!c.norm_weights) x = x0;
  for (int64_t i = 0; i < c.depth; i++) {
    const LayerIndex& L = layers_[static_cast<size_t>(i)];
    if (!c.norm_weights) {
      x = ops::scaled_add(ctx, x, ops::narrow(ctx, p(resid_), 0, i, 1), x0, ops::narrow(ctx, p(x0_), 0, i, 1));
    }
    x = ops::add(ctx, x, attention(ctx, i, norm(ctx, x, L.attn_norm, L.attn_norm_bias), ids, cache, rope));
    const Tensor h = norm(ctx, x, L.mlp_norm, L.mlp_norm_bias);
    x = ops::add(ctx, x, c.experts > 0 ? experts(ctx, L, h, aux_loss) : mlp(ctx, L.mlp[0], h));
  }
  return norm(ctx, x, norm_f_, norm_f_bias_);
}

Tensor Gpt::loss(Ctx& ctx, const Tensor& ids, const Tensor& targets, const std::vector<float>& mtp_weights) {
  check(targets.shape() == ids.shape() && targets.dtype() == DType::i32,
        "Gpt: targets must be i32 with the shape of ids " + shape_str(ids.shape()) + ", got " +
            shape_str(targets.shape()));
  Tensor aux;
  const Tensor h = hidden(ctx, ids, nullptr, config_.experts > 0 ? &aux : nullptr);
  const Tensor lm = language_model_loss(ctx, h, targets, mtp_weights);
  return aux.defined() ? ops::add(ctx, lm, ops::scale(ctx, aux, config_.moe_aux_loss)) : lm;
}

Tensor Gpt::language_model_loss(Ctx& ctx, const Tensor& h, const Tensor& targets,
                                const std::vector<float>& mtp_weights) {
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
