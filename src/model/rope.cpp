// Rotary frequencies. See rope.h.
#include "model/rope.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nanotrn::model {
namespace {

void scale_llama3(std::vector<double>& f, const RopeScaling& s) {
  const double L = static_cast<double>(s.original_max_positions);
  const double low_wavelen = L / s.low_freq_factor, high_wavelen = L / s.high_freq_factor;
  for (double& x : f) {
    const double wavelen = 2.0 * std::numbers::pi / x;
    if (wavelen > low_wavelen) {
      x /= s.factor;
    } else if (wavelen >= high_wavelen) {
      const double smooth = (L / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
      x = (1.0 - smooth) * x / s.factor + smooth * x;
    }
  }
}

double scale_yarn(std::vector<double>& f, const RopeScaling& s, double base, int64_t R) {
  const double L = static_cast<double>(s.original_max_positions), dim = static_cast<double>(R);
  const auto correction_dim = [&](double rotations) {
    return dim * std::log(L / (rotations * 2.0 * std::numbers::pi)) / (2.0 * std::log(base));
  };
  double low = correction_dim(s.beta_fast), high = correction_dim(s.beta_slow);
  if (s.truncate) {
    low = std::floor(low);
    high = std::ceil(high);
  }
  low = std::max(low, 0.0);
  high = std::min(high, dim - 1.0);
  if (low == high) high += 0.001;  // as Hugging Face's: no zero-width ramp
  for (size_t j = 0; j < f.size(); ++j) {
    const double ramp = std::clamp((static_cast<double>(j) - low) / (high - low), 0.0, 1.0);
    const double extrapolation = 1.0 - ramp;
    f[j] = f[j] / s.factor * (1.0 - extrapolation) + f[j] * extrapolation;
  }
  return s.attention_factor > 0 ? s.attention_factor : (s.factor > 1.0 ? 0.1 * std::log(s.factor) + 1.0 : 1.0);
}

}  // namespace

RotaryFrequencies rotary_frequencies(const GptConfig& c, int64_t R) {
  RotaryFrequencies out;
  for (int64_t j = 0; j < R / 2; ++j)
    out.inv_freq.push_back(std::pow(c.rotary_base, -2.0 * static_cast<double>(j) / static_cast<double>(R)));
  if (c.rope_scaling.kind == RopeScalingKind::llama3) scale_llama3(out.inv_freq, c.rope_scaling);
  if (c.rope_scaling.kind == RopeScalingKind::yarn)
    out.magnitude = scale_yarn(out.inv_freq, c.rope_scaling, c.rotary_base, R);
  return out;
}

}  // namespace nanotrn::model
