// libFuzzer target: the Hugging Face config reader (src/model/hf_config.h). Either the text parses into a resolved
// GptConfig whose parameter count and FLOPs per token can be computed, or reading throws nanotrn::Error. Built and
// run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "model/hf_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return 0;
  }
  try {
    const nanotrn::model::HfModel m = nanotrn::model::hf_config_from_json(j, "fuzz.json");
    (void)nanotrn::model::count_params(m.config).total();
    (void)nanotrn::model::flops_per_token(m.config, 1024);
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
