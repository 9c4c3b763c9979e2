// `data setup`'s stages on a tiny synthetic corpus: the first run builds exactly the tokenizer and shards the recipe
// names, a second run skips everything and rewrites nothing; a recipe then opens its data, and missing or mismatched
// data is an error naming the command that builds it.
#include "pipeline/data_stages.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"
#include "data/jsonl.h"
#include "data/temp_dir.h"
#include "support/error_of.h"
#include "tokenizer/text_gen.h"
#include "train/data_setup.h"

namespace nanotrn::pipeline {
namespace {

namespace fs = std::filesystem;
using data::testing::TempDir;

// A prepared corpus of 120 synthetic documents at dir/corpus, and a recipe whose data.* point into dir.
recipe::Recipe tiny_setup(const TempDir& dir) {
  std::vector<data::Document> docs;
  for (int i = 0; i < 120; ++i) docs.push_back({"doc" + std::to_string(i), tokenizer::testing::synthetic_text(60, i)});
  const std::string jsonl = data::format_jsonl(docs);
  write_file_atomic(dir / "in.jsonl", jsonl.data(), jsonl.size());
  data::prepare_corpus({dir / "in.jsonl"}, dir / "corpus", {.val_fraction = 0.2});
  return recipe::default_recipe_with({"model.vocab_size=300", "data.corpus=" + dir / "corpus",
                                      "data.tokenizer=" + dir / "tok", "data.train=" + dir / "tokens/train_*.bin",
                                      "data.val=" + dir / "tokens/val_*.bin", "batch.seq_len=32", "batch.rows=2",
                                      "eval.rows=2"});
}

TEST(DataStages, BuildsWhatTheRecipeNamesThenSkipsEverything) {
  TempDir dir;
  const recipe::Recipe recipe = tiny_setup(dir);
  std::vector<std::string> lines;
  const Say say = [&](const std::string& l) { lines.push_back(l); };

  const DataSetup first = setup_data(recipe, say);
  EXPECT_TRUE(first.corpus.reused);  // prepared above
  EXPECT_FALSE(first.tokenizer_reused);
  EXPECT_FALSE(first.shards.reused);
  EXPECT_EQ(first.tokenizer.vocab_size(), 300);
  EXPECT_TRUE(fs::exists(dir / "tok/tokenizer.tiktoken"));
  EXPECT_EQ(first.shards.dir, dir / "tokens");
  ASSERT_FALSE(first.shards.train_shards.empty());
  ASSERT_FALSE(first.shards.val_shards.empty());
  for (const std::string& p : first.shards.train_shards) EXPECT_EQ(fs::path(p).parent_path(), dir / "tokens");
  EXPECT_EQ(first.seconds.size(), 3u);

  const auto stamp = fs::last_write_time(dir / "tokens/shards.json");
  const auto tok_stamp = fs::last_write_time(dir / "tok/tokenizer.tiktoken");
  lines.clear();
  const DataSetup second = setup_data(recipe, say);
  EXPECT_TRUE(second.corpus.reused);
  EXPECT_TRUE(second.tokenizer_reused);
  EXPECT_TRUE(second.shards.reused);
  EXPECT_EQ(fs::last_write_time(dir / "tokens/shards.json"), stamp);
  EXPECT_EQ(fs::last_write_time(dir / "tok/tokenizer.tiktoken"), tok_stamp);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1].rfind("tokenizer: reusing", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("tokens: reusing", 0), 0u) << lines[2];

  // The recipe now opens its data.
  const train::TrainerData data = train::open_training_data(recipe);
  EXPECT_EQ(data.token_bytes.size(), 300u);
  EXPECT_TRUE(data.warnings.empty());
  // Shards without their shards.json (another tool's, or the manifest lost) still open, but the run says loudly that
  // nothing checks their tokenizer (before, a val_bpb from another tokenizer's shards was silently wrong).
  fs::rename(dir / "tokens/shards.json", dir / "tokens/shards.json.away");
  const train::TrainerData bare = train::open_training_data(recipe);
  ASSERT_EQ(bare.warnings.size(), 2u);  // train and val
  EXPECT_NE(bare.warnings[0].find("no shards.json beside these shards, so nothing checks that they were tokenized"),
            std::string::npos)
      << bare.warnings[0];
  fs::rename(dir / "tokens/shards.json.away", dir / "tokens/shards.json");

