// Tests of the timing model's extras beyond the per-instruction formulas (timing.h): DMA descriptor overhead and
// access patterns, LoadStationary / MultiplyMoving, TensorE warm-up throttling, the fp8 double-row rate, and SPMD
// launches on a core pair sharing HBM bandwidth. Expected values are written out from the spec fields and the
// formulas in timing.h, never by calling the model's cost code. Not here: functional results.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "base/error.h"
#include "neuron/isa/builder.h"
#include "neuron/sim/report.h"
#include "neuron/sim/timing.h"

namespace nanotrn::neuron {
namespace {

TimingOptions only(bool throttle, bool ls, bool descriptors) {
  TimingOptions o;
  o.tensor_throttle = throttle;
  o.load_stationary = ls;
  o.dma_descriptors = descriptors;
  return o;
}

TEST(NeuronTimingFeatures, DmaDescriptorsAndAccessPatterns) {
  const NeuronCoreSpec& s = spec_for("v3");
  const double bw = std::min(s.dma_engines.value * s.dma_engine_bytes_per_ns.value, s.hbm_share_bytes_per_ns.value);
  const double lat = s.dma_fixed_latency_ns.value, over = s.dma_descriptor_overhead_bytes.value;
  KernelBuilder b(s);
  View h = b.hbm("h", 256, 512, DType::bf16), row = b.hbm("row", 1, 512, DType::bf16);
  View t = b.sbuf("t", 128, 512, DType::bf16), u = b.sbuf("u", 128, 128, DType::bf16);
  View w = b.sbuf("w", 128, 512, DType::bf16);
  b.dma_copy(t, b.slice(h, 0, 128, 0, 512), 0);      // 0: 128 descriptors of 1 KiB
  b.dma_copy(u, b.pattern(h, 1, 128, 512, 128), 1);  // 1: transposed read: 128 x 128 of 2 B
  b.dma_copy(w, b.pattern(row, 0, 128, 1, 512), 2);  // 2: broadcast of one row: 128 of 1 KiB
  const TimingOptions o = only(false, false, true);
  for (size_t i = 0; i < 3; ++i) {
    const Instruction& ins = b.program().instructions[i];
    Program p = b.program();  // the transfer alone: a copy of the program with only instruction i
    p.instructions = {ins};
    const TimingResult r = simulate_timing(p, s, o);
    const double bytes = static_cast<double>(ins.dst.np * ins.dst.nf) * 2;
    const double descriptors = i == 1 ? 128.0 * 128 : 128.0;
    EXPECT_NEAR(r.total_ns, lat + (bytes + descriptors * over) / bw, 1e-6) << i;
    EXPECT_NEAR(simulate_timing(p, s, TimingOptions::formulas_only()).total_ns, lat + bytes / bw, 1e-6) << i;
  }
  // The pattern's bounding rows are its dependency region: a later write of h row 5 waits for the transposed read.
  View t2 = b.sbuf("t2", 1, 512, DType::bf16);
  b.memset(t2, 0.0f);
  b.dma_copy(b.slice(h, 5, 1, 0, 512), t2, 3);
  const TimingResult r = simulate_timing(b.program(), s);
  const std::span<const uint32_t> deps = r.deps(4);
  EXPECT_NE(std::find(deps.begin(), deps.end(), size_t{1}), deps.end());
  EXPECT_EQ(std::find(deps.begin(), deps.end(), size_t{2}), deps.end());  // `row` is another tensor
}

TEST(NeuronTimingFeatures, LoadStationaryExposedAfterIdleHiddenBackToBack) {
  const NeuronCoreSpec& s = spec_for("v2");  // no throttling on v2
  KernelBuilder b(s);
  View st = b.sbuf("st", 128, 128, DType::bf16), st2 = b.sbuf("st2", 128, 128, DType::bf16);
  View mv = b.sbuf("mv", 128, 256, DType::bf16), acc = b.psum("acc", 128, 256, DType::f32);
  View acc2 = b.psum("acc2", 128, 256, DType::f32);
  b.matmul(acc, st, mv);   // 0: idle before (first): LS exposed
  b.matmul(acc2, st, mv);  // 1: same stationary, back to back: no LS
  b.matmul(acc, st2, mv);  // 2: new stationary, back to back: LS in the background
  const TimingResult r = simulate_timing(b.program(), s, only(false, true, false));
  const double clk = s.tensor_clock_ghz.value;
  const double mm = 256 / clk, ls = 128 / s.load_stationary_speedup.value / clk;  // [NKI-A2] fast LS: M / 4
  EXPECT_NEAR(r.instructions[0].end_ns, ls + mm, 1e-9);
  EXPECT_NEAR(r.instructions[0].ls_ns, ls, 1e-9);
  EXPECT_NEAR(r.instructions[1].end_ns - r.instructions[1].start_ns, mm, 1e-9);
  EXPECT_EQ(r.instructions[1].ls_ns, 0.0);
  EXPECT_NEAR(r.instructions[2].end_ns - r.instructions[2].start_ns, std::max(mm, ls), 1e-9);
  EXPECT_EQ(r.instructions[2].ls_ns, 0.0);
}

TEST(NeuronTimingFeatures, TensorThrottleRampsAfterIdle) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View st = b.sbuf("st", 128, 128, DType::bf16), mv = b.sbuf("mv", 128, 512, DType::bf16);
  View acc = b.psum("acc", 128, 512, DType::f32), big = b.sbuf("big", 128, 16384, DType::bf16);
  View h = b.hbm("h", 128, 16384, DType::bf16);
  const int chain = 18;
  for (int i = 0; i < chain; ++i) b.matmul(acc, st, mv, i > 0);  // back to back from t = 0
  b.dma_copy(big, h);                                            // independent, long
  b.matmul(acc, b.slice(big, 0, 128, 0, 128), mv, true);         // waits for the DMA: idle gap
  const TimingResult r = simulate_timing(b.program(), s, only(true, false, false));
  const double mm = 512 / s.tensor_clock_ghz.value, u0 = s.tensor_throttle_start.value;
  const double ramp = s.tensor_throttle_ramp_ns.value;
  double t = 0;
  for (int i = 0; i < chain; ++i) {  // level at each start: min(1, u0 + (1 - u0) start / ramp) [EXPL-SUM]
    const double level = std::min(1.0, u0 + (1 - u0) * t / ramp);
    EXPECT_NEAR(r.instructions[static_cast<size_t>(i)].start_ns, t, 1e-6) << i;
    EXPECT_NEAR(r.instructions[static_cast<size_t>(i)].throttle, level, 1e-12) << i;
    t += mm / level;
    EXPECT_NEAR(r.instructions[static_cast<size_t>(i)].end_ns, t, 1e-6) << i;
  }
  EXPECT_EQ(r.instructions[chain - 1].throttle, 1.0);  // fully ramped after ~3 us
  const InstructionTiming& last = r.instructions[chain + 1];
  ASSERT_GE(last.start_ns - r.instructions[chain - 1].end_ns, s.tensor_throttle_idle_ns.value);
  EXPECT_EQ(last.throttle, u0);  // re-engaged after the idle gap
  EXPECT_NEAR(last.end_ns - last.start_ns, mm / u0, 1e-9);
  // v2 has no throttling: the same chain runs at full rate.
  KernelBuilder b2(spec_for("v2"));
  View st2 = b2.sbuf("st", 128, 128, DType::bf16), mv2 = b2.sbuf("mv", 128, 512, DType::bf16);
  b2.matmul(b2.psum("acc", 128, 512, DType::f32), st2, mv2);
  EXPECT_NEAR(simulate_timing(b2.program(), spec_for("v2"), only(true, false, false)).total_ns,
              512 / spec_for("v2").tensor_clock_ghz.value, 1e-9);
}

TEST(NeuronTimingFeatures, Fp8DoubleRowDoublesTheRate) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View a0 = b.sbuf("a0", 128, 128, DType::f8e4m3), a1 = b.sbuf("a1", 128, 128, DType::f8e4m3);
  View m0 = b.sbuf("m0", 128, 512, DType::f8e4m3), m1 = b.sbuf("m1", 128, 512, DType::f8e4m3);
  View acc = b.psum("acc", 128, 512, DType::f32);
  b.matmul_double_row(acc, a0, a1, m0, m1);  // K = 256 at the cycles of K = 128 [NKI-A3]
  const Program p = b.take();
  const TimingResult r = simulate_timing(p, s, TimingOptions::formulas_only());
  EXPECT_NEAR(r.total_ns, 512 / s.tensor_clock_ghz.value, 1e-9);
  const Report rep = make_report(p, r, s);
  EXPECT_DOUBLE_EQ(rep.flops, 2.0 * 256 * 128 * 512);
  EXPECT_NEAR(rep.peak_tflops, 2 * 2.0 * 128 * 128 * s.tensor_clock_ghz.value / 1e3, 1e-9);
  EXPECT_NEAR(rep.peak_fraction, 1.0, 1e-12);
}

