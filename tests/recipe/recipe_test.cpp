// Recipes: strict JSON (unknown keys and wrong types are errors naming the dotted path), overrides, durations, the
// round trip through recipe_to_json, and every recipe shipped in recipes/ parses and resolves.
#include <cmath>
#include <filesystem>
#include <iterator>
#include <limits>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/error.h"
#include "base/file.h"
#include "recipe/recipe.h"
#include "recipe/recipe_ranges.h"
#include "support/error_of.h"

namespace nanotrn::recipe {
namespace {

TEST(Recipe, UnknownKeysAreErrorsNamingTheDottedPath) {
  const std::string e1 = testing_support::error_text_of([] { recipe_from_json({{"optim", {{"matrix_lrr", 0.02}}}}); });
  EXPECT_NE(e1.find("unknown key 'optim.matrix_lrr'"), std::string::npos) << e1;
  const std::string e2 = testing_support::error_text_of([] { recipe_from_json({{"modle", {}}}); });
  EXPECT_NE(e2.find("unknown key 'modle'"), std::string::npos) << e2;
  const std::string e3 = testing_support::error_text_of([] {
    recipe_from_json({{"model", {{"init", {{"fcc", 1}}}}}});
  });
  EXPECT_NE(e3.find("model.init.fcc"), std::string::npos) << e3;
  const std::string e4 = testing_support::error_text_of([] {
    recipe_from_json({{"batch", {{"phases", {{{"from", 0}, {"acum", 2}}}}}}});
  });
  EXPECT_NE(e4.find("batch.phases[0].acum"), std::string::npos) << e4;
}

TEST(Recipe, WrongTypesAndBadValuesNameTheField) {
  EXPECT_NE(testing_support::error_text_of([] {
              recipe_from_json({{"model", {{"depth", "eight"}}}});
            }).find("model.depth"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] {
              recipe_from_json({{"model", {{"depth", 2.5}}}});
            }).find("integer"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] {
              recipe_from_json({{"model", {{"activation", "swish"}}}});
            }).find("relu2"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] {
              recipe_from_json({{"train", {{"precision", "fp8"}}}});
            }).find("train.precision"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([] {
              recipe_from_json({{"train", {{"budget", "ten minutes"}}}});
            }).find("duration"),
            std::string::npos);
}

TEST(Recipe, OverridesSetNestedFieldsAndRejectUnknownKeys) {
  const Recipe r =
      default_recipe_with({"optim.matrix_lr=0.02", "model.depth=3", "train.budget=2m", "model.activation=leaky_relu2",
                           "train.mtp_weights=[1,0.5]", "data.mask_bos_targets=true"});
  EXPECT_FLOAT_EQ(r.optim.matrix_lr, 0.02f);
  EXPECT_EQ(r.model.depth, 3);
  EXPECT_EQ(r.train.budget.text, "2m");
  EXPECT_EQ(r.train.budget.seconds, 120.0);
  EXPECT_EQ(r.model.activation, model::Activation::leaky_relu2);
  EXPECT_EQ(r.train.mtp_weights, (std::vector<float>{1.0f, 0.5f}));
  EXPECT_TRUE(r.data.mask_bos_targets);
  const std::string e = testing_support::error_text_of([] { default_recipe_with({"optim.matrix_lrr=0.02"}); });
  EXPECT_NE(e.find("unknown key 'optim.matrix_lrr'"), std::string::npos) << e;
  EXPECT_NE(testing_support::error_text_of([] { default_recipe_with({"optim.matrix_lr"}); }).find("key.path=value"),
            std::string::npos);
}

TEST(Recipe, JsonRoundTripIsExact) {
  const Recipe r = default_recipe_with({"optim.matrix_lr=0.025", "model.n_kv_head=1", "model.depth=4",
                                        "batch.phases=[{\"from\":0,\"accum\":1,\"lr_scale\":0.5},"
                                        "{\"from\":0.2,\"accum\":2,\"lr_scale\":1}]"});
  const nlohmann::json j = recipe_to_json(r);
  EXPECT_EQ(recipe_to_json(recipe_from_json(j)), j);
  EXPECT_EQ(recipe_from_json(j).batch.phases.size(), 2u);
}

