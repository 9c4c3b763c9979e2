// Tests of neuron/sim/report.h on a five-instruction program: every number against an independent computation from
// the program, the spec and the timing result, the stall ranking and its source lines, and the JSON form.
// Not here: the timing model's own numbers (timing_test.cpp).
#include "neuron/sim/report.h"

#include <gtest/gtest.h>

#include <string>

#include "neuron/isa/builder.h"

namespace nanotrn::neuron {
namespace {

TEST(NeuronReport, NumbersMatchAnIndependentComputation) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View a = b.hbm("a", 128, 128, DType::bf16), x = b.hbm("x", 128, 512, DType::bf16);
  View out = b.hbm("out", 128, 512, DType::f32);
  View ta = b.sbuf("ta", 128, 128, DType::bf16), tx = b.sbuf("tx", 128, 512, DType::bf16);
  View r = b.sbuf("r", 128, 512, DType::f32), acc = b.psum("acc", 128, 512, DType::f32);
  b.dma_copy(ta, a, 0);
  const int load_line = __LINE__ + 1;
  b.dma_copy(tx, x, 1);
  const int matmul_line = __LINE__ + 1;
  b.matmul(acc, ta, tx);
  b.copy(r, acc);
  b.dma_copy(out, r, 2);
  const Program p = b.take();
  const TimingResult t = simulate_timing(p, s, TimingOptions::formulas_only());
  const Report rep = make_report(p, t, s);

  EXPECT_EQ(rep.instructions, 5u);
  EXPECT_DOUBLE_EQ(rep.total_ns, t.total_ns);
  const double flops = 2.0 * 128 * 128 * 512;
  EXPECT_DOUBLE_EQ(rep.flops, flops);
  const double peak = 2.0 * 128 * 128 * s.tensor_clock_ghz.value;  // flop/ns
  EXPECT_NEAR(rep.peak_tflops, peak / 1e3, 1e-9);
  EXPECT_NEAR(rep.tflops, flops / t.total_ns / 1e3, 1e-9);
  EXPECT_NEAR(rep.peak_fraction, flops / t.total_ns / peak, 1e-12);
  const double bytes = 128.0 * 128 * 2 + 128.0 * 512 * 2 + 128.0 * 512 * 4;
  EXPECT_DOUBLE_EQ(rep.dma_bytes, bytes);
  EXPECT_EQ(rep.dma_transfers, 3u);
  EXPECT_NEAR(rep.dma_gbps, bytes / t.total_ns, 1e-9);
  // SBUF: ta 256 B, tx 1 KiB, r 2 KiB per partition, bump-allocated; PSUM: one 2 KiB bank.
  EXPECT_EQ(rep.sbuf_high_water, 256 + 1024 + 2048);
  EXPECT_EQ(rep.psum_high_water, 2048);
  EXPECT_EQ(rep.sbuf_capacity, 224 * 1024);
  // Tracks that ran something: Tensor, Vector, DMA q0, q1, q2.
  ASSERT_EQ(rep.tracks.size(), 5u);
  EXPECT_EQ(rep.tracks[0].name, "Tensor");
  EXPECT_NEAR(rep.tracks[0].busy_fraction, (512 / s.tensor_clock_ghz.value) / t.total_ns, 1e-12);
  EXPECT_EQ(rep.tracks[4].name, "DMA q2");
  // Each track carries its engine (and queue) as the program's instructions name them, not as text to parse back.
  for (const TrackUse& u : rep.tracks) {
    size_t ran = 0;
    for (const Instruction& ins : p.instructions)
      ran += ins.engine == u.engine && (u.engine != Engine::dma || ins.dma_queue == u.dma_queue);
    EXPECT_EQ(u.instructions, ran) << u.name;
    EXPECT_EQ(u.core, 0u);
  }
  EXPECT_EQ(rep.tracks[1].engine, Engine::vector);
  EXPECT_EQ(rep.tracks[4].dma_queue, 2);
  EXPECT_NEAR(rep.tracks[4].busy_ns, t.instructions[4].end_ns - t.instructions[4].start_ns, 1e-9);
  // Stalls, longest first: each queue / engine was free from t = 0, so each stall is its start time. The store
  // waited longest (for the copy), then the copy (for the matmul), then the matmul (for the larger load, q1).
  ASSERT_EQ(rep.stalls.size(), 3u);
  EXPECT_EQ(rep.stalls[0].instruction, 4u);
  EXPECT_EQ(rep.stalls[0].blocked_by, 3u);
  EXPECT_NEAR(rep.stalls[0].stall_ns, t.instructions[4].start_ns, 1e-9);
  EXPECT_EQ(rep.stalls[1].instruction, 3u);
  const Stall& st = rep.stalls[2];
  EXPECT_EQ(st.instruction, 2u);
  EXPECT_EQ(st.op, "matmul");
  EXPECT_EQ(st.blocked_by, 1u);
  EXPECT_EQ(st.blocker_track, "DMA q1");
  EXPECT_NEAR(st.stall_ns, t.instructions[2].start_ns, 1e-9);
  EXPECT_NE(st.source.find("report_test.cpp:" + std::to_string(matmul_line)), std::string::npos) << st.source;
  EXPECT_NE(st.blocker_source.find("report_test.cpp:" + std::to_string(load_line)), std::string::npos);

  // Sums per (stalled track, cause track): three single stalls, largest first.
  ASSERT_EQ(rep.stall_sums.size(), 3u);
  EXPECT_EQ(rep.stall_sums[0].track, "DMA q2");
  EXPECT_EQ(rep.stall_sums[0].cause_track, "Vector");
  EXPECT_NEAR(rep.stall_sums[0].stall_ns, t.instructions[4].start_ns, 1e-9);
  EXPECT_EQ(rep.stall_sums[2].track, "Tensor");
  EXPECT_EQ(rep.stall_sums[2].cause_track, "DMA q1");
  EXPECT_EQ(rep.stall_sums[2].count, 1u);

  const std::string text = report_text(rep);
  EXPECT_NE(text.find("% of TensorE peak"), std::string::npos) << text;
  EXPECT_NE(text.find("report_test.cpp:" + std::to_string(matmul_line)), std::string::npos) << text;
  const nlohmann::json j = report_json(rep);
  EXPECT_DOUBLE_EQ(j.at("total_ns").get<double>(), t.total_ns);
  EXPECT_DOUBLE_EQ(j.at("dma_bytes").get<double>(), bytes);
  EXPECT_EQ(j.at("stalls").size(), 3u);
  EXPECT_EQ(j.at("stalls")[2].at("blocked_by").get<size_t>(), 1u);
  EXPECT_EQ(j.at("tracks").size(), 5u);

  // An explicit flop count overrides the matmul sum; max_stalls caps the list.
  const Report r2 = make_report(p, t, s, 2 * flops, 1);
  EXPECT_DOUBLE_EQ(r2.flops, 2 * flops);
  EXPECT_EQ(r2.stalls.size(), 1u);
}

}  // namespace
}  // namespace nanotrn::neuron
