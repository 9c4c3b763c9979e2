// Schedules. See schedule.h.
#include "optim/schedule.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/error.h"

namespace nanotrn {

double lr_multiplier(const LrSchedule& s, int64_t step, double progress) {
  check(s.cooldown_fraction >= 0.0 && s.cooldown_fraction <= 1.0,
        "LrSchedule: cooldown_fraction must be in [0, 1], got " + std::to_string(s.cooldown_fraction));
  check(s.final_lr_fraction >= 0.0 && s.final_lr_fraction <= 1.0,
        "LrSchedule: final_lr_fraction must be in [0, 1], got " + std::to_string(s.final_lr_fraction));
  check(s.warmup_steps >= 0 && s.cooldown_levels >= 0, "LrSchedule: warmup_steps and cooldown_levels must be >= 0");
  if (step < s.warmup_steps) return static_cast<double>(step + 1) / static_cast<double>(s.warmup_steps);
  const double p = std::clamp(progress, 0.0, 1.0);
  if (s.cooldown_fraction <= 0.0 || p < 1.0 - s.cooldown_fraction) return 1.0;
  const double frac = (1.0 - p) / s.cooldown_fraction;  // 1 at the start of the cool-down, 0 at the end
  double lrm = s.final_lr_fraction + (1.0 - s.final_lr_fraction) * frac;
  if (s.cooldown_levels > 0) {
    const double q = static_cast<double>(s.cooldown_levels + 1);
    lrm = std::max(s.final_lr_fraction, std::ceil(lrm * q - 1e-12) / q);
  }
  return lrm;
}

double linear_ramp(double from, double to, int64_t step, int64_t steps) {
  if (steps <= 0) return to;
  const double f = std::clamp(static_cast<double>(step) / static_cast<double>(steps), 0.0, 1.0);
  return from + (to - from) * f;
}

}  // namespace nanotrn
