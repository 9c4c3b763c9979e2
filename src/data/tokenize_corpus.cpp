// Corpus -> shards. See tokenize_corpus.h.
#include "data/tokenize_corpus.h"
#include "base/json_parse.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "data/corpus.h"
#include "data/shard.h"

namespace nanotrn::data {

namespace fs = std::filesystem;

namespace {

uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

int64_t text_bytes(std::span<const Document> docs) {
  int64_t n = 0;
  for (const Document& d : docs) n += static_cast<int64_t>(d.text.size());
  return n;
}

}  // namespace

std::string corpus_fingerprint(const std::string& corpus_dir) {
  const std::vector<uint8_t> bytes = read_file(corpus_dir + "/corpus.json");
  return hex(fnv1a(0xcbf29ce484222325ull, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size())));
}

uint64_t tokenizer_fingerprint(const tokenizer::Tokenizer& tok) {
  uint64_t h = fnv1a(0xcbf29ce484222325ull, std::to_string(tok.vocab_size()) + "/" + std::to_string(tok.bos_id()));
  for (int32_t id = 0; id < tok.vocab_size(); ++id) {
    h = fnv1a(h, tok.decode(std::span<const int32_t>(&id, 1)));
    h = fnv1a(h, std::string_view("\0", 1));
  }
  return h;
}

std::string tokenizer_fingerprint_hex(const tokenizer::Tokenizer& tok) { return hex(tokenizer_fingerprint(tok)); }

bool tokenized_with(const ShardSet& shards, const tokenizer::Tokenizer& tok) {
  return shards.tokenizer_fingerprint == tokenizer_fingerprint_hex(tok) && shards.vocab_size == tok.vocab_size();
}

std::vector<std::string> write_document_shards(std::span<const Document> docs, const tokenizer::Tokenizer& tok,
                                               const std::string& out_dir, const std::string& prefix,
                                               const TokenizeOptions& options, int64_t* tokens_out) {
  check(options.shard_tokens > 0, "data: shard_tokens must be positive");
  std::vector<std::string> paths;
  std::vector<int32_t> shard;
  int64_t total = 0;
  auto flush = [&] {
    char name[64];
    std::snprintf(name, sizeof(name), "%s_%06zu.bin", prefix.c_str(), paths.size());
    paths.push_back(out_dir + "/" + name);
    write_shard(paths.back(), shard, tok.vocab_size());
    total += static_cast<int64_t>(shard.size());
    shard.clear();
  };
  constexpr size_t kBatch = 4096;  // documents encoded at once (bounds the memory of the ids)
  for (size_t first = 0; first < docs.size(); first += kBatch) {
    std::vector<std::string_view> texts;
    for (size_t i = first; i < std::min(docs.size(), first + kBatch); ++i) texts.push_back(docs[i].text);
    for (const std::vector<int32_t>& doc : tok.encode_batch(texts, options.threads)) {
      if (!shard.empty() && static_cast<int64_t>(shard.size() + doc.size() + 1) > options.shard_tokens) flush();
      shard.push_back(tok.bos_id());
      shard.insert(shard.end(), doc.begin(), doc.end());
    }
  }
  if (!shard.empty() || paths.empty()) flush();
  if (tokens_out != nullptr) *tokens_out = total;
  return paths;
}

ShardSet read_shard_set(const std::string& dir) {
  const std::string path = dir + "/shards.json";
  check(fs::exists(path), "data: " + dir + " holds no shards.json; run `nanotrn data tokenize`");
  const std::vector<uint8_t> bytes = read_file(path);
  try {
    const nlohmann::json j = nanotrn::parse_json(bytes);
    check(j.at("format") == "nanotrn-shards" && j.at("version") == 1, path + ": not a version-1 shard set");
    ShardSet s;
    s.dir = dir;
    for (const auto& n : j.at("train").at("shards")) s.train_shards.push_back(dir + "/" + n.get<std::string>());
    for (const auto& n : j.at("val").at("shards")) s.val_shards.push_back(dir + "/" + n.get<std::string>());
    s.train_tokens = j.at("train").at("tokens").get<int64_t>();
    s.val_tokens = j.at("val").at("tokens").get<int64_t>();
    s.train_bytes = j.at("train").at("bytes").get<int64_t>();
    s.val_bytes = j.at("val").at("bytes").get<int64_t>();
    s.vocab_size = j.at("vocab_size").get<int32_t>();
    s.bos = j.at("bos").get<int32_t>();
    s.tokenizer_fingerprint = j.at("tokenizer").get<std::string>();
    s.corpus_fingerprint = j.value("corpus", "");
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(path + ": malformed: " + e.what());
  }
}

ShardSet tokenize_corpus(const std::string& corpus_dir, const tokenizer::Tokenizer& tok, const std::string& out_dir,
                         const TokenizeOptions& options) {
  verify_corpus(corpus_dir);  // the folder and its files, also when the shards are reused
  const std::string tok_fp = tokenizer_fingerprint_hex(tok), corpus_fp = corpus_fingerprint(corpus_dir);
  const std::string manifest = out_dir + "/shards.json";
  if (!options.force && fs::exists(manifest)) {
    try {
      ShardSet s = read_shard_set(out_dir);
      if (tokenized_with(s, tok) && s.corpus_fingerprint == corpus_fp) {
        bool all = true;
        for (const auto* list : {&s.train_shards, &s.val_shards}) {
          for (const std::string& p : *list) all = all && fs::exists(p);
        }
        if (all) {
          s.reused = true;
          return s;
        }
      }
    } catch (const std::exception&) {
      // an unreadable manifest is rebuilt below
    }
  }
  make_directories(out_dir);
  // Shards of an earlier run would be picked up by a train_*.bin glob: remove them first (and the manifest, so
  // that an interrupted run is never taken as valid).
  fs::remove(manifest);
  for (const auto& e : fs::directory_iterator(out_dir)) {
    const std::string n = e.path().filename().string();
    const bool ours = (n.rfind("train_", 0) == 0 || n.rfind("val_", 0) == 0) && e.path().extension() == ".bin";
    if (ours && e.is_regular_file()) fs::remove(e.path());
  }
  ShardSet s;
  s.dir = out_dir;
  s.vocab_size = tok.vocab_size();
  s.bos = tok.bos_id();
  s.tokenizer_fingerprint = tok_fp;
  s.corpus_fingerprint = corpus_fp;
  nlohmann::ordered_json j;
  j["format"] = "nanotrn-shards";
  j["version"] = 1;
  j["tokenizer"] = tok_fp;
  j["corpus"] = corpus_fp;
  j["vocab_size"] = s.vocab_size;
  j["bos"] = s.bos;
  for (const std::string split : {"train", "val"}) {
    const std::vector<Document> docs = read_corpus_split(corpus_dir, split);
    int64_t tokens = 0;
    std::vector<std::string> paths = write_document_shards(docs, tok, out_dir, split, options, &tokens);
    nlohmann::json names = nlohmann::json::array();
    for (const std::string& p : paths) names.push_back(fs::path(p).filename().string());
    const int64_t bytes = text_bytes(docs);
    j[split] = {{"shards", names}, {"tokens", tokens}, {"bytes", bytes}};
    (split == "train" ? s.train_shards : s.val_shards) = std::move(paths);
    (split == "train" ? s.train_tokens : s.val_tokens) = tokens;
    (split == "train" ? s.train_bytes : s.val_bytes) = bytes;
  }
  const std::string text = j.dump(2) + "\n";
  write_file_atomic(manifest, text.data(), text.size());
  return s;
}

}  // namespace nanotrn::data
