// What a sweep tries: variants (recipe overrides on top of the sweep's recipe), each at several seeds.
//
//   std::vector<Variant> g = grid_variants({"model.depth=2,4", "optim.matrix_lr=0.02,0.04"});   // 4 variants
//   SearchSpace s = read_search_space("space.json");
//   std::vector<Variant> r = random_variants(s, 8, /*seed=*/1);                                  // 8 draws
//
// Grid: the Cartesian product of every "key=v1,v2,..." in the order given (the last key varies fastest); values are
// kept as typed (the recipe parses them: recipe.h). A key given twice, an empty value or no '=' is an Error.
// Random: N independent draws from a space file, a JSON object {key: distribution}:
//   {"uniform": [lo, hi]}       a real, uniform in [lo, hi]
//   {"log_uniform": [lo, hi]}   a real whose log is uniform (0 < lo < hi): learning rates
//   {"int": [lo, hi]}           an integer, uniform in [lo, hi] inclusive
//   {"choice": [v, ...]}        one of the values (numbers, strings, booleans), equally likely
// drawn with the counter-based RNG (base/rng.h) from the search seed, so a draw is reproducible from the plan alone;
// reals are written with 6 significant digits. Variants are named v01, v02, ... in order; the sweep adds the
// baseline (no overrides) as "base" (plan.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nanotrn::sweep {

struct Variant {
  std::string id;                // "base", "v01", ...
  std::vector<std::string> set;  // "key=value" overrides of the sweep's recipe
  bool operator==(const Variant&) const = default;
};

std::vector<Variant> grid_variants(const std::vector<std::string>& grid);

struct SearchSpace {
  nlohmann::json spec;  // as read (stored in the plan)
};
SearchSpace search_space_from_json(const nlohmann::json& j, const std::string& where);
SearchSpace read_search_space(const std::string& path);
std::vector<Variant> random_variants(const SearchSpace& space, int count, uint64_t seed);

// "model.depth=4 optim.matrix_lr=0.02", or "(the recipe as given)" for no overrides.
std::string describe(const Variant& v);

}  // namespace nanotrn::sweep
