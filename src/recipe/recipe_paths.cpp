// Finding recipes and resolving their data paths. See recipe_paths.h.
#include "recipe/recipe_paths.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "base/error.h"

namespace nanotrn::recipe {

namespace fs = std::filesystem;

namespace {

bool is_file(const std::string& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

std::vector<std::string> candidates(const std::string& name, const Home& home) {
  std::vector<std::string> out = {name};
  if (fs::path(name).is_absolute()) return out;
  std::vector<std::string> dirs;
  for (const std::string& d : {home.data_root, home.project}) {
    if (!d.empty() && std::find(dirs.begin(), dirs.end(), d) == dirs.end()) dirs.push_back(d);
  }
  for (const std::string& d : dirs) {
    out.push_back((fs::path(d) / name).string());
    out.push_back((fs::path(d) / "recipes" / name).string());
    if (fs::path(name).extension() != ".json") out.push_back((fs::path(d) / "recipes" / (name + ".json")).string());
  }
  return out;
}

}  // namespace

std::vector<std::string> shipped_recipes(const Home& home) {
  std::vector<std::string> names;
  std::error_code ec;
  if (home.project.empty() || !fs::is_directory(fs::path(home.project) / "recipes", ec)) return names;
  for (const auto& e : fs::directory_iterator(fs::path(home.project) / "recipes")) {
    if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string find_recipe(const std::string& name, const Home& home) {
  check(!name.empty(), "--recipe: empty recipe name");
  const std::vector<std::string> places = candidates(name, home);
  for (const std::string& p : places) {
    if (is_file(p)) return fs::path(p).lexically_normal().string();
  }
  std::string looked;
  for (const std::string& p : places) looked += "\n  " + p;
  std::string shipped;
  for (const std::string& s : shipped_recipes(home)) shipped += (shipped.empty() ? "" : ", ") + s;
  throw Error("recipe '" + name + "' not found; looked for:" + looked + "\nshipped recipes" +
              (home.project.empty() ? ": none (no project folder with recipes/ was found)"
                                    : " (" + home.project + "/recipes): " + (shipped.empty() ? "none" : shipped)));
}

void resolve_data_paths(Recipe& r, const Home& home) {
  r.data.corpus = home.path(r.data.corpus);
  r.data.tokenizer = home.path(r.data.tokenizer);
  for (std::string* glob : {&r.data.train, &r.data.val}) {
    if (glob->rfind("synthetic:", 0) != 0) *glob = home.path(*glob);
  }
}

Recipe open_recipe(const std::string& name, const std::vector<std::string>& overrides, const Home& home,
                   const std::string& model_config) {
  Recipe r = load_recipe(find_recipe(name, home), overrides, model_config);
  resolve_data_paths(r, home);
  return r;
}

}  // namespace nanotrn::recipe
