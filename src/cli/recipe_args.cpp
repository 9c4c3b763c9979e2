// The shared recipe flags. See recipe_args.h.
#include "cli/recipe_args.h"

#include "icl/bundle.h"
#include "recipe/recipe_paths.h"
#include "recipe/stack_profile.h"

namespace nanotrn::cli {

void add_data_root_footer(CLI::App* cmd, const Home& home) {
  std::string shipped;
  for (const std::string& s : recipe::shipped_recipes(home)) shipped += (shipped.empty() ? "" : ", ") + s;
  cmd->footer("\nPaths: " + data_root_rule() + "\nHere the data root is " + home.data_root + " (" +
              home.data_root_from + "); shipped recipes: " + (shipped.empty() ? "none found" : shipped) + ".");
}

void add_recipe_flags(CLI::App* cmd, RecipeArgs& args, const Home& home) {
  cmd->add_option("--recipe", args.recipe,
                  "Recipe: a JSON file, or a shipped recipe's name (see `nanotrn recipe show R` and docs/RECIPES.md)")
      ->capture_default_str()
      ->each([&args](const std::string&) { args.recipe_given = true; });
  cmd->add_option("--set", args.sets, "Override a recipe field, e.g. --set optim.matrix_lr=0.02 (repeatable)");
  add_data_root_footer(cmd, home);
}

void add_stack_flag(CLI::App* cmd, std::string& stack) {
  std::string shipped;
  for (const recipe::StackProfile& p : recipe::builtin_stacks()) shipped += (shipped.empty() ? "" : ", ") + p.name;
  cmd->add_option("--stack", stack,
                  "The software stack: a shipped profile (" + shipped +
                      "; compiled and eager are the TorchNeuron ones) or a profile file (= --set launch.stack=S)");
}

std::string shipped_bundle(const Home& home) {
  return home.project.empty() ? std::string() : home.project + "/" + icl::kShippedBundle;
}

void add_core_flags(CLI::App* cmd, const std::string& what, bool& core, std::string& bundle, int64_t& max_per_task,
                    const Home& home) {
  cmd->add_flag("--core", core, "Score CORE on each " + what);
  bundle = shipped_bundle(home);
  cmd->add_option("--core-bundle", bundle, "CORE bundle for --core")->capture_default_str();
  cmd->add_option("--core-max-per-task", max_per_task, "CORE: examples per task (0 = all)");
}

void add_text_field_flag(CLI::App* cmd, std::string& field) {
  cmd->add_option("--field", field, "The text field of JSONL lines and the text column of Parquet files")
      ->capture_default_str();
}

void add_model_config_flag(CLI::App* cmd, RecipeArgs& args) {
  cmd->add_option("--model-config", args.model_config,
                  "A Hugging Face config.json as the model (Llama, Mistral, Qwen2/3, GPT-2 dense configs), with the "
                  "recipe's batch, optimiser and schedule; --set model.depth=2 ... scales it down");
}

recipe::Recipe open_recipe(const RecipeArgs& args, const Home& home, const std::vector<std::string>& extra_sets) {
  std::vector<std::string> sets = args.sets;
  sets.insert(sets.end(), extra_sets.begin(), extra_sets.end());
  return recipe::open_recipe(args.recipe, sets, home, args.model_config);
}

std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=.,:/@%") == std::string::npos;
  if (plain) return word;
  std::string q = "'";
  for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string command_line(const std::string& command, const std::string& recipe, const std::vector<std::string>& sets) {
  std::string cmd = "nanotrn " + command + " --recipe " + shell_word(recipe);
  for (const std::string& s : sets) cmd += " --set " + shell_word(s);
  return cmd;
}

std::string setup_command(const std::string& recipe, const std::vector<std::string>& sets) {
  return command_line("data setup", recipe, sets);
}

}  // namespace nanotrn::cli
