// A plan from a request. See plan.h.
#include "base/error.h"
#include "base/home.h"
#include "hw/catalog.h"
#include "recipe/recipe_paths.h"
#include "sweep/plan.h"

namespace nanotrn::sweep {
namespace {

std::vector<Variant> variants_of(const SweepRequest& q, nlohmann::json& search) {
  check(q.random == 0 || q.grid.empty(), "sweep: give --grid or --random, not both");
  if (q.random > 0) {
    check(!q.space.empty(), "sweep: --random needs --space FILE (the ranges and choices to draw from)");
    const SearchSpace space = read_search_space(q.space);
    search = {{"random", q.random}, {"seed", q.search_seed}, {"space", space.spec}};
    return random_variants(space, q.random, q.search_seed);
  }
  search = {{"grid", q.grid}};
  return grid_variants(q.grid);
}

// The pricing device: the clock's own when it is a device clock ("trn2:high" prices on trn2).
std::string pricing_device(const SweepRequest& q) {
  const std::string clock_device = q.clock.substr(0, q.clock.find(':'));
  const hw::Catalog c = hw::builtin_catalog();
  if (clock_device != "host" && c.contains(clock_device)) return clock_device;
  return q.device;
}

}  // namespace

SweepPlan make_plan(const SweepRequest& q, const Home& home) {
  check(q.seeds >= 1 && q.seeds <= 1000, "sweep: --seeds must be in [1, 1000]");
  check(q.workers >= 1 && q.threads >= 0, "sweep: --workers must be >= 1 and --threads >= 0");
  check(!q.core || !q.core_bundle.empty(), "sweep: --core needs a CORE bundle (--core-bundle)");
  SweepPlan p;
  p.recipe = recipe::find_recipe(q.recipe, home);
  p.sets = q.sets;
  p.clock = q.clock;
  p.device = pricing_device(q);
  hw::builtin_catalog().find(p.device);  // an unknown device is an Error naming the known ones
  p.budget = q.budget;
  p.seeds = q.seeds;
  p.workers = q.workers;
  p.threads = q.threads;
  p.core = q.core;
  p.core_bundle = q.core_bundle;
  p.core_max_per_task = q.core_max_per_task;
  p.halving = q.halving;
  const recipe::Recipe base = recipe::open_recipe(p.recipe, p.sets, home);
  p.base_seed = base.seed;
  std::vector<Variant> made = variants_of(q, p.search);
  // The baseline: a variant that is the recipe as given, else one added first.
  const nlohmann::json base_json = recipe::recipe_to_json(base);
  for (const Variant& v : made) {
    std::vector<std::string> sets = p.sets;
    sets.insert(sets.end(), v.set.begin(), v.set.end());
    if (recipe::recipe_to_json(recipe::open_recipe(p.recipe, sets, home)) == base_json) {
      p.baseline = v.id;
      break;
    }
  }
  if (p.baseline == "base") p.variants.push_back({"base", {}});
  p.variants.insert(p.variants.end(), made.begin(), made.end());
  return p;
}

}  // namespace nanotrn::sweep
