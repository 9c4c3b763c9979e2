// The binding engine of a kernel. See bound.h.
#include "hw/bound.h"

#include <cmath>

#include "base/error.h"
#include "base/format.h"

namespace nanotrn::hw {

BoundVerdict classify_bound(const EngineUse& use, double seconds, double flops, double bytes, double peak_flops,
                            double bytes_per_s) {
  check(seconds > 0 && std::isfinite(seconds), "classify_bound: the kernel's time must be positive");
  check(peak_flops > 0 && bytes_per_s > 0, "classify_bound: peak FLOP/s and bytes/s must be positive");
  BoundVerdict v;
  for (int i = 0; i < kEngineCount; i++) {
    const double u = use.busy_s[static_cast<size_t>(i)] / seconds;
    if (u > v.utilisation) {
      v.utilisation = u;
      v.busiest = static_cast<Engine>(i);
    }
  }
  if (v.utilisation >= kBoundThreshold) v.bound = v.busiest;
  v.intensity = bytes > 0 ? flops / bytes : INFINITY;
  v.ridge = peak_flops / bytes_per_s;
  const std::string side = std::string(v.intensity >= v.ridge ? "compute" : "memory") + " side of the roofline";
  const std::string ai = std::isfinite(v.intensity) ? format_number("%.3g", v.intensity) : std::string("inf");
  const std::string against =
      "intensity " + ai + " FLOP/B vs ridge " + format_number("%.3g", v.ridge) + " (" + side + ")";
  const std::string pct = format_number("%.0f%%", 100.0 * v.utilisation);
  const std::string busiest(engine_name(v.busiest));
  if (!v.bound) {
    v.verdict = "stall-bound: the busiest engine (" + busiest + ") is at " + pct +
                "; waits between engines and fixed latencies set the time; " + against;
    return v;
  }
  switch (*v.bound) {
    case Engine::tensor:
      v.verdict = "TensorE-bound: TensorE busy " + pct + "; " + against;
      break;
    case Engine::dma:
      v.verdict = "DMA-bound: " + pct + " of peak DMA bandwidth; " + against;
      break;
    case Engine::vector:
    case Engine::scalar:
    case Engine::gpsimd:
      v.verdict = busiest + "-bound: " + busiest + " busy " + pct + ", element-wise work sets the time; " + against;
      break;
  }
  return v;
}

std::string_view bound_name(const BoundVerdict& v) { return v.bound ? engine_name(*v.bound) : "stalls"; }

nlohmann::json bound_json(const BoundVerdict& v) {
  return {{"bound", bound_name(v)},
          {"busiest", engine_name(v.busiest)},
          {"utilisation", v.utilisation},
          {"intensity", std::isfinite(v.intensity) ? nlohmann::json(v.intensity) : nlohmann::json(nullptr)},
          {"ridge", v.ridge},
          {"verdict", v.verdict}};
}

}  // namespace nanotrn::hw
