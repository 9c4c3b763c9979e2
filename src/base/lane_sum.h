// Sums of products (and a row's maximum, lane_max) in a fixed order the compiler vectorises: element j goes into
// partial sum j % kLaneSums, the partial sums are added in lane order at the end, then the tail (n % kLaneSums
// elements) in index order.
//
//   const float ss = lane_dot(x, x, n);              // fp32 partial sums (RMSNorm's row sums)
//   const double s = lane_dot<double>(x, x, n);      // each product and partial sum in fp64 (Muon's norms)
//   lane_accumulate<double>(n, [&](int64_t j) { return double(x[j * stride]); });   // any term (reduce_sum's rows)
//   const double u = chunked_dot(g, x, n);           // a long one on the threads (gradient norm, scalars' gradients)
//   const float m = lane_max(z, n);                  // a row's maximum (the cross-entropy's and softmax's shift)
//
// Why: a plain `for (j) s += x[j] * y[j]` is one chain of dependent adds in source order, which the compiler may not
// reorder (no -ffast-math), so it runs one element per add latency (4 cycles) on one lane. Here the kLaneSums chains
// are independent and each is a vector lane. The order is the function's, not the thread count's or the call site's,
// so a caller's result stays the same on any number of threads. Against an fp64 sum the error bound is that of any
// summation order, about n * eps * sum |x y| (tests/base/lane_sum_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace nanotrn {

inline constexpr int64_t kLaneSums = 16;

// sum over j < n of term(j), every term an Acc, in the order above.
template <class Acc, class Term>
Acc lane_accumulate(int64_t n, Term term) {
  Acc part[kLaneSums] = {};
  int64_t j = 0;
  for (; j + kLaneSums <= n; j += kLaneSums)
    for (int64_t k = 0; k < kLaneSums; k++) part[k] += term(j + k);
  Acc s = 0;
  for (int64_t k = 0; k < kLaneSums; k++) s += part[k];
  for (; j < n; j++) s += term(j);
  return s;
}

// sum a[j] b[j]; each product is taken in Acc.
template <class Acc = float>
Acc lane_dot(const float* a, const float* b, int64_t n) {
  return lane_accumulate<Acc>(n, [&](int64_t j) { return static_cast<Acc>(a[j]) * static_cast<Acc>(b[j]); });
}

// max over j < n of x[j], -inf when n == 0; a NaN element is passed over, as `m = std::max(m, x[j])` passes it over.
// The same value as that loop (a maximum is exact in any order), which the compiler leaves scalar, one compare per
// latency, since its reduction is not reassociable without -ffinite-math-only; kLaneSums running maxima, elementwise
// `part < x ? x : part`, are vector lanes (vmaxps).
inline float lane_max(const float* x, int64_t n) {
  float part[kLaneSums];
  std::fill(part, part + kLaneSums, -std::numeric_limits<float>::infinity());
  int64_t j = 0;
  for (; j + kLaneSums <= n; j += kLaneSums)
    for (int64_t k = 0; k < kLaneSums; k++) part[k] = std::max(part[k], x[j + k]);
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t k = 0; k < kLaneSums; k++) m = std::max(m, part[k]);
  for (; j < n; j++) m = std::max(m, x[j]);
  return m;
}

// lane_dot<double> over fixed chunks of kLaneChunk elements, the chunks on the OpenMP threads and their sums added in
// chunk order: a long dot product that is the same on any thread count.
inline constexpr int64_t kLaneChunk = int64_t{1} << 16;

inline double chunked_dot(const float* a, const float* b, int64_t n) {
  std::vector<double> part(static_cast<size_t>((n + kLaneChunk - 1) / kLaneChunk));
#pragma omp parallel for schedule(static) if (part.size() > 1)
  for (size_t k = 0; k < part.size(); k++) {
    const int64_t begin = static_cast<int64_t>(k) * kLaneChunk;
    part[k] = lane_dot<double>(a + begin, b + begin, std::min(kLaneChunk, n - begin));
  }
  double sum = 0.0;
  for (const double s : part) sum += s;
  return sum;
}

}  // namespace nanotrn
