// The tokenizer facade. See tokenizer.h.
#include "tokenizer/tokenizer.h"

#include <omp.h>

#include <filesystem>
#include <optional>

#include "base/error.h"
#include "base/file.h"
#include "tokenizer/hf_tokenizer_json.h"

namespace nanotrn::tokenizer {

namespace fs = std::filesystem;

namespace {

// A Hugging Face tokenizer.json at `path`, or nullopt when the file is not one (nanotrn's own metadata is not).
std::optional<Bpe> hf_bpe(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!is_hf_tokenizer_json(text)) return std::nullopt;
  HfBpe spec = parse_hf_tokenizer_json(text, path);
  try {
    return Bpe(std::move(spec.tokens), std::move(spec.specials), std::move(spec.pattern));
  } catch (const Error& e) {
    throw Error(path + ": " + e.message(), e.where());
  }
}

}  // namespace

Tokenizer Tokenizer::load(const std::string& dir_or_file) {
  check(fs::exists(dir_or_file), "tokenizer: nothing at " + dir_or_file);
  if (fs::is_directory(dir_or_file)) {
    if (fs::exists(dir_or_file + "/tokenizer.tiktoken")) return Tokenizer(Bpe::load(dir_or_file));
    if (fs::exists(dir_or_file + "/tokenizer.json")) {
      if (std::optional<Bpe> bpe = hf_bpe(dir_or_file + "/tokenizer.json")) return Tokenizer(std::move(*bpe));
    }
    if (fs::exists(dir_or_file + "/tokenizer.model")) {
      return Tokenizer(SentencePieceModel(dir_or_file + "/tokenizer.model"));
    }
    throw Error("tokenizer: " + dir_or_file +
                " holds neither tokenizer.tiktoken, a Hugging Face tokenizer.json nor tokenizer.model");
  }
  if (fs::path(dir_or_file).extension() == ".model") return Tokenizer(SentencePieceModel(dir_or_file));
  if (fs::path(dir_or_file).extension() == ".json") {
    std::optional<Bpe> bpe = hf_bpe(dir_or_file);
    check(bpe.has_value(), "tokenizer: " + dir_or_file +
                               " is not a Hugging Face tokenizer.json (no \"model\" object); nanotrn's own "
                               "tokenizer.json is read with its tokenizer.tiktoken: give their folder");
    return Tokenizer(std::move(*bpe));
  }
  return Tokenizer(Bpe::load(dir_or_file));
}

Tokenizer::Tokenizer(Bpe bpe) : bpe_(std::make_shared<const Bpe>(std::move(bpe))) {}
Tokenizer::Tokenizer(SentencePieceModel sp) : sp_(std::make_shared<const SentencePieceModel>(std::move(sp))) {}

std::vector<int32_t> Tokenizer::encode(std::string_view text) const {
  return bpe_ ? bpe_->encode(text) : sp_->encode(text);
}

std::vector<std::vector<int32_t>> Tokenizer::encode_batch(std::span<const std::string_view> docs, int threads) const {
  if (bpe_) return bpe_->encode_batch(docs, threads);
  std::vector<std::vector<int32_t>> out(docs.size());
  const int nt = threads > 0 ? threads : omp_get_max_threads();
  const int64_t n = static_cast<int64_t>(docs.size());
#pragma omp parallel for num_threads(nt) schedule(dynamic, 4)
  for (int64_t i = 0; i < n; ++i) out[i] = sp_->encode(docs[i]);
  return out;
}

std::string Tokenizer::decode(std::span<const int32_t> ids) const {
  return bpe_ ? bpe_->decode(ids) : sp_->decode(ids);
}

int32_t Tokenizer::vocab_size() const { return bpe_ ? bpe_->vocab_size() : sp_->vocab_size(); }
int32_t Tokenizer::bos_id() const { return bpe_ ? bpe_->bos_id() : sp_->bos_id(); }
std::vector<int32_t> Tokenizer::token_bytes() const { return bpe_ ? bpe_->token_bytes() : sp_->token_bytes(); }

void Tokenizer::save(const std::string& dir) const {
  check(bpe_ != nullptr, "tokenizer: only BPE tokenizers can be saved (a SentencePiece model is its .model file)");
  bpe_->save(dir);
}

}  // namespace nanotrn::tokenizer