  // Another vocabulary size is refused, naming both sizes: the tokenizer the folder holds is never written over.
  recipe::Recipe bigger = recipe;
  bigger.model.vocab_size = 320;
  const std::string refused = testing_support::error_message_of([&] { setup_data(bigger, say); });
  EXPECT_NE(refused.find("data.tokenizer: " + dir / "tok" + " holds a tokenizer of 300 tokens, not the 320 asked for"),
            std::string::npos)
      << refused;
  EXPECT_EQ(fs::last_write_time(dir / "tok/tokenizer.tiktoken"), tok_stamp);
  // In a new folder it trains; the shard folder holds the 300-token shards, so the new ones go beside it, keyed.
  bigger.data.tokenizer = dir / "tok320";
  const DataSetup third = setup_data(bigger, say);
  EXPECT_FALSE(third.tokenizer_reused);
  EXPECT_EQ(third.tokenizer.vocab_size(), 320);
  EXPECT_FALSE(third.shards.reused);
  EXPECT_NE(third.shards.dir, dir / "tokens");
  EXPECT_EQ(third.shards.dir.rfind(dir / "tokens-", 0), 0u) << third.shards.dir;
  EXPECT_EQ(fs::last_write_time(dir / "tokens/shards.json"), stamp);  // the 300-token shards are untouched
  const std::vector<std::string> sets = setup_overrides(bigger, third);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0], "data.train=" + third.shards.dir + "/train_*.bin");
  EXPECT_TRUE(setup_overrides(recipe, second).empty());
  recipe::Recipe pointed = bigger;
  use_setup_shards(pointed, third);
  EXPECT_TRUE(train::open_training_data(pointed).warnings.empty());
  // A second setup of the same recipe finds the keyed folder again and keeps it.
  EXPECT_TRUE(setup_data(pointed, say).shards.reused);
}

// A data folder of a job's own (forecast --data): the sources prepared there, then the tokenizer and shards; a second
// call rebuilds nothing. A recipe whose data.* are not one folder's is refused before anything is written.
TEST(DataStages, ADataFolderPreparesItsSourcesThenKeepsEverything) {
  TempDir dir;
  std::vector<data::Document> docs;
  for (int i = 0; i < 120; ++i) docs.push_back({"doc" + std::to_string(i), tokenizer::testing::synthetic_text(60, i)});
  const std::string jsonl = data::format_jsonl(docs);
  write_file_atomic(dir / "in.jsonl", jsonl.data(), jsonl.size());
  const std::string folder = dir / "job/data";
  const std::vector<std::string> sets = data_folder_sets(folder);
  ASSERT_EQ(sets.size(), 4u);
  EXPECT_EQ(sets[2], "data.train=" + folder + "/tokens/train_*.bin");
  std::vector<std::string> all = sets;
  all.insert(all.end(), {"model.vocab_size=300", "batch.seq_len=32", "batch.rows=2", "eval.rows=2"});
  const recipe::Recipe recipe = recipe::default_recipe_with(all);
  std::vector<std::string> lines;
  const Say say = [&](const std::string& l) { lines.push_back(l); };

  const DataSetup first = setup_data_folder(recipe, {dir / "in.jsonl"}, {.val_fraction = 0.2}, say);
  EXPECT_EQ(first.corpus.train.docs + first.corpus.val.docs, 120);
  EXPECT_EQ(first.corpus.sources, std::vector<std::string>{dir / "in.jsonl"});
  EXPECT_FALSE(first.tokenizer_reused);
  EXPECT_EQ(first.tokenizer.vocab_size(), 300);
  EXPECT_EQ(first.shards.dir, folder + "/tokens");
  EXPECT_TRUE(train::open_training_data(recipe).warnings.empty());

  const auto stamp = fs::last_write_time(folder + "/tokens/shards.json");
  lines.clear();
  const DataSetup second = setup_data_folder(recipe, {dir / "in.jsonl"}, {.val_fraction = 0.2}, say);
  EXPECT_TRUE(second.corpus.reused);
  EXPECT_TRUE(second.tokenizer_reused);
  EXPECT_TRUE(second.shards.reused);
  EXPECT_EQ(fs::last_write_time(folder + "/tokens/shards.json"), stamp);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].rfind("corpus: reusing", 0), 0u) << lines[0];

  recipe::Recipe elsewhere = recipe;
  elsewhere.data.tokenizer = dir / "tok";
  EXPECT_NE(testing_support::error_message_of([&] {
              setup_data_folder(elsewhere, {dir / "in.jsonl"}, {}, nullptr);
            }).find("not one folder's corpus, tokenizer and tokens"),
            std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "tok"));
}

