// A sweep's plan: everything that decides its trials, written once to DIR/sweep.json when the sweep starts and read
// back by `sweep --resume DIR`, so a resumed sweep runs exactly the trials the first one planned.
//
//   SweepPlan p;  p.recipe = "/abs/recipes/cpu-tiny.json";  p.variants = grid_variants({...});
//   p.seeds = 2;  p.clock = "trn2";
//   std::vector<Trial> t = rung_trials(p, 0, all_variant_ids(p));   // variants x seeds, at rung 0
//   write_plan(dir, p);  SweepPlan q = read_plan(dir);              // DIR/sweep.json, strict
//
// A trial is one variant at one seed (the recipe's seed + k, k < seeds) at one rung. Without halving there is one
// rung, at the full budget; with it (successive halving, `--halving`) rung r of R runs at budget eta^(r - R + 1) of the
// full one, and after each rung the best 1 / eta of the variants (by mean val_bpb over their seeds, ties by id) go on
// (halving.h). Trial ids: "<variant>-s<k>", with "-r<r>" appended under halving. The baseline ("base": the recipe
// with the sweep's --set only) is a variant of every sweep unless a grid variant is the same recipe, which then is
// the baseline.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/home.h"
#include "sweep/variants.h"

namespace nanotrn::sweep {

struct Halving {
  bool on = false;
  int eta = 3;    // keep the best 1 / eta after each rung
  int rungs = 3;  // rungs in all; the last runs the full budget
};

struct SweepPlan {
  std::string recipe;             // the recipe file, absolute (found when the sweep was made)
  std::vector<std::string> sets;  // overrides of every trial
  std::string clock = "wall";     // what a step is charged (train --clock)
  std::string device = "trn2";    // where every trial is priced before it trains
  std::string budget;             // every trial's train.budget ("" = the recipe's)
  uint64_t base_seed = 42;        // the recipe's seed; trial k of a variant uses base_seed + k
  int seeds = 1;
  int workers = 1;    // local worker processes
  int threads = 0;    // threads per trial (0 = the machine's cores / workers)
  bool core = false;  // score CORE on core_bundle after training
  std::string core_bundle;
  int64_t core_max_per_task = 0;
  Halving halving;
  nlohmann::json search;  // how the variants were made: {"grid": [...]} or {"random": n, "seed": s, "space": {...}}
  std::vector<Variant> variants;  // the baseline first
  std::string baseline = "base";  // the variant the leaderboard compares with
};

struct Trial {
  std::string id = {}, variant = {};
  std::vector<std::string> set = {};  // the variant's overrides and "seed=<s>"
  uint64_t seed = 0;
  int rung = 0;
  double budget_fraction = 1.0;  // of the plan's budget
};

std::vector<std::string> all_variant_ids(const SweepPlan& p);
const Variant& variant_of(const SweepPlan& p, const std::string& id);
// The trials of `variants` at rung `rung`, in variant then seed order.
std::vector<Trial> rung_trials(const SweepPlan& p, int rung, const std::vector<std::string>& variants);
// Rungs in all (1 without halving) and the budget fraction of rung r.
int rung_count(const SweepPlan& p);
double rung_fraction(const SweepPlan& p, int rung);

nlohmann::json plan_to_json(const SweepPlan& p);
SweepPlan plan_from_json(const nlohmann::json& j, const std::string& where);
void write_plan(const std::string& dir, const SweepPlan& p);  // DIR/sweep.json, atomically
SweepPlan read_plan(const std::string& dir);                  // Error naming the file when absent or malformed

}  // namespace nanotrn::sweep

namespace nanotrn::sweep {

// What a user asks for (`nanotrn sweep` flags), turned into a plan by make_plan: the recipe found (recipe_paths.h)
// and kept as an absolute file, the variants made (grid or random), the baseline added unless a variant already is
// the recipe as given, the base seed read from the recipe, the pricing device the clock's device (else `device`).
struct SweepRequest {
  std::string recipe;
  std::vector<std::string> sets, grid;
  int random = 0;     // draws from `space` (0 = grid)
  std::string space;  // a search-space file
  uint64_t search_seed = 1;
  int seeds = 1;
  Halving halving;
  std::string clock = "wall", device = "trn2", budget;
  int workers = 1, threads = 0;
  bool core = false;
  std::string core_bundle;
  int64_t core_max_per_task = 0;
};
SweepPlan make_plan(const SweepRequest& request, const Home& home);

}  // namespace nanotrn::sweep