TEST(NeuronTimingFeatures, MxMatmulQuadruplesTheRateOnV4) {
  const NeuronCoreSpec& s = spec_for("v4");
  KernelBuilder b(s);
  std::array<View, 4> st, mv;
  const char* sn[] = {"s0", "s1", "s2", "s3"};
  const char* mn[] = {"m0", "m1", "m2", "m3"};
  for (size_t j = 0; j < 4; ++j) {
    st[j] = b.sbuf(sn[j], 128, 128, DType::f8e4m3);
    mv[j] = b.sbuf(mn[j], 128, 512, DType::f8e4m3);
  }
  View ss = b.sbuf("ss", 16, 128, DType::i32), sm = b.sbuf("sm", 16, 512, DType::i32);
  b.matmul_mx(b.psum("acc", 128, 512, DType::f32), st, mv, ss, sm);  // K = 4 x 128 in 512 cycles [NKI-A4]
  const Program p = b.take();
  const TimingResult r = simulate_timing(p, s, TimingOptions::formulas_only());
  EXPECT_NEAR(r.total_ns, 512 / s.tensor_clock_ghz.value, 1e-9);
  const Report rep = make_report(p, r, s);
  EXPECT_DOUBLE_EQ(rep.flops, 2.0 * 512 * 128 * 512);
  EXPECT_NEAR(rep.peak_tflops, 4 * 2.0 * 128 * 128 * s.tensor_clock_ghz.value / 1e3, 1e-9);  // 315 TFLOP/s [NC4]
  EXPECT_NEAR(rep.peak_fraction, 1.0, 1e-12);
  // A chain of them, with the full model: the fast simulator matches the reference bit for bit.
  KernelBuilder c(s);
  std::array<View, 4> cs, cm;
  for (size_t j = 0; j < 4; ++j) {
    cs[j] = c.sbuf(sn[j], 128, 128, DType::f8e5m2);
    cm[j] = c.sbuf(mn[j], 128, 256, DType::f8e4m3);
  }
  View css = c.sbuf("ss", 16, 128, DType::i32), csm = c.sbuf("sm", 16, 256, DType::i32);
  View cacc = c.psum("acc", 128, 256, DType::f32), h = c.hbm("h", 128, 128, DType::f8e5m2);
  for (int i = 0; i < 6; ++i) {
    if (i == 3) c.dma_copy(cs[1], h);
    c.matmul_mx(cacc, cs, cm, css, csm, i > 0);
  }
  const TimingResult f = simulate_timing(c.program(), s), ref = simulate_timing_reference(c.program(), s);
  ASSERT_EQ(f.instructions.size(), ref.instructions.size());
  for (size_t i = 0; i < f.instructions.size(); ++i) {
    EXPECT_EQ(f.instructions[i].start_ns, ref.instructions[i].start_ns) << i;
    EXPECT_EQ(f.instructions[i].end_ns, ref.instructions[i].end_ns) << i;
    EXPECT_EQ(f.instructions[i].ls_ns, ref.instructions[i].ls_ns) << i;
  }
  EXPECT_GT(f.instructions[0].ls_ns, 0.0);     // first: exposed LoadStationary
  EXPECT_EQ(f.instructions[1].ls_ns, 0.0);     // same stationary quarters and scales: reused
  EXPECT_GT(f.instructions[4].stall_ns, 0.0);  // waits for the reload of quarter 1
}