TEST(Recipe, FloatFieldsAreWrittenAsTheirShortestDecimalAndReadBackExactly) {
  const std::vector<std::pair<float, std::string>> cases = {
      {0.04f, "0.04"}, {0.008485f, "0.008485"}, {1e-10f, "1e-10"}, {1.4142f, "1.4142"}, {1.0f / 3.0f, "0.33333334"}};
  for (const auto& [f, text] : cases) {
    Recipe r;
    r.optim.matrix_lr = f;
    r.train.mtp_weights = {1.0f, f};
    const nlohmann::json j = recipe_to_json(r);
    EXPECT_EQ(j["optim"]["matrix_lr"].dump(), text);
    EXPECT_EQ(j["train"]["mtp_weights"][1].dump(), text);
    EXPECT_EQ(recipe_from_json(j).optim.matrix_lr, f);
    EXPECT_EQ(recipe_from_json(j).train.mtp_weights[1], f);
  }
}

TEST(Recipe, Durations) {
  EXPECT_DOUBLE_EQ(parse_duration("90s"), 90.0);
  EXPECT_DOUBLE_EQ(parse_duration("30m"), 1800.0);
  EXPECT_DOUBLE_EQ(parse_duration("1.5h"), 5400.0);
  EXPECT_DOUBLE_EQ(parse_duration("45"), 45.0);
  EXPECT_THROW(parse_duration("5 parsecs"), Error);
  EXPECT_THROW(parse_duration("-3s"), Error);
}

TEST(Recipe, MalformedFilesNameTheFileAndByte) {
  const std::string path = ::testing::TempDir() + "/bad_recipe.json";
  const std::string text = "{\"model\": {\"depth\": 4,}}";
  write_file_atomic(path, text.data(), text.size());
  const std::string e = testing_support::error_text_of([&] { load_recipe(path); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("byte"), std::string::npos) << e;
}

TEST(Recipe, NumbersOutOfRangeAreErrorsNamingTheDottedKeyAndValue) {
  // {override, the key the message must name, the value it must show}
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"optim.matrix_lr=-0.04", "optim.matrix_lr", "-0.04"},
      {"optim.embedding_lr=-1", "optim.embedding_lr", "-1"},
      {"optim.adam_beta1=1", "optim.adam_beta1", "1"},
      {"optim.momentum=1.5", "optim.momentum", "1.5"},
      {"optim.adam_eps=0", "optim.adam_eps", "0"},
      {"optim.adam_weight_decay=-0.1", "optim.adam_weight_decay", "-0.1"},
      {"optim.grad_clip=-1", "optim.grad_clip", "-1"},
      {"optim.ns_steps=0", "optim.ns_steps", "0"},
      {"schedule.cooldown_fraction=1.5", "schedule.cooldown_fraction", "1.5"},
      {"schedule.final_lr_fraction=-0.5", "schedule.final_lr_fraction", "-0.5"},
      {"schedule.warmup_steps=-3", "schedule.warmup_steps", "-3"},
      {"ema.decay=1", "ema.decay", "1"},
      {"eval.every_seconds=-2", "eval.every_seconds", "-2"},
      {"train.mtp_weights=[1,-0.5]", "train.mtp_weights[1]", "-0.5"},
      {"train.mtp_until=2", "train.mtp_until", "2"},
      {"batch.phases=[{\"from\":0,\"accum\":0}]", "batch.phases[0].accum", "0"},
      {"batch.phases=[{\"from\":0},{\"from\":0.5,\"lr_scale\":-1}]", "batch.phases[1].lr_scale", "-1"},
      {"model.init.fc=-1", "model.init.fc", "-1"},
  };
  for (const auto& [set, key, value] : cases) {
    SCOPED_TRACE(set);
    const std::string e = testing_support::error_text_of([&] { default_recipe_with({set}); });
    EXPECT_NE(e.find("recipe: " + key + " must be "), std::string::npos) << e;
    EXPECT_NE(e.find("got " + value), std::string::npos) << e;
  }
  // The defaults are in range.
  EXPECT_NO_THROW(default_recipe_with({}));
}

