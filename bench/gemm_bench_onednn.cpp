// GEMM benchmark of oneDNN 2.6 (and of nanotrn::Gemm, which is built on it): the dnnl_sgemm and dnnl_gemm_bf16bf16f32
// convenience calls, the matmul primitive created once per shape outside the timed loop, and nanotrn::Gemm (whose
// own per-object primitive cache is hit after the warm-up call), fp32 and bf16-in/fp32-out, on shapes() x {1,2}
// threads. Deliberately NOT here: OpenBLAS or BLIS (separate executables), bf16 output (the engine accumulates into
// fp32).
#include <omp.h>

#include <dnnl.hpp>

#include "gemm/gemm.h"
#include "gemm_bench_common.h"

// Exported by libdnnl 2.6 but only declared in the public header from oneDNN 3.x; bf16 passed as raw uint16_t bits.
extern "C" dnnl_status_t dnnl_gemm_bf16bf16f32(char transa, char transb, dnnl_dim_t m, dnnl_dim_t n, dnnl_dim_t k,
                                               float alpha, const uint16_t* a, dnnl_dim_t lda, const uint16_t* b,
                                               dnnl_dim_t ldb, float beta, float* c, dnnl_dim_t ldc);

namespace nanotrn::bench {
namespace {

void omp_threads(int n) { omp_set_num_threads(n); }
char tr(bool t) { return t ? 'T' : 'N'; }

Prepared convenience(const Shape& s, bool bf16) {
  Prepared p{make_operands(s, bf16), {}, bf16 ? "dnnl_gemm_bf16bf16f32" : "dnnl_sgemm"};
  Operands* o = p.op.get();
  if (bf16) {
    p.call = [s, o] {
      dnnl_gemm_bf16bf16f32(tr(s.trans_a), tr(s.trans_b), s.m, s.n, s.k, 1.0f, o->ah.data(), o->lda, o->bh.data(),
                            o->ldb, 0.0f, o->c.data(), o->ldc);
    };
  } else {
    p.call = [s, o] {
      dnnl_sgemm(tr(s.trans_a), tr(s.trans_b), s.m, s.n, s.k, 1.0f, o->a.data(), o->lda, o->b.data(), o->ldb, 0.0f,
                 o->c.data(), o->ldc);
    };
  }
  return p;
}

// The matmul primitive for one shape, created here (outside the timing) and executed in the loop.
Prepared matmul(const Shape& s, bool bf16) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  static dnnl::stream stream(engine);
  const dt in = bf16 ? dt::bf16 : dt::f32;
  const dnnl::memory::desc a_md({s.m, s.k}, in, s.trans_a ? tag::ba : tag::ab);
  const dnnl::memory::desc b_md({s.k, s.n}, in, s.trans_b ? tag::ba : tag::ab);
  const dnnl::memory::desc c_md({s.m, s.n}, dt::f32, tag::ab);
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
  Prepared p{make_operands(s, bf16), {}, pd.impl_info_str()};
  Operands* o = p.op.get();
  void* a = bf16 ? static_cast<void*>(o->ah.data()) : o->a.data();
  void* b = bf16 ? static_cast<void*>(o->bh.data()) : o->b.data();
  std::unordered_map<int, dnnl::memory> args = {{DNNL_ARG_SRC, dnnl::memory(a_md, engine, a)},
                                                {DNNL_ARG_WEIGHTS, dnnl::memory(b_md, engine, b)},
                                                {DNNL_ARG_DST, dnnl::memory(c_md, engine, o->c.data())}};
  p.call = [prim = dnnl::matmul(pd), args] {
    prim.execute(stream, args);
    stream.wait();
  };
  return p;
}

// Through our backend: alpha = 1 and beta = 0 (forward, dX), or beta = 1 (gradient accumulation into dW).
Prepared ours(const Shape& s, bool bf16, float beta) {
  Prepared p{make_operands(s, bf16), {}, "nanotrn::Gemm"};
  Operands* o = p.op.get();
  GemmDims d;
  d.trans_a = s.trans_a, d.trans_b = s.trans_b, d.m = s.m, d.n = s.n, d.k = s.k;
  d.lda = o->lda, d.ldb = o->ldb, d.ldc = o->ldc;
  auto gemm = std::make_shared<Gemm>();
  if (bf16) {
    p.call = [gemm, d, o, beta] { gemm->bf16(d, 1.0f, o->ah.data(), o->bh.data(), beta, o->c.data()); };
  } else {
    p.call = [gemm, d, o, beta] { gemm->f32(d, 1.0f, o->a.data(), o->b.data(), beta, o->c.data()); };
  }
  return p;
}

}  // namespace
}  // namespace nanotrn::bench

using nanotrn::bench::Shape;
using nanotrn::bench::Variant;
NANOTRN_GEMM_BENCH_MAIN(Variant{"onednn_matmul_f32", false, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::matmul(s, false); }},
                        Variant{"onednn_sgemm_f32", false, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::convenience(s, false); }},
                        Variant{"onednn_matmul_bf16", true, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::matmul(s, true); }},
                        Variant{"onednn_gemm_bf16", true, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::convenience(s, true); }},
                        Variant{"nanotrn_f32", false, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::ours(s, false, 0.0f); }},
                        Variant{"nanotrn_f32_beta1", false, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::ours(s, false, 1.0f); }},
                        Variant{"nanotrn_bf16", true, nanotrn::bench::omp_threads,
                                [](const Shape& s) { return nanotrn::bench::ours(s, true, 0.0f); }})
