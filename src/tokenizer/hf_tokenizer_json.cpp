// Hugging Face tokenizer.json as a byte-level BPE. See hf_tokenizer_json.h.
#include "tokenizer/hf_tokenizer_json.h"

#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/error.h"
#include "base/json_parse.h"
#include "base/utf8.h"

namespace nanotrn::tokenizer {
namespace {

using nlohmann::json;

// GPT-2's bytes_to_unicode: printable Latin-1 bytes stand for themselves, the other 68 bytes for U+0100 onwards in
// byte order. Returns the inverse: code point -> byte.
std::map<char32_t, unsigned char> unicode_to_byte() {
  std::map<char32_t, unsigned char> m;
  char32_t next = 256;
  for (int b = 0; b < 256; b++) {
    const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    m[printable ? static_cast<char32_t>(b) : next++] = static_cast<unsigned char>(b);
  }
  return m;
}

// One byte-level token's text (UTF-8 of the stand-in code points) -> its bytes; throws naming the token.
std::string token_bytes(const std::string& text, const std::map<char32_t, unsigned char>& to_byte,
                        const std::string& where) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const Utf8Step step = utf8_step(text, i);  // the project's one decoding rule: length and validity
    check(step.valid, where + ": token " + json(text).dump() + " is not valid UTF-8");
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t len = step.length;
    char32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
    for (size_t k = 1; k < len; k++) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    const auto it = to_byte.find(cp);
    check(it != to_byte.end(), where + ": token " + json(text).dump() +
                                   " has a character outside the byte-level alphabet (not a byte-level BPE)");
    out += static_cast<char>(it->second);
    i += len;
  }
  return out;
}

const json* member(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && !j[key].is_null() ? &j[key] : nullptr;
}

std::string type_of(const json& j) { return j.is_object() && j.contains("type") ? j["type"].dump() : "(none)"; }

// A ByteLevel pre-tokenizer: its add_prefix_space must be false; returns its use_regex (default true).
bool byte_level(const json& p, const std::string& where) {
  check(!(p.contains("add_prefix_space") && p["add_prefix_space"] == true),
        where + ".add_prefix_space: true is not supported (nanotrn adds no space before the text)");
  return !(p.contains("use_regex") && p["use_regex"] == false);
}

std::string pattern_of(const json* pre, const std::string& name) {
  const std::string where = name + ": pre_tokenizer";
  check(pre != nullptr, where + ": none (a byte-level BPE splits with a pattern; nothing to split with)");
  if (type_of(*pre) == "\"ByteLevel\"") {
    check(byte_level(*pre, where), where + ": a ByteLevel without use_regex splits nothing; not supported");
    return std::string(kGpt2SplitPattern);
  }
  const json* parts = member(*pre, "pretokenizers");
  check(type_of(*pre) == "\"Sequence\"" && parts && parts->is_array() && parts->size() == 2,
        where + ": type " + type_of(*pre) + " is not supported (ByteLevel, or a Sequence of a Split and a ByteLevel)");
  const json& split = (*parts)[0];
  const json* regex = member(split, "pattern") ? member(split["pattern"], "Regex") : nullptr;
  check(type_of(split) == "\"Split\"" && regex && regex->is_string(),
        where + ".pretokenizers[0]: a Split with a Regex pattern is needed, got " + type_of(split));
  check(split.value("behavior", "") == "Isolated" && split.value("invert", false) == false,
        where + ".pretokenizers[0]: only behavior Isolated, not inverted, is supported");
  check(type_of((*parts)[1]) == "\"ByteLevel\"", where + ".pretokenizers[1]: a ByteLevel is needed");
  check(!byte_level((*parts)[1], where + ".pretokenizers[1]"),
        where + ".pretokenizers[1]: a ByteLevel with use_regex after a Split splits twice; not supported");
  return regex->get<std::string>();
}

