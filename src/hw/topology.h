// Collectives priced on a device's real topology: the ranks of a group on one chip talk over that chip's DMA rings;
// across chips they use NeuronLink, laid out as a 2-D torus (trn2 server, trn1: 4 x 4, 4 links per chip) or a
// switched fabric (Trn3 UltraServer: every chip one hop from every other), from the catalog's links_per_chip,
// torus_x and torus_y.
//
//   Group g{.per_chip = 4, .chips = 16};                       // 4 ranks on each of 16 chips
//   double s = collective_seconds(device, Collective::all_reduce, bytes, g, rank_bytes_per_s);
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
//  * point-to-point: bytes at one link's bandwidth across chips (the rank's bandwidth on one chip) plus one hop.
// All-to-all (expert parallelism) is not priced yet.
#pragma once

#include <cstdint>
#include <string>

#include "hw/catalog.h"

namespace nanotrn::hw {

enum class Collective { all_reduce, reduce_scatter, all_gather, point_to_point };

struct Group {
  int64_t per_chip = 1;  // ranks of the group on each chip it spans
  int64_t chips = 1;
  int64_t size() const { return per_chip * chips; }
};

// `bytes`: the buffer each rank holds (the whole tensor for all-reduce / reduce-scatter input / all-gather output);
// `rank_bytes_per_s`: one rank's own DMA bandwidth, the limit on one chip.
double collective_seconds(const Device& device, Collective kind, double bytes, const Group& group,
                          double rank_bytes_per_s);

// "ring over 4 ranks on one chip", "hierarchical: 4 per chip, 2-D torus 4 x 4 across 16 chips", ...
std::string collective_algorithm(const Device& device, const Group& group);

}  // namespace nanotrn::hw
