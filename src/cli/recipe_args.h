// What every command that reads a recipe shares: the --recipe and --set flags, the data-root rule in its --help
// (base/home.h), and the `nanotrn data setup` command line that missing-data errors name; and the flags and defaults
// several commands share (--stack, --field, --core and the shipped CORE bundle), defined once.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/home.h"
#include "recipe/recipe.h"

namespace nanotrn::cli {

struct RecipeArgs {
  std::string recipe = "cpu-tiny";  // a file or a shipped recipe's name (recipe/recipe_paths.h)
  std::vector<std::string> sets;    // "key.path=value" overrides, in order
  bool recipe_given = false;        // --recipe was on the command line (else `recipe` is the default)
  std::string model_config;         // --model-config: a Hugging Face config.json as the model (train, bench train)
};

// Adds --recipe and --set to cmd, and the data-root rule with this machine's data root as its --help footer.
void add_recipe_flags(CLI::App* cmd, RecipeArgs& args, const Home& home);
// Adds --model-config (the recipe's batch, optimiser and schedule; the model from a Hugging Face config.json, which
// --set model.* scales down).
void add_model_config_flag(CLI::App* cmd, RecipeArgs& args);
// --stack S (the software stack a device target is priced on: = --set launch.stack=S) for predict and forecast.
void add_stack_flag(CLI::App* cmd, std::string& stack);
// --field F (the text field of JSONL sources and the text column of Parquet ones) for data prepare and forecast --data.
void add_text_field_flag(CLI::App* cmd, std::string& field);
// The CORE bundle the project ships (icl::kShippedBundle in the project folder): the default of every command that
// scores CORE; "" without a project folder (an installed binary: name one with --bundle / --core-bundle).
std::string shipped_bundle(const Home& home);
// --core, --core-bundle DIR (default: shipped_bundle) and --core-max-per-task N for sweep and forecast: CORE scored
// on every `what` ("trial's checkpoint") after it trains.
void add_core_flags(CLI::App* cmd, const std::string& what, bool& core, std::string& bundle, int64_t& max_per_task,
                    const Home& home);
// The footer alone (for commands that read a recipe from elsewhere, e.g. a checkpoint).
void add_data_root_footer(CLI::App* cmd, const Home& home);

// The recipe found, loaded with args.sets then extra_sets applied, its data paths under the data root.
recipe::Recipe open_recipe(const RecipeArgs& args, const Home& home, const std::vector<std::string>& extra_sets = {});

// "nanotrn data setup --recipe R --set a=b ...": the command that builds the data of this recipe and overrides.
std::string setup_command(const std::string& recipe, const std::vector<std::string>& sets);
// `nanotrn <command> --recipe R --set ...` as a shell reads it: a word with characters a shell would expand (a glob's
// '*', spaces, quotes) is single-quoted.
std::string command_line(const std::string& command, const std::string& recipe, const std::vector<std::string>& sets);
std::string shell_word(const std::string& word);

}  // namespace nanotrn::cli