// The vocabulary, by id, in bytes.
std::vector<std::string> vocab_tokens(const json& model, const std::string& name) {
  const json* vocab = member(model, "vocab");
  check(vocab && vocab->is_object() && !vocab->empty(), name + ": model.vocab: a non-empty object {token: id}");
  const std::map<char32_t, unsigned char> to_byte = unicode_to_byte();
  std::vector<std::string> tokens(vocab->size());
  std::vector<bool> seen(vocab->size(), false);
  for (auto it = vocab->begin(); it != vocab->end(); ++it) {
    check(it.value().is_number_integer(), name + ": model.vocab[" + json(it.key()).dump() + "]: an integer id");
    const int64_t id = it.value().get<int64_t>();
    check(id >= 0 && id < static_cast<int64_t>(tokens.size()) && !seen[static_cast<size_t>(id)],
          name + ": model.vocab: ids must be 0.." + std::to_string(tokens.size() - 1) + ", each once (" +
              json(it.key()).dump() + " has " + std::to_string(id) + ")");
    seen[static_cast<size_t>(id)] = true;
    tokens[static_cast<size_t>(id)] = token_bytes(it.key(), to_byte, name + ": model.vocab");
  }
  return tokens;
}

// Every merge yields a token of the vocabulary, and their ids increase along the list (priority = id).
void check_merges(const json& model, const std::vector<std::string>& tokens, const std::string& name) {
  const json* merges = member(model, "merges");
  check(merges && merges->is_array(), name + ": model.merges: an array");
  std::map<std::string, int64_t> id_of;
  for (size_t i = 0; i < tokens.size(); i++) id_of[tokens[i]] = static_cast<int64_t>(i);
  const std::map<char32_t, unsigned char> to_byte = unicode_to_byte();
  int64_t last = -1;
  for (size_t i = 0; i < merges->size(); i++) {
    const json& m = (*merges)[i];
    const std::string where = name + ": model.merges[" + std::to_string(i) + "]";
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      check(space != std::string::npos && s.find(' ', space + 1) == std::string::npos, where + ": \"a b\" expected");
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else {
      check(m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string(), where + ": [a, b] expected");
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    }
    const auto it = id_of.find(token_bytes(a, to_byte, where) + token_bytes(b, to_byte, where));
    check(it != id_of.end(), where + ": its product is not in the vocabulary");
    check(it->second > last, where + ": its product's id " + std::to_string(it->second) +
                                 " is not above the previous merge's; merges out of id order are not supported");
    last = it->second;
  }
}

std::vector<std::string> specials_of(const json& j, const std::vector<std::string>& tokens, const std::string& name) {
  std::map<int64_t, std::string> added;
  if (const json* list = member(j, "added_tokens")) {
    check(list->is_array(), name + ": added_tokens: an array");
    for (const json& t : *list) {
      check(t.is_object() && t.contains("id") && t["id"].is_number_integer() && t.contains("content") &&
                t["content"].is_string(),
            name + ": added_tokens: each {\"id\", \"content\"}");
      added[t["id"].get<int64_t>()] = t["content"].get<std::string>();
    }
  }
  std::vector<std::string> specials;
  const int64_t n = static_cast<int64_t>(tokens.size());
  for (const auto& [id, content] : added) {
    if (id < n) continue;  // an added token the vocabulary already holds keeps its vocab bytes
    check(id == n + static_cast<int64_t>(specials.size()),
          name + ": added_tokens: id " + std::to_string(id) + " leaves a gap after the vocabulary's " +
              std::to_string(n) + " ids (specials must follow it in order)");
    specials.push_back(content);
  }
  return specials;
}

std::map<unsigned char, std::string> byte_to_unicode_utf8() {
  std::map<unsigned char, std::string> m;
  for (const auto& [cp, b] : unicode_to_byte()) {
    std::string u;
    if (cp < 0x80) {
      u += static_cast<char>(cp);
    } else {  // the stand-ins are below U+0800: two UTF-8 bytes
      u += static_cast<char>(0xC0 | (cp >> 6));
      u += static_cast<char>(0x80 | (cp & 0x3F));
    }
    m[b] = u;
  }
  return m;
}

std::string to_byte_level(const std::string& bytes, const std::map<unsigned char, std::string>& alphabet) {
  std::string out;
  for (char c : bytes) out += alphabet.at(static_cast<unsigned char>(c));
  return out;
}

