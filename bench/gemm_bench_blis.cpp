// GEMM benchmark of BLIS (Debian libblis4-openmp 0.9.0) through its native typed API bli_sgemm, fp32, on
// shapes() x {1,2} threads. BLIS uses the OpenMP runtime; its thread count is set with bli_thread_set_num_threads.
// Deliberately NOT here: BLIS's cblas layer (same kernels, and its cblas_* symbols would clash with OpenBLAS's, which
// is why every library has its own executable), and bf16 (BLIS 0.9 has no bf16 GEMM).
#include <blis.h>

#include "gemm_bench_common.h"

namespace nanotrn::bench {
namespace {

Prepared blis(const Shape& s) {
  Prepared p{make_operands(s, false),
             {},
             std::string("BLIS ") + bli_info_get_version_str() + " " + bli_arch_string(bli_arch_query_id())};
  Operands* o = p.op.get();
  // The stored matrices are row-major (row stride ld, column stride 1); the trans flags say op(A) = A^T etc.
  p.call = [s, o] {
    float one = 1.0f, zero = 0.0f;
    bli_sgemm(s.trans_a ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, s.trans_b ? BLIS_TRANSPOSE : BLIS_NO_TRANSPOSE, s.m, s.n,
              s.k, &one, o->a.data(), o->lda, 1, o->b.data(), o->ldb, 1, &zero, o->c.data(), o->ldc, 1);
  };
  return p;
}

}  // namespace
}  // namespace nanotrn::bench

NANOTRN_GEMM_BENCH_MAIN(nanotrn::bench::Variant{"blis_sgemm_f32", false, [](int n) { bli_thread_set_num_threads(n); },
                                                nanotrn::bench::blis})
