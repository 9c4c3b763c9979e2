// The device clock: `nanotrn train --clock trn2` charges each step the predicted device time of that step (the
// trainer's own step: its micro-batch count and active MTP heads, recipe::StepInfo; step_model.h) instead of the
// host's wall time, so the run stops where a run on the device would stop; the host wall time is reported beside it.
//
//   std::unique_ptr<recipe::Clock> c = make_device_clock("trn2", recipe);   // any catalog device but "host"
//   train::Trainer t(recipe, data, *c, opts);                             // c->name() == "trn2"
//
// The clock prices the step the trainer took (phase and MTP heads from recipe/budget.h, after --resume too); it
// walks no budget of its own.
// The charge includes the modelled host dispatch (host_graph_launch_s per graph, catalog, assumed).
// Not here: the prediction itself (predictor.h), the trainer loop (train/trainer.h).
#pragma once

#include <memory>
#include <string>

#include "hw/catalog.h"
#include "predict/step_model.h"
#include "recipe/clock.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

class DeviceClock final : public recipe::Clock {
 public:
  DeviceClock(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options = {});
  std::string name() const override;
  std::string rule() const override;
  double charge(const recipe::StepInfo& step, double wall_seconds) override;
  // The device's bf16 peak: the denominator of the predictor's MFU (predictor.h).
  double peak_flops() const override { return model_.device().peak_bf16_flops(); }
  // The predicted step time the clock charges for `accum` micro-batches with `mtp_heads` heads.
  double step_seconds(int64_t accum, int mtp_heads) { return model_.step(accum, mtp_heads).step_s; }

 private:
  mutable StepModel model_;  // caches predictions; charging and printing the rule fill it
};

// `device` names a catalog entry (trn1, trn2, trn3, trn2-server, h100, ...); throws naming the known ones.
std::unique_ptr<recipe::Clock> make_device_clock(const std::string& device, const recipe::Recipe& recipe);
// Any clock spec: a catalog device other than "host" gives a DeviceClock, anything else goes to
// recipe::make_clock ("wall", "fixed:<s>"). This is what `nanotrn train --clock` calls.
std::unique_ptr<recipe::Clock> make_clock_for(const std::string& spec, const recipe::Recipe& recipe);

}  // namespace nanotrn::predict
