// libFuzzer target: a run's metrics.jsonl (src/report/run_metrics.h) and the charts drawn from it (svg_chart.h).
// Either the input parses, its steps are strictly increasing, every curve has one point per step (val_bpb: per eval,
// plus the summary's), and every curve draws as an SVG whose data-points hold exactly its finite points; or it
// throws nanotrn::Error. Any other exception escapes and fails the run. Built and run by scripts/fuzz.sh.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/error.h"
#include "report/run_metrics.h"
#include "report/svg_chart.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nanotrn::report;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const RunMetrics m = parse_run_metrics(text, "fuzz.jsonl");
    if (!m.recipe.is_object()) __builtin_trap();
    for (size_t i = 1; i < m.steps.size(); i++) {
      if (m.steps[i].step <= m.steps[i - 1].step) __builtin_trap();
    }
    for (Metric y : {Metric::loss, Metric::muon_momentum, Metric::peak_fraction, Metric::val_bpb}) {
      for (XAxis x : {XAxis::step, XAxis::charged_seconds}) {
        const auto p = metric_points(m, y, x);
        if (y != Metric::val_bpb && p.size() != m.steps.size()) __builtin_trap();
        LineChart c{.id = metric_name(y), .title = "t", .x_label = "x", .y_label = "y"};
        c.series.push_back({"s", p});
        size_t finite = 0;
        for (const auto& [a, b] : p) finite += std::isfinite(a) && std::isfinite(b) ? 1 : 0;
        try {
          const std::string svg = line_chart_svg(c);
          const size_t at = svg.find("data-points=\"");
          if (at == std::string::npos) __builtin_trap();
          const std::string points = svg.substr(at + 13, svg.find('"', at + 13) - at - 13);
          size_t n = points.empty() ? 0 : 1;
          for (char ch : points) n += ch == ' ' ? 1 : 0;
          if (n != finite) __builtin_trap();
        } catch (const nanotrn::Error&) {  // a range no double can span is refused, by name
        }
      }
    }
  } catch (const nanotrn::Error&) {
  }
  return 0;
}
