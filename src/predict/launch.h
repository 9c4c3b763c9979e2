// The launch shape a prediction prices: how many chips, how many data-parallel ranks on each, how many physical
// NeuronCores each rank owns (LNC), and the software stack, from the recipe's `launch` section (recipe/recipe.h;
// `predict --lnc/--ranks-per-chip/--chips/--stack` are overrides of it).
//
//   Layout l = resolve_layout(recipe, catalog.find("trn2"));   // throws saying why a shape is impossible
//   l.ranks, l.rows_per_rank, l.idle_cores_per_chip, layout_text(l)
//
// Rules:
//  * chips: 1 .. the device's chips (0 = all), in each of launch.nodes nodes (copies of the device joined over EFA;
//    nodes > 1 needs a device with efa_bytes_per_s in the catalog: the server devices). Ranks are numbered node by
//    node, chip by chip (hw/topology.h prices the groups that follow from it);
//  * lnc: Trainium only; 1, or 2 on Trn2 and later [LNC] (0 = the device's default); a rank owns `lnc` physical
//    cores and runs as one logical core;
//  * ranks_per_chip: 1 .. physical cores / lnc on Trainium (0 = that maximum; the cores no rank owns are idle),
//    exactly 1 on other devices; the challenge's nproc_per_node x NEURON_LOGICAL_NC_CONFIG (recipe-spec §12);
//  * launch.tp ranks (consecutive, so on one chip while tp <= ranks_per_chip, in one node while tp <= its ranks) form
//    one model replica; tp must divide the launched ranks, and the data-parallel replicas are launched ranks / tp;
//  * launch.pp stages of tp ranks each make a replica (tp x pp ranks; pp <= the model's depth): the replicas are
//    launched ranks / (tp x pp);
//  * launch.ep (a mixture of experts): ep consecutive replicas split the experts; ep must divide the replicas with
//    rows and the experts (lowering.h: expert_shard);
//  * every replica gets ceil(rows / replicas) rows of each micro-batch; with fewer rows than ranks the extra ranks have
//    nothing to do and are left out (said in the notes);
//  * one rank's share of the chip's HBM capacity and bandwidth is the chip's / launched ranks on the chip (capacity)
//  and the
//    chip's / logical cores (bandwidth: an idle core's share is not handed to the others; assumed).
#pragma once

#include <cstdint>
#include <string>

#include "hw/catalog.h"
#include "hw/topology.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

struct Layout {
  int64_t nodes = 1;           // copies of the device, joined over EFA
  int64_t chips = 1;           // per node
  int64_t lnc = 1;             // physical cores per rank (1 off Trainium)
  int64_t ranks_per_chip = 1;  // as launched
  int64_t tp = 1;              // tensor-parallel ranks per model replica
  int64_t pp = 1;              // pipeline stages per model replica
  int64_t ep = 1;              // expert-parallel replicas (consecutive replicas share out the experts)
  int64_t ranks = 1;           // data-parallel replicas with rows to work on (<= launched_ranks / tp)
  int64_t launched_ranks = 1;  // nodes x chips x ranks_per_chip
  int64_t ranks_per_node() const { return chips * ranks_per_chip; }
  int64_t rows_per_rank = 1;
  int64_t idle_cores_per_chip = 0;  // physical cores no rank owns
};

Layout resolve_layout(const recipe::Recipe& recipe, const hw::Device& device);

// Where a group of `size` ranks sits, its members `first`, first + stride, ... (a tensor-parallel group: stride 1; a
// data-parallel group: stride tp x pp; two neighbouring pipeline stages: size 2, stride tp), with ranks numbered
// node by node and chip by chip: the most members on one chip and chips in one node, the nodes, and how many groups
// of the same kind (ranks first + j, j < stride, in blocks of size x stride) share each chip's links and each
// node's EFA (hw/topology.h).
hw::Group place_group(const Layout& layout, int64_t size, int64_t stride, int64_t first = 0);
// "1 chip(s) x 1 rank(s) (LNC=1, 7 of 8 cores idle per chip), ..., 64 row(s) x 1024 tokens per replica per
// micro-batch"; "32 nodes (EFA) x 16 chip(s) x 2 rank(s) ..." across nodes
std::string layout_text(const Layout& layout, const hw::Device& device, int64_t seq_len);

}  // namespace nanotrn::predict
