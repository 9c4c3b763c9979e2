// Host GEMM backend on oneDNN's matmul primitive: argument checks, degenerate cases, a per-object primitive cache, and
// the mapping of (trans, ld, batch stride, alpha, beta) onto oneDNN memory descriptors, output scales and a sum
// post-op. Deliberately NOT here: any GEMM arithmetic of our own (only the trivial C = beta*C when k or alpha is 0),
// global state, or thread-count control. Why oneDNN, why its gemm:jit kernels and why through the matmul primitive
// (not dnnl_sgemm, OpenBLAS or BLIS): docs/PERFORMANCE.md.
#include "gemm/gemm.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <dnnl.hpp>
#include <functional>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/error.h"

namespace nanotrn {
namespace {

enum class OperandType : uint8_t { kF32, kBf16 };

// Everything a oneDNN matmul primitive is specialised on. alpha (output scale) and beta (sum post-op scale) are
// creation-time constants: oneDNN 2.6 has no brgemm kernel for a runtime output scale (it falls back to gemm:jit).
struct Key {
  OperandType dtype;
  bool trans_a, trans_b;
  int32_t threads;
  uint32_t alpha_bits, beta_bits;
  int64_t m, n, k, lda, ldb, ldc, batch, stride_a, stride_b, stride_c;
  bool operator==(const Key&) const = default;
};

struct KeyHash {
  std::size_t operator()(const Key& key) const {
    std::size_t h =
        static_cast<std::size_t>(key.dtype) | (std::size_t{key.trans_a} << 8) | (std::size_t{key.trans_b} << 9);
    auto mix = [&h](uint64_t v) { h ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    for (int64_t v :
         {key.m, key.n, key.k, key.lda, key.ldb, key.ldc, key.batch, key.stride_a, key.stride_b, key.stride_c}) {
      mix(static_cast<uint64_t>(v));
    }
    mix(key.alpha_bits);
    mix(key.beta_bits);
    mix(static_cast<uint64_t>(key.threads));
    return h;
  }
};

struct Entry {
  dnnl::matmul prim;
  dnnl::memory src, wei, dst;
  std::unordered_map<int, dnnl::memory> args;
  // Set when oneDNN offers only its reference implementation (naive loops) for a 3D strided layout: then the 2D
  // primitive runs `batch` times instead. Defensive: no layout the tests or the engine use gets "ref" in 2.6.3.
  bool loop_batches = false;
};

std::string str(int64_t v) { return std::to_string(v); }

// Argument validation shared by all entry points. `what` names the API call for the message.
void validate(const char* what, const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c,
              float alpha, const void* a, const void* b, const void* c) {
  const std::string w = std::string("gemm ") + what + ": ";
  check(d.m >= 0, w + "m=" + str(d.m) + " is negative");
  check(d.n >= 0, w + "n=" + str(d.n) + " is negative");
  check(d.k >= 0, w + "k=" + str(d.k) + " is negative");
  const int64_t a_row = d.trans_a ? d.m : d.k;
  const int64_t b_row = d.trans_b ? d.k : d.n;
  check(d.lda >= a_row, w + "lda=" + str(d.lda) + " is less than the stored row length " + str(a_row) +
                            (d.trans_a ? " (A is stored k x m, trans_a)" : " (A is stored m x k)"));
  check(d.ldb >= b_row, w + "ldb=" + str(d.ldb) + " is less than the stored row length " + str(b_row) +
                            (d.trans_b ? " (B is stored n x k, trans_b)" : " (B is stored k x n)"));
  check(d.ldc >= d.n, w + "ldc=" + str(d.ldc) + " is less than n=" + str(d.n));
  check(batch >= 0, w + "batch=" + str(batch) + " is negative");
  check(stride_a >= 0, w + "stride_a=" + str(stride_a) + " is negative");
  check(stride_b >= 0, w + "stride_b=" + str(stride_b) + " is negative");
  check(stride_c >= 0, w + "stride_c=" + str(stride_c) + " is negative");
  const bool empty_c = batch == 0 || d.m == 0 || d.n == 0;
  if (!empty_c && batch > 1) {
    // The C blocks must be disjoint: one after another (stride_c >= (m-1)*ldc+n), or side by side within the rows
    // (n <= stride_c and (batch-1)*stride_c+n <= ldc, e.g. attention heads written into a [T, H, Dh] tensor).
    const int64_t c_extent = (d.m - 1) * d.ldc + d.n;
    const bool side_by_side = stride_c >= d.n && (batch - 1) * stride_c + d.n <= d.ldc;
    check(stride_c >= c_extent || side_by_side,
          w + "stride_c=" + str(stride_c) + " makes the C blocks overlap (need stride_c >= (m-1)*ldc+n = " +
              str(c_extent) + ", or n <= stride_c with (batch-1)*stride_c+n <= ldc=" + str(d.ldc) + ")");
  }
  if (empty_c) return;
  check(c != nullptr, w + "c is null for a non-empty " + str(d.m) + " x " + str(d.n) + " C");
  if (d.k > 0 && alpha != 0.0f) {
    check(a != nullptr, w + "a is null with m=" + str(d.m) + ", k=" + str(d.k));
    check(b != nullptr, w + "b is null with k=" + str(d.k) + ", n=" + str(d.n));
  }
}

// C = beta * C for one m x n block (the k == 0 and alpha == 0 cases). beta == 0 writes zeros (NaNs are not kept).
void scale_c(const GemmDims& d, float beta, float* c) {
  if (beta == 1.0f) return;
  for (int64_t i = 0; i < d.m; ++i) {
    float* row = c + i * d.ldc;
    if (beta == 0.0f) {
      std::fill(row, row + d.n, 0.0f);
    } else {
      for (int64_t j = 0; j < d.n; ++j) row[j] *= beta;
    }
  }
}

// Memory descriptor of a logical rows x cols matrix stored row-major with leading dimension ld, or transposed (stored
// cols x rows). With batch > 0 it gets a leading batch dimension of the given stride (batch 1 = broadcast).
dnnl::memory::desc matrix_md(dnnl::memory::data_type dt, int64_t rows, int64_t cols, int64_t ld, bool trans,
                             int64_t batch = 0, int64_t batch_stride = 0) {
  const int64_t rs = trans ? 1 : ld, cs = trans ? ld : 1;
  if (batch == 0) return dnnl::memory::desc({rows, cols}, dt, {rs, cs});
  return dnnl::memory::desc({batch, rows, cols}, dt, {batch_stride, rs, cs});
}

const char* isa_name(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

}  // namespace

struct Gemm::Impl {
  Impl(GemmKernel k, Bf16Mode mode) : kernel(k), bf16(probe_bf16(*this, mode)) {}
  GemmKernel kernel;
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  Bf16Support bf16;
  mutable std::mutex mutex;
  std::unordered_map<Key, Entry, KeyHash> cache;
  std::vector<float> a32, b32;  // the widened operands of an emulated bf16 call (reused)

