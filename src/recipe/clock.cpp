// Clocks. See clock.h.
#include "recipe/clock.h"

#include "base/error.h"

namespace nanotrn::recipe {

std::string WallClock::rule() const {
  return "charged time = host wall time of data loading, forward, backward and optimiser steps; evaluation, "
         "checkpoint writing and logging are not charged";
}

std::string FixedClock::rule() const {
  return "charged time = " + std::to_string(seconds_) +
         " s per micro-batch (a fixed, deterministic clock); the host wall time is reported beside it";
}

double FixedClock::charge(const StepInfo& step, double) { return seconds_ * static_cast<double>(step.accum); }

std::unique_ptr<Clock> make_clock(const std::string& spec) {
  if (spec == "wall") return std::make_unique<WallClock>();
  if (spec.rfind("fixed:", 0) == 0) {
    double s = 0.0;
    try {
      s = std::stod(spec.substr(6));
    } catch (const std::exception&) {
      s = -1.0;
    }
    check(s > 0.0, "clock '" + spec + "': fixed:<seconds per micro-batch> needs a positive number");
    return std::make_unique<FixedClock>(s);
  }
  throw Error("unknown clock '" + spec +
              "' (known: wall, fixed:<seconds>; device clocks such as trn2 come with "
              "the predictor)");
}

}  // namespace nanotrn::recipe
