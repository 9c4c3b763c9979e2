// Token rows and answer spans of an example. See rows.h.
#include "icl/rows.h"

#include <algorithm>

#include "base/error.h"

namespace nanotrn::icl {

int64_t common_length(const std::vector<std::vector<int32_t>>& rows, bool from_back) {
  size_t min_len = rows[0].size();
  for (const auto& r : rows) min_len = std::min(min_len, r.size());
  for (size_t i = 0; i < min_len; ++i) {
    const int32_t t = from_back ? rows[0][rows[0].size() - 1 - i] : rows[0][i];
    for (const auto& r : rows) {
      if ((from_back ? r[r.size() - 1 - i] : r[i]) != t) return static_cast<int64_t>(i);
    }
  }
  return static_cast<int64_t>(min_len);
}

ScoredRows tokenize_prompts(TaskType type, const Prompts& prompts, const tokenizer::Tokenizer& tok, int64_t max_len,
                            const std::string& what) {
  check(max_len >= 2, what + ": the model's length must be at least 2 tokens");
  std::vector<std::vector<int32_t>> tokens;
  for (const std::string& p : prompts.texts) {
    std::vector<int32_t> ids = {tok.bos_id()};
    const std::vector<int32_t> body = tok.encode(p);
    ids.insert(ids.end(), body.begin(), body.end());
    tokens.push_back(std::move(ids));
  }
  ScoredRows r;
  switch (type) {
    case TaskType::multiple_choice: {
      const int64_t prefix = common_length(tokens, false);
      for (const auto& t : tokens) {
        r.start.push_back(prefix);
        r.end.push_back(static_cast<int64_t>(t.size()));
      }
      r.rows = std::move(tokens);
      break;
    }
    case TaskType::schema: {
      const int64_t suffix = common_length(tokens, true);
      for (const auto& t : tokens) {
        r.start.push_back(static_cast<int64_t>(t.size()) - suffix);
        r.end.push_back(static_cast<int64_t>(t.size()));
      }
      r.rows = std::move(tokens);
      break;
    }
    case TaskType::language_modeling: {
      const std::vector<int32_t>& without = tokens[0];
      const std::vector<int32_t>& with = tokens[1];
      check(without.size() < with.size() && std::equal(without.begin(), without.end(), with.begin()),
            what + ": the prompt without its continuation is not a token prefix of the prompt with it (" +
                std::to_string(without.size()) + " and " + std::to_string(with.size()) + " tokens)");
      r.start.push_back(static_cast<int64_t>(without.size()));
      r.end.push_back(static_cast<int64_t>(with.size()));
      r.rows.push_back(with);
      break;
    }
  }
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto len = static_cast<int64_t>(r.rows[i].size());
    if (len > max_len) {
      const int64_t crop = len - max_len;
      r.rows[i].erase(r.rows[i].begin(), r.rows[i].begin() + crop);
      r.start[i] -= crop;
      r.end[i] -= crop;
    }
    if (r.start[i] >= 1 && r.start[i] <= r.end[i]) continue;
    const std::string message =
        what + ": option " + std::to_string(i) + " has no answer tokens to score (span [" + std::to_string(r.start[i]) +
        ", " + std::to_string(r.end[i]) + ") of a " + std::to_string(r.rows[i].size()) + "-token row" +
        (len > max_len ? ", after cropping to the model's " + std::to_string(max_len) + " tokens" : "") + ")";
    if (len > max_len) throw AnswerBeyondContext(message);
    throw Error(message);
  }
  return r;
}

}  // namespace nanotrn::icl
