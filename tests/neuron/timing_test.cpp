// Tests of neuron/sim/timing.h: single-instruction times equal the documented formulas of hardware-facts §6.3,
// written out here from the spec fields (never by calling the model's cost code), plus queueing, dependency and
// DMA bandwidth-sharing behaviour. Not here: functional results.
#include "neuron/sim/timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "neuron/isa/builder.h"
#include "neuron/kernels/attention.h"
#include "neuron/kernels/matmul.h"
#include "neuron/kernels/rmsnorm.h"
#include "neuron/kernels/softmax.h"
#include "neuron/kernels/transpose.h"
#include "neuron/kernels/vector_add.h"

namespace nanotrn::neuron {
namespace {

// The formula tests switch the model's extras (throttling, LoadStationary, DMA descriptors) off; each extra has
// its own test below.
const TimingOptions kFormulas = TimingOptions::formulas_only();

std::vector<size_t> deps_of(const TimingResult& r, size_t i) {
  const std::span<const uint32_t> d = r.deps(i);
  return {d.begin(), d.end()};
}

TEST(NeuronTiming, SingleMatmulEqualsTheIsaFormula) {
  struct Shape {
    int64_t k, m, n;
    DType t;
  };
  const Shape shapes[] = {{128, 128, 512, DType::bf16},
                          {128, 32, 16, DType::bf16},
                          {64, 128, 32, DType::f8e4m3},
                          {128, 128, 100, DType::f32},
                          {16, 8, 8, DType::f16}};
  for (const char* gen : {"v2", "v3", "v4"}) {
    const NeuronCoreSpec& s = spec_for(gen);
    for (const Shape& sh : shapes) {
      KernelBuilder b(s);
      View st = b.sbuf("st", sh.k, sh.m, sh.t), mv = b.sbuf("mv", sh.k, sh.n, sh.t);
      View acc = b.psum("acc", sh.m, sh.n, DType::f32);
      b.matmul(acc, st, mv);
      const TimingResult r = simulate_timing(b.program(), s, kFormulas);
      // [ISA-2025-10]: max(min(64, N_stationary), N_moving) TensorE cycles; fp32: 4x.
      double cycles = std::max(std::min(64.0, double(sh.m)), double(sh.n));
      if (sh.t == DType::f32) cycles *= 4;
      const double expected_ns = cycles / s.tensor_clock_ghz.value;
      EXPECT_DOUBLE_EQ(r.instructions[0].start_ns, 0.0);
      EXPECT_NEAR(r.instructions[0].end_ns, expected_ns, 1e-9) << gen << " m=" << sh.m << " n=" << sh.n;
      EXPECT_NEAR(r.total_ns, expected_ns, 1e-9);
      EXPECT_NEAR(r.tracks[0].busy_ns, expected_ns, 1e-9);
    }
  }
  // [derived] in the fact sheet: one 128x128x512 bf16 matmul = 183 ns on v2, 213 ns on v3.
  KernelBuilder b(spec_for("v2"));
  View st = b.sbuf("st", 128, 128, DType::bf16), mv = b.sbuf("mv", 128, 512, DType::bf16);
  View acc = b.psum("acc", 128, 512, DType::f32);
  b.matmul(acc, st, mv);
  EXPECT_NEAR(simulate_timing(b.program(), spec_for("v2"), kFormulas).total_ns, 183, 0.5);
  EXPECT_NEAR(simulate_timing(b.program(), spec_for("v3"), kFormulas).total_ns, 213, 0.5);
}

TEST(NeuronTiming, SingleDmaEqualsLatencyPlusBytesOverBandwidth) {
  for (const char* gen : {"v2", "v3", "v4"}) {
    const NeuronCoreSpec& s = spec_for(gen);
    KernelBuilder b(s);
    View h = b.hbm("h", 128, 512, DType::f32), t = b.sbuf("t", 128, 512, DType::f32);
    b.dma_copy(t, h);
    const TimingResult r = simulate_timing(b.program(), s, kFormulas);
    // [DMABW] fixed ~1.3 us + bytes / min(16 engines x per-engine B/ns [DMAOV], HBM share per core).
    const double bw = std::min(s.dma_engines.value * s.dma_engine_bytes_per_ns.value, s.hbm_share_bytes_per_ns.value);
    const double expected = s.dma_fixed_latency_ns.value + 128.0 * 512 * 4 / bw;
    EXPECT_NEAR(r.total_ns, expected, 1e-6 * expected) << gen;
    EXPECT_EQ(r.instructions[0].track, 4);
    // With the (assumed) per-descriptor overhead: one 2 KiB buffer per partition, 256 B each.
    const double with_descriptors =
        s.dma_fixed_latency_ns.value + (128.0 * 512 * 4 + 128 * s.dma_descriptor_overhead_bytes.value) / bw;
    EXPECT_NEAR(simulate_timing(b.program(), s).total_ns, with_descriptors, 1e-6 * with_descriptors) << gen;
    if (std::string(gen) == "v3") {
      EXPECT_NEAR(with_descriptors, 2113.6, 0.1);
    }
  }
}

TEST(NeuronTiming, DmaQueuesShareBandwidthAndQueuesAreInOrder) {
  const NeuronCoreSpec& s = spec_for("v3");
  const double bw = s.dma_total_bytes_per_ns(), lat = s.dma_fixed_latency_ns.value, bytes = 128.0 * 256 * 2;
  {  // Two queues in parallel: both transfer phases overlap fully, each at bw / 2.
    KernelBuilder b(s);
    View h = b.hbm("h", 256, 256, DType::bf16);
    View t0 = b.sbuf("t0", 128, 256, DType::bf16), t1 = b.sbuf("t1", 128, 256, DType::bf16);
    b.dma_copy(t0, b.slice(h, 0, 128, 0, 256), 0);
    b.dma_copy(t1, b.slice(h, 128, 128, 0, 256), 1);
    const TimingResult r = simulate_timing(b.program(), s, kFormulas);
    EXPECT_NEAR(r.instructions[0].end_ns, lat + 2 * bytes / bw, 1e-6);
    EXPECT_NEAR(r.instructions[1].end_ns, lat + 2 * bytes / bw, 1e-6);
  }
  {  // Same queue: the second starts when the first ends.
    KernelBuilder b(s);
    View h = b.hbm("h", 256, 256, DType::bf16);
    View t0 = b.sbuf("t0", 128, 256, DType::bf16), t1 = b.sbuf("t1", 128, 256, DType::bf16);
    b.dma_copy(t0, b.slice(h, 0, 128, 0, 256), 3);
    b.dma_copy(t1, b.slice(h, 128, 128, 0, 256), 3);
    const TimingResult r = simulate_timing(b.program(), s, kFormulas);
    EXPECT_NEAR(r.instructions[1].start_ns, lat + bytes / bw, 1e-6);
    EXPECT_NEAR(r.total_ns, 2 * (lat + bytes / bw), 1e-6);
    EXPECT_NEAR(r.tracks[7].busy_ns, r.total_ns, 1e-6);
  }
}

TEST(NeuronTiming, DependenciesAndEngineOverlap) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  View h = b.hbm("h", 128, 128, DType::bf16);
  View ta = b.sbuf("ta", 128, 128, DType::bf16), tb = b.sbuf("tb", 128, 128, DType::bf16);
  View acc = b.psum("acc", 128, 128, DType::f32);
  View v = b.sbuf("v", 128, 1000, DType::f32), w = b.sbuf("w", 128, 1000, DType::f32);
  b.dma_copy(ta, h);                              // 0: DMA q0
  b.matmul(acc, ta, ta);                          // 1: RAW on ta
  b.memset(v, 2.0f);                              // 2: Vector, independent
  b.activation(w, v, Act::exp);                   // 3: Scalar, RAW on v
  b.dma_copy(ta, b.slice(h, 0, 128, 0, 128), 1);  // 4: WAR on ta (matmul reads it), queue 1
  b.copy(tb, ta);                                 // 5: Vector, RAW on 4
  const TimingResult r = simulate_timing(b.program(), s, kFormulas);
  const auto& I = r.instructions;
  const double dma = s.dma_fixed_latency_ns.value + 128.0 * 128 * 2 / s.dma_total_bytes_per_ns();
  EXPECT_NEAR(I[0].end_ns, dma, 1e-6);
  // Cross-engine wait: sync_overhead_cycles of the consumer engine after the producer ends.
  EXPECT_NEAR(I[1].start_ns, dma + s.sync_overhead_cycles.value / s.tensor_clock_ghz.value, 1e-6);
  EXPECT_NEAR(I[1].end_ns - I[1].start_ns, 128 / s.tensor_clock_ghz.value, 1e-9);
  // memset 2.0 into fp32: max(MIN_II, N) Vector cycles, from t = 0 (overlaps the DMA).
  EXPECT_DOUBLE_EQ(I[2].start_ns, 0.0);
  EXPECT_NEAR(I[2].end_ns, 1000 / s.vector_clock_ghz.value, 1e-9);
  // activation: max(MIN_II, N) Scalar cycles after the memset plus the sync overhead.
  const double act_start = I[2].end_ns + s.sync_overhead_cycles.value / s.scalar_clock_ghz.value;
  EXPECT_NEAR(I[3].start_ns, act_start, 1e-9);
  EXPECT_NEAR(I[3].end_ns, act_start + 1000 / s.scalar_clock_ghz.value, 1e-9);
  EXPECT_EQ(deps_of(r, 4), std::vector<size_t>({0, 1}));  // WAW with 0, WAR with 1
  EXPECT_EQ(I[1].blocked_by, 0);                          // the matmul stalled on the load
  EXPECT_NEAR(I[1].stall_ns, I[1].start_ns, 1e-9);
  EXPECT_EQ(I[2].blocked_by, -1);  // the memset started at once
  EXPECT_EQ(I[4].blocked_by, 1);   // the second load waited for the matmul to finish reading ta
  EXPECT_NEAR(I[4].start_ns, I[1].end_ns, 1e-9);
  // copy of 128 bf16 SBUF -> SBUF: max(MIN_II, 128 / 4) Vector cycles (v3 performance mode), after DMA 4 and the
  // vector queue.
  EXPECT_NEAR(I[5].start_ns, I[4].end_ns + s.sync_overhead_cycles.value / s.vector_clock_ghz.value, 1e-9);
  EXPECT_NEAR(I[5].end_ns - I[5].start_ns, 64 / s.vector_clock_ghz.value, 1e-9);
  EXPECT_NEAR(r.total_ns, I[5].end_ns, 1e-9);
  EXPECT_NEAR(r.tracks[1].busy_ns, (I[2].end_ns - I[2].start_ns) + (I[5].end_ns - I[5].start_ns), 1e-9);
}

TEST(NeuronTiming, VectorAndGpSimdFormulas) {
  const NeuronCoreSpec& s = spec_for("v4");
  KernelBuilder b(s);
  View x = b.sbuf("x", 128, 40, DType::bf16), y = b.sbuf("y", 128, 40, DType::bf16);
  View z = b.sbuf("z", 128, 300, DType::f32), r = b.sbuf("r", 128, 1, DType::bf16),
       io = b.sbuf("io", 128, 300, DType::i32);
  b.tensor_tensor(y, x, x, AluOp::add);  // all bf16 SBUF add: max(MIN_II, N) = 64
  b.tensor_tensor(z, z, z, AluOp::max);  // fp32: max(MIN_II, 2N) = 600
  b.reduce(r, y, AluOp::add);            // bf16 in/out add: N/2 = 20
  b.memset(x, 0.0f);                     // zero into bf16: max(MIN_II, N/2) = 64
  b.iota(io, 0, 1, 1);                   // 150 + N = 450 GpSimd cycles
  const TimingResult t = simulate_timing(b.program(), s, kFormulas);
  const double vf = s.vector_clock_ghz.value;
  auto dur = [&](size_t i) { return t.instructions[i].end_ns - t.instructions[i].start_ns; };
  EXPECT_NEAR(dur(0), 64 / vf, 1e-9);
  EXPECT_NEAR(dur(1), 600 / vf, 1e-9);
  EXPECT_NEAR(dur(2), 20 / vf, 1e-9);
  EXPECT_NEAR(dur(3), 64 / vf, 1e-9);
  EXPECT_NEAR(dur(4), 450 / s.gpsimd_clock_ghz.value, 1e-9);
  EXPECT_DOUBLE_EQ(t.instructions[4].start_ns, 0.0);  // GpSimd runs alongside Vector
}

// VectorE performance mode [NKI-A3] [NKI-A4]: copy / tensor_scalar with bf16/fp16 (v4: also fp8) input and output run
// max(MIN_II, N / 4) cycles SBUF -> SBUF (tile views are unit-stride) and max(MIN_II, N / 2) with a side in PSUM;
// other dtypes, and v2, run max(MIN_II, N).
TEST(NeuronTiming, VectorPerformanceMode) {
  struct Case {
    const char* gen;
    DType in, out;
    bool psum_in;
    double divisor;
  };
  const Case cases[] = {
      {"v2", DType::bf16, DType::bf16, false, 1},   {"v3", DType::bf16, DType::bf16, false, 4},
      {"v3", DType::f16, DType::bf16, false, 4},    {"v3", DType::bf16, DType::bf16, true, 2},
      {"v3", DType::f32, DType::bf16, false, 1},    {"v3", DType::bf16, DType::f32, false, 1},
      {"v3", DType::f8e4m3, DType::bf16, false, 1}, {"v4", DType::f8e4m3, DType::bf16, false, 4},
      {"v4", DType::bf16, DType::bf16, true, 2},    {"v4", DType::f32, DType::f32, true, 1},
  };
  const int64_t n = 2048;
  for (const Case& c : cases) {
    for (int op = 0; op < 2; ++op) {
      const NeuronCoreSpec& s = spec_for(c.gen);
      KernelBuilder b(s);
      const View src = c.psum_in ? b.psum("x", 128, 512, c.in) : b.sbuf("x", 128, n, c.in);
      const int64_t cols = c.psum_in ? 512 : n;
      const View d = b.sbuf("y", 128, cols, c.out);
      if (op == 0)
        b.copy(d, src);
      else
        b.tensor_scalar(d, src, AluOp::multiply, 2.0f);
      const TimingResult t = simulate_timing(b.program(), s, kFormulas);
      const double want = std::max(64.0, static_cast<double>(cols) / c.divisor) / s.vector_clock_ghz.value;
      EXPECT_NEAR(t.instructions[0].end_ns - t.instructions[0].start_ns, want, 1e-9)
          << c.gen << " " << dtype_name(c.in) << " -> " << dtype_name(c.out) << " psum " << c.psum_in << " op " << op;
    }
  }
}

TEST(NeuronTiming, PerPartitionOperandsAreDependencies) {
  const NeuronCoreSpec& s = spec_for("v2");
  KernelBuilder b(s);
  View x = b.sbuf("x", 128, 200, DType::f32), y = b.sbuf("y", 128, 200, DType::f32);
  View bias = b.sbuf("bias", 128, 1, DType::f32), m = b.sbuf("m", 128, 200, DType::f32);
  b.memset(bias, 1.0f);                      // 0: Vector
  b.activation(y, x, Act::exp, 2.0f, bias);  // 1: Scalar, RAW on bias
  b.affine_select(m, x, 0, 1, -1, 0.0f);     // 2: GpSimd, independent: 150 + N cycles
  const TimingResult t = simulate_timing(b.program(), s, kFormulas);
  EXPECT_EQ(deps_of(t, 1), std::vector<size_t>({0}));
  EXPECT_NEAR(t.instructions[1].start_ns,
              64 / s.vector_clock_ghz.value + s.sync_overhead_cycles.value / s.scalar_clock_ghz.value, 1e-9);
  EXPECT_NEAR(t.instructions[1].end_ns - t.instructions[1].start_ns, 200 / s.scalar_clock_ghz.value, 1e-9);
  EXPECT_DOUBLE_EQ(t.instructions[2].start_ns, 0.0);
  EXPECT_NEAR(t.instructions[2].end_ns, (150 + 200) / s.gpsimd_clock_ghz.value, 1e-9);
}

// simulate_timing (indexed, event-list driven) must give bit-identical results to simulate_timing_reference (the
// straightforward scans) on random-ish programs and on small matmul kernels.
void expect_identical(const TimingResult& a, const TimingResult& b) {
  ASSERT_EQ(a.instructions.size(), b.instructions.size());
  ASSERT_EQ(a.tracks.size(), b.tracks.size());
  EXPECT_EQ(a.total_ns, b.total_ns);
  for (size_t i = 0; i < a.instructions.size(); ++i) {
    const InstructionTiming &x = a.instructions[i], &y = b.instructions[i];
    EXPECT_EQ(x.start_ns, y.start_ns) << i;
    EXPECT_EQ(x.end_ns, y.end_ns) << i;
    EXPECT_EQ(x.track, y.track) << i;
    EXPECT_EQ(deps_of(a, i), deps_of(b, i)) << i;
    EXPECT_EQ(x.ls_ns, y.ls_ns) << i;
    EXPECT_EQ(x.throttle, y.throttle) << i;
    EXPECT_EQ(x.blocked_by, y.blocked_by) << i;
    EXPECT_EQ(x.stall_ns, y.stall_ns) << i;
  }
  for (size_t k = 0; k < a.tracks.size(); ++k) {
    EXPECT_EQ(a.tracks[k].name, b.tracks[k].name);
    EXPECT_EQ(a.tracks[k].busy_ns, b.tracks[k].busy_ns) << k;
    EXPECT_EQ(a.tracks[k].instructions, b.tracks[k].instructions) << k;
  }
}

TEST(NeuronTiming, MatchesTheReferenceBitForBit) {
  for (const char* gen : {"v2", "v3"}) {
    const NeuronCoreSpec& s = spec_for(gen);
    const int queues = static_cast<int>(s.dma_queues.value);
    for (unsigned seed = 1; seed <= 6; ++seed) {
      std::mt19937 rng(seed);
      auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
      KernelBuilder b(s);
      const View h = b.hbm("h", 640, 1024, DType::f32);
      std::vector<View> tiles;
      for (const char* name : {"t0", "t1", "t2", "t3"}) tiles.push_back(b.sbuf(name, 128, 256, DType::f32));
      const View st = b.sbuf("st", 128, 128, DType::bf16), mv = b.sbuf("mv", 128, 512, DType::bf16);
      const View acc = b.psum("acc", 128, 512, DType::f32);
      // A random rectangle of a tile, [p0, p0 + np) x [4 f0, 4 (f0 + nf)), with a partition start the engines allow.
      auto rect = [&](const View& v, int np, int nf) {
        const int p0 = np > 64 ? 0 : np > 32 ? 64 * pick(0, 1) : 32 * pick(0, 3);
        const int f0 = pick(0, static_cast<int>(v.nf) / 4 - nf);
        return b.slice(v, p0, np, 4 * f0, 4 * nf);
      };
      for (int step = 0; step < 300; ++step) {
        const View& a = tiles[static_cast<size_t>(pick(0, 3))];
        const View& c = tiles[static_cast<size_t>(pick(0, 3))];
        const int np = pick(0, 3) == 0 ? pick(33, 128) : pick(1, 32), nf = pick(1, 64);
        switch (pick(0, 6)) {
          case 0:
          case 1: {
            const View d = rect(a, np, nf);
            const View src = b.slice(h, pick(0, 640 - np), np, 4 * pick(0, 256 - nf), 4 * nf);
            if (pick(0, 1) == 0)
              b.dma_copy(d, src, pick(0, queues - 1));
            else
              b.dma_copy(src, d, pick(0, queues - 1));
            break;
          }
          case 2:
            b.copy(rect(a, np, nf), rect(c, np, nf));
            break;
          case 3:
            b.tensor_tensor(rect(a, np, nf), rect(c, np, nf), rect(a, np, nf), AluOp::add);
            break;
          case 4:
            b.activation(rect(a, np, nf), rect(c, np, nf), Act::exp);
            break;
          case 5:
            b.memset(rect(c, np, nf), 0.0f);
            break;
          case 6: {
            const int m = 8 * pick(1, 16), n = 8 * pick(1, 64);
            b.matmul(b.slice(acc, 0, m, 0, n), b.slice(st, 0, 128, 0, m), b.slice(mv, 0, 128, 0, n), pick(0, 1) == 1);
            if (pick(0, 2) == 0) b.copy(b.slice(a, 0, m, 0, std::min(n, 256)), b.slice(acc, 0, m, 0, std::min(n, 256)));
            break;
          }
        }
      }
      SCOPED_TRACE(testing::Message() << gen << " seed " << seed);
      expect_identical(simulate_timing(b.program(), s), simulate_timing_reference(b.program(), s));
    }
    for (MatmulSchedule sched : {MatmulSchedule::naive, MatmulSchedule::pipelined}) {
      KernelBuilder b(s);
      const int64_t m = 640, k = 384, n = 1100;
      View at = b.hbm("a_t", k, m, DType::bf16), bm = b.hbm("b", k, n, DType::bf16), c = b.hbm("c", m, n, DType::f32);
      matmul_kernel(b, at, bm, c, DType::bf16, sched);
      SCOPED_TRACE(testing::Message() << gen << " matmul");
      expect_identical(simulate_timing(b.program(), s), simulate_timing_reference(b.program(), s));
    }
  }
}

// A long run of tiny transfers (CS149's one-element vector add, 4,000 iterations): the queue's service level grows
// past the point where its rounding exceeded the old fixed 1e-9 B tolerance, which stalled the event loop forever
// (found pricing the 25,600-element case). Now it finishes, bit for bit with the reference, at the cost the
// serial chain implies: every iteration's three transfers each pay the fixed DMA latency.
TEST(NeuronTiming, LongRunsOfTinyTransfersFinish) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  const View a = b.hbm("a", 4000, 1, DType::f32), x = b.hbm("b", 4000, 1, DType::f32);
  const View o = b.hbm("out", 4000, 1, DType::f32);
  vector_add_kernel(b, a, x, o, {.rows = 1, .cols = 1}, Schedule::naive);
  const TimingResult fast = simulate_timing(b.program(), s);
  expect_identical(fast, simulate_timing_reference(b.program(), s));
  EXPECT_GT(fast.total_ns, 4000 * 3 * s.dma_fixed_latency_ns.value);
  EXPECT_LT(fast.total_ns, 4000 * 4 * s.dma_fixed_latency_ns.value);
}

