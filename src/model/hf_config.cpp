// Hugging Face configs. See hf_config.h.
#include "model/hf_config.h"
#include "base/json_parse.h"

#include <map>
#include <set>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::model {
namespace {

const std::set<std::string> kDense = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"};
// Mixtures of experts lowered: every layer's MLP is experts x SwiGLU with top-k routing, no shared expert.
const std::set<std::string> kExperts = {"MixtralForCausalLM", "Qwen3MoeForCausalLM", "GptOssForCausalLM"};
// Mixtures of experts not lowered, with why.
const std::map<std::string, std::string> kUnloweredExperts = {
    {"Qwen2MoeForCausalLM", "its shared expert beside the routed ones is not lowered"},
    {"DeepseekV3ForCausalLM",
     "its multi-head latent attention, shared experts and dense first layers are not lowered"}};
// Read below.
const std::set<std::string> kUsed = {"architectures",
                                     "vocab_size",
                                     "hidden_size",
                                     "num_hidden_layers",
                                     "num_attention_heads",
                                     "num_key_value_heads",
                                     "head_dim",
                                     "intermediate_size",
                                     "hidden_act",
                                     "rope_theta",
                                     "rope_scaling",
                                     "tie_word_embeddings",
                                     "sliding_window",
                                     "use_sliding_window",
                                     "max_window_layers",
                                     "attention_bias",
                                     "mlp_bias",
                                     "model_type",
                                     "num_local_experts",
                                     "num_experts",
                                     "num_experts_per_tok",
                                     "moe_intermediate_size",
                                     "decoder_sparse_step",
                                     "mlp_only_layers",
                                     "experts_per_token",
                                     "layer_types",
                                     "swiglu_limit",
                                     "quantization_config",
                                     "use_mrope"};
// Known not to change the cost of a training step.
const std::set<std::string> kNeutral = {
    "_name_or_path", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype", "dtype", "transformers_version",
    "initializer_range", "rms_norm_eps", "use_cache", "attention_dropout", "max_position_embeddings", "pretraining_tp",
    "initial_context_length",
    // Training-time router settings that do not change a step's cost (the auxiliary loss is a few element-wise ops).
    "router_aux_loss_coef", "output_router_logits", "router_jitter_noise", "norm_topk_prob"};

// GPT-2's own field names (GPT2LMHeadModel; GPT-3 shapes are written in it, having no Hugging Face class).
const std::set<std::string> kGpt2Used = {
    "architectures",       "model_type",  "vocab_size",          "n_embd", "n_layer", "n_head", "n_inner",
    "activation_function", "n_positions", "tie_word_embeddings", "n_ctx"};
const std::set<std::string> kGpt2Neutral = {
    "_name_or_path", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype", "dtype", "transformers_version",
    "initializer_range", "layer_norm_epsilon", "use_cache", "resid_pdrop", "embd_pdrop", "attn_pdrop",
    "scale_attn_weights", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn", "summary_type",
    "summary_use_proj", "summary_activation", "summary_proj_to_labels", "summary_first_dropout", "task_specific_params",
    // Older GPT-2 configs: the generation cache flag and OpenAI GPT's special-token fields (GPT2LMHeadModel reads
    // none).
    "output_past", "n_special", "predict_special_tokens"};
const std::set<std::string> kGelu = {"gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh"};

int64_t integer(const nlohmann::json& j, const std::string& key, const std::string& where) {
  check(j.contains(key), where + ": missing field '" + key + "'");
  const nlohmann::json& v = j.at(key);
  check(v.is_number_integer() && v.get<int64_t>() >= 1,
        where + ": field '" + key + "' must be a positive integer, got " + v.dump());
  return v.get<int64_t>();
}

// A number field of the rope_scaling object, `fallback` when absent.
double rope_number(const nlohmann::json& r, const char* key, double fallback, const std::string& where) {
  if (!r.contains(key) || r.at(key).is_null()) return fallback;
  check(r.at(key).is_number(), where + ": field 'rope_scaling." + key + "' must be a number, got " + r.at(key).dump());
  return r.at(key).get<double>();
}

// rope_scaling: null or rope_type "default" -> none; llama3 and yarn as Hugging Face's modeling_rope_utils reads them;
// any other type (linear, dynamic, longrope, ...) is refused by name.
RopeScaling read_rope_scaling(const nlohmann::json& j, const std::string& where) {
  RopeScaling s;
  if (!j.contains("rope_scaling") || j.at("rope_scaling").is_null()) return s;
  const nlohmann::json& r = j.at("rope_scaling");
  check(r.is_object(), where + ": field 'rope_scaling' must be an object or null, got " + r.dump());
  const nlohmann::json type = r.contains("rope_type") ? r.at("rope_type") : r.value("type", nlohmann::json("default"));
  check(type.is_string(), where + ": field 'rope_scaling.rope_type' must be a string, got " + type.dump());
  const std::string t = type.get<std::string>();
  if (t == "default") return s;
  check(t == "llama3" || t == "yarn", where + ": rope_scaling type '" + t + "' is not lowered (llama3 and yarn are)");
  for (const char* key : {"mscale", "mscale_all_dim"})
    check(!r.contains(key), where + ": field 'rope_scaling." + key + "' (DeepSeek's YaRN) is not lowered");
  s.kind = t == "llama3" ? RopeScalingKind::llama3 : RopeScalingKind::yarn;
  s.factor = rope_number(r, "factor", 1.0, where);
  // The context the frequencies were trained for: original_max_position_embeddings, else max_position_embeddings.
  const bool own =
      r.contains("original_max_position_embeddings") && !r.at("original_max_position_embeddings").is_null();
  const nlohmann::json* positions =
      own ? &r.at("original_max_position_embeddings")
          : (j.contains("max_position_embeddings") ? &j.at("max_position_embeddings") : nullptr);
  if (positions) {
    check(positions->is_number_integer() && positions->get<int64_t>() >= 1,
          where + ": field '" + (own ? "rope_scaling.original_max_position_embeddings" : "max_position_embeddings") +
              "' must be a positive integer, got " + positions->dump());
    s.original_max_positions = positions->get<int64_t>();
  }
  s.low_freq_factor = rope_number(r, "low_freq_factor", 1.0, where);
  s.high_freq_factor = rope_number(r, "high_freq_factor", 4.0, where);
  s.beta_fast = rope_number(r, "beta_fast", 32.0, where);
  s.beta_slow = rope_number(r, "beta_slow", 1.0, where);
  s.attention_factor = rope_number(r, "attention_factor", 0.0, where);
  if (r.contains("truncate")) {
    check(r.at("truncate").is_boolean(), where + ": field 'rope_scaling.truncate' must be true or false");
    s.truncate = r.at("truncate").get<bool>();
  }
  return s;
}

}  // namespace