  // Creates the primitive for `key`: 2D when key.batch == 1, else 3D with batch strides (stride 0 = broadcast).
  dnnl::matmul::primitive_desc make_pd(const Key& key, bool as_2d) const {
    const auto in_dt = key.dtype == OperandType::kF32 ? dnnl::memory::data_type::f32 : dnnl::memory::data_type::bf16;
    const auto out_dt = dnnl::memory::data_type::f32;
    dnnl::memory::desc a_md, b_md, c_md;
    if (as_2d) {
      a_md = matrix_md(in_dt, key.m, key.k, key.lda, key.trans_a);
      b_md = matrix_md(in_dt, key.k, key.n, key.ldb, key.trans_b);
      c_md = matrix_md(out_dt, key.m, key.n, key.ldc, false);
    } else {
      // A broadcast operand gets batch dimension 1; its stride is then irrelevant, so give it a dense-looking one.
      const int64_t a_stride = key.stride_a ? key.stride_a : key.m * key.k;
      const int64_t b_stride = key.stride_b ? key.stride_b : key.k * key.n;
      a_md = matrix_md(in_dt, key.m, key.k, key.lda, key.trans_a, key.stride_a ? key.batch : 1, a_stride);
      b_md = matrix_md(in_dt, key.k, key.n, key.ldb, key.trans_b, key.stride_b ? key.batch : 1, b_stride);
      c_md = matrix_md(out_dt, key.m, key.n, key.ldc, false, key.batch, key.stride_c);
    }
    dnnl::primitive_attr attr;
    attr.set_fpmath_mode(dnnl::fpmath_mode::strict);  // never let an environment default down-convert f32
    const float alpha = std::bit_cast<float>(key.alpha_bits);
    if (alpha != 1.0f) attr.set_output_scales(0, {alpha});
    const float beta = std::bit_cast<float>(key.beta_bits);
    if (beta != 0.0f) {
      dnnl::post_ops po;
      po.append_sum(beta);
      attr.set_post_ops(po);
    }
    const dnnl::matmul::desc desc(a_md, b_md, c_md);
    dnnl::matmul::primitive_desc pd(desc, attr, engine);
    if (kernel == GemmKernel::kLibraryDefault) return pd;
    const char* want = kernel == GemmKernel::kJitGemm ? "gemm:jit" : "brg:";
    do {
      if (std::string(pd.impl_info_str()).rfind(want, 0) == 0) return pd;
    } while (pd.next_impl());
    return dnnl::matmul::primitive_desc(desc, attr, engine);  // not available for this call: oneDNN's first choice
  }

