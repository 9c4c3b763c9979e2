// A trained model leaving for PyTorch (`nanotrn export --pytorch DIR`): the folder a Phase 2 entry ships
// (recipe-spec §12: `load_for_eval(checkpoint_path, device)` returning a consolidated single-device model whose
// forward is a pure causal function of the tokens, independent of batch size).
//
//   PytorchExport e = export_pytorch(gpt, ctx, {.dir = "out/export", .tokenizer = "out/tokenizer", .check_ids = ids});
//
// DIR holds:
//   model.safetensors   the weights only (fp32, nanotrn's parameter names, no optimiser state), with CRC-32Cs
//   config.json         the resolved model shape and every constant the forward needs
//   model.py            a self-contained PyTorch module (torch only): NanotrnGPT, load_for_eval(checkpoint_path,
//                       device), and `python3 model.py DIR`, which checks the export against check.safetensors
//   check.safetensors   "ids" i32 [R, T] and nanotrn's own fp32 "logits" [R, T, V] for them (held-out tokens when
//                       the recipe's validation shards are here), so any PyTorch install can confirm it reproduces
//                       nanotrn's forward
//   tokenizer/          the tokenizer's files as nanotrn reads them (tiktoken ranks + metadata, or SentencePiece)
//   tokenizer.json      a byte-level BPE tokenizer also as Hugging Face tokenizers' file
//   (tokenizer/hf_tokenizer_json.h:
//                       tokenizers.Tokenizer.from_file gives nanotrn's ids), for PyTorch users
// The folder is written under a temporary name beside DIR and renamed into place at the end: DIR either does not
// exist or holds the whole export. A DIR that exists and is not empty is refused (nothing the user named is
// overwritten).
// Not here: the checkpoint and flag handling (src/cli/export.cpp); a Hugging Face transformers class (the baseline's
// value embeddings, per-layer residual scalars and relu^2 map onto none: `--hf` is refused saying so).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "model/gpt.h"

namespace nanotrn::exporting {

struct PytorchExportOptions {
  std::string dir{};                 // the folder to create
  std::string tokenizer{};           // the tokenizer's path (a file or a folder), copied into dir/tokenizer/
  std::vector<int32_t> check_ids{};  // R * T token ids for check.safetensors
  int64_t check_rows = 2;            // R
};

struct PytorchExport {
  std::string dir;
  std::vector<std::string> files;  // relative to dir
  int64_t parameters = 0;
};

PytorchExport export_pytorch(model::Gpt& gpt, Ctx& ctx, const PytorchExportOptions& options);

// model.py's text (pytorch_model_py.cpp).
const std::string& pytorch_model_py();

// The config.json model.py reads: the resolved config, written as a recipe's model section (recipe::model_to_json).
std::string pytorch_config_json(const model::GptConfig& resolved);

}  // namespace nanotrn::exporting