// KernelBuilder::take() records the program's dependencies (as a compiler places semaphores) and its encoding; the
// dependencies are the reference's, and timing a program with both equals timing it with the search and the encoding
// done by simulate_timing itself.
TEST(NeuronTiming, RecordedDependenciesAreTheReferenceOnes) {
  const NeuronCoreSpec& s = spec_for("v3");
  KernelBuilder b(s);
  const View x = b.hbm("x", 300, 900, DType::bf16), y = b.hbm("y", 300, 900, DType::bf16);
  softmax_kernel(b, x, y, Schedule::pipelined);
  const View at = b.hbm("a_t", 256, 200, DType::bf16), bm = b.hbm("b", 256, 600, DType::bf16);
  matmul_kernel(b, at, bm, b.hbm("c", 200, 600, DType::f32), DType::bf16, MatmulSchedule::pipelined);
  const Program recorded = b.take();
  ASSERT_TRUE(recorded.has_dependencies());
  Program bare = recorded;
  bare.dep_list.clear();
  bare.dep_begin.clear();
  bare.encoded.clear();
  ASSERT_FALSE(bare.has_dependencies());
  ASSERT_TRUE(recorded.has_encoding());
  ASSERT_FALSE(bare.has_encoding());
  const TimingResult ref = simulate_timing_reference(bare, s), with = simulate_timing(recorded, s);
  for (size_t i = 0; i < recorded.instructions.size(); ++i) {
    const std::vector<size_t> want = deps_of(ref, i);
    const std::vector<size_t> got(recorded.dep_list.begin() + recorded.dep_begin[i],
                                  recorded.dep_list.begin() + recorded.dep_begin[i + 1]);
    ASSERT_EQ(got, want) << i;
  }
  expect_identical(with, ref);
  expect_identical(simulate_timing(bare, s), ref);
}

