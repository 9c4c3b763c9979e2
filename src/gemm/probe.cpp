// GEMM probe. See probe.h.
#include "gemm/probe.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "base/error.h"

namespace nanotrn {

hw::ArithmeticPeak measure_matmul_peak(const Gemm& gemm, DType dtype, int threads, double seconds,
                                       std::optional<double> settle_after) {
  const bool native = gemm.bf16_support().path == Bf16Path::kNative;
  return hw::measure_arithmetic_peak(hw::peak_kernel_for(dtype, hw::cpu_features(), native), threads, seconds,
                                     settle_after);
}

double measure_gemm_gflops(Gemm& gemm, DType dtype, double seconds) {
  check(dtype == DType::f32 || dtype == DType::bf16, "measure_gemm_gflops: dtype must be f32 or bf16");
  constexpr int64_t n = 1024;
  const GemmDims d{.trans_a = false, .trans_b = false, .m = n, .n = n, .k = n, .lda = n, .ldb = n, .ldc = n};
  std::vector<float> a(n * n, 0.5f), b(n * n, 0.25f), c(n * n, 0.0f);
  std::vector<uint16_t> ah(n * n, 0x3f00), bh(n * n, 0x3e80);  // bf16 0.5 and 0.25
  auto once = [&] {
    if (dtype == DType::f32) {
      gemm.f32(d, 1.0f, a.data(), b.data(), 0.0f, c.data());
    } else {
      gemm.bf16(d, 1.0f, ah.data(), bh.data(), 0.0f, c.data());
    }
  };
  once();  // primitive creation, page faults
  double best = 0.0, spent = 0.0;
  while (spent < seconds) {
    const auto t0 = std::chrono::steady_clock::now();
    once();
    const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, 2.0 * n * n * n / dt * 1e-9);
    spent += dt;
  }
  return best;
}

}  // namespace nanotrn
