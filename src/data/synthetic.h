// The one spelling of a synthetic token source in a recipe's data.train: "synthetic:random" or "synthetic:pattern"
// (train/token_source.h makes them). A recipe with one reads no shards, for training or validation.
//
//   if (data::is_synthetic_source(recipe.data.train)) ...   // no shards, no tokenizer
#pragma once

#include <string>

namespace nanotrn::data {

inline constexpr const char* kSyntheticPrefix = "synthetic:";

inline bool is_synthetic_source(const std::string& source) { return source.rfind(kSyntheticPrefix, 0) == 0; }

}  // namespace nanotrn::data
