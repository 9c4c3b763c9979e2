// The data root and the project folder. See home.h. NANOTRN_PROJECT_DIR is defined for this file only
// (CMakeLists.txt).
#include "base/home.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#ifndef NANOTRN_PROJECT_DIR
#define NANOTRN_PROJECT_DIR ""
#endif

namespace nanotrn {

namespace fs = std::filesystem;

namespace {

bool holds_recipes(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "recipes", ec);
}

std::string find_project() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (fs::path p = exe.parent_path(); !p.empty(); p = p.parent_path()) {
      if (holds_recipes(p)) return p.lexically_normal().string();
      if (p == p.parent_path()) break;
    }
  }
  const fs::path built_from = NANOTRN_PROJECT_DIR;
  if (!built_from.empty() && holds_recipes(built_from)) return built_from.lexically_normal().string();
  return "";
}

}  // namespace

std::string Home::path(const std::string& p) const {
  if (p.empty() || data_root.empty() || fs::path(p).is_absolute()) return p;
  return (fs::path(data_root) / p).lexically_normal().string();
}

Home find_home() {
  Home h;
  h.project = find_project();
  if (const char* env = std::getenv("NANOTRN_HOME"); env != nullptr && *env != '\0') {
    h.data_root = fs::absolute(env).lexically_normal().string();
    h.data_root_from = "NANOTRN_HOME";
  } else if (!h.project.empty()) {
    h.data_root = h.project;
    h.data_root_from = "the project folder";
  } else {
    h.data_root = fs::current_path().string();
    h.data_root_from = "the working directory (no project folder with recipes/ was found)";
  }
  return h;
}

std::string data_root_rule() {
  return "Relative paths inside a recipe (data.*, also via --set) and the default output folders (out/...) are "
         "relative to the data root, not to the working directory: $NANOTRN_HOME when set, else the project folder "
         "(the folder above the nanotrn executable, or the source folder it was built from, that holds recipes/). "
         "--recipe takes a file, or the name of a shipped recipe (cpu-tiny = recipes/cpu-tiny.json in the project "
         "folder); paths typed on the command line are relative to the working directory.";
}

}  // namespace nanotrn
