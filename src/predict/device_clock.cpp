// The device clock. See device_clock.h.
#include "predict/device_clock.h"

#include <cstdio>

#include "base/error.h"
#include "recipe/budget.h"

namespace nanotrn::predict {

DeviceClock::DeviceClock(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options)
    : model_(recipe, device, options) {
  check(device.kind != hw::DeviceKind::cpu, "the device clock needs a modelled device; use --clock wall for the host");
}

std::string DeviceClock::name() const { return model_.device().name; }

std::string DeviceClock::rule() const {
  const recipe::Recipe& r = model_.recipe();
  std::string s = "charged time = predicted " + model_.device().name + " step time (nanotrn predict; modelled, not " +
                  "measured) per batch phase:";
  for (const recipe::BatchPhase& ph : r.batch.phases) {
    // The rule is printed before training starts; predictions are cached for the run.
    const double t = model_.step(ph.accum, recipe::active_heads(recipe::mtp_weights_at(r, ph.from))).step_s;
    char buf[64];
    std::snprintf(buf, sizeof buf, " accum %lld %.4f s;", static_cast<long long>(ph.accum), t);
    s += buf;
  }
  return s + " includes modelled host dispatch; the host wall time is reported beside it";
}

double DeviceClock::charge(const recipe::StepInfo& step, double wall_seconds) {
  const recipe::Recipe& r = model_.recipe();
  check(step.rows == r.batch.rows && step.seq_len == r.batch.seq_len,
        "device clock: the step's shape differs from the recipe it was built for");
  check(step.mtp_heads >= 1, "device clock: a step has at least one cross-entropy head");
  const double s = model_.step(step.accum, step.mtp_heads).step_s;
  (void)wall_seconds;  // reported beside the charge by the trainer
  return s;
}

std::unique_ptr<recipe::Clock> make_device_clock(const std::string& device, const recipe::Recipe& recipe) {
  const hw::Catalog c = hw::builtin_catalog();
  return std::make_unique<DeviceClock>(recipe, c.find(device));
}

std::unique_ptr<recipe::Clock> make_clock_for(const std::string& spec, const recipe::Recipe& recipe) {
  const hw::Catalog c = hw::builtin_catalog();
  if (spec != "host" && c.contains(spec)) return std::make_unique<DeviceClock>(recipe, c.find(spec));
  try {
    return recipe::make_clock(spec);
  } catch (const Error&) {
    std::string known;
    for (const hw::Device& d : c.devices()) {
      if (d.kind != hw::DeviceKind::cpu) known += ", " + d.name;
    }
    throw Error("unknown clock '" + spec + "' (known: wall, fixed:<seconds per micro-batch>" + known + ")");
  }
}

}  // namespace nanotrn::predict
