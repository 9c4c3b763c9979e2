// The CORE scorer's shared-prefix forward against the plain one: every row run alone through the whole model, its
// cross-entropy and greedy argmax computed in double from those logits.
#include "icl/scorer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "base/file.h"
#include "base/rng.h"
#include "data/temp_dir.h"
#include "icl/core_eval.h"
#include "icl/prompts.h"
#include "icl/rows.h"
#include "support/tiny_gpt.h"
#include "tokenizer/bpe_train.h"

namespace nanotrn::icl {
namespace {

// The tiny test model with blocks that change the stream at init (the recipe's zero-initialised projections would
// make every block, and so the attention the scorer's caches feed, a no-op) and logits far from uniform.
model::GptConfig tiny() {
  model::GptConfig c = testing_support::tiny_gpt_config();
  c.init.attn_proj = c.init.mlp_proj = 1.0f;
  c.init.lm_head_std = 0.5f;
  return c;
}

std::vector<int32_t> random_tokens(size_t n, uint64_t stream) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(random_u32(11, stream, i) % 97u);
  return v;
}

struct Plain {
  std::vector<double> losses;
  bool all_hit = true;
};

// The obvious way: one full forward per row.
Plain plain_score(Ctx& ctx, model::Gpt& gpt, const ScoredRows& r) {
  Plain p;
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto T = static_cast<int64_t>(r.rows[i].size());
    const std::vector<float> z = gpt.logits(ctx, Tensor::from_ints({1, T}, r.rows[i])).to_vector();
    const int64_t V = gpt.config().vocab_size;
    double sum = 0.0;
    for (int64_t pos = r.start[i] - 1; pos <= r.end[i] - 2; ++pos) {
      const float* row = z.data() + pos * V;
      const int32_t target = r.rows[i][static_cast<size_t>(pos + 1)];
      double m = row[0];
      int64_t best = 0;
      for (int64_t j = 1; j < V; ++j) {
        if (row[j] > row[best]) best = j;
        m = std::max(m, static_cast<double>(row[j]));
      }
      double s = 0.0;
      for (int64_t j = 0; j < V; ++j) s += std::exp(static_cast<double>(row[j]) - m);
      sum += m + std::log(s) - row[target];
      p.all_hit = p.all_hit && best == target;
    }
    p.losses.push_back(sum / static_cast<double>(r.end[i] - r.start[i]));
  }
  return p;
}

TEST(Scorer, SharedPrefixMatchesOneFullForwardPerRow) {
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, tiny(), 3);
  Scorer scorer(ctx, gpt);
  // multiple choice: a 40-token shared context, answers of 1, 5 and 9 tokens
  const std::vector<int32_t> prefix = random_tokens(40, 1);
  ScoredRows mc;
  for (size_t len : {1u, 5u, 9u}) {
    std::vector<int32_t> row = prefix;
    for (int32_t t : random_tokens(len, 100 + len)) row.push_back(t);
    mc.start.push_back(40);
    mc.end.push_back(static_cast<int64_t>(row.size()));
    mc.rows.push_back(row);
  }
  const Plain want = plain_score(ctx, gpt, mc);
  for (int64_t gold = 0; gold < 3; ++gold) {
    const ExampleScore got = scorer.score(TaskType::multiple_choice, mc, gold);
    ASSERT_EQ(got.losses.size(), 3u);
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(got.losses[i], want.losses[i], 2e-5) << i;
    const size_t best =
        static_cast<size_t>(std::min_element(want.losses.begin(), want.losses.end()) - want.losses.begin());
    EXPECT_EQ(got.correct, static_cast<int64_t>(best) == gold);
    EXPECT_EQ(got.tokens, 40 + 0 + 4 + 8);  // the prefix once, then each answer but its last token
  }
  // schema: different contexts of different lengths, a shared 6-token continuation
  ScoredRows sc;
  const std::vector<int32_t> cont = random_tokens(6, 7);
  for (size_t len : {12u, 20u}) {
    std::vector<int32_t> row = {5};
    for (int32_t t : random_tokens(len, 200 + len)) row.push_back(t);
    row.insert(row.end(), cont.begin(), cont.end());
    sc.start.push_back(static_cast<int64_t>(row.size()) - 6);
    sc.end.push_back(static_cast<int64_t>(row.size()));
    sc.rows.push_back(row);
  }
  const Plain ws = plain_score(ctx, gpt, sc);
  const ExampleScore gs = scorer.score(TaskType::schema, sc, 1);
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(gs.losses[i], ws.losses[i], 2e-5);
  EXPECT_EQ(gs.correct, ws.losses[1] < ws.losses[0]);
  // rows that share nothing (cropped differently): no cache at all
  ScoredRows none = sc;
  none.rows[1][0] = 6;
  const Plain wn = plain_score(ctx, gpt, none);
  const ExampleScore gn = scorer.score(TaskType::schema, none, 0);
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(gn.losses[i], wn.losses[i], 2e-5);
}

