// predict --explain (predict/legend.h) against predict's own output: every column header printed is made of legend
// labels and nothing else, and every line label the legend explains is printed (so neither drifts from the other).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "predict/legend.h"
#include "predict/predictor.h"
#include "recipe/recipe.h"
#include "support/source_path.h"

namespace nanotrn::predict {
namespace {

// `header` with the legend's labels of `section` removed (longest first, whole words only): spaces when the header
// is exactly those labels.
std::string strip_labels(std::string header, const std::string& section) {
  std::vector<std::string> labels;
  for (const LegendEntry& e : prediction_legend()) {
    if (e.section == section) labels.push_back(e.label);
  }
  std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  for (const std::string& l : labels) {
    size_t found = 0;
    for (size_t at = header.find(l); at != std::string::npos; at = header.find(l, at + 1)) {
      const bool starts = at == 0 || header[at - 1] == ' ';
      const bool ends = at + l.size() == header.size() || header[at + l.size()] == ' ';
      if (!starts || !ends) continue;
      header.replace(at, l.size(), std::string(l.size(), ' '));
      found++;
    }
    EXPECT_GT(found, 0u) << section << ": the legend's '" << l << "' is not in the header";
  }
  return header;
}

std::string line_after(const std::string& text, const std::string& start) {
  const size_t at = text.find(start);
  if (at == std::string::npos) return "";
  const size_t from = text.find('\n', at) + 1;
  return text.substr(from, text.find('\n', from) - from);
}

std::string line_starting(const std::string& text, const std::string& start) {
  const size_t at = text.find("\n" + start);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

TEST(PredictLegend, ExplainsExactlyWhatIsPrinted) {
  const recipe::Recipe r = recipe::load_recipe(testing_support::source_path("recipes/autoresearch-d8.json"));
  const hw::Catalog c = hw::builtin_catalog();
  const Prediction p = predict(r, c.find("trn2"), PredictOptions{.tokens = 1000000000});
  const std::string text = prediction_text(p);
  const std::string phase_header = line_starting(text, "phase ");
  ASSERT_FALSE(phase_header.empty()) << text;
  EXPECT_EQ(strip_labels(phase_header, "phase table").find_first_not_of(' '), std::string::npos) << phase_header;
  const std::string kernel_header = line_after(text, "top kernels of that step");
  EXPECT_EQ(strip_labels(kernel_header, "top kernels").find_first_not_of(' '), std::string::npos) << kernel_header;
  const std::string cmp = comparison_text({p, predict(r, c.find("trn1"))});
  const std::string cmp_header = line_after(cmp, "compare ");
  EXPECT_EQ(strip_labels(cmp_header, "comparison").find_first_not_of(' '), std::string::npos) << cmp_header;
  for (const LegendEntry& e : prediction_legend()) {
    if (e.section != "lines" || (e.label == "data:" && !p.epochs.known)) continue;  // data: needs data.train's shards
    EXPECT_FALSE(line_starting(text, e.label).empty()) << "the legend explains '" << e.label << "', not printed";
    EXPECT_FALSE(e.meaning.empty());
  }
  EXPECT_NE(legend_text().find("comparison:\n"), std::string::npos);
}

}  // namespace
}  // namespace nanotrn::predict
