// The top-kernels table of a predicted step: every kernel of the step is in exactly one line (the lines' times sum
// to the ops' times, micro-batch ops counted accum times), the layer prefix is merged away (one line per projection
// with one instance per layer), lines are largest first with share = time / step; the device comparison has one
// row per device.
#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "predict/predictor.h"
#include "predict/top_kernels.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {
namespace {

recipe::Recipe recipe() {
  return recipe::default_recipe_with({"model.depth=4", "model.model_dim=256", "model.head_dim=64", "batch.rows=8",
                                      "batch.seq_len=256", "model.vocab_size=4096"});
}

TEST(TopKernels, EveryKernelOfTheStepIsInOneLine) {
  const Prediction p = predict(recipe(), hw::builtin_catalog().find("trn2"));
  const StepTime& t = p.phases.back().time;
  double ops = 0;
  for (const TimedOp& op : t.micro_ops) ops += op.cost.seconds * static_cast<double>(t.accum);
  for (const TimedOp& op : t.optimizer_ops) ops += op.cost.seconds;
  const std::vector<KernelLine> lines = last_phase_kernels(p);
  ASSERT_FALSE(lines.empty());
  double sum = 0;
  for (size_t i = 0; i < lines.size(); i++) {
    sum += lines[i].seconds;
    if (i > 0) {
      EXPECT_GE(lines[i - 1].seconds, lines[i].seconds);
    }
    EXPECT_NEAR(lines[i].share, lines[i].seconds / t.step_s, 1e-12);
    EXPECT_FALSE(lines[i].label.size() > 1 && lines[i].label[0] == 'L' && std::isdigit(lines[i].label[1]))
        << lines[i].label;
    EXPECT_FALSE(lines[i].bound.verdict.empty());
  }
  EXPECT_NEAR(sum, ops, 1e-9 * ops);
  bool found = false;
  for (const KernelLine& l : lines) {
    if (l.label == "attn q" && l.pass == Pass::forward) {
      found = true;
      EXPECT_EQ(l.instances, 4);  // one per layer
      EXPECT_EQ(l.kernel, "matmul");
    }
  }
  EXPECT_TRUE(found);
  const nlohmann::json j = prediction_json(p, 3);
  ASSERT_EQ(j["top_kernels"].size(), 3u);
  EXPECT_EQ(j["top_kernels"][0]["label"], lines[0].label);
  EXPECT_EQ(j["top_kernels"][0]["bound"]["bound"], std::string(hw::bound_name(lines[0].bound)));
  EXPECT_NE(prediction_text(p, 3).find("top kernels of that step"), std::string::npos);
}

TEST(TopKernels, TheComparisonHasOneRowPerDevice) {
  const hw::Catalog c = hw::builtin_catalog();
  std::vector<Prediction> ps;
  for (const char* d : {"trn2", "trn3", "h100"}) ps.push_back(predict(recipe(), c.find(d)));
  const std::string s = comparison_text(ps);
  for (const Prediction& p : ps) {
    EXPECT_NE(s.find("\n" + p.device + " "), std::string::npos) << s;
    EXPECT_NE(s.find(" " + std::to_string(p.walk.steps) + "  "), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace nanotrn::predict
