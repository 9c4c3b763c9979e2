// The parameter-to-rank table. See ownership.h.
#include "dist/ownership.h"

#include <algorithm>
#include <numeric>

#include "base/error.h"

namespace nanotrn::dist {

std::vector<int> assign_owners(const std::vector<int64_t>& sizes, int world) {
  check(world >= 1, "assign_owners: the world size must be >= 1, got " + std::to_string(world));
  std::vector<size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sizes[a] > sizes[b]; });
  std::vector<int64_t> load(static_cast<size_t>(world), 0);
  std::vector<int> owner(sizes.size(), 0);
  for (size_t i : order) {
    check(sizes[i] >= 0, "assign_owners: parameter " + std::to_string(i) + " has a negative size");
    const size_t r = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[i] = static_cast<int>(r);
    load[r] += sizes[i];
  }
  return owner;
}

}  // namespace nanotrn::dist
