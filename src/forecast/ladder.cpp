// The ladder's design. See ladder.h.
#include "forecast/ladder.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/error.h"
#include "base/format.h"
#include "model/config.h"

namespace nanotrn::forecast {
namespace {

struct Size {
  int64_t depth = 0, aspect_ratio = 0, model_dim = 0;
  double params = 0, flops_per_token = 0;
};

model::GptConfig with_size(const recipe::Recipe& r, int64_t depth, int64_t aspect) {
  model::GptConfig c = r.model;
  c.depth = depth;
  c.aspect_ratio = aspect;
  c.model_dim = 0;
  c.n_head = 0;
  return c;
}

// Every (depth, aspect ratio) of the family up to the recipe's depth, once per resulting (depth, model_dim).
std::vector<Size> candidates(const recipe::Recipe& r) {
  std::vector<Size> out;
  std::set<std::pair<int64_t, int64_t>> seen;
  const int64_t a = r.model.aspect_ratio;
  for (int64_t depth = 1; depth <= r.model.depth; depth++) {
    for (int64_t aspect : {std::max<int64_t>(1, a / 2), a, 2 * a}) {
      model::GptConfig c;
      try {
        c = model::resolve(with_size(r, depth, aspect));
      } catch (const Error&) {
        continue;  // a shape the family cannot take (e.g. too few heads for its kv groups)
      }
      if (!seen.insert({depth, c.model_dim}).second) continue;
      out.push_back({depth, aspect, c.model_dim, static_cast<double>(model::count_params(c).non_embedding()),
                     model::flops_per_token(c, r.batch.seq_len)});
    }
  }
  return out;
}

std::vector<Size> choose_sizes(std::vector<Size> all, double max_params, int count) {
  std::erase_if(all, [&](const Size& s) { return s.params > max_params; });
  check(!all.empty(),
        "forecast: no size of the recipe's family has at most " + format_count(std::llround(max_params)) +
            " non-embedding parameters (a quarter of the target's): the target is too small for a ladder");
  std::sort(all.begin(), all.end(), [](const Size& x, const Size& y) { return x.params < y.params; });
  std::vector<Size> chosen;
  const double top = all.back().params;
  for (int i = 0; i < count; i++) {
    const double want = std::log(top / std::pow(2.0, i));
    const Size* best = nullptr;
    for (const Size& s : all) {
      const bool taken = std::any_of(chosen.begin(), chosen.end(),
                                     [&](const Size& c) { return c.depth == s.depth && c.model_dim == s.model_dim; });
      if (!taken && (best == nullptr || std::abs(std::log(s.params) - want) < std::abs(std::log(best->params) - want)))
        best = &s;
    }
    if (best == nullptr) break;
    chosen.push_back(*best);
  }
  std::sort(chosen.begin(), chosen.end(), [](const Size& x, const Size& y) { return x.params < y.params; });
  return chosen;
}

// The token budgets as fractions of the largest.
std::vector<double> fractions(LadderKind k) {
  return k == LadderKind::small ? std::vector<double>{0.25, 0.5, 1} : std::vector<double>{0.125, 0.25, 0.5, 1};
}

int size_count(LadderKind k) { return k == LadderKind::small ? 4 : 6; }

// The largest D_max with sum_ij flops_i m_j D_max <= flops and D_max <= max_tokens (m_j <= 1: the fractions).
double largest_tokens(const std::vector<Size>& sizes, const std::vector<double>& m, double flops, double max_tokens) {
  double per_token = 0;
  for (const Size& s : sizes)
    for (double mj : m) per_token += s.flops_per_token * mj;
  double d = flops / per_token;
  if (max_tokens > 0) d = std::min(d, max_tokens);
  return d;
}

// A step count of the target's schedule for a run of `steps` (the target's `target_steps`): the same fraction.
int64_t scaled_steps(int64_t count, int64_t steps, int64_t target_steps) {
  if (count <= 0 || target_steps <= 0) return count;
  const double scaled = static_cast<double>(count) * static_cast<double>(steps) / static_cast<double>(target_steps);
  return std::max<int64_t>(1, std::llround(scaled));
}

}  // namespace

LadderKind parse_ladder_kind(const std::string& name) {
  if (name == "small") return LadderKind::small;
  if (name == "medium") return LadderKind::medium;
  throw Error("--ladder '" + name + "': small or medium");
}

std::string to_string(LadderKind k) { return k == LadderKind::small ? "small" : "medium"; }

double default_ladder_flops(LadderKind k) { return k == LadderKind::small ? 1e14 : 5e14; }

Ladder design_ladder(const recipe::Recipe& target, const LadderSpec& spec) {
  check(spec.max_params > 0, "forecast: the ladder needs a largest size (max_params > 0)");
  const std::vector<Size> sizes = choose_sizes(candidates(target), spec.max_params, size_count(spec.kind));
  const std::vector<double> m = fractions(spec.kind);
  const double flops = spec.flops > 0 ? spec.flops : default_ladder_flops(spec.kind);
  const double d_max = largest_tokens(sizes, m, flops, spec.max_tokens);
  Ladder l;
  l.rows = target.batch.rows;
  l.seq_len = target.batch.seq_len;
  const int64_t accum = target.batch.phases.front().accum;
  const auto steps_of = [&](double tokens) {
    return static_cast<int64_t>(std::llround(tokens / static_cast<double>(l.rows * l.seq_len * accum)));
  };
  const double fewest = d_max * m.front();
  while (l.rows > 1 && steps_of(fewest) < 20) l.rows = std::max<int64_t>(1, l.rows / 2);
  if (l.rows != target.batch.rows)
    l.notes.push_back("batch.rows " + std::to_string(l.rows) + " in the ladder (the recipe's " +
                      std::to_string(target.batch.rows) +
                      " would give its smallest run fewer than 20 steps); a smaller batch is more token-efficient, so "
                      "the forecast leans optimistic");
  l.tokens_per_step = l.rows * l.seq_len * accum;
  for (size_t i = 0; i < sizes.size(); i++)
    for (size_t j = 0; j < m.size(); j++) {
      LadderRung r;
      r.id = std::string("n").append(std::to_string(i + 1)).append("-t").append(std::to_string(j + 1));
      r.depth = sizes[i].depth;
      r.aspect_ratio = sizes[i].aspect_ratio;
      r.model_dim = sizes[i].model_dim;
      r.params = sizes[i].params;
      r.steps = std::max<int64_t>(1, steps_of(d_max * m[j]));
      r.tokens = r.steps * l.tokens_per_step;
      r.warmup_steps = scaled_steps(target.schedule.warmup_steps, r.steps, spec.target_steps);
      r.momentum_warmup_steps = scaled_steps(target.optim.momentum_warmup_steps, r.steps, spec.target_steps);
      r.flops = sizes[i].flops_per_token * static_cast<double>(r.tokens);
      l.flops += r.flops;
      l.rungs.push_back(r);
    }
  if (sizes.size() < static_cast<size_t>(size_count(spec.kind)))
    l.notes.push_back("only " + std::to_string(sizes.size()) + " distinct sizes fit below a quarter of the target");
  return l;
}

std::vector<sweep::Variant> ladder_variants(const Ladder& l) {
  std::vector<sweep::Variant> v;
  for (const LadderRung& r : l.rungs)
    v.push_back({r.id,
                 {"model.depth=" + std::to_string(r.depth), "model.aspect_ratio=" + std::to_string(r.aspect_ratio),
                  "batch.rows=" + std::to_string(l.rows), "train.steps=" + std::to_string(r.steps),
                  "schedule.warmup_steps=" + std::to_string(r.warmup_steps),
                  "optim.momentum_warmup_steps=" + std::to_string(r.momentum_warmup_steps)}});
  return v;
}

nlohmann::json Ladder::to_json() const {
  nlohmann::json runs = nlohmann::json::array();
  for (const LadderRung& r : rungs)
    runs.push_back({{"id", r.id},
                    {"depth", r.depth},
                    {"aspect_ratio", r.aspect_ratio},
                    {"model_dim", r.model_dim},
                    {"params", r.params},
                    {"steps", r.steps},
                    {"tokens", r.tokens},
                    {"warmup_steps", r.warmup_steps},
                    {"momentum_warmup_steps", r.momentum_warmup_steps},
                    {"flops", r.flops}});
  return {{"rows", rows},   {"seq_len", seq_len}, {"tokens_per_step", tokens_per_step},
          {"flops", flops}, {"notes", notes},     {"runs", runs}};
}

}  // namespace nanotrn::forecast
