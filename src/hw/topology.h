// Collectives priced on a device's real topology: the ranks of a group on one chip talk over that chip's DMA rings;
// across chips they use NeuronLink, laid out as a 2-D torus (trn2 server, trn1 server: 4 x 4, 4 links per chip) or
// a switched fabric (Trn3 UltraServer: every chip one hop from every other), from the catalog's links_per_chip,
// torus_x and torus_y; across nodes (several of the device, e.g. 32 trn1 servers) over EFA (efa_bytes_per_s per
// node, efa_hop_latency_s per step).
//
//   Group g{.per_chip = 4, .chips = 16};                       // 4 ranks on each of 16 chips
//   double s = collective_seconds(device, Collective::all_reduce, bytes, g, rank_bytes_per_s);
//   Group dp{.per_chip = 1, .chips = 1, .nodes = 4, .node_share = 32};   // one rank per node; 32 such groups per
//                                                                         // node share its EFA
//
// Algorithms (the Neuron runtime picks among Ring, Mesh, RDH and KangaRing by size [INTRA]; these are the
// bandwidth-optimal textbook forms, not its exact choice):
//  * a ring over n ranks at per-rank bandwidth B moves (n-1)/n of the buffer per reduce-scatter or all-gather and
//    twice that per all-reduce, paying one hop latency per step (hw/roofline.h);
//  * several ranks per chip: hierarchical, a reduce-scatter among the chip's ranks, the cross-chip collective on
//    1/per_chip of the buffer, an all-gather back (the all-reduce; reduce-scatter and all-gather use their halves);
//  * across chips on a 2-D torus: the group takes a chips along x (a = min(chips, torus_x)) and b = chips / a rows;
//    half the buffer goes reduce-scatter along x, all-reduce along y on 1/a of it, all-gather along x, while the
//    other half goes y first, so all four links work; every dimension is a bidirectional ring at 2 links'
//    bandwidth (link = link_bytes_per_s_per_chip / links_per_chip, taken as the chip's total egress: assumed);
//  * across chips with torus_x = 0 (switched, or a device without a torus): a ring at the chip's full link
//    bandwidth;
//  * groups of the same kind run at once (every data-parallel group all-reduces together): `chip_share` groups use
//    each chip's links, `node_share` groups each node's EFA, and each gets that share of the bandwidth;
//  * across nodes: hierarchical again, the node's part first (the above on the group's ranks in one node), then a
//    ring over the nodes on 1 / (the group's ranks per node) of the buffer at efa_bytes_per_s / node_share, one
//    efa_hop_latency_s per step (the Neuron runtime's inter-node Ring [INTER]; it switches to Mesh or recursive
//    doubling-halving for small messages, not modelled), then the node's part back for an all-reduce;
//  * point-to-point: bytes at one link's bandwidth across chips (the rank's bandwidth on one chip; the node's EFA
//    share across nodes) plus one hop.
//  * all-to-all (expert parallelism; `bytes` = what each rank sends in all, 1 / n of it to each member): pairwise
//    exchange, n - 1 steps of one hop each, and each tier carries what crosses it: on a chip (per_chip - 1) / n of
//    the buffer at the rank's bandwidth; across chips the chip's ranks' share leaving the chip, times the mean
//    torus distance between two chips (1 on a switch), at the chip's link bandwidth / chip_share; across nodes the
//    node's ranks' share leaving the node at efa_bytes_per_s / node_share. The tiers are summed (no overlap
//    between them: assumed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hw/catalog.h"

namespace nanotrn::hw {

enum class Collective { all_reduce, reduce_scatter, all_gather, all_to_all, point_to_point };
// "all-reduce", "reduce-scatter", "all-gather", "all-to-all", "point-to-point".
std::string_view collective_name(Collective c);

struct Group {
  int64_t per_chip = 1;    // ranks of the group on each chip it spans
  int64_t chips = 1;       // chips it spans in each node
  int64_t nodes = 1;       // nodes (devices joined over EFA) it spans
  int64_t chip_share = 1;  // groups of this kind that use each chip's links at once
  int64_t node_share = 1;  // groups of this kind that use each node's EFA at once
  int64_t size() const { return per_chip * chips * nodes; }
};

// `bytes`: the buffer each rank holds (the whole tensor for all-reduce / reduce-scatter input / all-gather output);
// `rank_bytes_per_s`: one rank's own DMA bandwidth, the limit on one chip.
double collective_seconds(const Device& device, Collective kind, double bytes, const Group& group,
                          double rank_bytes_per_s);

// "ring over 4 ranks on one chip", "hierarchical: 4 per chip, 2-D torus 4 x 4 across 16 chips", ...,
// "..., then a ring over 4 nodes on EFA (32 groups share each node's EFA)"
std::string collective_algorithm(const Device& device, const Group& group);

}  // namespace nanotrn::hw
