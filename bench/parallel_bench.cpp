// Why nanotrn's host kernels use OpenMP rather than a thread pool of their own (docs/PERFORMANCE.md, "Threading").
// Measures, for an element-wise kernel (y = a x + b over n floats):
//   - OpenMP `parallel for` vs a minimal persistent std::thread pool (condition-variable hand-off), alone;
//   - the same two, each interleaved with a oneDNN GEMM, as a training step interleaves them. oneDNN (Debian's
//     build) runs on the OpenMP runtime, whose idle threads spin for a while after a parallel region; a second pool
//     then competes with them for the 2 cores.
// The pool here is the simplest correct one (it exists only in this benchmark), not a product component.
#include <benchmark/benchmark.h>
#include <omp.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "gemm/gemm.h"

namespace {

// One worker per extra core; the caller takes chunk 0. run() returns when every chunk is done.
class MiniPool {
 public:
  explicit MiniPool(int threads) : threads_(threads) {
    for (int i = 1; i < threads_; i++) workers_.emplace_back([this, i] { loop(i); });
  }
  ~MiniPool() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
      gen_++;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }
  void run(const std::function<void(int, int)>& f) {
    {
      std::lock_guard<std::mutex> l(m_);
      job_ = &f;
      pending_ = threads_ - 1;
      gen_++;
    }
    cv_.notify_all();
    f(0, threads_);
    std::unique_lock<std::mutex> l(m_);
    done_.wait(l, [this] { return pending_ == 0; });
  }

 private:
  void loop(int id) {
    uint64_t seen = 0;
    while (true) {
      const std::function<void(int, int)>* job;
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return gen_ != seen; });
        seen = gen_;
        if (stop_) return;
        job = job_;
      }
      (*job)(id, threads_);
      std::lock_guard<std::mutex> l(m_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
  int threads_;
  std::vector<std::thread> workers_;
  std::mutex m_;
  std::condition_variable cv_, done_;
  const std::function<void(int, int)>* job_ = nullptr;
  int pending_ = 0;
  uint64_t gen_ = 0;
  bool stop_ = false;
};

void axpb_omp(float* y, const float* x, int64_t n) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; i++) y[i] = 1.5f * x[i] + 0.25f;
}

void axpb_pool(MiniPool& pool, float* y, const float* x, int64_t n) {
  pool.run([&](int id, int parts) {
    const int64_t lo = n * id / parts, hi = n * (id + 1) / parts;
    for (int64_t i = lo; i < hi; i++) y[i] = 1.5f * x[i] + 0.25f;
  });
}

void set_bytes(benchmark::State& state, int64_t n) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * n * 8);
}

void BM_Elementwise_OpenMP(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> x(n, 1.0f), y(n);
  for (auto _ : state) {
    axpb_omp(y.data(), x.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  set_bytes(state, n);
}

void BM_Elementwise_ThreadPool(benchmark::State& state) {
  const int64_t n = state.range(0);
  std::vector<float> x(n, 1.0f), y(n);
  MiniPool pool(omp_get_max_threads());
  for (auto _ : state) {
    axpb_pool(pool, y.data(), x.data(), n);
    benchmark::DoNotOptimize(y.data());
  }
  set_bytes(state, n);
}

// A GEMM (512^3, ~2.5 ms on 2 cores) followed by 8 element-wise passes over n floats: one "layer" of a step.
template <bool kPool>
void BM_GemmThenElementwise(benchmark::State& state) {
  const int64_t n = state.range(0), d = 512;
  std::vector<float> x(n, 1.0f), y(n), a(d * d, 0.5f), b(d * d, 0.25f), c(d * d);
  nanotrn::Gemm gemm;
  nanotrn::GemmDims dims{false, false, d, d, d, d, d, d};
  MiniPool pool(omp_get_max_threads());
  for (auto _ : state) {
    gemm.f32(dims, 1.0f, a.data(), b.data(), 0.0f, c.data());
    for (int r = 0; r < 8; r++) {
      if (kPool) {
        axpb_pool(pool, y.data(), x.data(), n);
      } else {
        axpb_omp(y.data(), x.data(), n);
      }
    }
    benchmark::DoNotOptimize(c.data());
    benchmark::DoNotOptimize(y.data());
  }
}

BENCHMARK(BM_Elementwise_OpenMP)->Arg(1 << 12)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_Elementwise_ThreadPool)->Arg(1 << 12)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 22)->UseRealTime();
BENCHMARK(BM_GemmThenElementwise<false>)
    ->Name("BM_GemmThenElementwise_OpenMP")
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->UseRealTime();
BENCHMARK(BM_GemmThenElementwise<true>)
    ->Name("BM_GemmThenElementwise_ThreadPool")
    ->Arg(1 << 16)
    ->Arg(1 << 20)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
