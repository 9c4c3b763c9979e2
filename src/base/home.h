// Where nanotrn's relative paths point: the data root, and the project folder that holds the shipped recipes.
//
//   const Home home = find_home();
//   home.path("out/tokenizer")      // "/src/nanotrn/out/tokenizer" (an absolute path is returned unchanged)
//   home.project                    // "/src/nanotrn": recipes/cpu-tiny.json lives there
//
// The rule (data_root_rule(), printed by --help and docs/RECIPES.md): relative paths inside a recipe (data.*, also
// when set with --set) and the default output folders of the commands (out/...) are relative to the data root, never
// to the working directory. The data root is $NANOTRN_HOME when set (a relative value counts from the working
// directory); else the project folder; else (no project folder found) the working directory. The project folder is
// the nearest folder above the running executable that holds recipes/ (a build tree inside the checkout:
// build/release/nanotrn -> the checkout), else the source folder this binary was configured from
// (NANOTRN_PROJECT_DIR, compiled in) if it still holds recipes/. Paths typed on the command line (--out, --ckpt,
// --input, --recipe FILE, ...) are relative to the working directory, as in any tool.
//
// Why: the shipped recipes name out/tokenizer-8k and out/data/tokens/...; these must mean one place, wherever the
// user stands, so that `nanotrn data setup` and `nanotrn train` run from different folders meet the same files
// (nanochat's base dir, $NANOCHAT_BASE_DIR, plays this role).
// A default-constructed Home (empty data_root) leaves relative paths as they are: library callers that pass paths
// relative to the working directory need no Home.
#pragma once

#include <string>

namespace nanotrn {

struct Home {
  std::string data_root;       // absolute; "" = relative paths stay relative to the working directory
  std::string data_root_from;  // why: "NANOTRN_HOME", "the project folder" or "the working directory ..."
  std::string project;         // absolute; "" when no project folder was found

  // `p` under the data root when it is relative; unchanged when absolute or empty.
  std::string path(const std::string& p) const;
};

// Reads $NANOTRN_HOME and the running executable's location (see the rule above).
Home find_home();

// The rule above in two sentences, for --help and the generated docs/RECIPES.md.
std::string data_root_rule();

}  // namespace nanotrn
