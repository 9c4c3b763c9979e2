// The tiled matmul tile kernel (see matmul.h). Not here: execution or timing (run the recorded program).
#include "neuron/kernels/matmul.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {

void matmul_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                   MatmulSchedule schedule, std::source_location loc) {
  const Program& p = b.program();
  auto memory = [&](const View& v) { return p.buffers.at(static_cast<size_t>(v.buffer)).memory; };
  check(memory(a_t) == Memory::hbm && memory(bm) == Memory::hbm && memory(c) == Memory::hbm,
        "[shape] matmul_kernel operands must be HBM tensors", loc);
  check(p.buffers.at(static_cast<size_t>(c.buffer)).dtype == DType::f32, "[shape] matmul_kernel output must be fp32",
        loc);
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  check(bm.np == k_size && c.np == m_size && c.nf == n_size,
        "[shape] matmul_kernel needs a_t [K,M], b [K,N], c [M,N]; got K = " + std::to_string(k_size) + " / " +
            std::to_string(bm.np) + ", c [" + std::to_string(c.np) + ", " + std::to_string(c.nf) + "]",
        loc);
  constexpr int64_t kTm = 128, kTn = 512, kTk = 128;
  const bool piped = schedule == MatmulSchedule::pipelined;
  const int nbuf = piped ? 2 : 1;
  View ta[2], tb[2], acc[2], res[2];
  for (int i = 0; i < nbuf; ++i) {
    const std::string s = std::to_string(i);
    ta[i] = b.sbuf("a_tile" + s, kTk, kTm, compute);
    tb[i] = b.sbuf("b_tile" + s, kTk, kTn, compute);
    acc[i] = b.psum("acc" + s, kTm, kTn, DType::f32);
    res[i] = b.sbuf("c_tile" + s, kTm, kTn, DType::f32);
  }
  int step = 0, tile = 0;
  for (int64_t m0 = 0; m0 < m_size; m0 += kTm) {
    const int64_t tm = std::min(kTm, m_size - m0);
    for (int64_t n0 = 0; n0 < n_size; n0 += kTn) {
      const int64_t tn = std::min(kTn, n_size - n0);
      const int ot = tile++ % nbuf;
      const View acc_v = b.slice(acc[ot], 0, tm, 0, tn);
      for (int64_t k0 = 0; k0 < k_size; k0 += kTk) {
        const int64_t tk = std::min(kTk, k_size - k0);
        const int s = step++ % nbuf;
        const View a_v = b.slice(ta[s], 0, tk, 0, tm), b_v = b.slice(tb[s], 0, tk, 0, tn);
        b.dma_copy(a_v, b.slice(a_t, k0, tk, m0, tm), 0);
        b.dma_copy(b_v, b.slice(bm, k0, tk, n0, tn), piped ? 1 : 0);
        b.matmul(acc_v, a_v, b_v, /*accumulate=*/k0 > 0);
      }
      const View r_v = b.slice(res[ot], 0, tm, 0, tn);
      b.copy(r_v, acc_v);
      b.dma_copy(b.slice(c, m0, tm, n0, tn), r_v, piped ? 2 : 0);
    }
  }
}

}  // namespace nanotrn::neuron
