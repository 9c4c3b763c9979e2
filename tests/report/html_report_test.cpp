// The run report's "What was run" section (report/html_report.h) on a metrics file written here: the parameter
// count equals model::count_params of the recipe, the settings that differ from nanotrn's defaults are exactly the
// overrides given, and the run's own header is shown as it printed it.
#include "report/html_report.h"

#include <gtest/gtest.h>

#include "model/config.h"
#include "recipe/recipe.h"
#include "report/page.h"

namespace nanotrn::report {
namespace {

TEST(HtmlReport, WhatWasRunShowsSizeOverridesAndHeader) {
  const recipe::Recipe r = recipe::default_recipe_with({"model.depth=3", "optim.kind=adamw", "batch.rows=6"});
  nlohmann::json start = {{"event", "start"},
                          {"recipe", recipe::recipe_to_json(r)},
                          {"step", 0},
                          {"header", "host: Test CPU (avx2 fma), 2 threads; <matmuls> f32"}};
  const std::string text = start.dump() + "\n" +
                           R"({"event":"step","step":1,"phase":0,"tokens":2048,"loss":5.5,"lr_multiplier":1,)"
                           R"("charged_seconds":1.5,"tokens_per_second":1365,"host_tokens_per_second":1365})" +
                           "\n" + R"({"event":"summary","steps":12345,"tokens":25282560,"charged_seconds":2.0})";
  ReportInputs in;
  in.title = "t";
  in.metrics = parse_run_metrics(text, "m.jsonl");
  const std::string page = run_report_html(in);
  const int64_t params = model::count_params(model::resolve(r.model)).total();
  EXPECT_NE(page.find(R"(data-key="run.params" data-value=")" + exact_number(static_cast<double>(params)) + "\""),
            std::string::npos);
  EXPECT_NE(page.find("batch.rows = 6; model.depth = 3; optim.kind = &quot;adamw&quot;"), std::string::npos) << page;
  EXPECT_NE(page.find("host: Test CPU (avx2 fma), 2 threads; &lt;matmuls&gt; f32"), std::string::npos);
  EXPECT_NE(page.find(">12,345<"), std::string::npos);  // separators in the big numbers
  EXPECT_NE(page.find(">25,282,560<"), std::string::npos);
  EXPECT_NE(page.find("depth 3, width"), std::string::npos);
  EXPECT_EQ(page.find("<h2>Samples</h2>"), std::string::npos);  // a train run folder has none
  in.stages = {{"prepare corpus", 1.25}, {"pretrain", 2.5}};
  in.samples = {"The <cat> sat"};
  const std::string job = run_report_html(in);
  EXPECT_NE(job.find(R"(data-key="stage.total" data-value="3.75")"), std::string::npos);
  EXPECT_NE(job.find("<pre>The &lt;cat&gt; sat</pre>"), std::string::npos);
}

}  // namespace
}  // namespace nanotrn::report
