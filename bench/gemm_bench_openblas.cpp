// GEMM benchmark of OpenBLAS (Debian libopenblas0-pthread 0.3.21) cblas_sgemm, fp32, on shapes() x {1,2} threads.
// OpenBLAS runs its own pthread pool (openblas_set_num_threads), not OpenMP.
// Deliberately NOT here: bf16 (cblas.h declares cblas_sbgemm, but Debian's build leaves BUILD_BFLOAT16 off: the symbol
// is not exported), and BLIS, which exports the same cblas_* symbols (gemm_bench_blis.cpp).
#include <cblas.h>

#include "gemm_bench_common.h"

extern "C" char* openblas_get_corename(void);  // exported, not declared in Debian's cblas.h

namespace nanotrn::bench {
namespace {

Prepared openblas(const Shape& s) {
  Prepared p{make_operands(s, false), {}, std::string("OpenBLAS 0.3.21 ") + openblas_get_corename()};
  Operands* o = p.op.get();
  p.call = [s, o] {
    cblas_sgemm(CblasRowMajor, s.trans_a ? CblasTrans : CblasNoTrans, s.trans_b ? CblasTrans : CblasNoTrans, s.m, s.n,
                s.k, 1.0f, o->a.data(), o->lda, o->b.data(), o->ldb, 0.0f, o->c.data(), o->ldc);
  };
  return p;
}

}  // namespace
}  // namespace nanotrn::bench

NANOTRN_GEMM_BENCH_MAIN(nanotrn::bench::Variant{"openblas_sgemm_f32", false, [](int n) { openblas_set_num_threads(n); },
                                                nanotrn::bench::openblas})
