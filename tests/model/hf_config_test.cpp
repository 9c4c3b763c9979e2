// Hugging Face configs (model/hf_config.h): the shipped examples against the parameter counts their model cards
// publish, the mapping of each field, the errors for what is not lowered, and the host GPT refusing what only the
// predictor prices.
#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "engine/engine.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "support/error_of.h"

namespace nanotrn::model {
namespace {

HfModel shipped_hf(const std::string& name) {
  return read_hf_config(std::string(NANOTRN_SOURCE_DIR) + "/configs/hf/" + name + ".json");
}

std::string hf_error(const nlohmann::json& j) {
  return testing_support::error_text_of([&] { hf_config_from_json(j, "config.json"); });
}

nlohmann::json llama_like() {
  return {{"architectures", {"LlamaForCausalLM"}},
          {"vocab_size", 1000},
          {"hidden_size", 256},
          {"num_hidden_layers", 2},
          {"num_attention_heads", 4},
          {"intermediate_size", 688}};
}

TEST(HfConfig, ShippedConfigsHaveTheirPublishedParameterCounts) {
  // Published counts (model cards / the models' safetensors index): Llama 2 7B 6,738,415,616; Llama 3.1 8B
  // 8,030,261,248; Mistral 7B 7,241,732,096; Qwen2.5-0.5B 494,032,768 including its q/k/v biases, which the
  // reader names as not counted: 24 layers x (14 + 2 x 2) x 64 = 27,648.
  EXPECT_EQ(count_params(shipped_hf("llama-2-7b").config).total(), 6738415616);
  EXPECT_EQ(count_params(shipped_hf("llama-3.1-8b").config).total(), 8030261248);
  EXPECT_EQ(count_params(shipped_hf("mistral-7b-v0.1").config).total(), 7241732096);
  const HfModel qwen = shipped_hf("qwen2.5-0.5b");
  EXPECT_EQ(count_params(qwen.config).total(), 494032768 - 27648);
  ASSERT_EQ(qwen.notes.size(), 1u);
  EXPECT_NE(qwen.notes[0].find("biases"), std::string::npos);
}

TEST(HfConfig, FieldsMapOntoTheGptConfig) {
  const GptConfig l3 = shipped_hf("llama-3.1-8b").config;
  EXPECT_EQ(l3.activation, Activation::swiglu);
  EXPECT_EQ(l3.n_kv_head, 8);
  EXPECT_EQ(l3.mlp_hidden, 14336);
  EXPECT_DOUBLE_EQ(l3.rotary_base, 500000.0);
  EXPECT_FALSE(l3.qk_norm);
  EXPECT_EQ(l3.softcap, 0.0f);
  EXPECT_EQ(l3.window, 0);
  EXPECT_EQ(shipped_hf("mistral-7b-v0.1").config.window, 4096);
  EXPECT_EQ(shipped_hf("qwen2.5-0.5b").config.window, 0);  // use_sliding_window: false
  EXPECT_TRUE(shipped_hf("qwen2.5-0.5b").config.tie_embeddings);
  EXPECT_TRUE(shipped_hf("qwen3-8b").config.qk_norm);
  // FLOPs per token: 6 x (block matrices + the head's V x d, shared or not) + 12 L H hd T (recipe-spec §2.4).
  const GptConfig l2 = shipped_hf("llama-2-7b").config;
  const double block = 32.0 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008);
  EXPECT_DOUBLE_EQ(flops_per_token(l2, 4096), 6 * (block + 32000.0 * 4096) + 12.0 * 32 * 32 * 128 * 4096);
  const GptConfig q = shipped_hf("qwen2.5-0.5b").config;
  EXPECT_EQ(count_params(q).lm_head, 0);
  EXPECT_GT(flops_per_token(q, 1024), 6.0 * 151936 * 896);  // the tied head still multiplies
}

TEST(HfConfig, WhatIsNotLoweredIsAnErrorNamingTheField) {
  nlohmann::json moe = llama_like();
  moe["architectures"] = {"MixtralForCausalLM"};
  moe["num_local_experts"] = 8;
  EXPECT_NE(hf_error(moe).find("field 'num_local_experts' = 8: a mixture of experts"), std::string::npos);
  nlohmann::json unknown = llama_like();
  unknown["attn_logit_softcapping"] = 50.0;
  EXPECT_NE(hf_error(unknown).find("field 'attn_logit_softcapping' is not known"), std::string::npos);
  nlohmann::json gelu = llama_like();
  gelu["hidden_act"] = "gelu";
  EXPECT_NE(hf_error(gelu).find("'hidden_act' = \"gelu\""), std::string::npos);
  nlohmann::json arch = llama_like();
  arch["architectures"] = {"GPT2LMHeadModel"};
  EXPECT_NE(hf_error(arch).find("GPT2LMHeadModel is not supported"), std::string::npos);
  nlohmann::json missing = llama_like();
  missing.erase("intermediate_size");
  EXPECT_NE(hf_error(missing).find("missing field 'intermediate_size'"), std::string::npos);
  EXPECT_EQ(hf_error(llama_like()), "");
}

TEST(HfConfig, TheHostGptRefusesWhatOnlyThePredictorPrices) {
  const GptConfig c = hf_config_from_json(llama_like(), "config.json").config;
  Engine engine;
  Ctx ctx{engine};
  try {
    Gpt g(ctx, c, 1);
    FAIL() << "built a SwiGLU GPT on the host";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("model.activation swiglu is priced by nanotrn predict only"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace nanotrn::model