  Entry& lookup(const Key& key) {
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    if (cache.size() >= kMaxCachedPrimitives) cache.clear();
    Entry e;
    dnnl::matmul::primitive_desc pd;
    try {
      pd = make_pd(key, key.batch == 1);
      if (key.batch > 1 && std::string(pd.impl_info_str()).rfind("ref", 0) == 0) {
        pd = make_pd(key, true);
        e.loop_batches = true;
      }
    } catch (const dnnl::error& err) {
      throw Error("gemm: oneDNN could not create a matmul primitive for m=" + str(key.m) + " n=" + str(key.n) +
                  " k=" + str(key.k) + " batch=" + str(key.batch) + ": " + err.what());
    }
    e.prim = dnnl::matmul(pd);
    e.src = dnnl::memory(pd.src_desc(), engine, DNNL_MEMORY_NONE);
    e.wei = dnnl::memory(pd.weights_desc(), engine, DNNL_MEMORY_NONE);
    e.dst = dnnl::memory(pd.dst_desc(), engine, DNNL_MEMORY_NONE);
    e.args = {{DNNL_ARG_SRC, e.src}, {DNNL_ARG_WEIGHTS, e.wei}, {DNNL_ARG_DST, e.dst}};
    return cache.emplace(key, std::move(e)).first->second;
  }

  // The bf16 path, probed once: a bf16 primitive descriptor for a typical shape (nothing is executed). oneDNN's
  // reference implementation (plain loops) does not count as native.
  static Bf16Support probe_bf16(const Impl& impl, Bf16Mode mode) {
    const std::string isa = isa_name(dnnl_get_effective_cpu_isa());
    const std::string widened = "bf16 operands widened exactly to f32, then the f32 GEMM with f32 accumulation";
    if (mode == Bf16Mode::kEmulated) return {Bf16Path::kEmulated, "emulation requested: " + widened};
    std::string why;
    try {
      const Key probe{
          OperandType::kBf16, false, false, 1, std::bit_cast<uint32_t>(1.0f), 0, 64, 64, 64, 64, 64, 64, 1, 0, 0, 0};
      const std::string impl_name = impl.make_pd(probe, true).impl_info_str();
      if (impl_name.rfind("ref", 0) != 0)
        return {Bf16Path::kNative, "oneDNN " + impl_name + " bf16 matmul on ISA " + isa};
      why = "oneDNN offers only its reference bf16 matmul (plain loops) on ISA " + isa;
    } catch (const dnnl::error&) {
      why = "oneDNN has no bf16 matmul on ISA " + isa + " (it needs avx512_core or better)";
    }
    check(mode != Bf16Mode::kNative, "gemm: native bf16 was required, but " + why);
    return {Bf16Path::kEmulated, why + ": " + widened};
  }

