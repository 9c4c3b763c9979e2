// Every rank of a data-parallel job must train the same thing with the same program: ranks started with different
// recipes, run folders or binaries refuse to start, before any step.
//
//   require_same_launch(comm, launch_identity(recipe, build, out_dir, resume));
//
// Each rank hashes its launch identity (FNV-1a of the JSON text) and the hashes are all-gathered. When one differs,
// rank 0's identity is broadcast and every rank throws: a rank that differs names its first differing field with
// both values (recipe_diff.h), the others name the ranks that differ. All ranks throw, so none is left waiting.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "dist/communicator.h"
#include "recipe/recipe.h"

namespace nanotrn::train {

nlohmann::json launch_identity(const recipe::Recipe& recipe, const std::string& build, const std::string& out_dir,
                               const std::string& resume);
uint64_t fnv1a64(const std::string& text);
void require_same_launch(dist::Communicator& comm, const nlohmann::json& identity);

}  // namespace nanotrn::train