TEST(NeuronTiming, KernelsAndSpmdPairsMatchTheReferenceBitForBit) {
  for (const char* gen : {"v2", "v3", "v4"}) {
    const NeuronCoreSpec& s = spec_for(gen);
    for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
      std::vector<Program> programs;
      for (int kernel = 0; kernel < 4; ++kernel) {
        KernelBuilder b(s);
        const View x = b.hbm("x", 700, 1300, DType::bf16), g = b.hbm("g", 1, 1300, DType::bf16);
        const View y = b.hbm("y", 700, 1300, DType::bf16), yt = b.hbm("yt", 1300, 700, DType::bf16);
        if (kernel == 0) transpose_kernel(b, x, yt, sched);
        if (kernel == 1) softmax_kernel(b, x, y, sched);
        if (kernel == 2) rmsnorm_kernel(b, x, g, y, 1e-5f, sched);
        if (kernel == 3) {
          const View at = b.hbm("a_t", 512, 384, DType::f8e4m3), bm = b.hbm("b", 512, 700, DType::f8e4m3);
          matmul_kernel(b, at, bm, b.hbm("c", 384, 700, DType::f32), DType::f8e4m3, sched);
        }
        programs.push_back(b.take());
        SCOPED_TRACE(testing::Message() << gen << " kernel " << kernel << " " << schedule_name(sched));
        expect_identical(simulate_timing(programs.back(), s), simulate_timing_reference(programs.back(), s));
      }
      if (s.max_physical_cores.value < 2) continue;
      for (size_t a = 0; a < programs.size(); ++a) {  // SPMD pairs of different kernels
        const Program &p0 = programs[a], &p1 = programs[(a + 1) % programs.size()];
        const std::vector<TimingResult> f = simulate_timing_spmd({&p0, &p1}, s);
        const std::vector<TimingResult> r = simulate_timing_spmd_reference({&p0, &p1}, s);
        SCOPED_TRACE(testing::Message() << gen << " pair " << a);
        expect_identical(f[0], r[0]);
        expect_identical(f[1], r[1]);
      }
    }
  }
}

