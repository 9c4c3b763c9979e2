// A short measurement of what the GEMM backend reaches on this host right now: the denominator of the trainer's
// "% of peak" (the arithmetic peak itself is measured by bench/peak_flops; a large GEMM reaches 93-95% of it,
// docs/PERFORMANCE.md, so this is the attainable peak, slightly below the arithmetic one).
//
//   double gflops = measure_gemm_gflops(engine.gemm(), DType::f32, 0.3);   // 1024^3 products for ~0.3 s
#pragma once

#include "dtype/dtype.h"
#include "gemm/gemm.h"

namespace nanotrn {

// Best-of-several GFLOP/s of 1024 x 1024 x 1024 products in `dtype` (f32, or bf16 inputs with fp32 accumulation),
// run for about `seconds` on the current OpenMP threads.
double measure_gemm_gflops(Gemm& gemm, DType dtype, double seconds);

}  // namespace nanotrn