// The pair token `rank` is merged from: its bytes merged under the ranks below it, lowest rank first (tiktoken's
// rule), until no adjacent pair joins; two parts left are the merge, anything else means no merge reaches it.
std::optional<std::pair<std::string, std::string>> merge_of(const std::string& token, int64_t rank,
                                                            const std::map<std::string, int64_t>& rank_of) {
  std::vector<std::string> parts;
  for (char c : token) parts.emplace_back(1, c);
  while (parts.size() > 2) {
    int64_t best = rank;
    size_t at = 0;
    for (size_t i = 0; i + 1 < parts.size(); i++) {
      const auto it = rank_of.find(parts[i] + parts[i + 1]);
      if (it != rank_of.end() && it->second < best) best = it->second, at = i;
    }
    if (best == rank) return std::nullopt;
    parts[at] += parts[at + 1];
    parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(at) + 1);
  }
  if (parts.size() != 2) return std::nullopt;
  return std::pair{parts[0], parts[1]};
}

}  // namespace

std::string format_hf_tokenizer_json(const HfBpe& spec) {
  const std::map<unsigned char, std::string> alphabet = byte_to_unicode_utf8();
  std::map<std::string, int64_t> rank_of;
  for (size_t i = 0; i < spec.tokens.size(); i++) rank_of[spec.tokens[i]] = static_cast<int64_t>(i);
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  nlohmann::ordered_json merges = nlohmann::ordered_json::array();
  for (size_t i = 0; i < spec.tokens.size(); i++) {
    vocab[to_byte_level(spec.tokens[i], alphabet)] = i;
    if (spec.tokens[i].size() < 2) continue;
    if (const auto m = merge_of(spec.tokens[i], static_cast<int64_t>(i), rank_of)) {
      merges.push_back({to_byte_level(m->first, alphabet), to_byte_level(m->second, alphabet)});
    }
  }
  nlohmann::ordered_json added = nlohmann::ordered_json::array();
  for (size_t k = 0; k < spec.specials.size(); k++) {
    added.push_back({{"id", spec.tokens.size() + k},
                     {"content", spec.specials[k]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  const nlohmann::ordered_json byte_level = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}};
  nlohmann::ordered_json j;
  j["version"] = "1.0";
  j["truncation"] = nullptr;
  j["padding"] = nullptr;
  j["added_tokens"] = added;
  j["normalizer"] = nullptr;
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"}, {"pattern", {{"Regex", spec.pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
        byte_level}}};
  j["post_processor"] = nullptr;
  j["decoder"] = byte_level;
  j["model"] = {{"type", "BPE"},
                {"dropout", nullptr},
                {"unk_token", nullptr},
                {"continuing_subword_prefix", nullptr},
                {"end_of_word_suffix", nullptr},
                {"fuse_unk", false},
                {"byte_fallback", false},
                {"ignore_merges", true},
                {"vocab", vocab},
                {"merges", merges}};
  return j.dump() + "\n";
}

bool is_hf_tokenizer_json(std::string_view text) {
  try {
    const json j = nanotrn::parse_json(text);
    return j.is_object() && j.contains("model") && j["model"].is_object();
  } catch (const json::exception&) {
    return false;
  }
}

HfBpe parse_hf_tokenizer_json(std::string_view text, const std::string& name) {
  json j;
  try {
    j = nanotrn::parse_json(text);
  } catch (const json::exception& e) {
    throw Error(name + ": not valid JSON: " + e.what());
  }
  const json* model = member(j, "model");
  check(model && model->is_object(), name + ": no \"model\" object (not a Hugging Face tokenizer.json)");
  check(!model->contains("type") || (*model)["type"] == "BPE",
        name + ": model.type " + type_of(*model) + " is not supported (only byte-level BPE)");
  for (const char* unsupported : {"continuing_subword_prefix", "end_of_word_suffix", "dropout"}) {
    check(member(*model, unsupported) == nullptr || (*model)[unsupported] == "",
          name + ": model." + unsupported + " is set; not supported");
  }
  check(!(model->contains("byte_fallback") && (*model)["byte_fallback"] == true),
        name + ": model.byte_fallback is true (a SentencePiece-style BPE, not byte-level); not supported");
  check(member(j, "normalizer") == nullptr,
        name + ": normalizer " + type_of(j["normalizer"]) + " is not supported (nanotrn encodes the text as it is)");
  HfBpe out;
  out.pattern = pattern_of(member(j, "pre_tokenizer"), name);
  out.tokens = vocab_tokens(*model, name);
  check_merges(*model, out.tokens, name);
  out.specials = specials_of(j, out.tokens, name);
  return out;
}

}  // namespace nanotrn::tokenizer
