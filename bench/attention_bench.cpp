// Benchmark of the tiled attention kernels (src/ops/attention_kernels.h): causal forward + backward (the training
// step) and forward alone, H = 8, D = 64, T = 256 / 1024 / 4096 with B = 8192 / T (8192 tokens), on 1 and 2 threads.
// Counters: tokens/s, GFLOP/s by the nominal count (forward 4 B H T^2 D, halved for causal; backward 2.5x forward),
// the scratch the kernels allocate (counted, attention_workspace_bytes) and the peak-RSS growth of the first call.
// As a yardstick, the six dense fp32 GEMMs that an unfused attention (PyTorch's math path) runs for the same step,
// through oneDNN's dnnl_sgemm, full T x T (a dense kernel cannot skip the causal half), without the softmax: a lower
// bound on the dense implementation's time, with its T x T score and probability buffers.
// Deliberately NOT here: correctness checks (tests/ops/attention_kernels_test.cpp), bf16, the autograd op.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>
#include <sys/resource.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/attention_kernels.h"

namespace {

constexpr int64_t kH = 8, kD = 64, kTokens = 8192;

int64_t max_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;
}

std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(n);
  for (auto& e : x) e = d(gen);
  return x;
}

struct Buffers {
  int64_t B, T;
  std::vector<float> q, k, v, out, lse, dout, dq, dk, dv;
  explicit Buffers(int64_t t) : B(kTokens / t), T(t) {
    const size_t n = static_cast<size_t>(B * T * kH * kD);
    q = random_vec(n, 1), k = random_vec(n, 2), v = random_vec(n, 3), dout = random_vec(n, 4);
    out.assign(n, 0.0f), dq.assign(n, 0.0f), dk.assign(n, 0.0f), dv.assign(n, 0.0f);
    lse.assign(static_cast<size_t>(B * kH * T), 0.0f);
  }
  void forward(const nanotrn::AttentionMods& m) {
    nanotrn::attention_forward(out.data(), lse.data(), q.data(), k.data(), v.data(), B, T, T, kH, kH, kD, m);
  }
  void backward(const nanotrn::AttentionMods& m) {
    nanotrn::attention_backward(dq.data(), dk.data(), dv.data(), dout.data(), q.data(), k.data(), v.data(), out.data(),
                                lse.data(), B, T, T, kH, kH, kD, m);
  }
};

// Nominal forward FLOPs: QK^T and PV, halved for causal.
double forward_flops(int64_t B, int64_t T, bool causal) {
  return 4.0 * static_cast<double>(B * kH) * static_cast<double>(T) * static_cast<double>(T) * kD *
         (causal ? 0.5 : 1.0);
}