namespace {

void only_known(const nlohmann::json& j, const std::set<std::string>& used, const std::set<std::string>& neutral,
                const std::string& where) {
  for (const auto& [key, value] : j.items()) {
    check(used.count(key) || neutral.count(key),
          where + ": field '" + key +
              "' is not known to the reader and may change the cost; nanotrn refuses rather "
              "than ignore it");
  }
}

// GPT2LMHeadModel: learned positions, LayerNorm with biases, GELU MLP of n_inner (default 4 d), tied head by default.
HfModel from_gpt2(const nlohmann::json& j, const std::string& where) {
  only_known(j, kGpt2Used, kGpt2Neutral, where);
  HfModel m;
  m.architecture = "GPT2LMHeadModel";
  if (j.contains("activation_function")) {
    check(j.at("activation_function").is_string() && kGelu.count(j.at("activation_function").get<std::string>()),
          where + ": field 'activation_function' = " + j.at("activation_function").dump() +
              ": only GELU (gelu, gelu_new, gelu_fast, gelu_pytorch_tanh) is lowered");
  }
  GptConfig c;
  c.vocab_size = integer(j, "vocab_size", where);
  c.model_dim = integer(j, "n_embd", where);
  c.depth = integer(j, "n_layer", where);
  c.n_head = integer(j, "n_head", where);
  check(c.model_dim % c.n_head == 0, where + ": n_embd must be a multiple of n_head");
  c.n_kv_head = c.n_head;
  c.head_dim = c.model_dim / c.n_head;
  c.mlp_hidden = j.contains("n_inner") && !j.at("n_inner").is_null() ? integer(j, "n_inner", where) : 4 * c.model_dim;
  c.activation = Activation::gelu;
  c.tie_embeddings = j.value("tie_word_embeddings", true);
  c.norm_weights = true;
  c.qk_norm = false;
  c.softcap = 0.0f;
  c.value_embeds = ValueEmbeds::none;
  // GPT-2's block: learned positions, LayerNorm with gains and biases, and biases on every linear layer.
  c.learned_positions = j.contains("n_positions") ? integer(j, "n_positions", where) : 1024;
  c.norm = NormKind::layer;
  c.attention_bias = AttentionBias::qkvo;
  c.mlp_bias = true;
  m.config = resolve(c);
  return m;
}

HfModel from_json(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": a Hugging Face config is a JSON object");
  if (j.contains("architectures") && j.at("architectures").is_array() && j.at("architectures").size() == 1 &&
      j.at("architectures")[0] == "GPT2LMHeadModel") {
    return from_gpt2(j, where);
  }
  if (j.contains("architectures") && j.at("architectures").is_array() && j.at("architectures").size() == 1 &&
      j.at("architectures")[0].is_string()) {
    const auto it = kUnloweredExperts.find(j.at("architectures")[0].get<std::string>());
    if (it != kUnloweredExperts.end())
      throw Error(where + ": architecture " + it->first +
                  " is a mixture of experts that is not lowered: " + it->second);
  }
  only_known(j, kUsed, kNeutral, where);
  check(j.contains("architectures") && j.at("architectures").is_array() && j.at("architectures").size() == 1 &&
            j.at("architectures")[0].is_string(),
        where + ": field 'architectures' must list exactly one architecture");
  HfModel m;
  m.architecture = j.at("architectures")[0].get<std::string>();
  const bool experts = kExperts.count(m.architecture) > 0;
  for (const char* key : {"num_local_experts", "num_experts", "num_experts_per_tok", "moe_intermediate_size"}) {
    check(experts || !j.contains(key), where + ": field '" + key + "' on " + m.architecture +
                                           ", which is dense: a mixture of experts is lowered for " +
                                           "MixtralForCausalLM, Qwen3MoeForCausalLM and GptOssForCausalLM");
  }
  if (!kDense.count(m.architecture) && !experts) {
    std::string known;
    for (const std::string& a : kDense) known += (known.empty() ? "" : ", ") + a;
    for (const std::string& a : kExperts) known += ", " + a;
    known += ", GPT2LMHeadModel";
    throw Error(where + ": architecture " + m.architecture + " is not supported (known: " + known + ")");
  }
  // The gate's activation: SiLU (SwiGLU), or GELU's tanh form (GeGLU).
  if (j.contains("hidden_act")) {
    const nlohmann::json& act = j.at("hidden_act");
    check(act == "silu" || act == "gelu_pytorch_tanh" || act == "gelu_new",
          where + ": field 'hidden_act' = " + act.dump() +
              ": only \"silu\" (SwiGLU) and the tanh-form GELUs \"gelu_pytorch_tanh\" and \"gelu_new\" (GeGLU) are "
              "lowered");
  }
  // Qwen2.5's configs say use_mrope false: the multimodal rotary sections (Qwen2-VL) are off.
  check(!j.value("use_mrope", false),
        where + ": field 'use_mrope' = true: the multimodal rotary embedding's sections are not lowered");
  GptConfig c;
  c.vocab_size = integer(j, "vocab_size", where);
  c.model_dim = integer(j, "hidden_size", where);
  c.depth = integer(j, "num_hidden_layers", where);
  c.n_head = integer(j, "num_attention_heads", where);
  c.n_kv_head = j.contains("num_key_value_heads") ? integer(j, "num_key_value_heads", where) : c.n_head;
  c.head_dim =
      j.contains("head_dim") && !j.at("head_dim").is_null() ? integer(j, "head_dim", where) : c.model_dim / c.n_head;
  c.activation = j.value("hidden_act", std::string("silu")) == "silu" ? Activation::swiglu : Activation::geglu;
  if (m.architecture == "MixtralForCausalLM") {  // intermediate_size is each expert's
    c.experts = integer(j, "num_local_experts", where);
    c.experts_per_token = integer(j, "num_experts_per_tok", where);
    c.mlp_hidden = integer(j, "intermediate_size", where);
  } else if (m.architecture == "Qwen3MoeForCausalLM") {  // moe_intermediate_size is each expert's
    c.experts = integer(j, "num_experts", where);
    c.experts_per_token = integer(j, "num_experts_per_tok", where);
    c.mlp_hidden = integer(j, "moe_intermediate_size", where);
    check(!j.contains("decoder_sparse_step") || integer(j, "decoder_sparse_step", where) == 1,
          where + ": field 'decoder_sparse_step': experts on only some layers are not lowered");
    check(!j.contains("mlp_only_layers") || (j.at("mlp_only_layers").is_array() && j.at("mlp_only_layers").empty()),
          where + ": field 'mlp_only_layers': dense layers among the expert layers are not lowered");
  } else if (m.architecture == "GptOssForCausalLM") {  // intermediate_size is each expert's
    c.experts = integer(j, "num_local_experts", where);
    c.experts_per_token = j.contains("num_experts_per_tok") ? integer(j, "num_experts_per_tok", where)
                                                            : integer(j, "experts_per_token", where);
    c.mlp_hidden = integer(j, "intermediate_size", where);
    c.mlp_bias = true;  // its experts' gate_up_proj and down_proj carry biases
    c.attention_sinks = true;
    c.swiglu_limit = 7.0f;  // GptOssConfig's default
    if (j.contains("swiglu_limit")) {
      check(j.at("swiglu_limit").is_number() && j.at("swiglu_limit").get<double>() > 0,
            where + ": field 'swiglu_limit' must be a positive number, got " + j.at("swiglu_limit").dump());
      c.swiglu_limit = j.at("swiglu_limit").get<float>();
    }
    m.notes.push_back(
        "gpt-oss: the MXFP4 quantization_config describes the released weights: training is priced in the recipe's "
        "precision; the attention sinks and the SwiGLU clamp are a few element-wise operations, not priced");
  } else {
    c.mlp_hidden = integer(j, "intermediate_size", where);
  }
  if (c.experts > 0 && j.contains("router_aux_loss_coef")) {
    check(j.at("router_aux_loss_coef").is_number(),
          where + ": field 'router_aux_loss_coef' must be a number, got " + j.at("router_aux_loss_coef").dump());
    c.moe_aux_loss = j.at("router_aux_loss_coef").get<float>();
  }
  for (const char* key : {"experts_per_token", "swiglu_limit", "quantization_config"}) {
    check(m.architecture == "GptOssForCausalLM" || !j.contains(key),
          where + ": field '" + key + "' belongs to GptOssForCausalLM, not " + m.architecture);
  }
  if (j.contains("rope_theta")) {
    check(j.at("rope_theta").is_number(),
          where + ": field 'rope_theta' must be a number, got " + j.at("rope_theta").dump());
    c.rotary_base = j.at("rope_theta").get<double>();
  }
  c.rope_scaling = read_rope_scaling(j, where);
  c.tie_embeddings = j.value("tie_word_embeddings", false);
  c.norm_weights = true;
  c.qk_norm = m.architecture == "Qwen3ForCausalLM" || m.architecture == "Qwen3MoeForCausalLM";
  c.softcap = 0.0f;
  c.value_embeds = ValueEmbeds::none;
  const bool qwen2 = m.architecture == "Qwen2ForCausalLM";
  // Qwen's configs carry a sliding_window that applies only with use_sliding_window.
  const bool window_flag = qwen2 || m.architecture == "Qwen3MoeForCausalLM";
  const bool windowed = j.contains("sliding_window") && !j.at("sliding_window").is_null() &&
                        (!window_flag || j.value("use_sliding_window", false));
  if (windowed) {
    if (j.contains("max_window_layers") && j.value("use_sliding_window", false)) {
      check(integer(j, "max_window_layers", where) == 0 || integer(j, "max_window_layers", where) >= c.depth,
            where + ": field 'max_window_layers': a window on only some layers is not lowered");
    }
    c.window = integer(j, "sliding_window", where);
  }
  // layer_types: "sliding_attention" or "full_attention" per layer -> model.window_pattern (S / L).
  if (j.contains("layer_types") && !j.at("layer_types").is_null()) {
    const nlohmann::json& types = j.at("layer_types");
    check(types.is_array() && static_cast<int64_t>(types.size()) == c.depth,
          where + ": field 'layer_types' must list one type per layer (" + std::to_string(c.depth) + ")");
    std::string pattern;
    for (const nlohmann::json& t : types) {
      check(t == "sliding_attention" || t == "full_attention",
            where + ": field 'layer_types': " + t.dump() + " is not \"sliding_attention\" or \"full_attention\"");
      pattern += t == "sliding_attention" ? 'S' : 'L';
    }
    if (pattern.find('S') == std::string::npos) {
      c.window = 0;  // every layer full
    } else {
      check(j.contains("sliding_window") && !j.at("sliding_window").is_null(),
            where + ": field 'layer_types' names sliding layers but 'sliding_window' is not set");
      c.window = integer(j, "sliding_window", where);
      if (pattern.find('L') != std::string::npos) c.window_pattern = pattern;
    }
  }
  // Qwen2's q/k/v projections always carry biases (its config has no field for them); attention_bias puts one on
  // q, k, v and the output projection (Llama's, Mistral's and gpt-oss's attention layers).
  if (j.contains("attention_bias")) {
    check(j.at("attention_bias").is_boolean(),
          where + ": field 'attention_bias' must be true or false, got " + j.at("attention_bias").dump());
  }
  if (j.contains("mlp_bias")) {
    check(j.at("mlp_bias").is_boolean(),
          where + ": field 'mlp_bias' must be true or false, got " + j.at("mlp_bias").dump());
    c.mlp_bias = j.at("mlp_bias").get<bool>();
  }
  if (j.value("attention_bias", false)) {
    c.attention_bias = AttentionBias::qkvo;
  } else if (qwen2) {
    c.attention_bias = AttentionBias::qkv;
  }
  m.config = resolve(c);
  return m;
}

}  // namespace

HfModel hf_config_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    return from_json(j, where);
  } catch (const nlohmann::json::exception& e) {  // a field of the wrong type
    throw Error(where + ": " + e.what());
  }
}

HfModel read_hf_config(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  const std::string text(bytes.begin(), bytes.end());
  nlohmann::json j;
  try {
    j = nanotrn::parse_json(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")");
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number beyond a double, such as 1E400
    throw Error(path + ": not JSON (" + e.what() + ")");
  }
  return hf_config_from_json(j, path);
}

}  // namespace nanotrn::model
