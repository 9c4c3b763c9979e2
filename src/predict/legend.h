// `predict --explain`: what every line and column of predict's text output means, in one table that the output's
// own tests check against (tests/predict/legend_test.cpp: each column header and line label printed has an entry,
// and each entry names something printed).
//
//   for (const LegendEntry& e : prediction_legend()) ...   // {section, label, meaning}
//   std::cout << legend_text();
#pragma once

#include <string>
#include <vector>

namespace nanotrn::predict {

struct LegendEntry {
  std::string section;  // "lines", "phase table", "top kernels", "comparison", "sweep"
  std::string label;    // as printed: a line's first words or a column header
  std::string meaning;
};

const std::vector<LegendEntry>& prediction_legend();
std::string legend_text();

}  // namespace nanotrn::predict
