// Launch shapes. See launch.h.
#include "predict/launch.h"

#include <algorithm>
#include <map>
#include <set>

#include "base/error.h"
#include "neuron/isa/machine.h"

namespace nanotrn::predict {

Layout resolve_layout(const recipe::Recipe& r, const hw::Device& d) {
  const recipe::LaunchConfig& l = r.launch;
  const bool trn = d.kind == hw::DeviceKind::trainium;
  Layout out;
  out.chips = l.chips == 0 ? d.chips() : l.chips;
  check(out.chips >= 1 && out.chips <= d.chips(),
        "launch.chips " + std::to_string(l.chips) + ": '" + d.name + "' has " + std::to_string(d.chips()) + " chip(s)");
  if (trn) {
    out.lnc = l.lnc == 0 ? d.lnc() : l.lnc;
    const double widest = neuron::spec_for(d.neuron_core).max_physical_cores.value;  // the core pair, from the spec
    check(out.lnc >= 1 && static_cast<double>(out.lnc) <= widest,
          "launch.lnc " + std::to_string(out.lnc) + " is not available on '" + d.name + "' (LNC=1 to " +
              std::to_string(static_cast<int>(widest)) + " on NeuronCore-" + d.neuron_core + " [LNC])");
    const int64_t cores = d.physical_cores_per_chip(), most = cores / out.lnc;
    out.ranks_per_chip = l.ranks_per_chip == 0 ? most : l.ranks_per_chip;
    check(out.ranks_per_chip <= most,
          "launch.ranks_per_chip " + std::to_string(out.ranks_per_chip) + " with launch.lnc " +
              std::to_string(out.lnc) + " needs " + std::to_string(out.ranks_per_chip * out.lnc) +
              " physical NeuronCores per chip; '" + d.name + "' has " + std::to_string(cores) + ", so at most " +
              std::to_string(most) + " ranks per chip at LNC=" + std::to_string(out.lnc));
    out.idle_cores_per_chip = cores - out.ranks_per_chip * out.lnc;
  } else {
    check(l.lnc <= 1, "launch.lnc applies to Trainium devices only ('" + d.name + "' is not one)");
    check(l.ranks_per_chip <= 1,
          "launch.ranks_per_chip " + std::to_string(l.ranks_per_chip) + ": '" + d.name + "' runs one rank per chip");
    out.ranks_per_chip = 1;
  }
  out.nodes = l.nodes;
  check(out.nodes >= 1, "launch.nodes must be >= 1, got " + std::to_string(l.nodes));
  check(out.nodes == 1 || d.value("efa_bytes_per_s") > 0,
        "launch.nodes " + std::to_string(l.nodes) + ": '" + d.name +
            "' joins no other node over EFA in the catalog (efa_bytes_per_s 0); take its server device "
            "(trn1-server, trn2-server, trn3-ultraserver)");
  out.launched_ranks = out.nodes * out.chips * out.ranks_per_chip;
  out.tp = l.tp;
  check(out.tp >= 1 && out.launched_ranks % out.tp == 0,
        "launch.tp " + std::to_string(l.tp) + " must divide the " + std::to_string(out.launched_ranks) +
            " launched ranks (" + std::to_string(out.nodes) + " node(s) x " + std::to_string(out.chips) +
            " chip(s) x " + std::to_string(out.ranks_per_chip) + " per chip)");
  check(!l.sequence_parallel || out.tp > 1, "launch.sequence_parallel needs launch.tp > 1");
  out.pp = l.pp;
  check(out.pp >= 1 && out.pp <= r.model.depth, "launch.pp " + std::to_string(l.pp) +
                                                    ": a pipeline stage needs at least one of the " +
                                                    std::to_string(r.model.depth) + " layers");
  check(out.launched_ranks % (out.tp * out.pp) == 0, "launch.tp x launch.pp = " + std::to_string(out.tp * out.pp) +
                                                         " must divide the " + std::to_string(out.launched_ranks) +
                                                         " launched ranks");
  check(r.batch.rows >= 1, "predict: batch.rows must be >= 1");
  out.ranks = std::min(out.launched_ranks / (out.tp * out.pp), r.batch.rows);
  out.rows_per_rank = (r.batch.rows + out.ranks - 1) / out.ranks;
  out.ep = l.ep;
  check(out.ep >= 1 && out.ranks % out.ep == 0, "launch.ep " + std::to_string(l.ep) + " must divide the " +
                                                    std::to_string(out.ranks) +
                                                    " data-parallel replicas (the experts are split over ep of them)");
  check(out.ep == 1 || r.model.experts > 0,
        "launch.ep " + std::to_string(l.ep) + " needs a mixture of experts (model.experts)");
  return out;
}

hw::Group place_group(const Layout& l, int64_t size, int64_t stride, int64_t first) {
  check(size >= 1 && stride >= 1 && first >= 0 && first + (size - 1) * stride < l.launched_ranks,
        "place_group: a group of " + std::to_string(size) + " ranks at stride " + std::to_string(stride) +
            " from rank " + std::to_string(first) + " does not fit the " + std::to_string(l.launched_ranks) +
            " launched ranks");
  const int64_t rpc = l.ranks_per_chip, rpn = l.ranks_per_node();
  std::map<int64_t, int64_t> on_chip, chips_in_node;  // chip -> members; node -> chips with members
  for (int64_t k = 0; k < size; ++k) {
    const int64_t r = first + k * stride;
    if (on_chip[r / rpc]++ == 0) ++chips_in_node[r / rpn];
  }
  hw::Group g{.per_chip = 0, .chips = 0, .nodes = static_cast<int64_t>(chips_in_node.size())};
  for (const auto& [chip, n] : on_chip) g.per_chip = std::max(g.per_chip, n);
  for (const auto& [node, n] : chips_in_node) g.chips = std::max(g.chips, n);
  // Groups of this kind: rank r belongs to group (r / (size x stride)) x stride + r % stride.
  auto groups_in = [&](int64_t begin, int64_t end) {
    std::set<int64_t> ids;
    for (int64_t r = begin; r < end && r < l.launched_ranks; ++r) ids.insert(r / (size * stride) * stride + r % stride);
    return static_cast<int64_t>(ids.size());
  };
  const int64_t chip0 = first / rpc * rpc, node0 = first / rpn * rpn;
  g.chip_share = groups_in(chip0, chip0 + rpc);
  g.node_share = groups_in(node0, node0 + rpn);
  return g;
}

std::string layout_text(const Layout& l, const hw::Device& d, int64_t seq_len) {
  const bool trn = d.kind == hw::DeviceKind::trainium;
  std::string s = l.nodes > 1 ? std::to_string(l.nodes) + " nodes (EFA) x " : std::string();
  s += std::to_string(l.chips) + " chip(s) x " + std::to_string(l.ranks_per_chip) + " rank(s)";
  if (trn) {
    s += " (LNC=" + std::to_string(l.lnc);
    if (l.idle_cores_per_chip > 0)
      s += ", " + std::to_string(l.idle_cores_per_chip) + " of " + std::to_string(d.physical_cores_per_chip()) +
           " cores idle per chip";
    s += ")";
  }
  if (l.tp > 1) s += ", tensor parallel over " + std::to_string(l.tp);
  if (l.pp > 1) s += ", " + std::to_string(l.pp) + " pipeline stages (1F1B)";
  if (l.ep > 1) s += ", experts split over " + std::to_string(l.ep) + " replicas";
  s += ", data parallel over " + std::to_string(l.ranks) + " replica(s), " + std::to_string(l.rows_per_rank) +
       " row(s) x " + std::to_string(seq_len) + " tokens per replica per micro-batch";
  const int64_t replicas = l.launched_ranks / (l.tp * l.pp);
  if (l.ranks < replicas)
    s += " (" + std::to_string(replicas - l.ranks) + " of " + std::to_string(replicas) +
         " replicas have no rows: fewer rows than replicas)";
  return s;
}

}  // namespace nanotrn::predict