  // Widens `count` bf16 blocks (`stride` elements apart) of rows x cols stored with leading dimension ld into dense
  // f32 blocks, one after another. Exact: a bf16 value is the upper half of the f32 with the same value.
  static void widen(const uint16_t* src, int64_t rows, int64_t cols, int64_t ld, int64_t count, int64_t stride,
                    float* dst) {
    const int64_t n_rows = count * rows;
#pragma omp parallel for schedule(static) if (n_rows * cols >= (int64_t{1} << 16))
    for (int64_t r = 0; r < n_rows; ++r) {
      const uint16_t* s = src + (r / rows) * stride + (r % rows) * ld;
      float* o = dst + r * cols;
      for (int64_t c = 0; c < cols; ++c) o[c] = std::bit_cast<float>(uint32_t{s[c]} << 16);
    }
  }

  void run(OperandType dtype, const char* what, const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b,
           int64_t stride_c, float alpha, const void* a, const void* b, float beta, float* c) {
    validate(what, d, batch, stride_a, stride_b, stride_c, alpha, a, b, c);
    if (batch == 0 || d.m == 0 || d.n == 0) return;
    if (d.k == 0 || alpha == 0.0f) {
      for (int64_t i = 0; i < batch; ++i) scale_c(d, beta, c + i * stride_c);
      return;
    }
    const bool single = batch == 1;
    if (single) stride_a = stride_b = stride_c = 0;
    std::lock_guard<std::mutex> lock(mutex);
    if (dtype == OperandType::kF32 || bf16.path == Bf16Path::kNative) {
      execute(dtype, what, d, batch, stride_a, stride_b, stride_c, alpha, a, b, beta, c);
      return;
    }
    // Emulated bf16: dense f32 copies of op(A) and op(B) as stored (a broadcast operand, stride 0, once).
    const int64_t a_rows = d.trans_a ? d.k : d.m, a_cols = d.trans_a ? d.m : d.k;
    const int64_t b_rows = d.trans_b ? d.n : d.k, b_cols = d.trans_b ? d.k : d.n;
    const int64_t a_count = stride_a == 0 ? 1 : batch, b_count = stride_b == 0 ? 1 : batch;
    a32.resize(static_cast<size_t>(a_count * a_rows * a_cols));
    b32.resize(static_cast<size_t>(b_count * b_rows * b_cols));
    widen(static_cast<const uint16_t*>(a), a_rows, a_cols, d.lda, a_count, stride_a, a32.data());
    widen(static_cast<const uint16_t*>(b), b_rows, b_cols, d.ldb, b_count, stride_b, b32.data());
    GemmDims wide = d;
    wide.lda = a_cols;
    wide.ldb = b_cols;
    execute(OperandType::kF32, what, wide, batch, stride_a == 0 ? 0 : a_rows * a_cols,
            stride_b == 0 ? 0 : b_rows * b_cols, stride_c, alpha, a32.data(), b32.data(), beta, c);
  }

