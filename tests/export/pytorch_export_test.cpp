// The export folder's C++ side (export/pytorch_export.h), without Python (that is tests/cli/export_pytorch.sh): the
// weights are the model's parameters bit for bit and nothing else; check.safetensors holds the model's own fp32
// logits for the ids; config.json names every constant of the forward; a folder that is not empty is refused and
// left as it was; an empty one is filled; a failure leaves no temporary folder behind.
#include "export/pytorch_export.h"

#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/file.h"
#include "data/temp_dir.h"
#include "io/safetensors.h"
#include "support/error_of.h"
#include "support/tiny_gpt.h"
#include "tokenizer/bpe_train.h"
#include "tokenizer/hf_tokenizer_json.h"

namespace nanotrn::exporting {
namespace {

namespace fs = std::filesystem;
using data::testing::TempDir;

std::vector<int32_t> ids(int64_t n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<int32_t>((i * 37 + 5) % 97);
  return v;
}

TEST(PytorchExport, WritesTheWeightsTheLogitsAndTheConfig) {
  TempDir dir;
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, testing_support::tiny_gpt_config(), 5);
  const std::string text = "a small text to train a small tokenizer on, the end.";
  const std::vector<std::string_view> docs = {text};
  const tokenizer::Bpe bpe = tokenizer::train_bpe(docs, {.vocab_size = 256 + 8 + 4});
  bpe.save(dir / "tok");
  const PytorchExport e =
      export_pytorch(gpt, ctx, {.dir = dir / "out", .tokenizer = dir / "tok/tokenizer.tiktoken", .check_ids = ids(24)});
  EXPECT_EQ(e.files, (std::vector<std::string>{"model.safetensors", "config.json", "model.py", "check.safetensors",
                                               "tokenizer/tokenizer.tiktoken", "tokenizer.json"}));
  // The Hugging Face file holds the same ranks (tests/tokenizer/hf_tokenizer_json_test.cpp checks its ids against an
  // independent encoder).
  const std::vector<uint8_t> hf = read_file(dir / "out/tokenizer.json");
  const tokenizer::HfBpe back =
      tokenizer::parse_hf_tokenizer_json(std::string_view(reinterpret_cast<const char*>(hf.data()), hf.size()), "hf");
  EXPECT_EQ(back.tokens, bpe.tokens());
  const SafetensorsFile w = load_safetensors(dir / "out/model.safetensors");
  EXPECT_EQ(w.tensors.size(), gpt.parameters().size());
  int64_t n = 0;
  for (const model::Parameter& p : gpt.parameters()) {
    const Tensor* t = w.find(p.name);
    ASSERT_NE(t, nullptr) << p.name;
    EXPECT_EQ(t->to_vector(), p.value.to_vector()) << p.name;
    n += p.value.numel();
  }
  EXPECT_EQ(e.parameters, n);
  const SafetensorsFile c = load_safetensors(dir / "out/check.safetensors");
  const Tensor want = gpt.logits(ctx, Tensor::from_ints({2, 12}, ids(24)));
  EXPECT_EQ(c.find("logits")->shape(), (Shape{2, 12, 97}));
  EXPECT_EQ(c.find("logits")->to_vector(), want.to_vector());
  const std::vector<uint8_t> bytes = read_file(dir / "out/config.json");
  const nlohmann::json j = nlohmann::json::parse(bytes.begin(), bytes.end());
  EXPECT_EQ(j["format"], "nanotrn-pytorch-export");
  EXPECT_EQ(j["model"]["n_kv_head"], 1);
  EXPECT_EQ(j["model"]["value_embeds"], "alternating");
  EXPECT_EQ(j["model"]["mlp_hidden"], 4 * 48);
  EXPECT_NE(read_file(dir / "out/model.py").size(), 0u);
  for (const auto& entry : fs::directory_iterator(dir.str()))
    EXPECT_EQ(entry.path().filename().string().find("nanotrn-tmp"), std::string::npos) << entry.path();
}

TEST(PytorchExport, NeverWritesIntoAFolderThatHoldsFiles) {
  TempDir dir;
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, testing_support::tiny_gpt_config(), 5);
  fs::create_directories(dir / "full");
  write_file_atomic(dir / "full/notes.txt", std::string("mine").data(), 4);
  const std::string m =
      testing_support::error_message_of([&] { export_pytorch(gpt, ctx, {.dir = dir / "full", .check_ids = ids(8)}); });
  EXPECT_NE(m.find("full is not empty; name a new (or empty) folder"), std::string::npos) << m;
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "full"), fs::directory_iterator()), 1);
  fs::create_directories(dir / "empty");
  export_pytorch(gpt, ctx, {.dir = dir / "empty", .check_ids = ids(8)});
  EXPECT_TRUE(fs::exists(dir / "empty/model.py"));
  // A failure after the folder was started (ids that are not whole rows) leaves neither the folder nor its temporary.
  EXPECT_THROW(export_pytorch(gpt, ctx, {.dir = dir / "bad", .check_ids = ids(7)}), Error);
  EXPECT_FALSE(fs::exists(dir / "bad"));
  for (const auto& entry : fs::directory_iterator(dir.str()))
    EXPECT_EQ(entry.path().filename().string().find("nanotrn-tmp"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace nanotrn::exporting
