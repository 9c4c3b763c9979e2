// Host GEMM backend: row-major C = alpha * op(A) * op(B) + beta * C in fp32 and bf16-in/fp32-out, single and strided
// batched, dispatched to oneDNN's matmul primitive (chosen by measurement: docs/PERFORMANCE.md,
// bench/gemm_bench_*.cpp). bf16 runs on every x86-64 CPU: oneDNN's own bf16 matmul where this CPU has one (AVX-512
// and up), otherwise an exact emulation chosen at run time (Bf16Path below). Deliberately NOT here: a hand-written GEMM
// kernel, a bf16 output path, fused epilogues (bias, activation), and thread-count control (the library uses the
// caller's OpenMP setting, omp_get_max_threads(), at call time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace nanotrn {

// Row-major GEMM: C[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C[m,n].
// op(A) = A when !trans_a (A stored m x k, row stride lda >= k) or A^T when trans_a (A stored k x m, lda >= m); same
// for B (stored k x n with ldb >= n, or n x k with ldb >= k when trans_b). C is stored m x n with ldc >= n. beta == 0
// means C is write-only (NaNs in C are not propagated). alpha == 0 means A and B are not read (BLAS rule).
struct GemmDims {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
};

// Which oneDNN kernel family the matmul primitives use. Both are oneDNN's; the default is the measured winner on this
// project's shapes (docs/PERFORMANCE.md): kJitGemm. A family that cannot handle a call (e.g. brgemm with a padded
// leading dimension) falls back to oneDNN's own first choice.
enum class GemmKernel {
  kJitGemm,  // "gemm:jit": oneDNN's BLAS-style packed GEMM (the kernels behind dnnl_sgemm / dnnl_gemm_bf16bf16f32)
  kBrgemm,   // "brg:avx512_core[_bf16]": the batch-reduce GEMM oneDNN 2.6 picks first for dense layouts
  kLibraryDefault,  // whatever oneDNN lists first
};

// How bf16 products run. Every bf16 value is exactly an f32 value, so widening the bf16 operands to f32 and running
// the f32 GEMM (f32 accumulation) computes the same products and sums as a native bf16 kernel with f32 accumulation;
// only the summation order (which differs between any two kernels) can differ.
enum class Bf16Path {
  kNative,    // oneDNN's bf16 matmul (needs avx512_core or better in oneDNN 2.6)
  kEmulated,  // bf16 operands widened to f32 into scratch, then the f32 GEMM
};
enum class Bf16Mode {
  kAuto,      // native when oneDNN offers a bf16 matmul on this CPU (probed once, at construction), else emulated
  kNative,    // native or an error at construction saying why not
  kEmulated,  // always emulated (tests and benchmarks of the emulation on any CPU)
};
struct Bf16Support {
  Bf16Path path;
  std::string reason;  // e.g. "oneDNN gemm:jit bf16 matmul on ISA avx512_core_bf16", or why not
};

// One GEMM context. Owned by the caller (the engine context); there is no global mutable state of ours. It keeps a
// oneDNN CPU engine and stream and a cache of matmul primitives keyed by everything a primitive is specialised on
// (dtype, transposes, sizes, leading dimensions, batch strides, alpha, beta, OpenMP thread count).
// Calls on one object are serialised by an internal mutex; the parallelism is inside each call (OpenMP, as many threads
// as omp_get_max_threads() at the call; do not call it from inside an OpenMP parallel region). A moved-from Gemm may
// only be destroyed or assigned to.
// Errors (negative sizes, a leading dimension or batch stride too small, null pointers with non-empty operands) throw
// nanotrn::Error naming the offending value.
class Gemm {
 public:
  Gemm() : Gemm(GemmKernel::kJitGemm) {}
  // Throws nanotrn::Error when bf16 == Bf16Mode::kNative and this CPU's oneDNN has no bf16 matmul.
  explicit Gemm(GemmKernel kernel, Bf16Mode bf16 = Bf16Mode::kAuto);
  ~Gemm();
  Gemm(Gemm&&) noexcept;
  Gemm& operator=(Gemm&&) noexcept;
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  // fp32 in, fp32 accumulation, fp32 out.
  void f32(const GemmDims& d, float alpha, const float* a, const float* b, float beta, float* c);
  // bf16 inputs (raw bf16 bit patterns), fp32 accumulation, fp32 output (the bf16 mixed-precision path).
  void bf16(const GemmDims& d, float alpha, const uint16_t* a, const uint16_t* b, float beta, float* c);
  // Strided batch: for i < batch, C_i = alpha op(A_i) op(B_i) + beta C_i, with X_i = x + i * stride_x (elements).
  // stride_a or stride_b may be 0 (the same A or B for every batch entry); the C blocks must not overlap.
  void f32_batched(const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, float alpha,
                   const float* a, const float* b, float beta, float* c);
  // The same for bf16 inputs with fp32 accumulation and output.
  void bf16_batched(const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c, float alpha,
                    const uint16_t* a, const uint16_t* b, float beta, float* c);

  // Library, version, threading runtime, ISA, and the matmul implementations it dispatches to (queried from oneDNN).
  std::string describe() const;
  // Which bf16 path the bf16 calls take, and why.
  const Bf16Support& bf16_support() const;
  // Number of cached primitives (for tests and diagnostics).
  std::size_t cached_primitives() const;
  // The cache is cleared when it would grow past this many entries (shapes in a training run are a small fixed set).
  static constexpr std::size_t kMaxCachedPrimitives = 1024;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace nanotrn
