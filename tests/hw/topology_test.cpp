// Collectives on the topology (hw/topology.h) against hand arithmetic of the stated algorithms, and the property
// that a reduce-scatter followed by an all-gather costs what the all-reduce costs on every topology.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/error.h"
#include "hw/catalog.h"
#include "hw/roofline.h"
#include "hw/topology.h"

namespace nanotrn::hw {
namespace {

TEST(Topology, OneChipIsARingAtTheRanksBandwidth) {
  const Device trn2 = builtin_catalog().find("trn2");
  const double h = trn2.value("link_hop_latency_s");
  EXPECT_DOUBLE_EQ(collective_seconds(trn2, Collective::all_reduce, 1e9, {.per_chip = 4, .chips = 1}, 1e11),
                   ring_allreduce_seconds(1e9, 4, 1e11, h));
  EXPECT_DOUBLE_EQ(collective_seconds(trn2, Collective::reduce_scatter, 1e9, {.per_chip = 4, .chips = 1}, 1e11),
                   ring_allreduce_seconds(1e9, 4, 1e11, h) / 2);
  EXPECT_EQ(collective_seconds(trn2, Collective::all_reduce, 1e9, {.per_chip = 1, .chips = 1}, 1e11), 0.0);
  EXPECT_THROW(collective_seconds(trn2, Collective::all_reduce, 1e9, {.per_chip = 1, .chips = 2}, 1e11), Error);
}

TEST(Topology, TheTrn2ServerTorusUsesAllFourLinks) {
  const Device server = builtin_catalog().find("trn2-server");
  ASSERT_EQ(server.value("torus_x"), 4);
  ASSERT_EQ(server.value("torus_y"), 4);
  const double h = server.value("link_hop_latency_s"), S = 1e9;
  const double dim = 2 * server.link_bytes_per_s_per_chip() / 4;  // a bidirectional ring on one dimension
  // 16 chips, one rank each: each half (S/2) reduce-scatters over 4, all-reduces S/8 over 4, all-gathers over 4.
  const double rs = 0.75 * (S / 2) / dim + 3 * h, ar = 2 * (0.75 * (S / 8) / dim + 3 * h);
  const Group all{.per_chip = 1, .chips = 16};
  EXPECT_NEAR(collective_seconds(server, Collective::all_reduce, S, all, 1e12), rs + ar + rs, 1e-15);
  // Half the time of one flat bidirectional ring over the 16 chips: the bandwidth terms match per byte, and the
  // torus moves two halves at once.
  const double flat = 2 * (15.0 / 16 * S / dim);
  EXPECT_NEAR(collective_seconds(server, Collective::all_reduce, S, all, 1e12) - 12 * h, flat / 2, 1e-12);
  // 4 chips fit one torus row: a plain bidirectional ring.
  EXPECT_DOUBLE_EQ(collective_seconds(server, Collective::all_reduce, S, {.per_chip = 1, .chips = 4}, 1e12),
                   ring_allreduce_seconds(S, 4, dim, h));
  // 4 ranks on each of 16 chips: reduce-scatter on the chip, the torus on a quarter, all-gather on the chip.
  const double local = ring_allreduce_seconds(S, 4, 2e11, h) / 2;
  EXPECT_NEAR(collective_seconds(server, Collective::all_reduce, S, {.per_chip = 4, .chips = 16}, 2e11),
              local + collective_seconds(server, Collective::all_reduce, S / 4, all, 2e11) + local, 1e-15);
  EXPECT_EQ(collective_algorithm(server, {.per_chip = 4, .chips = 16}),
            "hierarchical: 4 per chip, then 2-D torus 4 x 4 across 16 chips");
}

TEST(Topology, TheTrn3UltraserverIsSwitched) {
  const Device ultra = builtin_catalog().find("trn3-ultraserver");
  ASSERT_EQ(ultra.value("torus_x"), 0);
  const double h = ultra.value("link_hop_latency_s");
  EXPECT_DOUBLE_EQ(collective_seconds(ultra, Collective::all_reduce, 1e9, {.per_chip = 1, .chips = 144}, 1e12),
                   ring_allreduce_seconds(1e9, 144, ultra.link_bytes_per_s_per_chip(), h));
  // Point to point: one link's bandwidth and one hop.
  EXPECT_DOUBLE_EQ(collective_seconds(ultra, Collective::point_to_point, 1e8, {.per_chip = 1, .chips = 2}, 1e12),
                   1e8 / (ultra.link_bytes_per_s_per_chip() / 4) + h);
}

TEST(Topology, ReduceScatterThenAllGatherIsAnAllReduce) {
  const Catalog c = builtin_catalog();
  for (const char* name : {"trn2", "trn2-server", "trn3-ultraserver", "trn1-server"}) {
    const Device d = c.find(name);
    std::vector<Group> groups = {Group{.per_chip = 2, .chips = 1}, Group{.per_chip = 1, .chips = d.chips()},
                                 Group{.per_chip = 2, .chips = d.chips(), .chip_share = 2}};
    if (d.value("efa_bytes_per_s") > 0) {
      groups.push_back({.per_chip = 1, .chips = 1, .nodes = 4, .node_share = 32});
      groups.push_back({.per_chip = 1, .chips = 4, .nodes = 16, .chip_share = 2, .node_share = 8});
    }
    for (const Group& g : groups) {
      const double rs = collective_seconds(d, Collective::reduce_scatter, 3e8, g, 1.5e11);
      const double ag = collective_seconds(d, Collective::all_gather, 3e8, g, 1.5e11);
      EXPECT_NEAR(rs + ag, collective_seconds(d, Collective::all_reduce, 3e8, g, 1.5e11), 1e-15)
          << name << " " << g.per_chip << " x " << g.chips << " x " << g.nodes;
    }
  }
}

TEST(Topology, GroupsThatRunAtOnceShareTheChipLinks) {
  const Device server = builtin_catalog().find("trn2-server");
  const Group one{.per_chip = 1, .chips = 16}, shared{.per_chip = 1, .chips = 16, .chip_share = 4};
  const double h = server.value("link_hop_latency_s");
  // The 12 hop latencies (3 + 6 + 3 steps of each half; the halves run at once) are not shared; the bytes are.
  const double alone = collective_seconds(server, Collective::all_reduce, 1e9, one, 1e12) - 12 * h;
  EXPECT_NEAR(collective_seconds(server, Collective::all_reduce, 1e9, shared, 1e12) - 12 * h, 4 * alone, 1e-12);
  EXPECT_EQ(collective_algorithm(server, shared), "2-D torus 4 x 4 across 16 chips (4 groups share each chip's links)");
}

TEST(Topology, AcrossNodesTheBufferCrossesTheNodesEfaOnce) {
  const Device trn1 = builtin_catalog().find("trn1-server");
  const double efa = trn1.value("efa_bytes_per_s"), hop = trn1.value("efa_hop_latency_s");
  ASSERT_EQ(efa, 1e11);  // 800 Gbps [TRN1-INST]
  ASSERT_EQ(hop, 15e-6);
  // One rank per node on 4 nodes, 32 such groups per node (GPT3-175B's data parallel at TP 32 x PP 8): each group
  // gets 1/32 of the EFA, a plain ring over 4 at that bandwidth with 15 us steps.
  const Group dp{.per_chip = 1, .chips = 1, .nodes = 4, .node_share = 32};
  EXPECT_DOUBLE_EQ(collective_seconds(trn1, Collective::all_reduce, 1e9, dp, 1e11),
                   ring_allreduce_seconds(1e9, 4, efa / 32, hop));
  // The node's 32 groups together: 2 x 3/4 of the node's 32 GB through its 100 GB/s.
  EXPECT_NEAR(collective_seconds(trn1, Collective::all_reduce, 1e9, dp, 1e11), 2 * 0.75 * 32e9 / efa + 6 * hop, 1e-12);
  // 4 ranks per node on 4 chips (Llama2-7B at TP 8 x DP 64 on 16 nodes): the node's reduce-scatter over the torus,
  // the ring over 16 nodes on a quarter of the buffer with each rank's ring on a quarter of the group's share,
  // the node's all-gather.
  const Group llama{.per_chip = 1, .chips = 4, .nodes = 16, .chip_share = 2, .node_share = 8};
  const Group in_node{.per_chip = 1, .chips = 4, .chip_share = 2};
  const double rs = collective_seconds(trn1, Collective::reduce_scatter, 1e9, in_node, 1e11);
  EXPECT_NEAR(collective_seconds(trn1, Collective::all_reduce, 1e9, llama, 1e11),
              rs + ring_allreduce_seconds(1e9 / 4, 16, efa / 8 / 4, hop) + rs, 1e-12);
  EXPECT_EQ(collective_algorithm(trn1, llama),
            "2-D torus 4 x 1 across 4 chips (2 groups share each chip's links), then a ring over 16 nodes on EFA (8 "
            "groups share each node's EFA)");
  // Point to point across nodes: the group's EFA share and one inter-node hop.
  EXPECT_DOUBLE_EQ(collective_seconds(trn1, Collective::point_to_point, 5e7, {.nodes = 2, .node_share = 32}, 1e11),
                   5e7 / (efa / 32) + hop);
  // A device without EFA cannot span nodes, and says so.
  const Device chip = builtin_catalog().find("trn2");
  try {
    collective_seconds(chip, Collective::all_reduce, 1e9, {.nodes = 2}, 1e11);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no EFA"), std::string::npos) << e.what();
  }
}

TEST(Topology, AllToAllCarriesWhatCrossesEachTier) {
  const Catalog c = builtin_catalog();
  const Device trn2 = c.find("trn2"), server = c.find("trn2-server"), ultra = c.find("trn3-ultraserver");
  const double h = trn2.value("link_hop_latency_s"), S = 8e8;
  // On one chip, 4 ranks: pairwise exchange, 3 steps, 3/4 of the buffer out at the rank's bandwidth.
  EXPECT_NEAR(collective_seconds(trn2, Collective::all_to_all, S, {.per_chip = 4}, 1e11), 0.75 * S / 1e11 + 3 * h,
              1e-15);
  // One rank on each of the 16 chips of the 4 x 4 torus: 15/16 leaves each chip and travels the mean distance
  // between two chips, (4 x 4 + 4 x 4) / 15 = 32 / 15 hops, at the chip's link bandwidth.
  const double torus = 15.0 / 16 * S * (32.0 / 15) / server.link_bytes_per_s_per_chip() + 15 * h;
  EXPECT_NEAR(collective_seconds(server, Collective::all_to_all, S, {.chips = 16}, 1e12), torus, 1e-12);
  // The switch: one hop to every chip.
  EXPECT_NEAR(collective_seconds(ultra, Collective::all_to_all, S, {.chips = 144}, 1e12),
              143.0 / 144 * S / ultra.link_bytes_per_s_per_chip() + 143 * ultra.value("link_hop_latency_s"), 1e-12);
  // Across 2 nodes, one rank per node, 32 such groups per node sharing the EFA: half the buffer crosses.
  const double efa = server.value("efa_bytes_per_s") / 32, eh = server.value("efa_hop_latency_s");
  EXPECT_NEAR(collective_seconds(server, Collective::all_to_all, S, {.nodes = 2, .node_share = 32}, 1e12),
              0.5 * S / efa + eh, 1e-12);
  EXPECT_EQ(collective_seconds(server, Collective::all_to_all, S, {.per_chip = 1}, 1e12), 0.0);
}

}  // namespace
}  // namespace nanotrn::hw
