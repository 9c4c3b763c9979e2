// Hugging Face configs (model/hf_config.h): the shipped examples against the parameter counts their model cards
// publish, the mapping of each field, the errors for what is not lowered, and the host GPT refusing what only the
// predictor prices.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "engine/engine.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "support/error_of.h"
#include "support/source_path.h"

namespace nanotrn::model {
namespace {

HfModel shipped_hf(const std::string& name) {
  return read_hf_config(testing_support::source_path("configs/hf/" + name + ".json"));
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
  // 8,030,261,248; Mistral 7B 7,241,732,096; Qwen2.5-0.5B 494,032,768 including its q/k/v biases (model.attention_bias
  // qkv: 24 layers x (14 + 2 x 2) x 64 = 27,648).
  EXPECT_EQ(count_params(shipped_hf("llama-2-7b").config).total(), 6738415616);
  EXPECT_EQ(count_params(shipped_hf("llama-3.1-8b").config).total(), 8030261248);
  EXPECT_EQ(count_params(shipped_hf("mistral-7b-v0.1").config).total(), 7241732096);
  const HfModel qwen = shipped_hf("qwen2.5-0.5b");
  EXPECT_EQ(qwen.config.attention_bias, AttentionBias::qkv);
  EXPECT_EQ(count_params(qwen.config).total(), 494032768);
  EXPECT_TRUE(qwen.notes.empty());
  EXPECT_EQ(shipped_hf("llama-3.1-8b").config.attention_bias, AttentionBias::none);
  const RopeScaling l3 = shipped_hf("llama-3.1-8b").config.rope_scaling;
  EXPECT_EQ(l3.kind, RopeScalingKind::llama3);
  EXPECT_EQ(l3.factor, 8.0);
  EXPECT_EQ(l3.original_max_positions, 8192);
  EXPECT_EQ(l3.high_freq_factor, 4.0);
  EXPECT_EQ(shipped_hf("llama-2-7b").config.rope_scaling.kind, RopeScalingKind::none);
  nlohmann::json linear = llama_like();
  linear["rope_scaling"] = {{"rope_type", "linear"}, {"factor", 2.0}};
  EXPECT_NE(hf_error(linear).find("rope_scaling type 'linear' is not lowered"), std::string::npos);
  nlohmann::json huge = llama_like();  // found by hf_config_fuzz: a context beyond int64 was cast unchecked
  huge["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}, {"original_max_position_embeddings", 1.3e111}};
  EXPECT_NE(hf_error(huge).find("'rope_scaling.original_max_position_embeddings' must be a positive integer"),
            std::string::npos);
  huge["rope_scaling"].erase("original_max_position_embeddings");
  huge["max_position_embeddings"] = -5;
  EXPECT_NE(hf_error(huge).find("'max_position_embeddings' must be a positive integer"), std::string::npos);
  // Model cards, whose two decimals are cut or rounded (7.6156B reads 7.61B, 6.5253B reads 6.53B): Qwen2.5-7B 7.61B,
  // 6.53B non-embedding; Qwen3-0.6B 0.44B non-embedding; Llama 3.2 1B 1.23B (tied head).
  const auto card = [](int64_t n, double shown) { return std::fabs(static_cast<double>(n) / 1e9 - shown) < 0.01; };
  const ParamCounts q7 = count_params(shipped_hf("qwen2.5-7b").config);
  EXPECT_TRUE(card(q7.total(), 7.61)) << q7.total();
  EXPECT_TRUE(card(q7.non_embedding(), 6.53)) << q7.non_embedding();
  EXPECT_TRUE(card(count_params(shipped_hf("qwen3-0.6b").config).non_embedding(), 0.44));
  EXPECT_TRUE(card(count_params(shipped_hf("llama-3.2-1b").config).total(), 1.23));
  nlohmann::json biased = llama_like();
  biased["attention_bias"] = true;  // Llama's flag: q, k, v and the output projection, 2 x (3 x 256 + 256) more
  EXPECT_EQ(hf_config_from_json(biased, "c.json").config.attention_bias, AttentionBias::qkvo);
  EXPECT_EQ(count_params(hf_config_from_json(biased, "c.json").config).total(),
            count_params(hf_config_from_json(llama_like(), "c.json").config).total() + 2 * 4 * 256);
  nlohmann::json mrope = llama_like();
  mrope["use_mrope"] = false;  // as Qwen2.5's configs say
  EXPECT_NO_THROW(hf_config_from_json(mrope, "c.json"));
  mrope["use_mrope"] = true;
  EXPECT_NE(hf_error(mrope).find("field 'use_mrope' = true"), std::string::npos);
  biased["attention_bias"] = "yes";
  EXPECT_NE(hf_error(biased).find("field 'attention_bias' must be true or false"), std::string::npos);
}

TEST(HfConfig, Gpt3InTheGpt2LayoutIsTheModelOfThePaper) {
  // Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96 heads of 128, 175.0B parameters (the nominal size;
  // 12 L d^2 for the blocks plus the tied 50257 x d embedding is 174.6B, and the learned positions and the biases
  // add 0.04B).
  const HfModel g = shipped_hf("gpt3-175b");
  EXPECT_EQ(g.architecture, "GPT2LMHeadModel");
  EXPECT_EQ(g.config.activation, Activation::gelu);
  EXPECT_EQ(g.config.mlp_hidden, 4 * 12288);
  EXPECT_EQ(g.config.head_dim, 128);
  EXPECT_EQ(g.config.n_kv_head, 96);
  EXPECT_TRUE(g.config.tie_embeddings);
  const double n = static_cast<double>(count_params(g.config).total());
  EXPECT_NEAR(n, 175.0e9, 0.005 * 175.0e9);
  EXPECT_EQ(count_params(g.config).block_matrices, 96LL * 12 * 12288 * 12288);
  EXPECT_EQ(g.config.learned_positions, 2048);
  EXPECT_EQ(g.config.norm, NormKind::layer);
  EXPECT_TRUE(g.notes.empty());
  // GPT-2 small: 124,439,808 parameters (the well-known count of the released checkpoint: tied 50257 x 768
  // embedding, 1024 x 768 positions, 12 blocks with LayerNorm gains and biases and biases on every linear layer).
  const HfModel gpt2 = shipped_hf("gpt2");
  EXPECT_EQ(count_params(gpt2.config).total(), 124439808);
  EXPECT_EQ(count_params(gpt2.config).positions, 1024 * 768);
  nlohmann::json relu = nlohmann::json::parse(R"({"architectures": ["GPT2LMHeadModel"], "vocab_size": 100,
      "n_embd": 64, "n_layer": 2, "n_head": 4, "activation_function": "relu"})");
  EXPECT_NE(hf_error(relu).find("field 'activation_function' = \"relu\": only GELU"), std::string::npos)
      << hf_error(relu);
  relu["activation_function"] = "gelu";
  relu["add_cross_attention"] = true;  // cross-attention blocks would change the cost: refused, not ignored
  EXPECT_NE(hf_error(relu).find("field 'add_cross_attention' is not known"), std::string::npos);
  relu.erase("add_cross_attention");
  relu["n_special"] = 0;  // older configs' fields GPT2LMHeadModel does not read
  relu["output_past"] = true;
  EXPECT_NO_THROW(hf_config_from_json(relu, "c.json"));
}

TEST(HfConfig, MixturesOfExpertsHaveTheirPublishedSizes) {
  // Mixtral 8x7B: 46.7B parameters, 12.9B active per token (Mistral AI's model card and release post); Qwen3-30B-A3B:
  // 30.5B in total, 3.3B activated (its model card). Active = total - the experts a token does not use.
  const HfModel mixtral = shipped_hf("mixtral-8x7b-v0.1");
  EXPECT_EQ(mixtral.config.experts, 8);
  EXPECT_EQ(mixtral.config.experts_per_token, 2);
  EXPECT_EQ(mixtral.config.mlp_hidden, 14336);
  const double mt = static_cast<double>(count_params(mixtral.config).total());
  EXPECT_NEAR(mt, 46.7e9, 0.05e9);
  EXPECT_NEAR(mt - static_cast<double>(inactive_expert_params(mixtral.config)), 12.9e9, 0.05e9);
  const HfModel qwen = shipped_hf("qwen3-30b-a3b");
  EXPECT_EQ(qwen.config.experts, 128);
  EXPECT_EQ(qwen.config.experts_per_token, 8);
  EXPECT_EQ(qwen.config.mlp_hidden, 768);  // moe_intermediate_size, not the dense intermediate_size
  EXPECT_TRUE(qwen.config.qk_norm);
  EXPECT_EQ(qwen.config.window, 0);
  const double qt = static_cast<double>(count_params(qwen.config).total());
  EXPECT_NEAR(qt, 30.5e9, 0.05e9);
  EXPECT_NEAR(qt - static_cast<double>(inactive_expert_params(qwen.config)), 3.3e9, 0.06e9);
  // FLOPs per token count the k experts a token uses and the router (6 x active matmul parameters + attention).
  const GptConfig& m = mixtral.config;
  const double active_blocks = 32.0 * (2 * 4096.0 * 4096 + 2 * 1024.0 * 4096 + 2 * 3 * 4096.0 * 14336 + 8 * 4096.0);
  EXPECT_DOUBLE_EQ(flops_per_token(m, 4096), 6 * (active_blocks + 32000.0 * 4096) + 12.0 * 32 * 32 * 128 * 4096);
  // gpt-oss-20b: 21B parameters, 3.6B active (OpenAI's model card counts the active ones without the input
  // embedding); sliding (128) and full attention alternate, starting with a sliding layer. FLOPs per token: 6 x the
  // active matrices (norm gains are not multiplied) + the attention term of 12 windowed and 12 full layers.
  const HfModel oss = shipped_hf("gpt-oss-20b");
  EXPECT_EQ(oss.config.rope_scaling.kind, RopeScalingKind::yarn);
  EXPECT_EQ(oss.config.rope_scaling.factor, 32.0);
  EXPECT_EQ(oss.config.rope_scaling.original_max_positions, 4096);
  EXPECT_FALSE(oss.config.rope_scaling.truncate);
  EXPECT_TRUE(oss.config.attention_sinks);
  EXPECT_EQ(oss.config.swiglu_limit, 7.0f);
  EXPECT_TRUE(oss.config.mlp_bias);
  EXPECT_EQ(oss.config.attention_bias, AttentionBias::qkvo);
  EXPECT_EQ(oss.config.experts, 32);
  EXPECT_EQ(oss.config.experts_per_token, 4);
  EXPECT_EQ(oss.config.window, 128);
  std::string alternating;
  for (int i = 0; i < 12; ++i) alternating += "SL";
  EXPECT_EQ(oss.config.window_pattern, alternating);
  EXPECT_EQ(layer_keys(oss.config, 0, 4096), 128);
  EXPECT_EQ(layer_keys(oss.config, 1, 4096), 4096);
  const double ot = static_cast<double>(count_params(oss.config).total());
  EXPECT_NEAR(ot, 20.9e9, 0.05e9);
  const double oa = ot - static_cast<double>(inactive_expert_params(oss.config) + count_params(oss.config).wte);
  EXPECT_NEAR(oa, 3.6e9, 0.05e9);
  EXPECT_DOUBLE_EQ(flops_per_token(oss.config, 4096), 6 * (oa - static_cast<double>(count_params(oss.config).scalars)) +
                                                          12.0 * 64 * 64 * (12 * 128.0 + 12 * 4096.0));
  nlohmann::json types = llama_like();
  types["layer_types"] = {"full_attention", "sliding_attention"};
  EXPECT_NE(hf_error(types).find("'layer_types' names sliding layers but 'sliding_window' is not set"),
            std::string::npos);
  types["layer_types"] = {"full_attention"};
  EXPECT_NE(hf_error(types).find("one type per layer (2)"), std::string::npos);
  nlohmann::json limit = llama_like();
  limit["swiglu_limit"] = 7.0;
  EXPECT_NE(hf_error(limit).find("'swiglu_limit' belongs to GptOssForCausalLM"), std::string::npos);
  nlohmann::json shared = llama_like();
  shared["architectures"] = {"Qwen2MoeForCausalLM"};
  EXPECT_NE(hf_error(shared).find("shared expert"), std::string::npos);
  nlohmann::json dense = llama_like();
  dense["num_local_experts"] = 8;
  EXPECT_NE(hf_error(dense).find("field 'num_local_experts' on LlamaForCausalLM, which is dense"), std::string::npos);
  nlohmann::json partial = nlohmann::json::parse(
      R"({"architectures": ["Qwen3MoeForCausalLM"], "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 4,
          "num_attention_heads": 4, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
          "decoder_sparse_step": 2})");
  EXPECT_NE(hf_error(partial).find("'decoder_sparse_step': experts on only some layers"), std::string::npos);
  partial.erase("decoder_sparse_step");
  partial["num_experts_per_tok"] = 9;
  EXPECT_NE(hf_error(partial).find("model.experts_per_token must be in [1, model.experts = 8], got 9"),
            std::string::npos);
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
  moe["architectures"] = {"DeepseekV3ForCausalLM"};
  moe["n_routed_experts"] = 256;
  EXPECT_NE(hf_error(moe).find("DeepseekV3ForCausalLM is a mixture of experts that is not lowered"), std::string::npos);
  nlohmann::json unknown = llama_like();
  unknown["attn_logit_softcapping"] = 50.0;
  EXPECT_NE(hf_error(unknown).find("field 'attn_logit_softcapping' is not known"), std::string::npos);
  nlohmann::json gelu = llama_like();
  gelu["hidden_act"] = "gelu";  // the exact GELU: the host computes the tanh form only
  EXPECT_NE(hf_error(gelu).find("'hidden_act' = \"gelu\""), std::string::npos);
  gelu["hidden_act"] = "gelu_pytorch_tanh";  // a Llama block with a gated GELU: GeGLU, three matrices
  const GptConfig geglu = hf_config_from_json(gelu, "c.json").config;
  EXPECT_EQ(geglu.activation, Activation::geglu);
  EXPECT_EQ(count_params(geglu).total(), count_params(hf_config_from_json(llama_like(), "c.json").config).total());
  nlohmann::json arch = llama_like();
  arch["architectures"] = {"FalconForCausalLM"};
  EXPECT_NE(hf_error(arch).find("FalconForCausalLM is not supported"), std::string::npos);
  nlohmann::json missing = llama_like();
  missing.erase("intermediate_size");
  EXPECT_NE(hf_error(missing).find("missing field 'intermediate_size'"), std::string::npos);
  EXPECT_EQ(hf_error(llama_like()), "");
}

// A file that is not JSON, or holds a number beyond a double (nlohmann-json's out_of_range, which a fuzz run found
// uncaught in the qa matmul shapes parser that reads the same way), is an error naming the file.
TEST(HfConfig, AFileThatIsNotJsonIsAnErrorNamingIt) {
  const std::string dir = ::testing::TempDir() + "/nanotrn_hf_bad";
  std::filesystem::create_directories(dir);
  for (const char* text : {"{\"hidden_size\": ", "{\"hidden_size\": 55555555555555E555555555555}"}) {
    const std::string path = dir + "/config.json";
    std::ofstream(path) << text;
    const std::string e = testing_support::error_message_of([&] { read_hf_config(path); });
    EXPECT_NE(e.find(path + ": not JSON"), std::string::npos) << e;
  }
}

// The host GPT builds every config the reader lowers, dense or a mixture of experts, with exactly the parameters the
// predictor counts (its numerics against PyTorch: tests/train/parity_test.cpp); Mixtral's router_aux_loss_coef is
// the load-balancing loss's weight.
TEST(HfConfig, TheHostGptBuildsEveryLoweredConfig) {
  Engine engine;
  Ctx ctx{engine};
  nlohmann::json qwen3 = llama_like();
  qwen3["architectures"] = {"Qwen3ForCausalLM"};
  nlohmann::json gpt2 = {
      {"architectures", {"GPT2LMHeadModel"}}, {"vocab_size", 500}, {"n_embd", 128}, {"n_layer", 2}, {"n_head", 4}};
  for (const nlohmann::json& j : {llama_like(), qwen3, gpt2}) {
    const GptConfig c = resolve(hf_config_from_json(j, "config.json").config);
    Gpt g(ctx, c, 1);
    int64_t total = 0;
    for (const Parameter& p : g.parameters()) total += p.value.numel();
    EXPECT_EQ(total, count_params(c).total()) << j.dump();
  }
  nlohmann::json mixtral = llama_like();
  mixtral["architectures"] = {"MixtralForCausalLM"};
  mixtral["num_local_experts"] = 4;
  mixtral["num_experts_per_tok"] = 2;
  mixtral["router_aux_loss_coef"] = 0.02;
  const GptConfig moe = resolve(hf_config_from_json(mixtral, "config.json").config);
  EXPECT_FLOAT_EQ(moe.moe_aux_loss, 0.02f);
  Gpt g(ctx, moe, 1);
  int64_t total = 0;
  for (const Parameter& p : g.parameters()) total += p.value.numel();
  EXPECT_EQ(total, count_params(moe).total());
}

}  // namespace
}  // namespace nanotrn::model