// The programs behind docs/VALIDATION.md's figures: the fused causal attention forward (the K60 step's attention
// core, d = 128, T up to 1024, heads split over an LNC=2 pair as time_kernel does) and the pipelined matmul's
// K-blocked plans (sbuf and psum accumulation, as planned for deep K and as forced), on every generation.
TEST(NeuronTiming, AttentionAndKBlockedMatmulMatchTheReferenceBitForBit) {
  struct AttentionShape {
    int64_t heads, t, d;
  };
  for (const char* gen : {"v2", "v3", "v4"}) {
    const NeuronCoreSpec& s = spec_for(gen);
    for (const AttentionShape& a : {AttentionShape{1, 128, 64}, AttentionShape{2, 384, 128},
                                    AttentionShape{1, 1024, 128}, AttentionShape{1, 256, 256}})
      for (Schedule sched : {Schedule::naive, Schedule::pipelined}) {
        KernelBuilder b(s);
        const int64_t rows = a.heads * a.t;
        const View qt = b.hbm("q_t", a.d, rows, DType::bf16), kt = b.hbm("k_t", a.d, rows, DType::bf16);
        const View v = b.hbm("v", rows, a.d, DType::bf16), o = b.hbm("o", rows, a.d, DType::bf16);
        attention_kernel(b, qt, kt, v, o, a.heads, sched);
        const Program p = b.take();
        SCOPED_TRACE(testing::Message() << gen << " attention heads " << a.heads << " T " << a.t << " d " << a.d << " "
                                        << schedule_name(sched));
        expect_identical(simulate_timing(p, s), simulate_timing_reference(p, s));
      }
    struct MatmulCase {
      int64_t m, k, n;
      DType dtype;
      bool planned;  // plan_matmul's choice; else `blocking`
      MatmulBlocking blocking;
    };
    const MatmulCase cases[] = {
        {512, 8192, 1024, DType::bf16, true, {}},  // deep K: a K-blocked plan
        {256, 16384, 512, DType::bf16, true, {}},
        {384, 1024, 1100, DType::bf16, false, {MatmulAccumulate::sbuf, 256, 1024, 256}},
        {384, 1024, 1100, DType::bf16, false, {MatmulAccumulate::psum, 256, 1024, 256}},
        {256, 1024, 1024, DType::f8e4m3, false, {MatmulAccumulate::sbuf, 256, 512, 512}},
    };
    for (const MatmulCase& c : cases) {
      KernelBuilder b(s);
      const View at = b.hbm("a_t", c.k, c.m, c.dtype), bm = b.hbm("b", c.k, c.n, c.dtype);
      const View cm = b.hbm("c", c.m, c.n, DType::f32);
      const MatmulBlocking blk = c.planned ? plan_matmul(s, c.m, c.k, c.n, c.dtype, c.dtype) : c.blocking;
      if (c.planned) {
        EXPECT_NE(blk.mode, MatmulAccumulate::resident_k) << gen << " " << c.m << "x" << c.k << "x" << c.n;
      }
      matmul_kernel_blocked(b, at, bm, cm, c.dtype, blk);
      const Program p = b.take();
      SCOPED_TRACE(testing::Message() << gen << " matmul " << c.m << "x" << c.k << "x" << c.n << " mode "
                                      << static_cast<int>(blk.mode) << " blocks " << blk.m_cols << "/" << blk.n_cols
                                      << "/" << blk.k_rows);
      expect_identical(simulate_timing(p, s), simulate_timing_reference(p, s));
    }
    if (s.max_physical_cores.value < 2) continue;
    // LNC=2 pairs: each core runs its own heads (attention) or rows of C (K-blocked matmul).
    for (int kernel = 0; kernel < 2; ++kernel) {
      std::vector<Program> pair;
      for (int core = 0; core < 2; ++core) {
        KernelBuilder b(s);
        if (kernel == 0) {
          const int64_t t = 512, d = 128;
          const View qt = b.hbm("q_t", d, 2 * t, DType::bf16), kt = b.hbm("k_t", d, 2 * t, DType::bf16);
          const View v = b.hbm("v", 2 * t, d, DType::bf16), o = b.hbm("o", 2 * t, d, DType::bf16);
          attention_kernel(b, b.slice(qt, 0, d, core * t, t), b.slice(kt, 0, d, core * t, t),
                           b.slice(v, core * t, t, 0, d), b.slice(o, core * t, t, 0, d), 1, Schedule::pipelined);
        } else {
          const View at = b.hbm("a_t", 4096, 512, DType::bf16), bm = b.hbm("b", 4096, 1024, DType::bf16);
          const View cm = b.hbm("c", 512, 1024, DType::f32);
          matmul_kernel_blocked(b, b.slice(at, 0, 4096, core * 256, 256), bm, b.slice(cm, core * 256, 256, 0, 1024),
                                DType::bf16, {MatmulAccumulate::sbuf, 256, 1024, 512});
        }
        pair.push_back(b.take());
      }
      const std::vector<TimingResult> f = simulate_timing_spmd({&pair[0], &pair[1]}, s);
      const std::vector<TimingResult> r = simulate_timing_spmd_reference({&pair[0], &pair[1]}, s);
      SCOPED_TRACE(testing::Message() << gen << " LNC=2 pair, " << (kernel == 0 ? "attention" : "matmul"));
      expect_identical(f[0], r[0]);
      expect_identical(f[1], r[1]);
    }
  }
}

}  // namespace
}  // namespace nanotrn::neuron
