// Short measurements of this host right now: what the GEMM backend reaches (the host device's attainable peak in
// the predictor; a large GEMM reaches 85-95% of the arithmetic peak, docs/PERFORMANCE.md), and the arithmetic peak
// that bounds a GEMM's dtype (the denominator of every "% of peak").
//
//   double gflops = measure_gemm_gflops(engine.gemm(), DType::f32, 0.3);   // 1024^3 products for ~0.3 s
#pragma once

#include <optional>

#include "dtype/dtype.h"
#include "gemm/gemm.h"
#include "hw/cpu_peak.h"

namespace nanotrn {

// The arithmetic peak that bounds `gemm`'s products of `dtype` on `threads` threads: vdpbf16ps for bf16 when the GEMM
// runs bf16 natively on an AVX512_BF16 CPU, else the widest fp32 FMA (emulated bf16 multiplies in f32). The
// denominator of the trainer's and bench train's "% of peak" (hw/cpu_peak.h; bench/peak_flops prints every kernel).
// `seconds` and `settle_after` as hw::measure_arithmetic_peak's.
hw::ArithmeticPeak measure_matmul_peak(const Gemm& gemm, DType dtype, int threads, double seconds,
                                       std::optional<double> settle_after = std::nullopt);

// Best-of-several GFLOP/s of 1024 x 1024 x 1024 products in `dtype` (f32, or bf16 inputs with fp32 accumulation),
// run for about `seconds` on the current OpenMP threads.
double measure_gemm_gflops(Gemm& gemm, DType dtype, double seconds);

}  // namespace nanotrn