TEST(DataStages, FoldersThatAreNotNanotrnsAreNeverWrittenOver) {
  TempDir dir;
  recipe::Recipe recipe = tiny_setup(dir);
  // A corpus folder with other files and no corpus.json, and a corpus.json that is not usable: both refused.
  fs::create_directories(dir / "mine");
  write_file_atomic(dir / "mine/notes.txt", "keep me", 7);
  recipe.data.corpus = dir / "mine";
  EXPECT_NE(testing_support::error_message_of([&] {
              setup_data(recipe, nullptr);
            }).find("data.corpus: " + dir / "mine" + " is not empty and holds no corpus.json"),
            std::string::npos);
  write_file_atomic(dir / "mine/corpus.json", "{", 1);
  EXPECT_NE(
      testing_support::error_message_of([&] { setup_data(recipe, nullptr); }).find("holds a corpus that is not usable"),
      std::string::npos);
  EXPECT_EQ(read_file(dir / "mine/notes.txt").size(), 7u);
  // A tokenizer folder holding something that is not a tokenizer.
  recipe = tiny_setup(dir);
  fs::create_directories(dir / "tok");
  write_file_atomic(dir / "tok/readme", "x", 1);
  EXPECT_NE(testing_support::error_message_of([&] { setup_data(recipe, nullptr); }).find("holds no usable tokenizer"),
            std::string::npos);
}

TEST(DataStages, ARunWarnsWhenItsShardsAreOfAnotherCorpus) {
  TempDir dir;
  recipe::Recipe recipe = tiny_setup(dir);
  setup_data(recipe, nullptr);
  EXPECT_TRUE(train::open_training_data(recipe).warnings.empty());
  // Another corpus in data.corpus (a different document count): the shards were not made from it.
  std::vector<data::Document> docs;
  for (int i = 0; i < 50; ++i) docs.push_back({"d" + std::to_string(i), tokenizer::testing::synthetic_text(60, i)});
  const std::string jsonl = data::format_jsonl(docs);
  write_file_atomic(dir / "other.jsonl", jsonl.data(), jsonl.size());
  data::prepare_corpus({dir / "other.jsonl"}, dir / "corpus2", {.val_fraction = 0.2});
  recipe.data.corpus = dir / "corpus2";
  const train::TrainerData data = train::open_training_data(recipe);
  ASSERT_EQ(data.warnings.size(), 1u);
  EXPECT_NE(data.warnings[0].find("were made from another corpus than data.corpus"), std::string::npos)
      << data.warnings[0];
}