void set_counters(benchmark::State& state, int64_t tokens, double flops, int64_t workspace, int64_t rss_growth) {
  state.counters["tokens/s"] =
      benchmark::Counter(static_cast<double>(tokens), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["scratch_MiB"] = static_cast<double>(workspace) / (1 << 20);
  state.counters["rss_growth_MiB"] = static_cast<double>(rss_growth) / (1 << 20);
}

// args: T, threads, causal
void BM_AttentionFwdBwd(benchmark::State& state) {
  const int64_t T = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const bool causal = state.range(2) != 0;
  omp_set_num_threads(threads);
  Buffers buf(T);
  nanotrn::AttentionMods m;
  m.causal = causal;
  const int64_t rss0 = max_rss_bytes();
  buf.forward(m);
  buf.backward(m);
  const int64_t rss_growth = max_rss_bytes() - rss0;
  for (auto _ : state) {
    buf.forward(m);
    buf.backward(m);
    benchmark::ClobberMemory();
  }
  set_counters(state, buf.B * T, 3.5 * forward_flops(buf.B, T, causal),
               nanotrn::attention_workspace_bytes(true, buf.B, T, kH, kD, threads), rss_growth);
}

void BM_AttentionForward(benchmark::State& state) {
  const int64_t T = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  const bool causal = state.range(2) != 0;
  omp_set_num_threads(threads);
  Buffers buf(T);
  nanotrn::AttentionMods m;
  m.causal = causal;
  const int64_t rss0 = max_rss_bytes();
  buf.forward(m);
  const int64_t rss_growth = max_rss_bytes() - rss0;
  for (auto _ : state) {
    buf.forward(m);
    benchmark::ClobberMemory();
  }
  set_counters(state, buf.B * T, forward_flops(buf.B, T, causal),
               nanotrn::attention_workspace_bytes(false, buf.B, T, kH, kD, threads), rss_growth);
}

// The dense yardstick: per (b, h), S = Q K^T, O = P V (forward), dP = dO V^T, dV = P^T dO, dQ = dS K, dK = dS^T Q
// (backward), all through dnnl_sgemm on full T x T matrices; the softmax and its backward are left out (S and dP
// stand in for P and dS). FLOPs: 12 B H T^2 D.
void BM_DenseGemmsOneDNN(benchmark::State& state) {
  const int64_t T = state.range(0);
  const int threads = static_cast<int>(state.range(1));
  omp_set_num_threads(threads);
  Buffers buf(T);
  const int64_t rss0 = max_rss_bytes();
  std::vector<float> s(static_cast<size_t>(T * T), 0.0f), dp(static_cast<size_t>(T * T), 0.0f);
  const int64_t ld = kH * kD;
  auto step = [&] {
    for (int64_t b = 0; b < buf.B; ++b)
      for (int64_t h = 0; h < kH; ++h) {
        const int64_t o = b * T * ld + h * kD;
        dnnl_sgemm('N', 'T', T, T, kD, 0.125f, buf.q.data() + o, ld, buf.k.data() + o, ld, 0.0f, s.data(), T);
        dnnl_sgemm('N', 'N', T, kD, T, 1.0f, s.data(), T, buf.v.data() + o, ld, 0.0f, buf.out.data() + o, ld);
        dnnl_sgemm('N', 'T', T, T, kD, 1.0f, buf.dout.data() + o, ld, buf.v.data() + o, ld, 0.0f, dp.data(), T);
        dnnl_sgemm('T', 'N', T, kD, T, 1.0f, s.data(), T, buf.dout.data() + o, ld, 0.0f, buf.dv.data() + o, ld);
        dnnl_sgemm('N', 'N', T, kD, T, 0.125f, dp.data(), T, buf.k.data() + o, ld, 0.0f, buf.dq.data() + o, ld);
        dnnl_sgemm('T', 'N', T, kD, T, 0.125f, dp.data(), T, buf.q.data() + o, ld, 0.0f, buf.dk.data() + o, ld);
      }
  };
  step();
  const int64_t rss_growth = max_rss_bytes() - rss0;
  for (auto _ : state) {
    step();
    benchmark::ClobberMemory();
  }
  set_counters(state, buf.B * T, 3.0 * forward_flops(buf.B, T, false), static_cast<int64_t>(2 * T * T * sizeof(float)),
               rss_growth);
}

void attention_args(benchmark::internal::Benchmark* b) {
  for (int64_t t : {256, 1024, 4096})
    for (int64_t threads : {1, 2}) b->Args({t, threads, 1});
  for (int64_t threads : {1, 2}) b->Args({1024, threads, 0});
  b->ArgNames({"T", "threads", "causal"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

void dense_args(benchmark::internal::Benchmark* b) {
  for (int64_t t : {256, 1024, 4096})
    for (int64_t threads : {1, 2}) b->Args({t, threads});
  b->ArgNames({"T", "threads"})->Unit(benchmark::kMillisecond)->UseRealTime();
}

BENCHMARK(BM_AttentionFwdBwd)->Apply(attention_args);
BENCHMARK(BM_AttentionForward)->Apply(attention_args);
BENCHMARK(BM_DenseGemmsOneDNN)->Apply(dense_args);

}  // namespace

BENCHMARK_MAIN();
