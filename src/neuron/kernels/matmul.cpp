// The tiled matmul tile kernel (see matmul.h). Not here: execution or timing (run the recorded program).
#include "neuron/kernels/matmul.h"

#include <algorithm>
#include <string>
#include <vector>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kTm = 128, kTn = 512, kTk = 128;

// Naive: one SBUF buffer per operand, every DMA on queue 0, every operand tile reloaded per output tile.
void naive_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute) {
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  const View ta = b.sbuf("a_tile", kTk, kTm, compute), tb = b.sbuf("b_tile", kTk, kTn, compute);
  const View acc = b.psum("acc", kTm, kTn, DType::f32), res = b.sbuf("c_tile", kTm, kTn, DType::f32);
  for (int64_t m0 = 0; m0 < m_size; m0 += kTm) {
    const int64_t tm = std::min(kTm, m_size - m0);
    for (int64_t n0 = 0; n0 < n_size; n0 += kTn) {
      const int64_t tn = std::min(kTn, n_size - n0);
      const View acc_v = b.slice(acc, 0, tm, 0, tn);
      for (int64_t k0 = 0; k0 < k_size; k0 += kTk) {
        const int64_t tk = std::min(kTk, k_size - k0);
        const View a_v = b.slice(ta, 0, tk, 0, tm), b_v = b.slice(tb, 0, tk, 0, tn);
        b.dma_copy(a_v, b.slice(a_t, k0, tk, m0, tm), 0);
        b.dma_copy(b_v, b.slice(bm, k0, tk, n0, tn), 0);
        b.matmul(acc_v, a_v, b_v, /*accumulate=*/k0 > 0);
      }
      const View r_v = b.slice(res, 0, tm, 0, tn);
      b.copy(r_v, acc_v);
      b.dma_copy(b.slice(c, m0, tm, n0, tn), r_v, 0);
    }
  }
}

// Pipelined, blocked: see matmul.h.
void pipelined_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                      std::source_location loc) {
  const NeuronCoreSpec& s = b.spec();
  const int64_t k_size = a_t.np, m_size = a_t.nf, n_size = bm.nf;
  const int64_t kt_count = ceil_div(k_size, kTk);
  const auto esize = static_cast<int64_t>(dtype_size(compute));
  const int n_res = 4;
  const bool double_row = (compute == DType::f8e4m3 || compute == DType::f8e5m2) && s.fp8_double_row_speedup.value >= 2;
  const auto sbuf_cap = static_cast<int64_t>(s.sbuf_bytes_per_partition.value);
  const int64_t b_strip = kt_count * kTn * esize;  // bytes per partition of one B strip (all K of one N tile)
  const int64_t fixed = 2 * b_strip + n_res * kTn * 4;
  // The widest M block (a multiple of 128, at most 512 and at most M) whose two A blocks fit beside the rest.
  int64_t bm_cols = std::min<int64_t>(512, ceil_div(m_size, kTm) * kTm);
  while (bm_cols > kTm && fixed + 2 * kt_count * bm_cols * esize + 4096 > sbuf_cap) bm_cols -= kTm;
  check(fixed + 2 * kt_count * bm_cols * esize <= sbuf_cap,
        "[sbuf-capacity] matmul_kernel pipelined: K = " + std::to_string(k_size) +
            " is too deep to keep a K strip of A and B resident in SBUF (split K outside the kernel)",
        loc);
  View ablk[2], bstrip[2], res[n_res];
  for (int i = 0; i < 2; ++i) {
    ablk[i] = b.sbuf("a_block" + std::to_string(i), kTk, kt_count * bm_cols, compute);
    bstrip[i] = b.sbuf("b_strip" + std::to_string(i), kTk, kt_count * kTn, compute);
  }
  for (int i = 0; i < n_res; ++i) res[i] = b.sbuf("c_tile" + std::to_string(i), kTm, kTn, DType::f32);
  const auto banks = static_cast<int>(s.psum_bytes_per_partition.value / s.psum_bank_bytes.value);
  std::vector<View> acc(static_cast<size_t>(banks));
  for (int i = 0; i < banks; ++i) acc[static_cast<size_t>(i)] = b.psum("acc" + std::to_string(i), kTm, kTn, DType::f32);
  // Queues: A blocks on 0-3, B strips on 4-11, C stores on 12-15, so a store waiting for its result never
  // holds up a load behind it.
  int a_q = 0, b_q = 0, c_q = 0, block = 0, strip = 0, tile = 0;
  for (int64_t m0 = 0; m0 < m_size; m0 += bm_cols, ++block) {
    const int64_t bmw = std::min(bm_cols, m_size - m0);
    const View& ab = ablk[block % 2];
    // The A block [K, bmw]: one DMA per K tile, issued a block ahead of use by the in-order queues' WAR waits.
    for (int64_t kt = 0; kt < kt_count; ++kt) {
      const int64_t k0 = kt * kTk, tk = std::min(kTk, k_size - k0);
      b.dma_copy(b.slice(ab, 0, tk, kt * bm_cols, bmw), b.slice(a_t, k0, tk, m0, bmw), a_q++ % 4);
    }
    for (int64_t n0 = 0; n0 < n_size; n0 += kTn, ++strip) {
      const int64_t tn = std::min(kTn, n_size - n0);
      const View& bs = bstrip[strip % 2];
      for (int64_t kt = 0; kt < kt_count; ++kt) {
        const int64_t k0 = kt * kTk, tk = std::min(kTk, k_size - k0);
        b.dma_copy(b.slice(bs, 0, tk, kt * kTn, tn), b.slice(bm, k0, tk, n0, tn), 4 + b_q++ % 8);
      }
      for (int64_t mi = 0; mi < bmw; mi += kTm, ++tile) {
        const int64_t tm = std::min(kTm, bmw - mi);
        const View acc_v = b.slice(acc[static_cast<size_t>(tile % banks)], 0, tm, 0, tn);
        for (int64_t kt = 0; kt < kt_count;) {
          const int64_t tk = std::min(kTk, k_size - kt * kTk);
          auto a_v = [&](int64_t t) { return b.slice(ab, 0, tk, t * bm_cols + mi, tm); };
          auto b_v = [&](int64_t t) { return b.slice(bs, 0, tk, t * kTn, tn); };
          // fp8 on v3/v4: two full K tiles per double-row matmul.
          if (double_row && kt + 1 < kt_count && tk == kTk && k_size - (kt + 1) * kTk >= kTk) {
            b.matmul_double_row(acc_v, a_v(kt), a_v(kt + 1), b_v(kt), b_v(kt + 1), /*accumulate=*/kt > 0);
            kt += 2;
          } else {
            b.matmul(acc_v, a_v(kt), b_v(kt), /*accumulate=*/kt > 0);
            kt += 1;
          }
        }
        const View r_v = b.slice(res[tile % n_res], 0, tm, 0, tn);
        b.copy(r_v, acc_v);
        b.dma_copy(b.slice(c, m0 + mi, tm, n0, tn), r_v, 12 + c_q++ % 4);
      }
    }
  }
}

}  // namespace

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
  if (schedule == MatmulSchedule::naive)
    naive_kernel(b, a_t, bm, c, compute);
  else
    pipelined_kernel(b, a_t, bm, c, compute, loc);
}

}  // namespace nanotrn::neuron
