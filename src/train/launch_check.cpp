// The launch identity check. See launch_check.h.
#include "train/launch_check.h"
#include "base/json_parse.h"

#include <vector>

#include "base/error.h"
#include "recipe/recipe_diff.h"

namespace nanotrn::train {

nlohmann::json launch_identity(const recipe::Recipe& recipe, const std::string& build, const std::string& out_dir,
                               const std::string& resume) {
  return {{"build", build}, {"recipe", recipe::recipe_to_json(recipe)}, {"out", out_dir}, {"resume", resume}};
}

uint64_t fnv1a64(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

void require_same_launch(dist::Communicator& comm, const nlohmann::json& identity) {
  const int n = comm.size(), me = comm.rank();
  if (n == 1) return;
  comm.set_activity("the launch check (every rank compares its recipe and build)");
  const std::string text = identity.dump();
  const uint64_t mine = fnv1a64(text);
  std::vector<uint64_t> all(static_cast<size_t>(n));
  comm.all_gather(&mine, all.data(), sizeof mine);
  std::vector<int> differ;
  for (int r = 1; r < n; r++) {
    if (all[static_cast<size_t>(r)] != all[0]) differ.push_back(r);
  }
  if (differ.empty()) return;
  int64_t length = static_cast<int64_t>(text.size());
  comm.broadcast(&length, sizeof length, 0);
  std::string root(static_cast<size_t>(length), '\0');
  if (me == 0) root = text;
  comm.broadcast(root.data(), length, 0);
  std::string ranks;
  for (int r : differ) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  const std::string here = "on rank " + std::to_string(me);
  if (all[static_cast<size_t>(me)] != all[0]) {
    const std::optional<std::string> d =
        recipe::first_difference(identity, nanotrn::parse_json(root), here, "on rank 0");
    throw Error("rank " + std::to_string(me) + " was started with another recipe, run folder or build than rank 0: " +
                d.value_or("(the same fields, another encoding)") + "; start every rank with the same command");
  }
  throw Error("rank(s) " + ranks + " of " + std::to_string(n) +
              " were started with another recipe, run folder or build than rank 0 (each names its first differing "
              "field); start every rank with the same command");
}

}  // namespace nanotrn::train
