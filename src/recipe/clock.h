// The trainer's clock: what one training step costs against the budget ("charged time").
//
//   WallClock wall;                                   // charges the host's wall time of the step
//   double charged = clock.charge(step_info, wall_s); // per step; the trainer sums these
//
// The trainer measures the wall time of everything it charges (data, forward, backward, optimiser; not evaluation
// or checkpoint writing) and asks the clock how much of the budget the step used. A modelled-device clock (issue 6:
// `--clock trn2`) implements the same interface and charges the predicted device time of the step instead, from
// the step's shape; FixedClock charges a constant and makes runs deterministic (tests, rehearsals).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace nanotrn::recipe {

// What the clock may price a step by.
struct StepInfo {
  int64_t step = 0;
  int64_t phase = 0;  // index into recipe.batch.phases
  int64_t accum = 1;  // micro-batches in this step
  int64_t rows = 0;   // rows per micro-batch
  int64_t seq_len = 0;
  int64_t tokens = 0;  // accum * rows * seq_len
  int mtp_heads = 1;   // cross-entropy heads with a non-zero weight in this step (budget.h: NextStep::mtp_heads)
};

class Clock {
 public:
  virtual ~Clock() = default;
  virtual std::string name() const = 0;
  // One line for the run header: what is charged and what is not.
  virtual std::string rule() const = 0;
  // Seconds of budget the step used, given the host wall time it took.
  virtual double charge(const StepInfo& step, double wall_seconds) = 0;
  // Seconds charged before the first step of a fresh run (a modelled device's compile time); 0 by default.
  virtual double startup_charge() const { return 0.0; }
  // The peak FLOP/s that an MFU of charged time is taken against: the modelled device's for a device clock; 0 for
  // clocks that charge host time (the trainer then uses the host's measured arithmetic peak).
  virtual double peak_flops() const { return 0.0; }
};

class WallClock final : public Clock {
 public:
  std::string name() const override { return "wall"; }
  std::string rule() const override;
  double charge(const StepInfo&, double wall_seconds) override { return wall_seconds; }
};

class FixedClock final : public Clock {
 public:
  explicit FixedClock(double seconds_per_step) : seconds_(seconds_per_step) {}
  std::string name() const override { return "fixed"; }
  std::string rule() const override;
  double charge(const StepInfo& step, double) override;

 private:
  double seconds_;
};

// "wall", or "fixed:<seconds per micro-batch>"; device names are added by the predictor (issue 6).
std::unique_ptr<Clock> make_clock(const std::string& spec);

}  // namespace nanotrn::recipe
