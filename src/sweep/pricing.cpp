// Pricing trials before they train. See pricing.h.
#include "sweep/pricing.h"

#include "base/error.h"
#include "hw/catalog.h"
#include "predict/predictor.h"

namespace nanotrn::sweep {
namespace {

// The trial's training: its overrides without launch.* (which change the device's speed, not what is trained), its
// seed and rung.
std::string training_key(const Trial& t) {
  std::string k = std::to_string(t.rung) + "|";
  for (const std::string& s : t.set)
    if (s.rfind("launch.", 0) != 0) k += s + "|";
  return k;
}

}  // namespace

Pricing price_trial(const recipe::Recipe& recipe, const std::string& device) {
  Pricing p;
  const hw::Device d = hw::builtin_catalog().find(device);
  try {
    const predict::Prediction pr = predict::predict(recipe, d);
    const predict::PhasePrediction& last = pr.phases.back();
    p.steps = pr.walk.steps;
    p.json = {{"device", device},
              {"stack", pr.stack.name},
              {"fits", true},
              {"steps", pr.walk.steps},
              {"steps_band", {pr.walk_high.steps, pr.walk_low.steps}},
              {"tokens", pr.walk.tokens},
              {"step_s", last.time.step_s},
              {"step_s_band", last.time.step_s_band},
              {"tokens_per_s", last.tokens_per_s},
              {"mfu", last.mfu},
              {"compile_s", pr.compile_s}};
  } catch (const Error& e) {
    // The predictor refuses a layout whose rank does not fit its HBM share (device_memory.h), or a shape the
    // device cannot take: the trial cannot run there.
    p.fits = false;
    p.reason = "cannot run on " + device + ": " + e.message();
    p.json = {{"device", device}, {"fits", false}, {"reason", p.reason}};
  }
  return p;
}

std::map<std::string, std::string> dominated(const std::vector<Trial>& trials, const std::vector<Pricing>& prices) {
  check(trials.size() == prices.size(), "dominated: one price per trial");
  std::map<std::string, size_t> best;  // training key -> the trial with the most steps
  for (size_t i = 0; i < trials.size(); i++) {
    if (!prices[i].fits) continue;
    auto [it, fresh] = best.emplace(training_key(trials[i]), i);
    if (!fresh && prices[i].steps > prices[it->second].steps) it->second = i;
  }
  std::map<std::string, std::string> out;
  for (size_t i = 0; i < trials.size(); i++) {
    if (!prices[i].fits) continue;
    const size_t b = best.at(training_key(trials[i]));
    if (b == i || prices[i].steps >= prices[b].steps) continue;
    out[trials[i].id] = "dominated by " + trials[b].id + ": the same training gets " + std::to_string(prices[b].steps) +
                        " steps there against " + std::to_string(prices[i].steps) + " here on " +
                        prices[i].json.value("device", std::string("the target"));
  }
  return out;
}

}  // namespace nanotrn::sweep