// Many choices run in passes of a few rows each (memory bounded by the pass, not by the choices) and score as the
// plain forward per row does; one pass and many agree.
TEST(Scorer, ManyChoicesRunInBoundedPasses) {
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, tiny(), 3);
  const std::vector<int32_t> prefix = random_tokens(24, 2);
  ScoredRows mc;
  for (size_t c = 0; c < 23; ++c) {
    std::vector<int32_t> row = prefix;
    for (int32_t t : random_tokens(1 + c % 5, 300 + c)) row.push_back(t);
    mc.start.push_back(24);
    mc.end.push_back(static_cast<int64_t>(row.size()));
    mc.rows.push_back(row);
  }
  Scorer one(ctx, gpt);
  Scorer small(ctx, gpt, /*pass_bytes=*/1.0);  // one row per pass
  EXPECT_EQ(one.rows_per_pass(23, 24, 4, 0), 23);
  EXPECT_EQ(small.rows_per_pass(23, 24, 4, 0), 1);
  Scorer some(ctx, gpt, 200e3);  // about 44 kB a row here: passes of a few rows
  const int64_t k = some.rows_per_pass(23, 24, 4, 0);
  EXPECT_GT(k, 1);
  EXPECT_LT(k, 23);
  const Plain want = plain_score(ctx, gpt, mc);
  for (Scorer* s : {&one, &small, &some}) {
    const ExampleScore got = s->score(TaskType::multiple_choice, mc, 7);
    ASSERT_EQ(got.losses.size(), 23u);
    for (size_t i = 0; i < 23; ++i) EXPECT_NEAR(got.losses[i], want.losses[i], 2e-5) << i;
    const size_t best =
        static_cast<size_t>(std::min_element(want.losses.begin(), want.losses.end()) - want.losses.begin());
    EXPECT_EQ(got.correct, best == 7u);
  }
}

TEST(Scorer, LanguageModellingNeedsEveryGreedyToken) {
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, tiny(), 4);
  Scorer scorer(ctx, gpt);
  // The model's own greedy continuation of a context is an exact match; one changed token is not.
  std::vector<int32_t> row = random_tokens(30, 9);
  for (int k = 0; k < 4; ++k) {
    const auto T = static_cast<int64_t>(row.size());
    const std::vector<float> z = gpt.logits(ctx, Tensor::from_ints({1, T}, row)).to_vector();
    const float* last = z.data() + (T - 1) * 97;
    row.push_back(static_cast<int32_t>(std::max_element(last, last + 97) - last));
  }
  ScoredRows lm{{row}, {30}, {34}};
  EXPECT_TRUE(scorer.score(TaskType::language_modeling, lm, 0).correct);
  EXPECT_TRUE(plain_score(ctx, gpt, lm).all_hit);
  lm.rows[0][32] = (lm.rows[0][32] + 1) % 97;
  EXPECT_FALSE(scorer.score(TaskType::language_modeling, lm, 0).correct);
  EXPECT_TRUE(scorer.score(TaskType::language_modeling, lm, 0).losses.empty());
}