TEST(DataStages, ShardGlobsMustBeWhatTokenizeWrites) {
  recipe::Recipe r = recipe::default_recipe_with({"data.train=a/train_*.bin", "data.val=b/val_*.bin"});
  EXPECT_NE(testing_support::error_message_of([&] { data_paths(r); }).find("one shard folder"), std::string::npos);
  r.data.train = "a/*.bin";
  EXPECT_NE(testing_support::error_message_of([&] { data_paths(r); }).find("data.train is 'a/*.bin'"),
            std::string::npos);
  r.data.train = "synthetic:random";
  EXPECT_NE(testing_support::error_message_of([&] { data_paths(r); }).find("synthetic"), std::string::npos);
  r = recipe::default_recipe_with({});
  const DataPaths p = data_paths(r);
  EXPECT_EQ(p.shards, "out/data/tokens");
  EXPECT_EQ(p.tokenizer, "out/tokenizer");
  EXPECT_EQ(p.corpus, "out/data/corpus");
}

TEST(DataStages, MissingOrMismatchedDataNamesTheSetupCommand) {
  TempDir dir;
  const recipe::Recipe recipe = tiny_setup(dir);
  const std::string cmd = "nanotrn data setup --recipe tiny";
  const std::string no_tok = testing_support::error_message_of([&] { train::open_training_data(recipe, cmd); });
  EXPECT_NE(no_tok.find("no tokenizer at " + dir / "tok" + "; run: " + cmd), std::string::npos) << no_tok;

  // Default: the command names the recipe by its name.
  EXPECT_NE(testing_support::error_message_of([&] {
              train::open_training_data(recipe);
            }).find("run: nanotrn data setup --recipe unnamed"),
            std::string::npos);

  setup_data(recipe, nullptr);
  std::vector<fs::path> train_shards;
  for (const auto& e : fs::directory_iterator(dir / "tokens")) {
    if (e.path().filename().string().rfind("train_", 0) == 0) train_shards.push_back(e.path());
  }
  for (const fs::path& p : train_shards) fs::remove(p);
  const std::string no_shards = testing_support::error_message_of([&] { train::open_training_data(recipe, cmd); });
  EXPECT_NE(no_shards.find("matches no shard file; run: " + cmd), std::string::npos) << no_shards;

  // Shards tokenized with another tokenizer than data.tokenizer.
  setup_data(recipe, nullptr);
  recipe::Recipe other = recipe;
  other.model.vocab_size = 320;
  other.data.tokenizer = dir / "tok320";
  other.data.train = dir / "tokens320/train_*.bin";
  other.data.val = dir / "tokens320/val_*.bin";
  setup_data(other, nullptr);
  other.data.train = recipe.data.train;
  other.data.val = recipe.data.val;
  const std::string mixed = testing_support::error_message_of([&] { train::open_training_data(other, cmd); });
  EXPECT_NE(mixed.find("tokenized with another tokenizer"), std::string::npos) << mixed;
  // Both files and both vocabulary sizes.
  EXPECT_NE(mixed.find(dir / "tokens/shards.json" + " records vocab 300"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("the tokenizer at " + dir / "tok320" + " has vocab 320"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("run: " + cmd), std::string::npos) << mixed;
}

TEST(DataStages, EvaluationNeedsOnlyTheValidationShards) {
  TempDir dir;
  const recipe::Recipe recipe = tiny_setup(dir);
  setup_data(recipe, nullptr);
  for (const auto& e : fs::directory_iterator(dir / "tokens")) {
    if (e.path().filename().string().rfind("train_", 0) == 0) fs::remove(e.path());
  }
  EXPECT_NE(testing_support::error_message_of([&] { train::open_training_data(recipe); }).find("data.train"),
            std::string::npos);
  const train::TrainerData val = train::open_validation_data(recipe);
  EXPECT_EQ(val.train, nullptr);
  ASSERT_NE(val.val, nullptr);
  EXPECT_EQ(val.token_bytes.size(), 300u);
  std::vector<int32_t> x(2 * 32), y(2 * 32);
  val.val->next(2, 32, x.data(), y.data());
  EXPECT_EQ(x[0], val.bos);
}

}  // namespace
}  // namespace nanotrn::pipeline
