// Writing the PyTorch export folder. See pytorch_export.h.
#include "export/pytorch_export.h"

#include <unistd.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "base/temp_files.h"
#include "base/version.h"
#include "io/safetensors.h"
#include "recipe/recipe.h"
#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::exporting {

namespace fs = std::filesystem;

namespace {

// DIR must not exist, or be an empty folder: an export never replaces what the user named.
void check_destination(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  check(fs::is_directory(dir, ec), "export: " + dir + " exists and is not a folder; name a new folder");
  check(fs::is_empty(dir, ec),
        "export: " + dir + " is not empty; name a new (or empty) folder: an export never " + "replaces files");
}

void write_text(const fs::path& path, const std::string& text) {
  write_file_atomic(path.string(), text.data(), text.size());
}

// The weights only, under nanotrn's parameter names (model.py's state-dict names).
int64_t write_weights(const model::Gpt& gpt, const fs::path& dir) {
  std::vector<std::pair<std::string, Tensor>> tensors;
  int64_t n = 0;
  for (const model::Parameter& p : gpt.parameters()) {
    tensors.emplace_back(p.name, p.value.to(DType::f32));
    n += p.value.numel();
  }
  save_safetensors((dir / "model.safetensors").string(), tensors, {{"format", "pt"}});
  return n;
}

// nanotrn's own logits for the check ids, in fp32, for model.py's self-check.
void write_check(model::Gpt& gpt, Ctx& ctx, const PytorchExportOptions& o, const fs::path& dir) {
  const auto n = static_cast<int64_t>(o.check_ids.size());
  check(o.check_rows > 0 && n > 0 && n % o.check_rows == 0,
        "export: the check ids must be check_rows rows of equal length, got " + std::to_string(n) + " ids");
  const Tensor ids = Tensor::from_ints({o.check_rows, n / o.check_rows}, o.check_ids);
  Ctx f32 = ctx;
  f32.matmul_dtype = DType::f32;
  const Tensor logits = gpt.logits(f32, ids).contiguous();
  save_safetensors((dir / "check.safetensors").string(), {{"ids", ids}, {"logits", logits}}, {{"format", "pt"}});
}

// The tokenizer's files as nanotrn reads them: a folder's regular files, or the one file.
std::vector<std::string> copy_tokenizer(const std::string& tokenizer, const fs::path& dir) {
  std::vector<std::string> files;
  if (tokenizer.empty()) return files;
  make_directories((dir / "tokenizer").string());
  std::vector<fs::path> sources;
  if (fs::is_directory(tokenizer)) {
    for (const auto& e : fs::directory_iterator(tokenizer))
      if (e.is_regular_file()) sources.push_back(e.path());
  } else {
    sources.emplace_back(tokenizer);
  }
  for (const fs::path& s : sources) {
    const std::vector<uint8_t> bytes = read_file(s.string());
    write_file_atomic((dir / "tokenizer" / s.filename()).string(), bytes);
    files.push_back("tokenizer/" + s.filename().string());
  }
  return files;
}

}  // namespace

std::string pytorch_config_json(const model::GptConfig& c) {
  nlohmann::ordered_json j;
  j["format"] = "nanotrn-pytorch-export";
  j["version"] = 1;
  j["architecture"] = "nanotrn GPT (recipe-spec §2.2): model.py NanotrnGPT";
  j["exported_by"] = version_line();
  j["model"] = recipe::model_to_json(c);  // the recipe's own model section: one writer of a GptConfig
  return j.dump(2) + "\n";
}

PytorchExport export_pytorch(model::Gpt& gpt, Ctx& ctx, const PytorchExportOptions& o) {
  check(!o.dir.empty(), "export: no folder given");
  check_destination(o.dir);
  const model::GptConfig& c = gpt.config();
  check(c.experts == 0 && c.window_pattern.empty() && !c.tie_embeddings && !c.norm_weights &&
            c.attention_bias == model::AttentionBias::none &&
            (c.activation == model::Activation::relu2 || c.activation == model::Activation::leaky_relu2),
        "export: the model is not the host GPT family model.py implements");
  // Everything is written into a temporary folder beside DIR, then renamed into place.
  const fs::path target = fs::absolute(o.dir).lexically_normal();
  make_directories(target.parent_path().string());
  const fs::path tmp = temporary_path(target.string());
  fs::remove_all(tmp);
  make_directories(tmp.string());
  PytorchExport out;
  out.dir = o.dir;
  try {
    out.parameters = write_weights(gpt, tmp);
    write_text(tmp / "config.json", pytorch_config_json(c));
    write_text(tmp / "model.py", pytorch_model_py());
    write_check(gpt, ctx, o, tmp);
    out.files = {"model.safetensors", "config.json", "model.py", "check.safetensors"};
    for (const std::string& f : copy_tokenizer(o.tokenizer, tmp)) out.files.push_back(f);
    if (!o.tokenizer.empty()) {  // a byte-level BPE also as the library's tokenizer.json, where transformers look
      const tokenizer::Tokenizer tok = tokenizer::Tokenizer::load(o.tokenizer);
      if (const tokenizer::Bpe* bpe = tok.bpe()) {
        write_text(tmp / "tokenizer.json",
                   tokenizer::format_hf_tokenizer_json({bpe->tokens(), bpe->specials(), bpe->pattern()}));
        out.files.push_back("tokenizer.json");
      }
    }
    std::error_code ec;
    if (fs::exists(target, ec)) fs::remove(target, ec);  // the empty folder check_destination allowed
    fs::rename(tmp, target, ec);
    check(!ec, "export: cannot move the export into " + o.dir + ": " + ec.message());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  return out;
}

}  // namespace nanotrn::exporting
