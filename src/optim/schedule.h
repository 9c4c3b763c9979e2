// Learning-rate, momentum and weight-decay schedules of the baseline family (recipe-spec §3.3), as pure functions
// of the step and of the progress p in [0, 1] (charged time / budget for time-budgeted runs, step / steps otherwise).
//
//   LrSchedule s{.warmup_steps = 0, .cooldown_fraction = 0.5, .final_lr_fraction = 0.0};   // autoresearch
//   double lrm = lr_multiplier(s, step, progress);                                         // times each group's lr
//   double mu = linear_ramp(0.85, 0.95, step, 300);                                         // Muon momentum warm-up
//
// lr_multiplier: (step + 1) / warmup_steps during the warm-up; 1 until p reaches 1 - cooldown_fraction; then linear
// from 1 down to final_lr_fraction at p = 1. With cooldown_levels = L > 0 the cool-down is stepped: the linear value
// rounded up to a multiple of 1 / (L + 1), never below final_lr_fraction (FrontierForge's 19-level cool-down is
// L = 19 with final 0.05). Not here: batch-size phases and the clock (the trainer owns them).
#pragma once

#include <cstdint>

namespace nanotrn {

struct LrSchedule {
  int64_t warmup_steps = 0;
  double cooldown_fraction = 0.5;
  double final_lr_fraction = 0.0;
  int cooldown_levels = 0;
};

double lr_multiplier(const LrSchedule& s, int64_t step, double progress);
// from + (to - from) * min(1, step / steps); `to` from the start when steps <= 0.
double linear_ramp(double from, double to, int64_t step, int64_t steps);

}  // namespace nanotrn