TEST(Recipe, NanIsRejectedFromOverridesAndFromJson) {
  // An override "nan" is not JSON, so it becomes a string: a type error naming the key.
  const std::string e1 = testing_support::error_text_of([] { default_recipe_with({"optim.matrix_lr=nan"}); });
  EXPECT_NE(e1.find("optim.matrix_lr must be a number"), std::string::npos) << e1;
  // So is a number beyond a double, and infinity spelled out.
  for (const char* set : {"optim.matrix_lr=1e999", "optim.matrix_lr=inf", "optim.matrix_lr=-Infinity"}) {
    const std::string e = testing_support::error_text_of([&] { default_recipe_with({set}); });
    EXPECT_NE(e.find("optim.matrix_lr must be a number"), std::string::npos) << e;
  }
  // A NaN that reaches the loader as a number (a Recipe built in code, written and read back) is out of range.
  Recipe r;
  r.optim.adam_beta2 = std::numeric_limits<float>::quiet_NaN();
  const std::string e2 = testing_support::error_text_of([&] { recipe_from_json(recipe_to_json(r)); });
  EXPECT_NE(e2.find("recipe: optim.adam_beta2 must be a number in [0, 1), got nan"), std::string::npos) << e2;
  r = Recipe{};
  r.train.mtp_until = std::numeric_limits<double>::infinity();
  EXPECT_NE(testing_support::error_text_of([&] { recipe_from_json(recipe_to_json(r)); }).find("train.mtp_until"),
            std::string::npos);
}

TEST(Recipe, NumbersBeyondTheirTypeAreErrorsNamingTheKey) {
  const std::string e1 =
      testing_support::error_text_of([] { default_recipe_with({"optim.matrix_lr=1e39"}); });  // beyond float
  EXPECT_NE(e1.find("optim.matrix_lr must be a finite number"), std::string::npos) << e1;
  const std::string e2 =
      testing_support::error_text_of([] { default_recipe_with({"train.steps=1e30"}); });  // beyond int64
  EXPECT_NE(e2.find("train.steps is out of range"), std::string::npos) << e2;
  const std::string e3 =
      testing_support::error_text_of([] { default_recipe_with({"train.threads=4294967296"}); });  // beyond int
  EXPECT_NE(e3.find("train.threads is out of range"), std::string::npos) << e3;
}

TEST(Recipe, ThreadsHaveAnUpperBoundNamingTheCoreCount) {
  const std::string e = testing_support::error_text_of([] { default_recipe_with({"train.threads=100000"}); });
  EXPECT_NE(e.find("train.threads must be at most " + std::to_string(max_host_threads())), std::string::npos) << e;
  EXPECT_NE(e.find("cores"), std::string::npos) << e;
  EXPECT_NE(e.find("got 100000"), std::string::npos) << e;
  EXPECT_NO_THROW(default_recipe_with({"train.threads=" + std::to_string(max_host_threads())}));
  EXPECT_NO_THROW(default_recipe_with({"train.threads=1"}));
}

