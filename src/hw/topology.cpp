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

// The cross-chip part, one rank per chip holding `bytes`; `share` groups use the chip's links at once.
double across_chips(const Device& d, Collective kind, double bytes, int64_t chips, int64_t share) {
  const double hop = d.value("link_hop_latency_s");
  const double chip_bw = d.link_bytes_per_s_per_chip() / static_cast<double>(std::max<int64_t>(1, share));
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

// One node's part: the group's ranks on this node's chips.
double within_node(const Device& d, Collective kind, double bytes, const Group& g, double rank_bw) {
  const double hop = d.value("link_hop_latency_s");
  if (kind == Collective::point_to_point) {
    return g.chips > 1 ? across_chips(d, kind, bytes, g.chips, g.chip_share)
                       : (bytes > 0 ? bytes / rank_bw + hop : 0.0);
  }
  if (g.chips == 1) return ring(fraction_of(kind), bytes, g.per_chip, rank_bw, hop);
  // Hierarchical: among the chip's ranks, then across chips on 1/per_chip of the buffer.
  const double local = ring(1.0, bytes, g.per_chip, rank_bw, hop);
  const double cross = across_chips(d, kind, bytes / static_cast<double>(g.per_chip), g.chips, g.chip_share);
  return kind == Collective::all_reduce ? local + cross + local : local + cross;
}

// The mean ring distance between two distinct positions of a ring of n, and of a torus a x b (Manhattan on rings).
double mean_torus_hops(int64_t a, int64_t b) {
  auto ring_sum = [](int64_t n) {  // sum over the n positions of the distance from position 0
    double s = 0;
    for (int64_t k = 0; k < n; ++k) s += static_cast<double>(std::min(k, n - k));
    return s;
  };
  const double cells = static_cast<double>(a * b);
  // Sum over all (x, y) of dx + dy = b * ring_sum(a) + a * ring_sum(b); averaged over the a b - 1 other cells.
  return cells > 1 ? (static_cast<double>(b) * ring_sum(a) + static_cast<double>(a) * ring_sum(b)) / (cells - 1) : 0.0;
}

double all_to_all(const Device& d, double bytes, const Group& g, double rank_bw) {
  const double n = static_cast<double>(g.size());
  if (n <= 1 || bytes <= 0) return 0.0;
  const double per_chip = static_cast<double>(g.per_chip), chips = static_cast<double>(g.chips);
  const double in_node = per_chip * chips;
  double s = (per_chip - 1) / n * bytes / rank_bw;
  double steps = g.per_chip - 1;
  if (g.chips > 1) {
    const int64_t tx = static_cast<int64_t>(d.value("torus_x"));
    const int64_t a = tx > 0 ? std::min(g.chips, tx) : g.chips, b = tx > 0 ? (g.chips + a - 1) / a : 1;
    const double hops = tx > 0 ? mean_torus_hops(a, b) : 1.0;
    const double leaving = per_chip * (in_node - per_chip) / n * bytes;  // the chip's ranks' bytes to other chips
    s += leaving * hops / (d.link_bytes_per_s_per_chip() / static_cast<double>(g.chip_share));
    steps += (chips - 1) * per_chip;
  }
  if (g.nodes > 1) {
    const double efa = d.value("efa_bytes_per_s") / static_cast<double>(g.node_share);
    check(efa > 0, "collective: an all-to-all across " + std::to_string(g.nodes) + " nodes of '" + d.name +
                       "', which has no EFA in the catalog (efa_bytes_per_s 0): take a server device");
    s += in_node * (n - in_node) / n * bytes / efa;
    s += static_cast<double>(g.nodes - 1) * in_node * d.value("efa_hop_latency_s");
    steps = in_node - 1;  // the steps inside a node; the others paid the inter-node hop above
  }
  return s + steps * d.value("link_hop_latency_s");
}

}  // namespace

double collective_seconds(const Device& d, Collective kind, double bytes, const Group& g, double rank_bw) {
  check(g.per_chip >= 1 && g.chips >= 1 && g.nodes >= 1 && g.chip_share >= 1 && g.node_share >= 1 && bytes >= 0,
        "collective: needs a group of >= 1 rank, shares >= 1 and bytes >= 0");
  check(g.chips <= d.chips(), "collective: a group of " + std::to_string(g.chips) + " chips on '" + d.name + "' with " +
                                  std::to_string(d.chips()));
  if (kind == Collective::all_to_all) return all_to_all(d, bytes, g, rank_bw);
  if (g.nodes == 1) return within_node(d, kind, bytes, g, rank_bw);
  const double efa = d.value("efa_bytes_per_s") / static_cast<double>(g.node_share);
  check(efa > 0, "collective: a group across " + std::to_string(g.nodes) + " nodes of '" + d.name +
                     "', which has no EFA in the catalog (efa_bytes_per_s 0): take a server device");
  const double hop = d.value("efa_hop_latency_s");
  if (kind == Collective::point_to_point) return bytes > 0 ? bytes / efa + hop : 0.0;
  // Hierarchical across nodes: the node's reduce-scatter, a ring over the nodes on the rank's shard (the node's
  // ranks' rings run at once and share its EFA), the node's all-gather.
  const double in_node = static_cast<double>(g.per_chip * g.chips);
  const Group node{.per_chip = g.per_chip, .chips = g.chips, .nodes = 1, .chip_share = g.chip_share};
  const double local = within_node(d, Collective::reduce_scatter, bytes, node, rank_bw);
  const double cross = ring(fraction_of(kind), bytes / in_node, g.nodes, efa / in_node, hop);
  return kind == Collective::all_reduce ? local + cross + local : local + cross;
}

std::string_view collective_name(Collective c) {
  switch (c) {
    case Collective::all_reduce:
      return "all-reduce";
    case Collective::reduce_scatter:
      return "reduce-scatter";
    case Collective::all_gather:
      return "all-gather";
    case Collective::all_to_all:
      return "all-to-all";
    case Collective::point_to_point:
      return "point-to-point";
  }
  return "?";
}

std::string collective_algorithm(const Device& d, const Group& g) {
  if (g.size() <= 1) return "none (one rank)";
  std::string text;
  if (g.chips == 1) {
    text = g.per_chip > 1 ? "ring over " + std::to_string(g.per_chip) + " ranks on one chip" : "one rank per node";
  } else {
    const int64_t tx = static_cast<int64_t>(d.value("torus_x"));
    std::string cross;
    if (tx > 0) {
      const int64_t a = std::min(g.chips, tx);
      cross = "2-D torus " + std::to_string(a) + " x " + std::to_string((g.chips + a - 1) / a) + " across " +
              std::to_string(g.chips) + " chips";
    } else {
      cross = "ring across " + std::to_string(g.chips) + " chips at the chip's link bandwidth";
    }
    text = g.per_chip > 1 ? "hierarchical: " + std::to_string(g.per_chip) + " per chip, then " + cross : cross;
    if (g.chip_share > 1) text += " (" + std::to_string(g.chip_share) + " groups share each chip's links)";
  }
  if (g.nodes > 1) {
    text += ", then a ring over " + std::to_string(g.nodes) + " nodes on EFA";
    if (g.node_share > 1) text += " (" + std::to_string(g.node_share) + " groups share each node's EFA)";
  }
  return text;
}

}  // namespace nanotrn::hw
