// Checkpoints. See checkpoint.h.
#include "train/checkpoint.h"
#include "base/json_parse.h"

#include "base/error.h"

namespace nanotrn::train {

namespace {
constexpr const char* kFormat = "nanotrn-checkpoint-1";
}

std::vector<std::pair<std::string, Tensor>> Checkpoint::with_prefix(const std::string& prefix) const {
  std::vector<std::pair<std::string, Tensor>> out;
  for (const auto& [name, t] : file.tensors) {
    if (name.rfind(prefix, 0) == 0) out.emplace_back(name.substr(prefix.size()), t);
  }
  return out;
}

void save_checkpoint(const std::string& path, const recipe::Recipe& recipe, const model::Gpt& gpt,
                     const std::vector<std::pair<std::string, Tensor>>& optimizer_state,
                     const std::map<std::string, std::string>& counters, const std::vector<Tensor>& ema,
                     const nlohmann::json& progress) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  const auto& params = gpt.parameters();
  for (const model::Parameter& p : params) tensors.emplace_back("model." + p.name, p.value);
  for (const auto& [name, t] : optimizer_state) tensors.emplace_back(name, t);
  check(ema.empty() || ema.size() == params.size(), "save_checkpoint: one EMA tensor per parameter");
  for (size_t i = 0; i < ema.size(); i++) tensors.emplace_back("ema." + params[i].name, ema[i]);
  const std::map<std::string, std::string> meta = {
      {"format", kFormat},
      {"recipe", recipe::recipe_to_json(recipe).dump()},
      {"progress", progress.dump()},
      {"counters", nlohmann::json(counters).dump()},
  };
  save_safetensors(path, tensors, meta);
}

Checkpoint load_checkpoint(const std::string& path) {
  Checkpoint c;
  c.file = load_safetensors(path);
  auto meta = [&](const std::string& key) -> nlohmann::json {
    auto it = c.file.metadata.find(key);
    check(it != c.file.metadata.end(), path + ": not a nanotrn checkpoint (metadata '" + key + "' is missing)");
    if (key == "format") return it->second;
    nlohmann::json j = nanotrn::parse_json_or_discarded(it->second);
    check(!j.is_discarded(), path + ": metadata '" + key + "' is not valid JSON");
    return j;
  };
  check(meta("format") == kFormat, path + ": checkpoint format is " + meta("format").dump() + ", expected " + kFormat);
  check(c.file.checksummed, path +
                                ": a nanotrn checkpoint without its crc32c: checksums; nanotrn always writes "
                                "them, so they were removed and a damaged byte would load unnoticed: refused");
  try {
    c.recipe = recipe::recipe_from_json(meta("recipe"));
  } catch (const Error& e) {
    throw Error(path + ": the recipe stored in the checkpoint is invalid: " + e.message(), e.where());
  }
  c.progress = meta("progress");
  const nlohmann::json counters = meta("counters");
  check(counters.is_object(), path + ": metadata 'counters' must be an object");
  for (auto it = counters.begin(); it != counters.end(); ++it) {
    check(it->is_string(), path + ": counter '" + it.key() + "' must be a string");
    c.counters[it.key()] = it->get<std::string>();
  }
  return c;
}

void restore_model(model::Gpt& gpt, const Checkpoint& checkpoint) {
  for (model::Parameter& p : gpt.parameters()) {
    const Tensor* t = checkpoint.file.find("model." + p.name);
    check(t != nullptr, "checkpoint: parameter 'model." + p.name + "' is missing");
    check(t->shape() == p.value.shape(), "checkpoint: parameter '" + p.name + "' has shape " + shape_str(t->shape()) +
                                             ", the model needs " + shape_str(p.value.shape()));
    p.value.copy_from(*t);
  }
}

}  // namespace nanotrn::train
