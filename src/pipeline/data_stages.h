// The data a recipe names, built stage by stage; each stage is skipped when its output is already valid, and nothing
// that is there is ever written over (the folders are the user's):
//
//   corpus     data.corpus: kept when it holds a prepared corpus (a valid corpus.json, whatever its sources:
//              `nanotrn data prepare --out DIR SOURCES` for your own text); else, into a missing or empty folder
//              only, the default Brown corpus (data::prepare_default_corpus). An unusable corpus or a folder of
//              other files is an Error saying what to do.
//   tokenizer  data.tokenizer: kept when it loads with model.vocab_size tokens (reusable_tokenizer); a tokenizer of
//              another size, or anything unusable, is an Error naming both sizes; into a missing or empty folder a
//              byte-level BPE of that size is trained on the corpus's train split.
//   shards     the folder of data.train and data.val: kept when its shards.json matches this tokenizer and corpus
//              (data/tokenize_corpus.h); when it holds another tokenizer's or corpus's shards, the new ones go to a
//              sibling folder keyed by both fingerprints (<folder>-<tokenizer 8 hex><corpus 8 hex>), and
//              setup_overrides gives the --set lines that point a recipe at them; else the corpus is tokenized there.
//
//   DataSetup d = setup_data(recipe, print);   // the recipe's paths as they are (resolve them first: recipe_paths.h)
//   setup_overrides(recipe, d)                 // {} or {"data.train=<keyed>/train_*.bin", "data.val=..."}
//   use_setup_shards(recipe, d);               // the recipe reads d.shards.dir (the speedrun)
//
// A data folder of a job's own (`nanotrn forecast --data SOURCES`): the user's sources prepared into DIR/corpus,
// its tokenizer in DIR/tokenizer and its shards in DIR/tokens, so the job trains on them and the data root's data
// (out/data, out/tokenizer) is neither read nor written:
//
//   recipe = open_recipe(..., sets + data_folder_sets("/abs/out/forecast/data"));   // the four data.* paths
//   DataSetup d = setup_data_folder(recipe, {"my_texts/", "web.jsonl"}, {.field = "body"}, print);
//
// setup_data_folder prepares the corpus (data::prepare_corpus: kept when it verifies for the same sources and field)
// and runs setup_data on it, so a second call (a resumed job) rebuilds nothing.
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

// The tokenizer at `dir` when one loads from there with `vocab` tokens; nullopt for a missing or empty folder; an
// Error for anything else there (a tokenizer of another size, naming both; an unusable one), which nanotrn never
// writes over. `what` names the path in errors ("data.tokenizer"), `elsewhere` how to name another ("--out NEW").
std::optional<tokenizer::Tokenizer> reusable_tokenizer(const std::string& dir, int32_t vocab, const std::string& what,
                                                       const std::string& elsewhere);

// The overrides that make `recipe` read the shards `d` wrote ({} when they are where the recipe reads already).
std::vector<std::string> setup_overrides(const recipe::Recipe& recipe, const DataSetup& d);
void use_setup_shards(recipe::Recipe& recipe, const DataSetup& d);

// The overrides that point a recipe at the data folder `dir` (absolute: a recipe's relative paths are the data
// root's): data.corpus, data.tokenizer, data.train and data.val, in that order.
std::vector<std::string> data_folder_sets(const std::string& dir);
// The corpus from `sources` into recipe.data.corpus, then setup_data; recipe's data.* must be data_folder_sets' (an
// Error otherwise, and when the folder's shards are another tokenizer's, which are not written over).
DataSetup setup_data_folder(const recipe::Recipe& recipe, const std::vector<std::string>& sources,
                            const data::PrepareOptions& options, const Say& say);

}  // namespace nanotrn::pipeline
