// The data a recipe names, built stage by stage; each stage is skipped when its output is already valid:
//
//   corpus     data.corpus: kept when it holds a prepared corpus (a valid corpus.json, whatever its sources:
//              `nanotrn data prepare --out DIR SOURCES` for your own text); else the default Brown corpus is
//              prepared there (data::prepare_default_corpus).
//   tokenizer  data.tokenizer: kept when it loads with model.vocab_size tokens (reusable_tokenizer); else a
//              byte-level BPE of that size is trained on the corpus's train split and saved there.
//   shards     the folder of data.train and data.val: kept when its shards.json matches this tokenizer and corpus
//              (data/tokenize_corpus.h); else the corpus is tokenized into it.
//
//   DataSetup d = setup_data(recipe, print);   // the recipe's paths as they are (resolve them first: recipe_paths.h)
//
// `nanotrn data setup --recipe R` and the speedrun (pipeline/speedrun.h) both call setup_data, so they skip by one
// rule. Shards can only be built where the recipe reads them as <dir>/train_*.bin and <dir>/val_*.bin (one folder,
// the names data::tokenize_corpus writes); other globs and synthetic sources are an Error naming the key.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/corpus.h"
#include "data/tokenize_corpus.h"
#include "recipe/recipe.h"
#include "tokenizer/tokenizer.h"

namespace nanotrn::pipeline {

using Say = std::function<void(const std::string&)>;  // progress lines; null = quiet

// Where the three stages write, from the recipe's data.corpus, data.tokenizer and data.train / data.val.
struct DataPaths {
  std::string corpus, tokenizer, shards;
};
DataPaths data_paths(const recipe::Recipe& recipe);

struct DataSetup {
  data::CorpusInfo corpus;
  tokenizer::Tokenizer tokenizer;
  bool tokenizer_reused = false;
  data::ShardSet shards;
  std::vector<std::pair<std::string, double>> seconds;  // wall seconds per stage, in order
};

DataSetup setup_data(const recipe::Recipe& recipe, const Say& say);

// The tokenizer at `dir` when one loads from there with `vocab` tokens; otherwise nullopt, and `say` is told why
// when something is there but unusable (nothing is said for a missing dir).
std::optional<tokenizer::Tokenizer> reusable_tokenizer(const std::string& dir, int32_t vocab, const Say& say);

}  // namespace nanotrn::pipeline
