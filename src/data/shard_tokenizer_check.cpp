// Shards against the tokenizer that reads them. See shard_tokenizer_check.h.
#include "data/shard_tokenizer_check.h"
#include "base/json_parse.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "data/tokenize_corpus.h"

namespace nanotrn::data {

bool check_shards_match_tokenizer(const std::string& shards_dir, const tokenizer::Tokenizer& tok,
                                  const std::string& tokenizer_path, const std::string& retokenize) {
  const std::string manifest = shards_dir + "/shards.json";
  if (!std::filesystem::exists(manifest)) return false;
  const std::vector<uint8_t> bytes = read_file(manifest);
  nlohmann::json j;
  try {
    j = nanotrn::parse_json(bytes);
  } catch (const nlohmann::json::exception& e) {
    throw Error(manifest + ": malformed: " + e.what() + "; run: " + retokenize);
  }
  const bool recorded = j.is_object() && j.contains("tokenizer") && j["tokenizer"].is_string() &&
                        j.contains("vocab_size") && j["vocab_size"].is_number_integer();
  check(recorded, manifest + " does not record the tokenizer's fingerprint and vocabulary size (it predates them), " +
                      "so these shards cannot be checked against " + tokenizer_path + "; run: " + retokenize +
                      " (or nanotrn data tokenize) to re-tokenize them");
  const std::string fingerprint = tokenizer_fingerprint_hex(tok);
  const std::string recorded_fp = j["tokenizer"].get<std::string>();
  const int64_t recorded_vocab = j["vocab_size"].get<int64_t>();
  check(recorded_fp == fingerprint && recorded_vocab == tok.vocab_size(),
        "the shards in " + shards_dir + " were tokenized with another tokenizer: " + manifest + " records vocab " +
            std::to_string(recorded_vocab) + ", fingerprint " + recorded_fp + "; the tokenizer at " + tokenizer_path +
            " has vocab " + std::to_string(tok.vocab_size()) + ", fingerprint " + fingerprint + "; run: " + retokenize +
            " (it re-tokenizes them)");
  return true;
}

bool check_shard_glob_matches_tokenizer(const std::string& glob, const tokenizer::Tokenizer& tok,
                                        const std::string& tokenizer_path, const std::string& retokenize) {
  std::string dir = std::filesystem::path(glob).parent_path().string();
  if (dir.empty()) dir = ".";
  return check_shards_match_tokenizer(dir, tok, tokenizer_path, retokenize);
}

std::optional<std::string> shard_corpus_mismatch(const std::string& glob, const std::string& corpus_dir) {
  std::string dir = std::filesystem::path(glob).parent_path().string();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::exists(dir + "/shards.json") || !std::filesystem::exists(corpus_dir + "/corpus.json")) {
    return std::nullopt;
  }
  const std::string recorded = read_shard_set(dir).corpus_fingerprint, here = corpus_fingerprint(corpus_dir);
  if (recorded == here) return std::nullopt;
  return "the shards in " + dir + " were made from another corpus than data.corpus (" + corpus_dir +
         "): shards.json records corpus " + (recorded.empty() ? std::string("(none)") : recorded) + ", " + corpus_dir +
         "/corpus.json is " + here + "; this run trains on the shards, not on data.corpus";
}

}  // namespace nanotrn::data