  // The primitive call itself (the mutex is held; arguments are validated and non-degenerate).
  void execute(OperandType dtype, const char* what, const GemmDims& d, int64_t batch, int64_t stride_a,
               int64_t stride_b, int64_t stride_c, float alpha, const void* a, const void* b, float beta, float* c) {
    const Key key{dtype,
                  d.trans_a,
                  d.trans_b,
                  omp_get_max_threads(),
                  std::bit_cast<uint32_t>(alpha),
                  std::bit_cast<uint32_t>(beta == 0.0f ? 0.0f : beta),  // -0.0 and 0.0 are the same
                  d.m,
                  d.n,
                  d.k,
                  d.lda,
                  d.ldb,
                  d.ldc,
                  batch,
                  stride_a,
                  stride_b,
                  stride_c};
    const std::size_t elem = dtype == OperandType::kF32 ? sizeof(float) : sizeof(uint16_t);
    Entry& e = lookup(key);
    auto* pa = static_cast<const char*>(a);
    auto* pb = static_cast<const char*>(b);
    const int64_t calls = e.loop_batches ? batch : 1;
    try {
      for (int64_t i = 0; i < calls; ++i) {
        e.src.set_data_handle(const_cast<char*>(pa + i * stride_a * static_cast<int64_t>(elem)));
        e.wei.set_data_handle(const_cast<char*>(pb + i * stride_b * static_cast<int64_t>(elem)));
        e.dst.set_data_handle(c + i * stride_c);
        e.prim.execute(stream, e.args);
      }
      stream.wait();
    } catch (const dnnl::error& err) {
      throw Error(std::string("gemm ") + what + ": oneDNN matmul failed for m=" + str(d.m) + " n=" + str(d.n) +
                  " k=" + str(d.k) + ": " + err.what());
    }
  }
};

Gemm::Gemm(GemmKernel kernel, Bf16Mode bf16) : impl_(std::make_unique<Impl>(kernel, bf16)) {}
Gemm::~Gemm() = default;
Gemm::Gemm(Gemm&&) noexcept = default;
Gemm& Gemm::operator=(Gemm&&) noexcept = default;

void Gemm::f32(const GemmDims& d, float alpha, const float* a, const float* b, float beta, float* c) {
  impl_->run(OperandType::kF32, "f32", d, 1, 0, 0, 0, alpha, a, b, beta, c);
}

void Gemm::bf16(const GemmDims& d, float alpha, const uint16_t* a, const uint16_t* b, float beta, float* c) {
  impl_->run(OperandType::kBf16, "bf16", d, 1, 0, 0, 0, alpha, a, b, beta, c);
}

void Gemm::f32_batched(const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c,
                       float alpha, const float* a, const float* b, float beta, float* c) {
  impl_->run(OperandType::kF32, "f32_batched", d, batch, stride_a, stride_b, stride_c, alpha, a, b, beta, c);
}

void Gemm::bf16_batched(const GemmDims& d, int64_t batch, int64_t stride_a, int64_t stride_b, int64_t stride_c,
                        float alpha, const uint16_t* a, const uint16_t* b, float beta, float* c) {
  impl_->run(OperandType::kBf16, "bf16_batched", d, batch, stride_a, stride_b, stride_c, alpha, a, b, beta, c);
}

const Bf16Support& Gemm::bf16_support() const { return impl_->bf16; }

std::size_t Gemm::cached_primitives() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->cache.size();
}

std::string Gemm::describe() const {
  const dnnl_version_t* v = dnnl_version();
  std::ostringstream os;
  os << "oneDNN " << v->major << "." << v->minor << "." << v->patch << " (hash " << v->hash << "), CPU runtime "
     << (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") << ", ISA " << isa_name(dnnl_get_effective_cpu_isa())
     << ", " << omp_get_max_threads() << " OpenMP threads; matmul primitive, kernel preference "
     << (impl_->kernel == GemmKernel::kJitGemm  ? "gemm:jit"
         : impl_->kernel == GemmKernel::kBrgemm ? "brgemm"
                                                : "library default");
  // Which kernels a typical training shape dispatches to (primitive descriptors only: nothing is executed).
  const Key probe{OperandType::kF32,
                  false,
                  false,
                  omp_get_max_threads(),
                  std::bit_cast<uint32_t>(1.0f),
                  0,
                  512,
                  512,
                  512,
                  512,
                  512,
                  512,
                  1,
                  0,
                  0,
                  0};
  os << ", f32: " << impl_->make_pd(probe, true).impl_info_str()
     << "; bf16->f32: " << (impl_->bf16.path == Bf16Path::kNative ? "native, " : "emulated, ") << impl_->bf16.reason;
  return os.str();
}

}  // namespace nanotrn
