// The device clock: `nanotrn train --clock trn2` charges each step the predicted device time of that step (the
// trainer's own step: its micro-batch count and active MTP heads, recipe::StepInfo; step_model.h) instead of the
// host's wall time, so the run stops where a run on the device would stop; the host wall time is reported beside it.
//
//   std::unique_ptr<recipe::Clock> c = make_device_clock("trn2", recipe);   // any catalog device but "host"
//   train::Trainer t(recipe, data, *c, opts);                             // c->name() == "trn2"
//   make_clock_for("trn2:high", recipe);   // charges the high end of the stack's band (":low" the low end)
//
// The clock prices the step the trainer took (phase and MTP heads from recipe/budget.h, after --resume too); it
// walks no budget of its own.
// The charge is the step under the recipe's software stack (launch.stack: graph launches or eager dispatch, the
// per-step overhead, the kernels at the stack's efficiencies), or an end of its band; before the first step of a fresh
// run the clock charges the stack's compile time less launch.compile_allowance_s (startup_charge), as the predictor's
// budget walk does.
// Not here: the prediction itself (predictor.h), the trainer loop (train/trainer.h).
#pragma once

#include <memory>
#include <string>

#include "hw/catalog.h"
#include "predict/step_model.h"
#include "recipe/clock.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

// Which figure of a step's band the clock charges.
enum class BandEnd { point, low, high };

class DeviceClock final : public recipe::Clock {
 public:
  DeviceClock(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options = {},
              BandEnd end = BandEnd::point);
  std::string name() const override;
  std::string rule() const override;
  double charge(const recipe::StepInfo& step, double wall_seconds) override;
  double startup_charge() const override { return startup_s_; }
  // The device's bf16 peak: the denominator of the predictor's MFU (predictor.h).
  double peak_flops() const override { return model_.device().peak_bf16_flops(); }
  // The predicted step time the clock charges for `accum` micro-batches with `mtp_heads` heads.
  double step_seconds(int64_t accum, int mtp_heads) const;

 private:
  mutable StepModel model_;  // caches predictions; charging and printing the rule fill it
  BandEnd end_;
  double compile_s_ = 0, startup_s_ = 0;
};

// `device` names a catalog entry (trn1, trn2, trn3, trn2-server, h100, ...); throws naming the known ones.
std::unique_ptr<recipe::Clock> make_device_clock(const std::string& device, const recipe::Recipe& recipe,
                                                 BandEnd end = BandEnd::point);
// Any clock spec: a catalog device other than "host" gives a DeviceClock ("trn2", "trn2:low", "trn2:high"), anything
// else goes to recipe::make_clock ("wall", "fixed:<s>"). This is what `nanotrn train --clock` calls.
std::unique_ptr<recipe::Clock> make_clock_for(const std::string& spec, const recipe::Recipe& recipe);

}  // namespace nanotrn::predict