TEST(Scorer, AnEmptySpanIsNanAndPythonsMinKeepsTheFirst) {
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, tiny(), 5);
  Scorer scorer(ctx, gpt);
  // Option 0 is a token prefix of option 1: its span is empty (start == end), its mean NaN. Python's min() keeps a
  // NaN that comes first, so the prediction is 0 whatever option 1 scores.
  const std::vector<int32_t> base = random_tokens(10, 3);
  std::vector<int32_t> longer = base;
  longer.push_back(4);
  const ScoredRows r{{base, longer}, {10, 10}, {10, 11}};
  const ExampleScore s = scorer.score(TaskType::multiple_choice, r, 0);
  EXPECT_TRUE(std::isnan(s.losses[0]));
  EXPECT_FALSE(std::isnan(s.losses[1]));
  EXPECT_TRUE(s.correct);
  EXPECT_FALSE(scorer.score(TaskType::multiple_choice, r, 1).correct);
  // NaN second: never smaller, so the first row is chosen.
  const ScoredRows flipped{{longer, base}, {10, 10}, {11, 10}};
  EXPECT_TRUE(scorer.score(TaskType::multiple_choice, flipped, 0).correct);
}

void write_text(const std::string& path, const std::string& s) { write_file_atomic(path, s.data(), s.size()); }

