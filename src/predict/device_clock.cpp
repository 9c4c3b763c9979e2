// The device clock. See device_clock.h.
#include "predict/device_clock.h"

#include <algorithm>
#include <cstdio>

#include "base/error.h"
#include "recipe/budget.h"

namespace nanotrn::predict {

DeviceClock::DeviceClock(const recipe::Recipe& recipe, const hw::Device& device, const PredictOptions& options,
                         BandEnd end)
    : model_(recipe, device, options), end_(end) {
  check(device.kind != hw::DeviceKind::cpu, "the device clock needs a modelled device; use --clock wall for the host");
  compile_s_ = model_.compile_seconds();
  startup_s_ = std::max(0.0, compile_s_ - recipe.launch.compile_allowance_s);
}

std::string DeviceClock::name() const {
  return model_.device().name + (end_ == BandEnd::low ? ":low" : end_ == BandEnd::high ? ":high" : "");
}

double DeviceClock::step_seconds(int64_t accum, int mtp_heads) const {
  const StepTime& t = model_.step(accum, mtp_heads);
  return end_ == BandEnd::low ? t.step_s_band[0] : end_ == BandEnd::high ? t.step_s_band[1] : t.step_s;
}

std::string DeviceClock::rule() const {
  const recipe::Recipe& r = model_.recipe();
  const std::string which = end_ == BandEnd::low    ? "the low end of the band of the "
                            : end_ == BandEnd::high ? "the high end of the band of the "
                                                    : "";
  std::string s = "charged time = " + which + "predicted " + model_.device().name + " step time under stack " +
                  model_.stack().name + " (nanotrn predict; modelled, not measured) per batch phase:";
  for (const recipe::BatchPhase& ph : r.batch.phases) {
    // The rule is printed before training starts; predictions are cached for the run.
    const double t = step_seconds(ph.accum, recipe::active_heads(recipe::mtp_weights_at(r, ph.from)));
    char buf[64];
    std::snprintf(buf, sizeof buf, " accum %lld %.4f s;", static_cast<long long>(ph.accum), t);
    s += buf;
  }
  if (compile_s_ > 0)
    s += " compile " + std::to_string(static_cast<int64_t>(compile_s_ + 0.5)) + " s before the first step (" +
         std::to_string(static_cast<int64_t>(startup_s_ + 0.5)) + " s charged);";
  return s + " includes the stack's host costs; the host wall time is reported beside it";
}

double DeviceClock::charge(const recipe::StepInfo& step, double wall_seconds) {
  const recipe::Recipe& r = model_.recipe();
  check(step.rows == r.batch.rows && step.seq_len == r.batch.seq_len,
        "device clock: the step's shape differs from the recipe it was built for");
  check(step.mtp_heads >= 1, "device clock: a step has at least one cross-entropy head");
  const double s = step_seconds(step.accum, step.mtp_heads);
  (void)wall_seconds;  // reported beside the charge by the trainer
  return s;
}

std::unique_ptr<recipe::Clock> make_device_clock(const std::string& device, const recipe::Recipe& recipe, BandEnd end) {
  const hw::Catalog c = hw::builtin_catalog();
  return std::make_unique<DeviceClock>(recipe, c.find(device), PredictOptions{}, end);
}

std::unique_ptr<recipe::Clock> make_clock_for(const std::string& spec, const recipe::Recipe& recipe) {
  const hw::Catalog c = hw::builtin_catalog();
  const size_t colon = spec.find(':');
  const std::string device = spec.substr(0, colon), end = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (device != "host" && c.contains(device)) {
    check(end.empty() || end == "low" || end == "high",
          "clock '" + spec + "': a device clock's band end is low or high (e.g. trn2:high), got '" + end + "'");
    const BandEnd e = end == "low" ? BandEnd::low : end == "high" ? BandEnd::high : BandEnd::point;
    return std::make_unique<DeviceClock>(recipe, c.find(device), PredictOptions{}, e);
  }
  try {
    return recipe::make_clock(spec);
  } catch (const Error&) {
    std::string known;
    for (const hw::Device& d : c.devices()) {
      if (d.kind != hw::DeviceKind::cpu) known += ", " + d.name;
    }
    throw Error("unknown clock '" + spec + "' (known: wall, fixed:<seconds per micro-batch>" + known +
                "; a device with :low or :high charges that end of its band)");
  }
}

}  // namespace nanotrn::predict
