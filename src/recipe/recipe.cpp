// Recipe JSON. See recipe.h.
#include "recipe/recipe.h"
#include "base/json_parse.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "base/error.h"
#include "base/file.h"
#include "base/format.h"
#include "base/utf8.h"
#include "model/hf_config.h"
#include "recipe/recipe_ranges.h"

namespace nanotrn::recipe {

using nlohmann::json;

namespace {

// Reads the fields of one JSON object and remembers which keys it consumed, so that finish() can name the first
// key nobody asked for.
class Reader {
 public:
  Reader(const json& j, std::string path) : j_(j), path_(std::move(path)) {
    check(j.is_object(), "recipe: " + where() + " must be a JSON object, got " + std::string(j.type_name()));
  }

  template <typename T>
  void get(const std::string& key, T& out) {
    used_.insert(key);
    auto it = j_.find(key);
    if (it == j_.end()) return;
    const std::string name = path_.empty() ? key : path_ + "." + key;
    try {
      convert(*it, out, name);
    } catch (const json::exception& e) {
      throw Error("recipe: " + name + ": " + e.what());
    }
  }

  // A nested object, if present.
  const json* sub(const std::string& key) {
    used_.insert(key);
    auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  std::string child(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

  void finish() const {
    for (auto it = j_.begin(); it != j_.end(); ++it) {
      if (!used_.count(it.key())) {
        std::string known;
        for (const std::string& k : used_) known += (known.empty() ? "" : ", ") + k;
        throw Error("recipe: unknown key '" + child(it.key()) + "' (known keys here: " + known + ")");
      }
    }
  }

 private:
  std::string where() const { return path_.empty() ? "the top level" : "'" + path_ + "'"; }

  static void convert(const json& v, bool& out, const std::string& name) {
    check(v.is_boolean(), "recipe: " + name + " must be true or false, got " + v.dump());
    out = v.get<bool>();
  }
  static void convert(const json& v, std::string& out, const std::string& name) {
    check(v.is_string(), "recipe: " + name + " must be a string, got " + v.dump());
    out = v.get<std::string>();
  }
  template <typename T>
  requires std::is_integral_v<T>
  static void convert(const json& v, T& out, const std::string& name) {
    check(v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()),
          "recipe: " + name + " must be an integer, got " + v.dump());
    // In range of the field's type (a cast of an out-of-range value is undefined).
    const bool fits = v.is_number_unsigned() ? std::in_range<T>(v.get<uint64_t>())
                      : v.is_number_integer()
                          ? std::in_range<T>(v.get<int64_t>())
                          : v.get<double>() >= static_cast<double>(std::numeric_limits<T>::min()) &&
                                v.get<double>() < static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
    check(fits, "recipe: " + name + " is out of range, got " + v.dump());
    out = v.is_number_integer() ? v.get<T>() : static_cast<T>(v.get<double>());
  }
  template <typename T>
  requires std::is_floating_point_v<T>
  static void convert(const json& v, T& out, const std::string& name) {
    check(v.is_number(), "recipe: " + name + " must be a number, got " + v.dump());
    const double d = v.get<double>();
    check(!std::isfinite(d) || std::fabs(d) <= static_cast<double>(std::numeric_limits<T>::max()),
          "recipe: " + name + " must be a finite number, got " + v.dump() + " (beyond the range of its type)");
    out = static_cast<T>(d);
  }
  template <typename T>
  static void convert(const json& v, std::vector<T>& out, const std::string& name) {
    check(v.is_array(), "recipe: " + name + " must be a list, got " + v.dump());
    out.clear();
    for (size_t i = 0; i < v.size(); i++) {
      T x{};
      convert(v[i], x, name + "[" + std::to_string(i) + "]");
      out.push_back(x);
    }
  }
  static void convert(const json& v, BatchPhase& out, const std::string& name) {
    Reader r(v, name);
    r.get("from", out.from);
    r.get("accum", out.accum);
    r.get("lr_scale", out.lr_scale);
    r.finish();
  }

  const json& j_;
  std::string path_;
  std::set<std::string> used_;
};

template <typename E>
E parse_enum(const std::string& text, const std::string& name, const std::vector<std::pair<std::string, E>>& options) {
  std::string list;
  for (const auto& [s, e] : options) {
    if (s == text) return e;
    list += (list.empty() ? "" : ", ") + s;
  }
  throw Error("recipe: " + name + " must be one of " + list + ", got '" + text + "'");
}

// Each table takes its names from the enum's own name function, so that a name is written in one place.
template <typename E, typename Name>
std::vector<std::pair<std::string, E>> named(std::initializer_list<E> values, Name name) {
  std::vector<std::pair<std::string, E>> out;
  for (E e : values) out.emplace_back(std::string(name(e)), e);
  return out;
}
const auto kActivations = named({model::Activation::relu2, model::Activation::leaky_relu2, model::Activation::swiglu,
                                 model::Activation::gelu, model::Activation::geglu},
                                [](model::Activation a) { return model::to_string(a); });
const auto kValueEmbeds = named({model::ValueEmbeds::none, model::ValueEmbeds::alternating},
                                [](model::ValueEmbeds v) { return model::to_string(v); });
const auto kAttentionBiases = named({model::AttentionBias::none, model::AttentionBias::qkv, model::AttentionBias::qkvo},
                                    [](model::AttentionBias b) { return model::to_string(b); });
const auto kNormKinds =
    named({model::NormKind::rms, model::NormKind::layer}, [](model::NormKind n) { return model::to_string(n); });
const auto kRopeScalings =
    named({model::RopeScalingKind::none, model::RopeScalingKind::llama3, model::RopeScalingKind::yarn},
          [](model::RopeScalingKind k) { return model::to_string(k); });
const auto kAttentionBackwards =
    named({AttentionBackward::flash, AttentionBackward::unfused}, [](AttentionBackward a) { return to_string(a); });
const std::vector<std::pair<std::string, MuonCoefficients>> kCoefficients = {
    {"classic", MuonCoefficients::classic}, {"polar_express", MuonCoefficients::polar_express}};
const auto kLayouts = named({data::Layout::best_fit, data::Layout::stream}, data::layout_name);
const auto kOptimizerKinds = named({OptimizerKind::muon, OptimizerKind::adamw}, optimizer_kind_name);

// The name an enumerated field is written with: its entry in the table parse_enum reads it from.
template <typename E>
std::string enum_name(E value, const std::vector<std::pair<std::string, E>>& options) {
  for (const auto& [s, e] : options) {
    if (e == value) return s;
  }
  throw Error("recipe: a value with no name in its table (a missing table entry)");
}

// Reads the enumerated field `key` of `r` by its table: the value's own name when absent, an Error listing the names
// when it is none of them.
template <typename E>
void get_enum(Reader& r, const std::string& key, E& value, const std::vector<std::pair<std::string, E>>& options) {
  std::string text = enum_name(value, options);
  r.get(key, text);
  value = parse_enum(text, r.child(key), options);
}

// The precisions a run trains at, through the one dtype name table (dtype/dtype.h): "fp32" is read as f32.
DType precision_of(const std::string& text, const std::string& name) {
  return dtype_from_name(text, {DType::f32, DType::bf16}, "recipe: " + name);
}
// optim.muon_dtype: "auto" (empty: the run's precision) or a precision.
std::optional<DType> muon_dtype_of(const std::string& text) {
  if (text == "auto") return std::nullopt;
  return precision_of(text, "optim.muon_dtype (auto or a precision)");
}
std::string muon_dtype_name(const std::optional<DType>& t) { return t ? std::string(dtype_name(*t)) : "auto"; }

// A float field written as the double its shortest decimal names (0.04f as 0.04, not 0.03999999910593033), so a
// recipe's JSON reads as it was written; reading it back gives the same float.
double decimal(float f) {
  char buf[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) break;
  }
  return std::strtod(buf, nullptr);
}
std::vector<double> decimal(const std::vector<float>& v) {
  std::vector<double> out;
  for (float f : v) out.push_back(decimal(f));
  return out;
}

void read_model(const json& j, model::GptConfig& m) {
  Reader r(j, "model");
  r.get("vocab_size", m.vocab_size);
  r.get("depth", m.depth);
  r.get("aspect_ratio", m.aspect_ratio);
  r.get("head_dim", m.head_dim);
  r.get("model_dim", m.model_dim);
  r.get("n_head", m.n_head);
  r.get("n_kv_head", m.n_kv_head);
  r.get("mlp_mult", m.mlp_mult);
  r.get("mlp_hidden", m.mlp_hidden);
  r.get("experts", m.experts);
  r.get("experts_per_token", m.experts_per_token);
  r.get("moe_aux_loss", m.moe_aux_loss);
  r.get("tie_embeddings", m.tie_embeddings);
  r.get("norm_weights", m.norm_weights);
  get_enum(r, "attention_bias", m.attention_bias, kAttentionBiases);
  get_enum(r, "norm", m.norm, kNormKinds);
  r.get("mlp_bias", m.mlp_bias);
  r.get("learned_positions", m.learned_positions);
  r.get("attention_sinks", m.attention_sinks);
  r.get("swiglu_limit", m.swiglu_limit);
  get_enum(r, "activation", m.activation, kActivations);
  r.get("leaky_slope", m.leaky_slope);
  r.get("rotary_base", m.rotary_base);
  r.get("qk_norm", m.qk_norm);
  r.get("qk_gain", m.qk_gain);
  r.get("window", m.window);
  r.get("window_pattern", m.window_pattern);
  r.get("softcap", m.softcap);
  get_enum(r, "value_embeds", m.value_embeds, kValueEmbeds);
  r.get("ve_gate_channels", m.ve_gate_channels);
  r.get("ve_gate_max", m.ve_gate_max);
  r.get("resid_lambda_init", m.resid_lambda_init);
  r.get("x0_lambda_init", m.x0_lambda_init);
  if (const json* rope = r.sub("rope_scaling")) {
    Reader rs(*rope, "model.rope_scaling");
    model::RopeScaling& x = m.rope_scaling;
    get_enum(rs, "kind", x.kind, kRopeScalings);
    rs.get("factor", x.factor);
    rs.get("original_max_positions", x.original_max_positions);
    rs.get("low_freq_factor", x.low_freq_factor);
    rs.get("high_freq_factor", x.high_freq_factor);
    rs.get("beta_fast", x.beta_fast);
    rs.get("beta_slow", x.beta_slow);
    rs.get("truncate", x.truncate);
    rs.get("attention_factor", x.attention_factor);
    rs.finish();
  }
  if (const json* init = r.sub("init")) {
    Reader i(*init, "model.init");
    i.get("wte_std", m.init.wte_std);
    i.get("lm_head_std", m.init.lm_head_std);
    i.get("qkv", m.init.qkv);
    i.get("attn_proj", m.init.attn_proj);
    i.get("fc", m.init.fc);
    i.get("mlp_proj", m.init.mlp_proj);
    i.get("value_embed", m.init.value_embed);
    i.get("ve_gate", m.init.ve_gate);
    i.finish();
  }
  r.finish();
}

void read_optim(const json& j, OptimConfig& o) {
  Reader r(j, "optim");
  get_enum(r, "kind", o.kind, kOptimizerKinds);
  r.get("adamw_matrix_lr", o.adamw_matrix_lr);
  r.get("adamw_matrix_weight_decay", o.adamw_matrix_weight_decay);
  r.get("matrix_lr", o.matrix_lr);
  get_enum(r, "muon_coefficients", o.muon_coefficients, kCoefficients);
  r.get("ns_steps", o.ns_steps);
  std::string muon_dtype = muon_dtype_name(o.muon_dtype);
  r.get("muon_dtype", muon_dtype);
  o.muon_dtype = muon_dtype_of(muon_dtype);
  r.get("momentum", o.momentum);
  r.get("momentum_start", o.momentum_start);
  r.get("momentum_warmup_steps", o.momentum_warmup_steps);
  r.get("nesterov", o.nesterov);
  r.get("normuon", o.normuon);
  r.get("normuon_beta2", o.normuon_beta2);
  r.get("norm_scale", o.norm_scale);
  r.get("muon_weight_decay", o.muon_weight_decay);
  r.get("muon_wd_decay_to_zero", o.muon_wd_decay_to_zero);
  r.get("embedding_lr", o.embedding_lr);
  r.get("unembedding_lr", o.unembedding_lr);
  r.get("value_embed_lr", o.value_embed_lr);
  r.get("scalar_lr", o.scalar_lr);
  r.get("resid_lr_scale", o.resid_lr_scale);
  r.get("norm_gain_lr", o.norm_gain_lr);
  r.get("bias_lr", o.bias_lr);
  r.get("adam_beta1", o.adam_beta1);
  r.get("adam_beta2", o.adam_beta2);
  r.get("x0_beta1", o.x0_beta1);
  r.get("x0_beta2", o.x0_beta2);
  r.get("adam_eps", o.adam_eps);
  r.get("adam_weight_decay", o.adam_weight_decay);
  r.get("scale_lr_by_width", o.scale_lr_by_width);
  r.get("grad_clip", o.grad_clip);
  r.finish();
}

void validate(const Recipe& r) {
  check_recipe_ranges(r);
  check(!r.batch.phases.empty(), "recipe: batch.phases must have at least one phase");
  check(r.batch.phases[0].from == 0.0, "recipe: batch.phases[0].from must be 0");
  for (size_t i = 1; i < r.batch.phases.size(); i++) {
    check(r.batch.phases[i].from > r.batch.phases[i - 1].from,
          "recipe: batch.phases[" + std::to_string(i) + "].from must increase");
  }
  check(!r.train.mtp_weights.empty(), "recipe: train.mtp_weights must not be empty ([1] = next token only)");
  budget_seconds(r);
  model::resolve(r.model);
}

}  // namespace

namespace {
// launch.stack: a shipped profile's name or a profile file (a string), or the profile itself (an object, as
// recipe_to_json writes a profile that did not ship).
StackProfile stack_of(const json& v) {
  if (v.is_string()) return resolve_stack(v.get<std::string>());
  check(v.is_object(),
        "recipe: launch.stack must be a profile name, a profile file or a profile object, got " + v.dump());
  StackProfile p = stack_profile_from_json(v, "recipe launch.stack");
  p.origin = "inline";
  return p;
}
}  // namespace

Recipe recipe_from_json(const json& j) {
  Recipe rec;
  Reader r(j, "");
  r.get("name", rec.name);
  r.get("description", rec.description);
  r.get("seed", rec.seed);
  if (const json* m = r.sub("model")) read_model(*m, rec.model);
  if (const json* o = r.sub("optim")) read_optim(*o, rec.optim);
  if (const json* s = r.sub("schedule")) {
    Reader x(*s, "schedule");
    x.get("warmup_steps", rec.schedule.warmup_steps);
    x.get("cooldown_fraction", rec.schedule.cooldown_fraction);
    x.get("final_lr_fraction", rec.schedule.final_lr_fraction);
    x.get("cooldown_levels", rec.schedule.cooldown_levels);
    x.finish();
  }
  if (const json* b = r.sub("batch")) {
    Reader x(*b, "batch");
    x.get("seq_len", rec.batch.seq_len);
    x.get("rows", rec.batch.rows);
    x.get("phases", rec.batch.phases);
    x.finish();
  }
  if (const json* d = r.sub("data")) {
    Reader x(*d, "data");
    x.get("corpus", rec.data.corpus);
    x.get("train", rec.data.train);
    x.get("val", rec.data.val);
    x.get("tokenizer", rec.data.tokenizer);
    get_enum(x, "layout", rec.data.layout, kLayouts);
    x.get("mask_bos_targets", rec.data.mask_bos_targets);
    x.finish();
  }
  if (const json* e = r.sub("eval")) {
    Reader x(*e, "eval");
    x.get("tokens", rec.eval.tokens);
    x.get("rows", rec.eval.rows);
    x.get("every_seconds", rec.eval.every_seconds);
    x.finish();
  }
  if (const json* e = r.sub("ema")) {
    Reader x(*e, "ema");
    x.get("decay", rec.ema.decay);
    x.get("every", rec.ema.every);
    x.get("evaluate_ema", rec.ema.evaluate_ema);
    x.finish();
  }
  if (const json* t = r.sub("train")) {
    Reader x(*t, "train");
    std::string budget = rec.train.budget.text;
    x.get("budget", budget);
    try {
      rec.train.budget = Duration::parse(budget);
    } catch (const Error& e) {
      throw Error("recipe: train.budget: " + e.message());
    }
    x.get("steps", rec.train.steps);
    std::string precision(dtype_name(rec.train.precision));
    x.get("precision", precision);
    rec.train.precision = precision_of(precision, "train.precision");
    x.get("mtp_weights", rec.train.mtp_weights);
    x.get("mtp_until", rec.train.mtp_until);
    x.get("checkpoint_every", rec.train.checkpoint_every);
    x.get("log_every", rec.train.log_every);
    x.get("threads", rec.train.threads);
    x.get("deterministic", rec.train.deterministic);
    x.finish();
  }
  if (const json* l = r.sub("launch")) {
    Reader x(*l, "launch");
    x.get("chips", rec.launch.chips);
    x.get("ranks_per_chip", rec.launch.ranks_per_chip);
    x.get("lnc", rec.launch.lnc);
    if (const json* st = x.sub("stack")) rec.launch.stack = stack_of(*st);
    x.get("compile_allowance_s", rec.launch.compile_allowance_s);
    x.get("zero", rec.launch.zero);
    x.get("recompute", rec.launch.recompute);
    x.get("tp", rec.launch.tp);
    x.get("sequence_parallel", rec.launch.sequence_parallel);
    x.get("pp", rec.launch.pp);
    x.get("nodes", rec.launch.nodes);
    x.get("ep", rec.launch.ep);
    get_enum(x, "attention_backward", rec.launch.attention_backward, kAttentionBackwards);
    x.finish();
  }
  r.finish();
  validate(rec);
  return rec;
}

json model_to_json(const model::GptConfig& m) {
  return {{"vocab_size", m.vocab_size},
          {"depth", m.depth},
          {"aspect_ratio", m.aspect_ratio},
          {"head_dim", m.head_dim},
          {"model_dim", m.model_dim},
          {"n_head", m.n_head},
          {"n_kv_head", m.n_kv_head},
          {"mlp_mult", m.mlp_mult},
          {"mlp_hidden", m.mlp_hidden},
          {"experts", m.experts},
          {"experts_per_token", m.experts_per_token},
          {"moe_aux_loss", decimal(m.moe_aux_loss)},
          {"tie_embeddings", m.tie_embeddings},
          {"norm_weights", m.norm_weights},
          {"attention_bias", model::to_string(m.attention_bias)},
          {"norm", model::to_string(m.norm)},
          {"mlp_bias", m.mlp_bias},
          {"learned_positions", m.learned_positions},
          {"attention_sinks", m.attention_sinks},
          {"swiglu_limit", decimal(m.swiglu_limit)},
          {"activation", model::to_string(m.activation)},
          {"leaky_slope", decimal(m.leaky_slope)},
          {"rotary_base", m.rotary_base},
          {"qk_norm", m.qk_norm},
          {"qk_gain", decimal(m.qk_gain)},
          {"window", m.window},
          {"window_pattern", m.window_pattern},
          {"softcap", decimal(m.softcap)},
          {"value_embeds", model::to_string(m.value_embeds)},
          {"ve_gate_channels", m.ve_gate_channels},
          {"ve_gate_max", decimal(m.ve_gate_max)},
          {"resid_lambda_init", decimal(m.resid_lambda_init)},
          {"x0_lambda_init", decimal(m.x0_lambda_init)},
          {"rope_scaling",
           {{"kind", model::to_string(m.rope_scaling.kind)},
            {"factor", m.rope_scaling.factor},
            {"original_max_positions", m.rope_scaling.original_max_positions},
            {"low_freq_factor", m.rope_scaling.low_freq_factor},
            {"high_freq_factor", m.rope_scaling.high_freq_factor},
            {"beta_fast", m.rope_scaling.beta_fast},
            {"beta_slow", m.rope_scaling.beta_slow},
            {"truncate", m.rope_scaling.truncate},
            {"attention_factor", m.rope_scaling.attention_factor}}},
          {"init",
           {{"wte_std", decimal(m.init.wte_std)},
            {"lm_head_std", decimal(m.init.lm_head_std)},
            {"qkv", decimal(m.init.qkv)},
            {"attn_proj", decimal(m.init.attn_proj)},
            {"fc", decimal(m.init.fc)},
            {"mlp_proj", decimal(m.init.mlp_proj)},
            {"value_embed", decimal(m.init.value_embed)},
            {"ve_gate", decimal(m.init.ve_gate)}}}};
}

namespace {
json optim_to_json(const OptimConfig& o) {
  return {{"kind", enum_name(o.kind, kOptimizerKinds)},
          {"adamw_matrix_lr", decimal(o.adamw_matrix_lr)},
          {"adamw_matrix_weight_decay", decimal(o.adamw_matrix_weight_decay)},
          {"matrix_lr", decimal(o.matrix_lr)},
          {"muon_coefficients", enum_name(o.muon_coefficients, kCoefficients)},
          {"ns_steps", o.ns_steps},
          {"muon_dtype", muon_dtype_name(o.muon_dtype)},
          {"momentum", decimal(o.momentum)},
          {"momentum_start", decimal(o.momentum_start)},
          {"momentum_warmup_steps", o.momentum_warmup_steps},
          {"nesterov", o.nesterov},
          {"normuon", o.normuon},
          {"normuon_beta2", decimal(o.normuon_beta2)},
          {"norm_scale", decimal(o.norm_scale)},
          {"muon_weight_decay", decimal(o.muon_weight_decay)},
          {"muon_wd_decay_to_zero", o.muon_wd_decay_to_zero},
          {"embedding_lr", decimal(o.embedding_lr)},
          {"unembedding_lr", decimal(o.unembedding_lr)},
          {"value_embed_lr", decimal(o.value_embed_lr)},
          {"scalar_lr", decimal(o.scalar_lr)},
          {"resid_lr_scale", decimal(o.resid_lr_scale)},
          {"norm_gain_lr", decimal(o.norm_gain_lr)},
          {"bias_lr", decimal(o.bias_lr)},
          {"adam_beta1", decimal(o.adam_beta1)},
          {"adam_beta2", decimal(o.adam_beta2)},
          {"x0_beta1", decimal(o.x0_beta1)},
          {"x0_beta2", decimal(o.x0_beta2)},
          {"adam_eps", decimal(o.adam_eps)},
          {"adam_weight_decay", decimal(o.adam_weight_decay)},
          {"scale_lr_by_width", o.scale_lr_by_width},
          {"grad_clip", decimal(o.grad_clip)}};
}
}  // namespace

json recipe_to_json(const Recipe& r) {
  const model::GptConfig& m = r.model;
  json phases = json::array();
  for (const BatchPhase& p : r.batch.phases)
    phases.push_back({{"from", p.from}, {"accum", p.accum}, {"lr_scale", p.lr_scale}});
  return {
      {"name", r.name},
      {"description", r.description},
      {"seed", r.seed},
      {"model", model_to_json(m)},
      {"optim", optim_to_json(r.optim)},
      {"schedule",
       {{"warmup_steps", r.schedule.warmup_steps},
        {"cooldown_fraction", r.schedule.cooldown_fraction},
        {"final_lr_fraction", r.schedule.final_lr_fraction},
        {"cooldown_levels", r.schedule.cooldown_levels}}},
      {"batch", {{"seq_len", r.batch.seq_len}, {"rows", r.batch.rows}, {"phases", phases}}},
      {"data",
       {{"corpus", r.data.corpus},
        {"train", r.data.train},
        {"val", r.data.val},
        {"tokenizer", r.data.tokenizer},
        {"layout", enum_name(r.data.layout, kLayouts)},
        {"mask_bos_targets", r.data.mask_bos_targets}}},
      {"eval", {{"tokens", r.eval.tokens}, {"rows", r.eval.rows}, {"every_seconds", r.eval.every_seconds}}},
      {"ema", {{"decay", decimal(r.ema.decay)}, {"every", r.ema.every}, {"evaluate_ema", r.ema.evaluate_ema}}},
      {"train",
       {{"budget", r.train.budget.text},
        {"steps", r.train.steps},
        {"precision", std::string(dtype_name(r.train.precision))},
        {"mtp_weights", decimal(r.train.mtp_weights)},
        {"mtp_until", r.train.mtp_until},
        {"checkpoint_every", r.train.checkpoint_every},
        {"log_every", r.train.log_every},
        {"threads", r.train.threads},
        {"deterministic", r.train.deterministic}}},
      {"launch",
       {{"chips", r.launch.chips},
        {"ranks_per_chip", r.launch.ranks_per_chip},
        {"lnc", r.launch.lnc},
        {"stack", r.launch.stack.builtin() ? json(r.launch.stack.name) : stack_profile_to_json(r.launch.stack)},
        {"compile_allowance_s", r.launch.compile_allowance_s},
        {"zero", r.launch.zero},
        {"recompute", r.launch.recompute},
        {"tp", r.launch.tp},
        {"sequence_parallel", r.launch.sequence_parallel},
        {"pp", r.launch.pp},
        {"nodes", r.launch.nodes},
        {"ep", r.launch.ep},
        {"attention_backward", to_string(r.launch.attention_backward)}}},
  };
}

std::string override_key(const std::string& assignment) { return assignment.substr(0, assignment.find('=')); }

void apply_override(json& j, const std::string& assignment, const json& defaults_json) {
  const size_t eq = assignment.find('=');
  check(eq != std::string::npos && eq > 0,
        "recipe override '" + assignment + "' must look like key.path=value (e.g. optim.matrix_lr=0.02)");
  const size_t bad = find_invalid_utf8(assignment);
  check(bad == std::string::npos, "recipe override: not valid UTF-8 at byte " + std::to_string(bad) +
                                      " (a recipe holds JSON text, which is UTF-8)");
  const std::string key = override_key(assignment), text = assignment.substr(eq + 1);
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  const json* known = &defaults_json;
  json* target = &j;
  for (size_t i = 0; i < parts.size(); i++) {
    check(known->is_object() && known->contains(parts[i]),
          "recipe override: unknown key '" + key + "' ('" + parts[i] + "' is not a field here)");
    known = &(*known)[parts[i]];
    check(target->is_object(), "recipe override '" + key + "': the recipe's value holding '" + parts[i] +
                                   "' is not an object, got " + target->dump());
    if (i + 1 < parts.size()) {
      if (!target->contains(parts[i])) (*target)[parts[i]] = json::object();
      target = &(*target)[parts[i]];
    }
  }
  json value = nanotrn::parse_json_or_discarded(text);
  // Text for string fields ("train.budget=0"), and whatever does not parse as JSON ("model.activation=relu2").
  if (value.is_discarded() || known->is_string()) value = text;
  (*target)[parts.back()] = value;
}

Recipe load_recipe(const std::string& path, const std::vector<std::string>& overrides,
                   const std::string& model_config) {
  const std::vector<uint8_t> bytes = read_file(path);
  json j = nanotrn::parse_json_or_discarded(bytes);
  if (j.is_discarded()) {
    // Parse again with exceptions for the byte position of the error.
    try {
      j = nanotrn::parse_json(bytes);
    } catch (const json::parse_error& e) {
      throw Error(path + ": byte " + std::to_string(e.byte) + ": not valid JSON: " + e.what());
    } catch (const json::exception& e) {  // out_of_range: a number too large for a double ("1E400")
      throw Error(path + ": not valid JSON: " + e.what());
    }
  }
  check(j.is_object(),
        path + ": a recipe is a JSON object of sections ({\"model\": {...}, ...}), got " + std::string(j.type_name()));
  if (!model_config.empty()) {
    j.erase("model");
    j["model_config"] = std::filesystem::absolute(model_config).string();
  }
  // "model_config": a Hugging Face config.json, relative to the recipe's folder, read as the model.
  std::optional<model::HfModel> hf;
  std::string hf_path;
  if (j.contains("model_config")) {
    check(j.at("model_config").is_string(), path + ": model_config must be a path (string)");
    check(!j.contains("model"), path + ": give either a model section or model_config, not both");
    const std::filesystem::path p = j.at("model_config").get<std::string>();
    hf_path = (p.is_absolute() ? p : std::filesystem::path(path).parent_path() / p).string();
    hf = model::read_hf_config(hf_path);
    j.erase("model_config");
    // The config becomes the model section, so model.* overrides scale it down ("--set model.depth=2").
    j["model"] = model_to_json(hf->config);
  }
  // launch.stack as a file, relative to the recipe's folder like model_config (an override's is relative to where
  // the user stands).
  if (j.contains("launch") && j.at("launch").is_object() && j.at("launch").contains("stack") &&
      j.at("launch").at("stack").is_string()) {
    const std::string st = j.at("launch").at("stack").get<std::string>();
    const std::filesystem::path sp = st;
    if (!is_builtin_stack_name(st) && sp.is_relative())
      j["launch"]["stack"] = (std::filesystem::path(path).parent_path() / sp).string();
  }
  const json defaults = recipe_to_json(Recipe{});
  for (const std::string& o : overrides) apply_override(j, o, defaults);
  try {
    Recipe r = recipe_from_json(j);
    if (hf) {
      r.model_notes = hf->notes;
      r.model_notes.insert(r.model_notes.begin(), hf->architecture + " from " + hf_path);
    }
    return r;
  } catch (const Error& e) {
    throw Error(path + ": " + e.message(), e.where());
  }
}

Recipe default_recipe_with(const std::vector<std::string>& overrides) {
  const json defaults = recipe_to_json(Recipe{});
  json j = json::object();
  for (const std::string& o : overrides) apply_override(j, o, defaults);
  return recipe_from_json(j);
}

double parse_duration(const std::string& text) {
  size_t used = 0;
  double v = 0.0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw Error("duration '" + text + "' must be a number with an optional unit s, m or h (e.g. 90s, 30m, 1.5h)");
  }
  const std::string unit = text.substr(used);
  double scale = 0.0;
  if (unit.empty() || unit == "s") scale = 1.0;
  if (unit == "m" || unit == "min") scale = 60.0;
  if (unit == "h") scale = 3600.0;
  check(scale > 0.0 && std::isfinite(v) && v >= 0.0,
        "duration '" + text + "' must be a non-negative number with an optional unit s, m or h (e.g. 90s, 30m)");
  return v * scale;
}

std::string_view to_string(AttentionBackward a) { return a == AttentionBackward::unfused ? "unfused" : "flash"; }

Duration Duration::parse(const std::string& text) { return Duration{text, parse_duration(text)}; }

Duration Duration::of_seconds(double seconds) { return Duration{format_number("%.9gs", seconds), seconds}; }

double budget_seconds(const Recipe& r) {
  const double b = r.train.budget.seconds;
  check(b > 0.0 || r.train.steps > 0, "recipe: set train.budget (e.g. \"30m\") or train.steps (or both)");
  return b;
}

}  // namespace nanotrn::recipe
