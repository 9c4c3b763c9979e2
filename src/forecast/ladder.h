// The ladder: shrunken variants of a recipe (the same family through its depth dial, smaller depth and width) at a
// range of token budgets, each a step-limited run that completes its own schedule; what a scaling law is fitted on.
//
//   LadderSpec s{.kind = LadderKind::small, .max_params = target_n / 4, .max_tokens = target_d / 4};
//   Ladder l = design_ladder(recipe, s);           // l.rungs: {depth, model_dim, params, steps, tokens}, l.notes
//   std::vector<sweep::Variant> v = ladder_variants(l);   // {"n1-t1", {"model.depth=1", "model.aspect_ratio=64",
//                                                         //  "batch.rows=16", "train.steps=50",
//                                                         //  "schedule.warmup_steps=1", ...}}, ... for a sweep
//
// Sizes: every depth 1..the recipe's with aspect ratios {a/2, a, 2a} (a: the recipe's; model_dim rounds up to a
// multiple of head_dim, so head_dim and every other model key stay the recipe's) is a candidate; those with at most
// max_params non-embedding parameters (model/config.h ParamCounts::non_embedding(): the law's N) are kept; the
// ladder's sizes are the candidates nearest (in log N) to the largest kept and to it divided by 2, 4, ... (small: 4
// sizes, over 8x; medium: 6, over 32x), distinct.
// Tokens: every size runs the same budgets, D_max x {1/4, 1/2, 1} (small) or x {1/8, ..., 1} (medium), so N and D
// vary independently (a full factorial design: the law's two terms are not confounded). D_max is the largest that
// keeps the ladder's training compute (sum of flops_per_token x D) within its budget (small 1e14 FLOPs, medium 5e14:
// about 10 and 45 minutes on a 2-core Zen 4 at the ~100 GFLOP/s per thread these sizes reach; docs/VALIDATION.md
// "Forecast") and at most max_tokens. Steps = D / the recipe's tokens per step, at least 20: when the smallest run
// would get fewer, batch.rows is halved (down to 1) until it does, and a note says so (a smaller batch than the
// target's is more token-efficient, so the forecast leans optimistic).
// Schedule: every run has the target's schedule shape. The recipe's fractions (cooldown, batch phases) already scale
// with a run's length; its step counts (schedule.warmup_steps, optim.momentum_warmup_steps) are scaled by the run's
// steps / target_steps (at least 1 where the recipe's is not 0), so a 50-step run of an 800-step target warms up over
// the same 1/16 of its steps. Without it the shortest runs spend most of their steps in warm-up (cpu-tiny's Muon
// momentum warms over 100 steps) and the law reads that as a steep token term (docs/VALIDATION.md, "Forecast").
// Errors: no candidate within max_params (the target is too small to have a ladder 4x below it).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "recipe/recipe.h"
#include "sweep/variants.h"

namespace nanotrn::forecast {

enum class LadderKind { small, medium };
LadderKind parse_ladder_kind(const std::string& name);  // "small" | "medium"
std::string to_string(LadderKind k);

struct LadderSpec {
  LadderKind kind = LadderKind::small;
  double max_params = 0;     // the largest size's N may not exceed this (the target's / 4)
  double max_tokens = 0;     // no run's D may exceed this (the target's / 4); 0 = no limit
  double flops = 0;          // the ladder's training compute; 0 = the kind's default
  int64_t target_steps = 0;  // the target's steps (the schedule's step counts scale by a run's steps / this)
};

struct LadderRung {
  std::string id;  // "n<i>-t<j>": size i (1 = smallest), tokens j (1 = fewest)
  int64_t depth = 0, aspect_ratio = 0, model_dim = 0;
  double params = 0;  // non-embedding parameters (the law's N)
  int64_t steps = 0, tokens = 0;
  int64_t warmup_steps = 0, momentum_warmup_steps = 0;  // the target's, scaled to this run's length
  double flops = 0;                                     // flops_per_token x tokens
};

struct Ladder {
  std::vector<LadderRung> rungs;
  int64_t rows = 0, seq_len = 0, tokens_per_step = 0;
  double flops = 0;                // the sum over rungs
  std::vector<std::string> notes;  // what the design had to give up
  nlohmann::json to_json() const;
};

Ladder design_ladder(const recipe::Recipe& target, const LadderSpec& spec);
std::vector<sweep::Variant> ladder_variants(const Ladder& ladder);
double default_ladder_flops(LadderKind k);

}  // namespace nanotrn::forecast