TEST(CoreEval, RanksSplitTheExamplesAndCombineExactly) {
  data::testing::TempDir dir;
  std::filesystem::create_directories(dir / "b/eval_data/t");
  write_text(dir / "b/core.yaml",
             "icl_tasks:\n- label: mc\n  dataset_uri: t/mc.jsonl\n  num_fewshot: [2]\n  icl_task_type: "
             "multiple_choice\n- label: lm\n  dataset_uri: t/lm.jsonl\n  num_fewshot: [1]\n  icl_task_type: "
             "language_modeling\n");
  write_text(dir / "b/eval_meta_data.csv",
             "Eval Task,Task Category,Task Type,#shots,#datapoints,Random baseline,Centered Metric?,Description\n"
             "mc,x,mc,2,9,25,,\nlm,x,lm,1,7,0,,\n");
  std::string mc, lm;
  const char* words[] = {"cat", "dog", "mat", "log", "sat", "ran", "the", "one", "two"};
  for (int i = 0; i < 9; ++i) {
    mc += std::string("{\"query\": \"the ") + words[i] + " sat on the\", \"choices\": [\"mat\", \"log\", \"dog\"], " +
          "\"gold\": " + std::to_string(i % 3) + "}\n";
  }
  for (int i = 0; i < 7; ++i) {
    lm += std::string("{\"context\": \"one plus ") + words[i] + " is\", \"continuation\": \"two\"}\n";
  }
  write_text(dir / "b/eval_data/t/mc.jsonl", mc);
  write_text(dir / "b/eval_data/t/lm.jsonl", lm);
  const Bundle bundle = read_bundle(dir / "b");

  const std::vector<std::string> texts = {mc, lm,
                                          "the cat sat on the mat. the dog sat on the log. one plus one is two"};
  std::vector<std::string_view> views(texts.begin(), texts.end());
  tokenizer::BpeTrainOptions o;
  o.vocab_size = 300;
  const tokenizer::Tokenizer tok(tokenizer::train_bpe(views, o));
  model::GptConfig c = tiny();
  c.vocab_size = 300;
  Engine engine;
  Ctx ctx{engine};
  model::Gpt gpt(ctx, model::resolve(c), 6);

  CoreOptions all;
  all.max_len = 64;
  all.keep_examples = true;
  const CoreResult whole = evaluate_core(ctx, gpt, tok, bundle, all);
  ASSERT_EQ(whole.tasks.size(), 2u);
  EXPECT_EQ(whole.tasks[0].examples, 9);
  std::vector<CoreResult> parts;
  for (int64_t r = 0; r < 3; ++r) {
    CoreOptions o3 = all;
    o3.rank = r;
    o3.world = 3;
    o3.threads = 1;
    parts.push_back(evaluate_core(ctx, gpt, tok, bundle, o3));
    EXPECT_EQ(parts.back().tasks[0].records.size(), 3u);  // examples r, r + 3, r + 6
    EXPECT_EQ(parts.back().tasks[0].records[1].index, r + 3);
  }
  const CoreResult joined = combine_ranks(parts);
  for (size_t t = 0; t < 2; ++t) {
    EXPECT_EQ(joined.tasks[t].correct, whole.tasks[t].correct);
    EXPECT_EQ(joined.tasks[t].accuracy, whole.tasks[t].accuracy);  // exact: integer counts over the same total
    EXPECT_EQ(joined.tasks[t].centered, whole.tasks[t].centered);
  }
  EXPECT_EQ(joined.core, whole.core);
  // the workers' results are the serial ones, example by example
  CoreOptions one = all;
  one.threads = 1;
  const CoreResult serial = evaluate_core(ctx, gpt, tok, bundle, one);
  for (size_t t = 0; t < 2; ++t) {
    for (size_t k = 0; k < serial.tasks[t].records.size(); ++k) {
      EXPECT_EQ(serial.tasks[t].records[k].rows.rows, whole.tasks[t].records[k].rows.rows);
      EXPECT_EQ(serial.tasks[t].records[k].correct, whole.tasks[t].records[k].correct);
      for (size_t i = 0; i < serial.tasks[t].records[k].losses.size(); ++i) {
        EXPECT_NEAR(serial.tasks[t].records[k].losses[i], whole.tasks[t].records[k].losses[i], 1e-5);
      }
    }
  }
  // An answer as long as the model's length cannot be predicted from anything: such examples are scored as wrong and
  // counted, and the evaluation goes on (one of them ended all of CORE before).
  std::filesystem::create_directories(dir / "b2/eval_data");
  write_text(dir / "b2/core.yaml",
             "icl_tasks:\n- label: long\n  dataset_uri: long.jsonl\n  num_fewshot: [0]\n  icl_task_type: "
             "language_modeling\n");
  write_text(dir / "b2/eval_meta_data.csv", "Eval Task,Random baseline\nlong,0\n");
  write_text(dir / "b2/eval_data/long.jsonl",
             "{\"context\": \"one plus one is\", \"continuation\": \"two\"}\n"
             "{\"context\": \"one\", \"continuation\": \"plus one is two. the cat sat on the mat. the dog\"}\n"
             "{\"context\": \"the cat\", \"continuation\": \"sat\"}\n");
  const Bundle b2 = read_bundle(dir / "b2");
  CoreOptions tight = all;
  tight.max_len = 6;
  const std::vector<Example> ex = read_task_examples(b2, b2.tasks[0]);
  std::vector<bool> fits;
  for (size_t i = 0; i < ex.size(); ++i) {
    const Prompts p = render_prompts(b2.tasks[0], ex, i, {});
    const ScoredRows r = tokenize_prompts(TaskType::language_modeling, p, tok, 1024, "x");
    fits.push_back(r.end[0] - r.start[0] + 1 <= tight.max_len);  // span tokens need span + 1 positions
  }
  ASSERT_EQ(fits, (std::vector<bool>{true, false, true}));  // the long answer alone does not fit
  const CoreResult cut = evaluate_core(ctx, gpt, tok, b2, tight);
  EXPECT_EQ(cut.tasks[0].examples, 3);
  EXPECT_EQ(cut.tasks[0].beyond_context, 1);
  EXPECT_FALSE(cut.tasks[0].records[1].correct);
  EXPECT_EQ(core_json(cut, false)["tasks"][0]["beyond_context"], 1);
}

}  // namespace
}  // namespace nanotrn::icl
