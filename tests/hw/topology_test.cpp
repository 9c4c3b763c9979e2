// Collectives on the topology (hw/topology.h) against hand arithmetic of the stated algorithms, and the property
// that a reduce-scatter followed by an all-gather costs what the all-reduce costs on every topology.
#include <gtest/gtest.h>

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
  for (const char* name : {"trn2", "trn2-server", "trn3-ultraserver"}) {
    const Device d = c.find(name);
    for (const Group g : {Group{.per_chip = 4, .chips = 1}, Group{.per_chip = 1, .chips = d.chips()},
                          Group{.per_chip = 2, .chips = d.chips()}}) {
      const double rs = collective_seconds(d, Collective::reduce_scatter, 3e8, g, 1.5e11);
      const double ag = collective_seconds(d, Collective::all_gather, 3e8, g, 1.5e11);
      EXPECT_NEAR(rs + ag, collective_seconds(d, Collective::all_reduce, 3e8, g, 1.5e11), 1e-15)
          << name << " " << g.per_chip << " x " << g.chips;
    }
  }
}

}  // namespace
}  // namespace nanotrn::hw
