// The model zoo's table (qa/models_qa.h): the scaled-down instance keeps the architecture of the config (each block
// feature, the GQA group, the MLP's ratio to the width) and has exactly the parameters model::count_params gives it;
// a folder with a dense config, a mixture of experts, a malformed file and an unknown architecture gives one row each:
// read or refused with the reader's reason, priced or refused by the predictor, as markdown, HTML and CSV; on the host
// the dense instance and the mixture of experts pass their central-difference gradient checks and train.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "base/error.h"
#include "data/temp_dir.h"
#include "model/gpt.h"
#include "model/hf_config.h"
#include "qa/models_qa.h"

namespace nanotrn::qa {
namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

const char* kQwen3 = R"({"architectures": ["Qwen3ForCausalLM"], "vocab_size": 1000, "hidden_size": 256,
  "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "head_dim": 32,
  "intermediate_size": 768, "tie_word_embeddings": true})";

const char* kMixtral = R"({"architectures": ["MixtralForCausalLM"], "vocab_size": 1000, "hidden_size": 128,
  "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 256, "num_local_experts": 4,
  "num_experts_per_tok": 2})";

TEST(ModelsQa, TheScaledDownInstanceKeepsTheArchitecture) {
  model::HfModel hf = model::hf_config_from_json(nlohmann::json::parse(kQwen3), "qwen3.json");
  hf.config.window = 4096;
  hf.config.window_pattern = "SL";
  const model::GptConfig s = scaled_down(hf.config);
  EXPECT_EQ(s.activation, model::Activation::swiglu);
  EXPECT_TRUE(s.norm_weights && s.tie_embeddings && s.qk_norm);
  EXPECT_EQ(s.window_pattern, "SL");
  EXPECT_EQ(s.window, 8);
  EXPECT_EQ(s.n_head / s.n_kv_head, 4);     // the config's GQA group of 4
  EXPECT_EQ(s.mlp_hidden, 768 * 64 / 256);  // the MLP's ratio to the width, at width 64
  EXPECT_EQ(s.model_dim, 64);
  Engine engine;
  Ctx ctx{engine};
  const model::Gpt gpt(ctx, s, 1);
  int64_t total = 0;
  for (const model::Parameter& p : gpt.parameters()) total += p.value.numel();
  EXPECT_EQ(total, model::count_params(s).total());
}

TEST(ModelsQa, EveryConfigGetsARowWithItsReasons) {
  data::testing::TempDir dir;
  write(dir / "a-qwen3.json", kQwen3);
  write(dir / "b-mixtral.json", kMixtral);
  write(dir / "c-broken.json", "{\"architectures\": [\"LlamaForCausalLM\"], ");
  write(dir / "d-unknown.json", R"({"architectures": ["MambaForCausalLM"], "vocab_size": 10})");
  write(dir / "notes.txt", "not a config");
  const std::vector<std::string> files = config_files(dir.str());
  ASSERT_EQ(files.size(), 4u);
  ModelsQaOptions o;
  o.launch.batch.rows = 2;
  o.launch.batch.seq_len = 128;
  o.launch_name = "a small launch";
  o.devices = {"trn2"};
  o.host_steps = 20;
  Engine engine;
  const std::vector<ModelsQaRow> rows = run_models_qa(files, o, engine);
  ASSERT_EQ(rows.size(), 4u);

  const ModelsQaRow& qwen = rows[0];
  EXPECT_TRUE(qwen.read);
  EXPECT_EQ(qwen.architecture, "Qwen3ForCausalLM");
  ASSERT_EQ(qwen.prices.size(), 1u);
  EXPECT_TRUE(qwen.prices[0].fits) << qwen.prices[0].refusal;
  EXPECT_GT(qwen.prices[0].kernel_share, 0.0);
  EXPECT_LE(qwen.prices[0].kernel_share, 1.0);
  EXPECT_TRUE(qwen.host_built);
  EXPECT_TRUE(qwen.gradient_ok()) << qwen.gradient_error;
  EXPECT_TRUE(qwen.trains) << qwen.first_loss << " -> " << qwen.last_loss;
  EXPECT_EQ(qwen.parity_test, "LlamaBlockSwigluTiedHeadAndAlternatingWindows");

  const ModelsQaRow& mixtral = rows[1];
  EXPECT_TRUE(mixtral.read);
  EXPECT_TRUE(mixtral.host_built);
  EXPECT_TRUE(mixtral.gradient_ok()) << mixtral.gradient_error;
  EXPECT_TRUE(mixtral.trains) << mixtral.first_loss << " -> " << mixtral.last_loss;
  EXPECT_EQ(mixtral.parity_test, "MixtureOfExpertsTopTwoWithTheLoadBalancingLoss");

  EXPECT_FALSE(rows[2].read);
  EXPECT_NE(rows[2].refusal.find("c-broken.json"), std::string::npos) << rows[2].refusal;
  EXPECT_EQ(rows[2].architecture, "");  // unreadable: no class of its own beyond "(unreadable)"
  EXPECT_FALSE(rows[3].read);
  EXPECT_EQ(rows[3].architecture, "MambaForCausalLM");
  EXPECT_NE(rows[3].refusal.find("not supported"), std::string::npos) << rows[3].refusal;

  const std::string md = models_qa_markdown(rows, o);
  EXPECT_NE(md.find("| Qwen3ForCausalLM | 1 | 100% | 100% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| MambaForCausalLM | 1 | 0% | 0% |"), std::string::npos) << md;
  EXPECT_NE(md.find("| (unreadable) | 1 | 0% |"), std::string::npos) << md;
  // The page: the same tables as cells.
  const std::string page = models_qa_html(rows, o);
  EXPECT_NE(page.find("<td>Qwen3ForCausalLM</td><td>1</td><td>100%</td><td>100%</td>"), std::string::npos);
  // The CSV: a header and one line per (config, device); refusals quoted.
  const std::string csv = models_qa_csv(rows);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 5);
}

TEST(ModelsQa, AFolderWithoutConfigsIsAnErrorNamingIt) {
  data::testing::TempDir dir;
  try {
    config_files(dir.str());
    FAIL() << "an empty folder was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.str()), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nanotrn::qa
