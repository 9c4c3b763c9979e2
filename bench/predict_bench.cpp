// How long a step-time prediction takes, cold (docs/VALIDATION.md, "Speed of a prediction"): predict() of a shipped
// recipe on trn2, each iteration from nothing. There is no cache to warm (a Prediction is a pure function of the
// recipe and the device; every call times every distinct kernel shape again), so every iteration is a cold
// prediction as `nanotrn predict` makes it, less the process start. Loading the recipe is not timed.
//   FrontierForge K60   the ~124M GPT of VALIDATION.md (b): the bound is 2 s
//   autoresearch-d8     the kit-sized recipe
// No peer: no other tool prices a Trainium step before it runs; the yardstick is the bound.
//
//   ./predict_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "base/home.h"
#include "hw/catalog.h"
#include "predict/predictor.h"
#include "recipe/recipe_paths.h"

namespace {

using namespace nanotrn;

// `name`: a shipped recipe, found as `nanotrn predict --recipe name` finds it (base/home.h).
void BM_PredictCold(benchmark::State& state, const char* name) {
  const recipe::Recipe r = recipe::open_recipe(name, {}, find_home());
  const hw::Catalog catalog = hw::builtin_catalog();
  const hw::Device& trn2 = catalog.find("trn2");
  int64_t steps = 0;
  for (auto _ : state) {
    const predict::Prediction p = predict::predict(r, trn2);
    steps = p.walk.steps;
    benchmark::DoNotOptimize(steps);
  }
  state.counters["steps"] = static_cast<double>(steps);
}

BENCHMARK_CAPTURE(BM_PredictCold, frontierforge_k60, "frontierforge-k60")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PredictCold, autoresearch_d8, "autoresearch-d8")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
