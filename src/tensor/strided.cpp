#include "tensor/strided.h"

#include <algorithm>

#include "base/error.h"

namespace nanotrn {

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; i++) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    check(da == db || da == 1 || db == 1,
          "shapes " + shape_str(a) + " and " + shape_str(b) + " cannot be broadcast together");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Shape broadcast_strides(const Shape& shape, const Shape& strides, const Shape& target) {
  check(shape.size() <= target.size(), "cannot broadcast " + shape_str(shape) + " to " + shape_str(target));
  const size_t lead = target.size() - shape.size();
  Shape out(target.size(), 0);
  for (size_t i = 0; i < shape.size(); i++) {
    check(shape[i] == target[lead + i] || shape[i] == 1,
          "cannot broadcast " + shape_str(shape) + " to " + shape_str(target));
    out[lead + i] = shape[i] == 1 ? 0 : strides[i];
  }
  return out;
}

}  // namespace nanotrn
