// The recipe's range table. See recipe_ranges.h.
#include "recipe/recipe_ranges.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <thread>

#include "base/error.h"
#include "recipe/recipe_schema.h"

namespace nanotrn::recipe {

namespace {

using nlohmann::json;

enum class Range {
  finite,       // any finite number
  nonnegative,  // finite, >= 0: learning rates, weight decays, scales that may be off (0)
  positive,     // finite, > 0: eps, multipliers that must not vanish
  decay,        // [0, 1): betas, momenta, EMA decay
  fraction,     // [0, 1]: fractions of the run
  at_least_1,   // counts of things that must exist
};

struct RangeRule {
  const char* key;  // as in recipe_schema.h; "a[].b" checks every element
  Range range;
};

// Every recipe number with a meaningful range that model::resolve() does not already check.
constexpr RangeRule kRanges[] = {
    {"model.leaky_slope", Range::finite},
    {"model.moe_aux_loss", Range::nonnegative},
    {"model.swiglu_limit", Range::nonnegative},
    {"model.ve_gate_max", Range::positive},
    {"model.resid_lambda_init", Range::finite},
    {"model.x0_lambda_init", Range::finite},
    {"model.init.wte_std", Range::nonnegative},
    {"model.init.lm_head_std", Range::nonnegative},
    {"model.init.qkv", Range::nonnegative},
    {"model.init.attn_proj", Range::nonnegative},
    {"model.init.fc", Range::nonnegative},
    {"model.init.mlp_proj", Range::nonnegative},
    {"model.init.value_embed", Range::nonnegative},
    {"model.init.ve_gate", Range::nonnegative},

    {"optim.adamw_matrix_lr", Range::nonnegative},
    {"optim.adamw_matrix_weight_decay", Range::nonnegative},
    {"optim.matrix_lr", Range::nonnegative},
    {"optim.ns_steps", Range::at_least_1},
    {"optim.momentum", Range::decay},
    {"optim.momentum_start", Range::decay},
    {"optim.momentum_warmup_steps", Range::nonnegative},
    {"optim.normuon_beta2", Range::decay},
    {"optim.norm_scale", Range::positive},
    {"optim.muon_weight_decay", Range::nonnegative},
    {"optim.embedding_lr", Range::nonnegative},
    {"optim.unembedding_lr", Range::nonnegative},
    {"optim.value_embed_lr", Range::nonnegative},
    {"optim.scalar_lr", Range::nonnegative},
    {"optim.resid_lr_scale", Range::nonnegative},
    {"optim.norm_gain_lr", Range::nonnegative},
    {"optim.bias_lr", Range::nonnegative},
    {"optim.adam_beta1", Range::decay},
    {"optim.adam_beta2", Range::decay},
    {"optim.x0_beta1", Range::decay},
    {"optim.x0_beta2", Range::decay},
    {"optim.adam_eps", Range::positive},
    {"optim.adam_weight_decay", Range::nonnegative},
    {"optim.grad_clip", Range::nonnegative},

    {"schedule.warmup_steps", Range::nonnegative},
    {"schedule.cooldown_fraction", Range::fraction},
    {"schedule.final_lr_fraction", Range::fraction},
    {"schedule.cooldown_levels", Range::nonnegative},

    {"batch.seq_len", Range::at_least_1},
    {"batch.rows", Range::at_least_1},
    {"batch.phases[].from", Range::decay},  // a phase must start before the end of the run
    {"batch.phases[].accum", Range::at_least_1},
    {"batch.phases[].lr_scale", Range::positive},

    {"eval.tokens", Range::nonnegative},
    {"eval.rows", Range::at_least_1},
    {"eval.every_seconds", Range::nonnegative},

    {"ema.decay", Range::decay},
    {"ema.every", Range::at_least_1},

    {"train.steps", Range::nonnegative},
    {"train.mtp_weights", Range::nonnegative},
    {"train.mtp_until", Range::fraction},
    {"train.checkpoint_every", Range::nonnegative},
    {"train.log_every", Range::at_least_1},
    {"train.threads", Range::nonnegative},  // the upper bound: max_host_threads()

    {"launch.chips", Range::nonnegative},  // upper bounds: the device's (predict/launch.h)
    {"launch.ranks_per_chip", Range::nonnegative},
    {"launch.lnc", Range::nonnegative},
    {"launch.zero", Range::nonnegative},  // the upper bound: 3, checked below
    {"launch.tp", Range::at_least_1},
    {"launch.pp", Range::at_least_1},
    {"launch.nodes", Range::at_least_1},
    {"launch.ep", Range::at_least_1},
    {"launch.compile_allowance_s", Range::nonnegative},
};

bool in_range(double v, Range range) {
  if (!std::isfinite(v)) return false;
  switch (range) {
    case Range::finite:
      return true;
    case Range::nonnegative:
      return v >= 0.0;
    case Range::positive:
      return v > 0.0;
    case Range::decay:
      return v >= 0.0 && v < 1.0;
    case Range::fraction:
      return v >= 0.0 && v <= 1.0;
    case Range::at_least_1:
      return v >= 1.0;
  }
  return false;
}

std::string describe(Range range) {
  switch (range) {
    case Range::finite:
      return "a finite number";
    case Range::nonnegative:
      return "a finite number >= 0";
    case Range::positive:
      return "a finite number > 0";
    case Range::decay:
      return "a number in [0, 1)";
    case Range::fraction:
      return "a number in [0, 1]";
    case Range::at_least_1:
      return "an integer >= 1";
  }
  return "";
}

void check_value(const json& v, const std::string& name, Range range) {
  const double x = v.get<double>();
  check(in_range(x, range), "recipe: " + name + " must be " + describe(range) + ", got " + format_value(v));
}

// "batch.phases[].accum" with element i: "batch.phases[i].accum"; "train.mtp_weights" with i: "...[i]".
std::string element_name(const std::string& key, size_t i) {
  const size_t each = key.find("[]");
  std::string name = key.substr(0, each);
  name += '[';
  name += std::to_string(i);
  name += ']';
  if (each != std::string::npos) name += key.substr(each + 2);
  return name;
}

}  // namespace

void check_recipe_ranges(const Recipe& recipe) {
  const json j = recipe_to_json(recipe);
  for (const RangeRule& rule : kRanges) {
    const std::string key = rule.key;
    const json v = value_at(j, key);
    if (!v.is_array()) {
      check_value(v, key, rule.range);
      continue;
    }
    for (size_t i = 0; i < v.size(); i++) check_value(v[i], element_name(key, i), rule.range);
  }
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  check(recipe.train.threads <= max_host_threads(),
        "recipe: train.threads must be at most " + std::to_string(max_host_threads()) + " (4 x this machine's " +
            std::to_string(cores) + " cores; 0 = all cores), got " + std::to_string(recipe.train.threads));
  check(recipe.launch.zero <= 3,
        "recipe: launch.zero must be a ZeRO stage 0, 1, 2 or 3, got " + std::to_string(recipe.launch.zero));
}

}  // namespace nanotrn::recipe