TEST(NeuronTimingFeatures, SpmdCorePairSharesHbmBandwidth) {
  const NeuronCoreSpec& s = spec_for("v3");
  auto program = [&](int loads) {
    KernelBuilder b(s);
    View h = b.hbm("h", 512, 1024, DType::f32);
    const char* names[] = {"t0", "t1"};
    for (int i = 0; i < loads; ++i)
      b.dma_copy(b.sbuf(names[i], 128, 1024, DType::f32), b.slice(h, 128 * i, 128, 0, 1024), i);
    return b.take();
  };
  const Program p0 = program(2), p1 = program(1);
  const std::vector<TimingResult> r = simulate_timing_spmd({&p0, &p1}, s, TimingOptions::formulas_only());
  ASSERT_EQ(r.size(), 2u);
  // Max-min fair: HBM of the pair 2 x 362.5 B/ns over 3 transfers = 241.7 each, but core 0's two would then exceed
  // its 16 x 23 = 368 B/ns of DMA engines: core 0 gets 368 (184 each), core 1 the other 725 - 368 = 357.
  const double core_cap = s.dma_engines.value * s.dma_engine_bytes_per_ns.value;
  const double hbm = 2 * s.hbm_share_bytes_per_ns.value, bytes = 128.0 * 1024 * 4, lat = s.dma_fixed_latency_ns.value;
  ASSERT_LT(core_cap / 2, hbm / 3);
  EXPECT_NEAR(r[1].total_ns, lat + bytes / (hbm - core_cap), 1e-6);
  EXPECT_NEAR(r[0].instructions[0].end_ns, lat + bytes / (core_cap / 2), 1e-6);
  EXPECT_NEAR(r[0].total_ns, lat + bytes / (core_cap / 2), 1e-6);
  // The reference agrees bit for bit, and one core alone is the single-core model.
  const std::vector<TimingResult> ref = simulate_timing_spmd_reference({&p0, &p1}, s, TimingOptions::formulas_only());
  EXPECT_EQ(ref[0].total_ns, r[0].total_ns);
  EXPECT_EQ(ref[1].total_ns, r[1].total_ns);
  EXPECT_EQ(simulate_timing_spmd({&p0}, s)[0].total_ns, simulate_timing(p0, s).total_ns);
  // v2 (Trn1) has no LNC=2; more than 2 cores is refused everywhere.
  try {
    simulate_timing_spmd({&p0, &p1}, spec_for("v2"));
    ADD_FAILURE() << "v2 accepted an SPMD pair";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("[LNC]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(simulate_timing_spmd({&p0, &p1, &p0}, s), Error);
}

}  // namespace
}  // namespace nanotrn::neuron
