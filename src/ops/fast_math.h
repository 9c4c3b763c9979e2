// Element-wise exp and tanh in fp32 written so that -O3 vectorises the loops that call them (libm's expf/tanhf are
// not vectorised without -ffast-math, and the fused attention and cross-entropy kernels spend most of their
// non-GEMM time in them). Branch-free: the selects compile to blends.
//
//   for (j...) p[j] = fast_exp(z[j] - m);        // ~1.5 ulp; exactly 0 below -87 (and for -inf)
//   for (j...) z[j] = cap * fast_tanh(z[j] / cap);
//
// Accuracy is tested against libm over the whole range in tests/ops/fast_math_test.cpp.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace nanotrn {

// exp(x): Cody-Waite reduction x = n ln2 + r with n rounded to nearest by the 1.5 * 2^23 trick, then the Cephes
// expf minimax polynomial on |r| <= ln2 / 2, scaled by 2^n built in the exponent bits. x is clamped to [-87, 88].
// The clamp and the final zeroing are selects between values already computed (std::max/min, a bit mask), never a
// branch around arithmetic. On AVX2 (no masked vector ops) GCC vectorises the calling loops only when it may assume
// that arithmetic does not trap: the project compiles with -fno-trapping-math (CMakeLists.txt). NaN stays NaN.
inline float fast_exp(float x) {
  const float xc = std::min(std::max(x, -87.0f), 88.0f);
  const float t = xc * 1.44269504088896341f + 12582912.0f;
  const float n = t - 12582912.0f;
  const int32_t ni = std::bit_cast<int32_t>(t) - 0x4B400000;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float y = 1.9875691500e-4f;
  y = y * r + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * r * r + r + 1.0f;
  const float res = y * std::bit_cast<float>((ni + 127) << 23);
  const uint32_t keep = 0u - static_cast<uint32_t>(!(x < -87.0f));  // all ones, or zero below the range
  return std::bit_cast<float>(std::bit_cast<uint32_t>(res) & keep);
}

// tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|): absolute error ~1e-7 (relative error grows as |x| -> 0,
// where the absolute error is what matters to a softcap).
inline float fast_tanh(float x) {
  const float a = std::fabs(x);
  const float e = fast_exp(-2.0f * a);
  const float t = (1.0f - e) / (1.0f + e);
  return std::copysign(t, x);  // tanh(-0) = -0
}

}  // namespace nanotrn
