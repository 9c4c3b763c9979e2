// Roofline and ring all-reduce. See roofline.h.
#include "hw/roofline.h"

#include <algorithm>

#include "base/error.h"

namespace nanotrn::hw {

double roofline_seconds(double flops, double bytes, double peak_flops, double bytes_per_s) {
  check(flops >= 0 && bytes >= 0, "roofline: negative work");
  check(flops == 0 || peak_flops > 0, "roofline: FLOPs on a device without a peak");
  check(bytes == 0 || bytes_per_s > 0, "roofline: bytes on a device without bandwidth");
  const double compute = flops > 0 ? flops / peak_flops : 0.0;
  const double memory = bytes > 0 ? bytes / bytes_per_s : 0.0;
  return std::max(compute, memory);
}

double ring_allreduce_seconds(double bytes, int64_t ranks, double bytes_per_s, double hop_latency_s) {
  check(ranks >= 1 && bytes >= 0, "ring all-reduce: needs ranks >= 1 and bytes >= 0");
  if (ranks == 1 || bytes == 0) return 0.0;
  check(bytes_per_s > 0, "ring all-reduce: link bandwidth must be positive");
  const double n = static_cast<double>(ranks);
  return 2.0 * (n - 1.0) / n * bytes / bytes_per_s + 2.0 * (n - 1.0) * hop_latency_s;
}

}  // namespace nanotrn::hw