TEST(Recipe, ErrorsFromAFileCarryOneSourceLocation) {
  const std::string path = ::testing::TempDir() + "/bad_depth_recipe.json";
  const std::string text = "{\"model\": {\"depth\": 0}}";
  write_file_atomic(path, text.data(), text.size());
  const std::string e = testing_support::error_text_of([&] { load_recipe(path); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  const std::regex location(R"([A-Za-z0-9_./-]+\.(cpp|h):[0-9]+: )");
  const auto n = std::distance(std::sregex_iterator(e.begin(), e.end(), location), std::sregex_iterator());
  EXPECT_EQ(n, 1) << e;
}

TEST(Recipe, AFileThatIsNotAnObjectIsNamedEvenWithOverrides) {
  const std::string path = ::testing::TempDir() + "/array_recipe.json";
  const std::string text = "[1, 2]";
  write_file_atomic(path, text.data(), text.size());
  // The override used to index the array and escape as a raw nlohmann type_error.
  const std::string e = testing_support::error_text_of([&] { load_recipe(path, {"train.steps=1"}); });
  EXPECT_NE(e.find(path + ": a recipe is a JSON object"), std::string::npos) << e;
  EXPECT_NE(e.find("got array"), std::string::npos) << e;
}

TEST(Recipe, AnOverrideThatIsNotUtf8IsNamed) {
  // Found by fuzz/recipe_fuzz.cpp: the bytes became a JSON string and escaped as a raw nlohmann type_error on dump.
  const std::string e = testing_support::error_text_of([] { default_recipe_with({"optim.muon_dtype=\xc3\x28"}); });
  EXPECT_NE(e.find("recipe override: not valid UTF-8 at byte 17"), std::string::npos) << e;
}

TEST(Recipe, AModelConfigIsReadRelativeToTheRecipeAsItsModel) {
  const std::filesystem::path dir = std::filesystem::path(::testing::TempDir()) / "model_config_recipe";
  std::filesystem::create_directories(dir / "hf");
  const std::string hf = R"({"architectures": ["LlamaForCausalLM"], "vocab_size": 1000, "hidden_size": 256,
      "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 688})";
  write_file_atomic((dir / "hf" / "tiny.json").string(), hf.data(), hf.size());
  const std::string text = R"({"name": "hf", "model_config": "hf/tiny.json", "batch": {"seq_len": 64}})";
  const std::string path = (dir / "r.json").string();
  write_file_atomic(path, text.data(), text.size());
  const Recipe r = load_recipe(path, {"batch.rows=2"});
  EXPECT_EQ(r.model.depth, 3);
  EXPECT_EQ(r.model.model_dim, 256);
  EXPECT_EQ(r.model.n_kv_head, 2);
  EXPECT_EQ(r.model.activation, model::Activation::swiglu);
  EXPECT_EQ(r.batch.rows, 2);
  ASSERT_FALSE(r.model_notes.empty());
  EXPECT_EQ(r.model_notes[0], "LlamaForCausalLM from " + (dir / "hf" / "tiny.json").string());
  // Saved in full: the JSON carries the model itself, and reads back to the same model.
  const Recipe back = recipe_from_json(recipe_to_json(r));
  EXPECT_EQ(back.model.mlp_hidden, 688);
  EXPECT_EQ(back.model.activation, model::Activation::swiglu);
  // model.* overrides scale the config down; the rest of it stays the config's.
  const Recipe small = load_recipe(path, {"model.depth=1", "model.mlp_hidden=64"});
  // And --model-config replaces a recipe's model section the same way.
  const std::string plain = (dir / "plain.json").string();
  const std::string plain_text = R"({"model": {"depth": 2}})";
  write_file_atomic(plain, plain_text.data(), plain_text.size());
  const Recipe given = load_recipe(plain, {"model.depth=1"}, (dir / "hf" / "tiny.json").string());
  EXPECT_EQ(given.model.depth, 1);
  EXPECT_EQ(given.model.model_dim, 256);
  EXPECT_EQ(given.model.activation, model::Activation::swiglu);
  EXPECT_EQ(small.model.depth, 1);
  EXPECT_EQ(small.model.mlp_hidden, 64);
  EXPECT_EQ(small.model.n_kv_head, 2);
  EXPECT_EQ(small.model.activation, model::Activation::swiglu);
  EXPECT_TRUE(small.model.norm_weights);
  const std::string both = R"({"model": {"depth": 2}, "model_config": "hf/tiny.json"})";
  write_file_atomic(path, both.data(), both.size());
  EXPECT_NE(testing_support::error_text_of([&] {
              load_recipe(path);
            }).find("give either a model section or model_config, not both"),
            std::string::npos);
  const std::string missing = R"({"model_config": "hf/absent.json"})";
  write_file_atomic(path, missing.data(), missing.size());
  EXPECT_NE(testing_support::error_text_of([&] { load_recipe(path); }).find("absent.json"), std::string::npos);
}

TEST(Recipe, EveryShippedRecipeParsesAndResolves) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(NANOTRN_SOURCE_DIR "/recipes")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Recipe r = load_recipe(entry.path().string());
    EXPECT_NO_THROW(model::resolve(r.model));
    n++;
  }
  EXPECT_GE(n, 3);
}

}  // namespace
}  // namespace nanotrn::recipe
