// The launch shape a prediction prices: how many chips, how many data-parallel ranks on each, how many physical
// NeuronCores each rank owns (LNC), and the software stack, from the recipe's `launch` section (recipe/recipe.h;
// `predict --lnc/--ranks-per-chip/--chips/--stack` are overrides of it).
//
//   Layout l = resolve_layout(recipe, catalog.find("trn2"));   // throws saying why a shape is impossible
//   l.ranks, l.rows_per_rank, l.idle_cores_per_chip, layout_text(l)
//
// Rules:
//  * chips: 1 .. the device's chips (0 = all);
//  * lnc: Trainium only; 1, or 2 on Trn2 and later [LNC] (0 = the device's default); a rank owns `lnc` physical
//    cores and runs as one logical core;
//  * ranks_per_chip: 1 .. physical cores / lnc on Trainium (0 = that maximum; the cores no rank owns are idle),
//    exactly 1 on other devices; the challenge's nproc_per_node x NEURON_LOGICAL_NC_CONFIG (recipe-spec §12);
//  * launch.tp ranks (consecutive, so on one chip while tp <= ranks_per_chip) form one model replica; tp must divide
//    the launched ranks, and the data-parallel replicas are launched ranks / tp;
//  * launch.pp stages of tp ranks each make a replica (tp x pp ranks; pp <= the model's depth): the replicas are
//    launched ranks / (tp x pp);
//  * every replica gets ceil(rows / replicas) rows of each micro-batch; with fewer rows than ranks the extra ranks have
//    nothing to do and are left out (said in the notes);
//  * one rank's share of the chip's HBM capacity and bandwidth is the chip's / launched ranks on the chip (capacity)
//  and the
//    chip's / logical cores (bandwidth: an idle core's share is not handed to the others; assumed).
#pragma once

#include <cstdint>
#include <string>

#include "hw/catalog.h"
#include "recipe/recipe.h"

namespace nanotrn::predict {

struct Layout {
  int64_t chips = 1;
  int64_t lnc = 1;             // physical cores per rank (1 off Trainium)
  int64_t ranks_per_chip = 1;  // as launched
  int64_t tp = 1;              // tensor-parallel ranks per model replica
  int64_t pp = 1;              // pipeline stages per model replica
  int64_t ranks = 1;           // data-parallel replicas with rows to work on (<= launched_ranks / tp)
  int64_t launched_ranks = 1;  // chips x ranks_per_chip
  int64_t rows_per_rank = 1;
  int64_t idle_cores_per_chip = 0;  // physical cores no rank owns
  recipe::Stack stack = recipe::Stack::compiled;
};

Layout resolve_layout(const recipe::Recipe& recipe, const hw::Device& device);
// "1 chip x 1 rank (LNC=1, 7 of 8 cores idle), 64 rows x 1024 tokens per rank per micro-batch, eager"
std::string layout_text(const Layout& layout, const hw::Device& device, int64_t seq_len);

}  // namespace nanotrn::predict
