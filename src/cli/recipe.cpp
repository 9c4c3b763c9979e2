// `nanotrn recipe show [--defaults] [R]`: every recipe key with its value, default and meaning
// (recipe/recipe_schema.h); `nanotrn recipe doc`: the same table as markdown (docs/RECIPES.md is this output). Flags
// and printing only.
#include <cstdio>
#include <iostream>

#include "base/error.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "recipe/recipe_paths.h"
#include "recipe/recipe_schema.h"

namespace nanotrn::cli {

namespace {

void print_rows(const std::vector<recipe::KeyRow>& rows) {
  for (const recipe::KeyRow& r : rows) {
    std::string line = r.key + " = " + recipe::format_value(r.value);
    if (r.value != r.default_value) line += "   (default " + recipe::format_value(r.default_value) + ")";
    std::printf("%s\n    %s\n", line.c_str(), r.meaning.c_str());
  }
}

void add_recipe_show(CLI::App& parent, const Home& home) {
  struct Args {
    RecipeArgs recipe;
    bool defaults = false, json = false;
  };
  auto a = std::make_shared<Args>();
  a->recipe.recipe = "";
  auto* cmd = parent.add_subcommand("show",
                                    "Print a recipe resolved (overrides applied, data paths under the data root): "
                                    "every key, its value, its default when different, and its meaning");
  cmd->add_option("recipe", a->recipe.recipe, "A recipe JSON file or a shipped recipe's name");
  cmd->add_option("--set", a->recipe.sets, "Override a recipe field first (repeatable)");
  cmd->add_flag("--defaults", a->defaults, "The built-in defaults (no recipe)");
  cmd->add_flag("--json", a->json,
                "Machine-readable: {file, data_root, recipe, keys: [{key, type, value, default, meaning}]}");
  add_data_root_footer(cmd, home);
  cmd->callback([a, home] {
    check(a->defaults != !a->recipe.recipe.empty(),
          "recipe show: name a recipe (a file or a shipped name, e.g. cpu-tiny) or pass --defaults, not both");
    std::string file;
    recipe::Recipe r;
    if (a->defaults) {
      r = recipe::default_recipe_with(a->recipe.sets);
    } else {
      file = recipe::find_recipe(a->recipe.recipe, home);
      r = recipe::load_recipe(file, a->recipe.sets);
      recipe::resolve_data_paths(r, home);
    }
    const nlohmann::json rj = recipe::recipe_to_json(r);
    const std::vector<recipe::KeyRow> rows = recipe::describe_recipe(rj);
    if (a->json) {
      nlohmann::json keys = nlohmann::json::array();
      for (const recipe::KeyRow& k : rows) {
        keys.push_back({{"key", k.key},
                        {"type", k.type},
                        {"value", k.value},
                        {"default", k.default_value},
                        {"meaning", k.meaning}});
      }
      std::cout << nlohmann::json{{"file", file.empty() ? nlohmann::json() : nlohmann::json(file)},
                                  {"data_root", home.data_root},
                                  {"recipe", rj},
                                  {"keys", keys}}
                       .dump(2)
                << "\n";
      return;
    }
    if (a->defaults) {
      std::printf("built-in defaults (relative paths are under the data root, here %s)\n\n", home.data_root.c_str());
    } else {
      std::printf("recipe %s: %s\ndata root %s (%s)\n\n", r.name.c_str(), file.c_str(), home.data_root.c_str(),
                  home.data_root_from.c_str());
    }
    print_rows(rows);
  });
}

void add_recipe_doc(CLI::App& parent) {
  auto* cmd =
      parent.add_subcommand("doc", "Print docs/RECIPES.md: every recipe key with its type, default and meaning");
  cmd->callback([] { std::cout << recipe::recipe_markdown(); });
}

}  // namespace

void add_recipe(CLI::App& app, const Home& home) {
  auto* recipe = app.add_subcommand("recipe", "Recipes: every key with its value and meaning (docs/RECIPES.md)");
  recipe->require_subcommand(1);
  add_recipe_show(*recipe, home);
  add_recipe_doc(*recipe);
}

}  // namespace nanotrn::cli
