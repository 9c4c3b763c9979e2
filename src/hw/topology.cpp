// Collectives on the topology. See topology.h.
#include "hw/topology.h"

#include <algorithm>

#include "base/error.h"

namespace nanotrn::hw {
namespace {

// A ring over n ranks: `fraction` = 2 for an all-reduce, 1 for a reduce-scatter or all-gather.
double ring(double fraction, double bytes, int64_t n, double bw, double hop) {
  if (n <= 1 || bytes <= 0) return 0.0;
  check(bw > 0, "collective: bandwidth must be positive");
  const double k = static_cast<double>(n);
  return fraction * ((k - 1) / k * bytes / bw + (k - 1) * hop);
}

double fraction_of(Collective kind) { return kind == Collective::all_reduce ? 2.0 : 1.0; }

// The cross-chip part, one rank per chip holding `bytes`.
double across_chips(const Device& d, Collective kind, double bytes, int64_t chips) {
  const double hop = d.value("link_hop_latency_s");
  const double chip_bw = d.link_bytes_per_s_per_chip();
  const int64_t tx = static_cast<int64_t>(d.value("torus_x"));
  const double links = std::max(1.0, d.value("links_per_chip"));
  if (kind == Collective::point_to_point) return bytes / (chip_bw / links) + hop;
  if (tx <= 0) return ring(fraction_of(kind), bytes, chips, chip_bw, hop);
  const double dim_bw = 2.0 * chip_bw / links;  // a bidirectional ring on one dimension uses two links
  const int64_t a = std::min(chips, tx), b = (chips + a - 1) / a;
  if (b == 1) return ring(fraction_of(kind), bytes, a, dim_bw, hop);
  // Two halves of the buffer run at once, one x-then-y and one y-then-x, so all four links stay busy.
  auto two_phase = [&](int64_t first, int64_t second, double half) {
    const double rs = ring(1.0, half, first, dim_bw, hop);
    const double inner = ring(fraction_of(kind), half / static_cast<double>(first), second, dim_bw, hop);
    return kind == Collective::all_reduce ? rs + inner + rs : rs + inner;  // all-gather mirrors reduce-scatter
  };
  return std::max(two_phase(a, b, bytes / 2), two_phase(b, a, bytes / 2));
}

}  // namespace

double collective_seconds(const Device& d, Collective kind, double bytes, const Group& g, double rank_bw) {
  check(g.per_chip >= 1 && g.chips >= 1 && bytes >= 0, "collective: needs a group of >= 1 rank and bytes >= 0");
  check(g.chips <= d.chips(), "collective: a group of " + std::to_string(g.chips) + " chips on '" + d.name + "' with " +
                                  std::to_string(d.chips()));
  const double hop = d.value("link_hop_latency_s");
  if (kind == Collective::point_to_point) {
    return g.chips > 1 ? across_chips(d, kind, bytes, g.chips) : (bytes > 0 ? bytes / rank_bw + hop : 0.0);
  }
  if (g.chips == 1) return ring(fraction_of(kind), bytes, g.per_chip, rank_bw, hop);
  // Hierarchical: among the chip's ranks, then across chips on 1/per_chip of the buffer.
  const double local = ring(1.0, bytes, g.per_chip, rank_bw, hop);
  const double cross = across_chips(d, kind, bytes / static_cast<double>(g.per_chip), g.chips);
  return kind == Collective::all_reduce ? local + cross + local : local + cross;
}

std::string collective_algorithm(const Device& d, const Group& g) {
  if (g.size() <= 1) return "none (one rank)";
  if (g.chips == 1) return "ring over " + std::to_string(g.per_chip) + " ranks on one chip";
  const int64_t tx = static_cast<int64_t>(d.value("torus_x"));
  std::string cross;
  if (tx > 0) {
    const int64_t a = std::min(g.chips, tx);
    cross = "2-D torus " + std::to_string(a) + " x " + std::to_string((g.chips + a - 1) / a) + " across " +
            std::to_string(g.chips) + " chips";
  } else {
    cross = "ring across " + std::to_string(g.chips) + " chips at the chip's link bandwidth";
  }
  return g.per_chip > 1 ? "hierarchical: " + std::to_string(g.per_chip) + " per chip, then " + cross : cross;
}

}  // namespace nanotrn::hw
