// A recipe named on a command line: found by file or by shipped name, loaded, and its data paths placed under the
// data root (base/home.h has the rule).
//
//   Home home = find_home();
//   std::string file = find_recipe("cpu-tiny", home);    // ".../recipes/cpu-tiny.json"
//   Recipe r = open_recipe("cpu-tiny", {"model.depth=2"}, home);
//   r.data.tokenizer                                      // "<data root>/out/tokenizer"
//
// find_recipe looks, in order, for: the name as a file (relative to the working directory); then, for a relative
// name, under the data root and the project folder each: <dir>/<name>, <dir>/recipes/<name>, <dir>/recipes/<name>.json.
// When none exists the Error lists every place it looked and the shipped recipes.
// resolve_data_paths: data.corpus, data.tokenizer, data.train and data.val (not "synthetic:..." sources) become
// home.path(...) of themselves; absolute paths stay as they are.
#pragma once

#include <string>
#include <vector>

#include "base/home.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {

std::string find_recipe(const std::string& name_or_path, const Home& home);
void resolve_data_paths(Recipe& recipe, const Home& home);
// find_recipe + load_recipe (overrides applied) + resolve_data_paths.
// `model_config`: as load_recipe's.
Recipe open_recipe(const std::string& name_or_path, const std::vector<std::string>& overrides, const Home& home,
                   const std::string& model_config = "");

// The names of the recipes shipped in <project>/recipes (file stems, sorted); empty without a project folder.
std::vector<std::string> shipped_recipes(const Home& home);

}  // namespace nanotrn::recipe
