// Hugging Face configs. See hf_config.h.
#include "model/hf_config.h"

#include <set>

#include "base/error.h"
#include "base/file.h"

namespace nanotrn::model {
namespace {

const std::set<std::string> kDense = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"};
const std::set<std::string> kMixtureOfExperts = {"MixtralForCausalLM", "Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM",
                                                 "GptOssForCausalLM", "DeepseekV3ForCausalLM"};
// Read below.
const std::set<std::string> kUsed = {"architectures",      "vocab_size",          "hidden_size",
                                     "num_hidden_layers",  "num_attention_heads", "num_key_value_heads",
                                     "head_dim",           "intermediate_size",   "hidden_act",
                                     "rope_theta",         "tie_word_embeddings", "sliding_window",
                                     "use_sliding_window", "max_window_layers",   "attention_bias",
                                     "mlp_bias",           "model_type"};
// Known not to change the cost of a training step.
const std::set<std::string> kNeutral = {
    "_name_or_path", "bos_token_id",   "eos_token_id",         "pad_token_id",
    "torch_dtype",   "dtype",          "transformers_version", "initializer_range",
    "rms_norm_eps",  "use_cache",      "attention_dropout",    "max_position_embeddings",
    "rope_scaling",  "pretraining_tp", "layer_types"};

int64_t integer(const nlohmann::json& j, const std::string& key, const std::string& where) {
  check(j.contains(key), where + ": missing field '" + key + "'");
  const nlohmann::json& v = j.at(key);
  check(v.is_number_integer() && v.get<int64_t>() >= 1,
        where + ": field '" + key + "' must be a positive integer, got " + v.dump());
  return v.get<int64_t>();
}

}  // namespace

namespace {

HfModel from_json(const nlohmann::json& j, const std::string& where) {
  check(j.is_object(), where + ": a Hugging Face config is a JSON object");
  for (const char* moe : {"num_local_experts", "num_experts", "n_routed_experts"}) {
    if (j.contains(moe)) {
      throw Error(where + ": field '" + moe + "' = " + j.at(moe).dump() +
                  ": a mixture of experts is not lowered yet (expert parallelism and its all-to-all are not modelled)");
    }
  }
  for (const auto& [key, value] : j.items()) {
    check(kUsed.count(key) || kNeutral.count(key),
          where + ": field '" + key +
              "' is not known to the reader and may change the cost; nanotrn refuses rather "
              "than ignore it");
  }
  check(j.contains("architectures") && j.at("architectures").is_array() && j.at("architectures").size() == 1 &&
            j.at("architectures")[0].is_string(),
        where + ": field 'architectures' must list exactly one architecture");
  HfModel m;
  m.architecture = j.at("architectures")[0].get<std::string>();
  if (kMixtureOfExperts.count(m.architecture)) {
    throw Error(where + ": architecture " + m.architecture +
                " is a mixture of experts, which is not lowered yet (expert parallelism and its all-to-all are not "
                "modelled)");
  }
  if (!kDense.count(m.architecture)) {
    std::string known;
    for (const std::string& a : kDense) known += (known.empty() ? "" : ", ") + a;
    throw Error(where + ": architecture " + m.architecture + " is not supported (known: " + known + ")");
  }
  if (j.contains("hidden_act")) {
    check(j.at("hidden_act") == "silu",
          where + ": field 'hidden_act' = " + j.at("hidden_act").dump() + ": only \"silu\" (SwiGLU) is lowered");
  }
  check(!j.value("mlp_bias", false), where + ": field 'mlp_bias' = true: MLP biases are not lowered");
  GptConfig c;
  c.vocab_size = integer(j, "vocab_size", where);
  c.model_dim = integer(j, "hidden_size", where);
  c.depth = integer(j, "num_hidden_layers", where);
  c.n_head = integer(j, "num_attention_heads", where);
  c.n_kv_head = j.contains("num_key_value_heads") ? integer(j, "num_key_value_heads", where) : c.n_head;
  c.head_dim =
      j.contains("head_dim") && !j.at("head_dim").is_null() ? integer(j, "head_dim", where) : c.model_dim / c.n_head;
  c.mlp_hidden = integer(j, "intermediate_size", where);
  c.activation = Activation::swiglu;
  if (j.contains("rope_theta")) {
    check(j.at("rope_theta").is_number(),
          where + ": field 'rope_theta' must be a number, got " + j.at("rope_theta").dump());
    c.rotary_base = j.at("rope_theta").get<double>();
  }
  c.tie_embeddings = j.value("tie_word_embeddings", false);
  c.norm_weights = true;
  c.qk_norm = m.architecture == "Qwen3ForCausalLM";
  c.softcap = 0.0f;
  c.value_embeds = ValueEmbeds::none;
  const bool qwen2 = m.architecture == "Qwen2ForCausalLM";
  const bool windowed = j.contains("sliding_window") && !j.at("sliding_window").is_null() &&
                        (!qwen2 || j.value("use_sliding_window", false));
  if (windowed) {
    if (j.contains("max_window_layers") && j.value("use_sliding_window", false)) {
      check(integer(j, "max_window_layers", where) == 0 || integer(j, "max_window_layers", where) >= c.depth,
            where + ": field 'max_window_layers': a window on only some layers is not lowered");
    }
    c.window = integer(j, "sliding_window", where);
  }
  if (qwen2 || j.value("attention_bias", false)) {
    m.notes.push_back("q/k/v biases ((heads + 2 x kv heads) x head_dim per layer) are not counted");
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
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(path + ": not JSON at byte " + std::to_string(e.byte) + " (" + e.what() + ")");
  }
  return hf_config_from_json(j, path);
}

}  // namespace nanotrn::model
