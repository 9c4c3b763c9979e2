// The transpose tile kernel (see transpose.h). Not here: execution or timing.
#include "neuron/kernels/transpose.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {
namespace {

constexpr int64_t kB = 128;      // transpose block (TensorE limit)
constexpr int64_t kGroup = 512;  // rows per PSUM bank of fp32 in the pipelined schedule

void naive(KernelBuilder& b, const View& x, const View& y, DType t) {
  const View in = b.sbuf("x_tile", kB, kB, t), out = b.sbuf("y_tile", kB, kB, t);
  const View ps = b.psum("t_psum", kB, kB, DType::f32);
  for (int64_t r0 = 0; r0 < x.np; r0 += kB)
    for (int64_t c0 = 0; c0 < x.nf; c0 += kB) {
      const int64_t rs = std::min(kB, x.np - r0), cs = std::min(kB, x.nf - c0);
      const View in_v = b.slice(in, 0, rs, 0, cs), ps_v = b.slice(ps, 0, cs, 0, rs), out_v = b.slice(out, 0, cs, 0, rs);
      b.dma_copy(in_v, b.slice(x, r0, rs, c0, cs), 0);
      b.transpose(ps_v, in_v);
      b.copy(out_v, ps_v);
      b.dma_copy(b.slice(y, c0, cs, r0, rs), out_v, 0);
    }
}

void pipelined(KernelBuilder& b, const View& x, const View& y, DType t) {
  const NeuronCoreSpec& s = b.spec();
  const auto esize = static_cast<int64_t>(dtype_size(t));
  // Column chunk: two sets of four strips [128, chunk] within about half of SBUF.
  const auto budget = static_cast<int64_t>(s.sbuf_bytes_per_partition.value) / 2;
  const int64_t chunk = std::min(ceil_div(x.nf, kB) * kB, std::max(kB, budget / (8 * esize) / kB * kB));
  const int strips = static_cast<int>(kGroup / kB);
  View strip[2][4];
  for (int set = 0; set < 2; ++set)
    for (int i = 0; i < strips; ++i)
      strip[set][i] = b.sbuf("x_strip" + std::to_string(set) + std::to_string(i), kB, chunk, t);
  constexpr int kOut = 4;
  View out[kOut];
  for (int i = 0; i < kOut; ++i) out[i] = b.sbuf("y_block" + std::to_string(i), kB, kGroup, t);
  const auto banks = static_cast<int>(s.psum_bytes_per_partition.value / s.psum_bank_bytes.value);
  View bank[8];
  for (int i = 0; i < banks && i < 8; ++i) bank[i] = b.psum("t_bank" + std::to_string(i), kB, kGroup, DType::f32);
  int load_q = 0, store_q = 0, set = 0, block = 0;
  for (int64_t g0 = 0; g0 < x.np; g0 += kGroup) {
    const int64_t gr = std::min(kGroup, x.np - g0);
    for (int64_t cc = 0; cc < x.nf; cc += chunk, set ^= 1) {
      const int64_t cw = std::min(chunk, x.nf - cc);
      for (int i = 0; i * kB < gr; ++i) {
        const int64_t rs = std::min(kB, gr - i * kB);
        b.dma_copy(b.slice(strip[set][i], 0, rs, 0, cw), b.slice(x, g0 + i * kB, rs, cc, cw), load_q++ % 8);
      }
      for (int64_t c0 = 0; c0 < cw; c0 += kB, ++block) {
        const int64_t cs = std::min(kB, cw - c0);
        const View& bk = bank[block % std::min(banks, 8)];
        for (int i = 0; i * kB < gr; ++i) {
          const int64_t rs = std::min(kB, gr - i * kB);
          b.transpose(b.slice(bk, 0, cs, i * kB, rs), b.slice(strip[set][i], 0, rs, c0, cs));
        }
        const View o = b.slice(out[block % kOut], 0, cs, 0, gr), src = b.slice(bk, 0, cs, 0, gr);
        if (block % 2 == 0)
          b.copy(o, src);
        else
          b.activation(o, src, Act::copy);
        b.dma_copy(b.slice(y, cc + c0, cs, g0, gr), o, 8 + store_q++ % 8);
      }
    }
  }
}

}  // namespace

void transpose_kernel(KernelBuilder& b, const View& x, const View& y, Schedule schedule, std::source_location loc) {
  check_hbm_operands(b, "transpose_kernel", {x, y}, loc);
  const DType dt = dtype_of(b, x);
  check(y.np == x.nf && y.nf == x.np && dtype_of(b, y) == dt && dt != DType::i32,
        "[shape] transpose_kernel needs x [R, C] and y [C, R] of one float dtype", loc);
  if (schedule == Schedule::naive)
    naive(b, x, y, dt);
  else
    pipelined(b, x, y, dt);
}

}  // namespace nanotrn::neuron
