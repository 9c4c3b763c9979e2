// The SwiGLU gate tile kernel (see swiglu_kernel.h), written with nanotrn's builder API only.
#include "swiglu_kernel.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace example {

using namespace nanotrn::neuron;

void swiglu_kernel(KernelBuilder& b, const View& g, const View& u, const View& out, Schedule schedule, int64_t chunk,
                   std::source_location loc) {
  check_hbm_operands(b, "swiglu_kernel", {g, u, out}, loc);  // nanotrn's operand rule (kernels/schedule.h)
  const nanotrn::DType t = dtype_of(b, g);
  nanotrn::check(u.np == g.np && u.nf == g.nf && out.np == g.np && out.nf == g.nf && dtype_of(b, u) == t &&
                     dtype_of(b, out) == t && t != nanotrn::DType::i32,
                 "[shape] swiglu_kernel: g, u and out of one shape and one float dtype", loc);
  nanotrn::check(chunk >= 1, "[shape] swiglu_kernel: chunk >= 1", loc);
  const int64_t cols = std::min(chunk, g.nf);
  const bool naive = schedule == Schedule::naive;
  const int sets = naive ? 1 : 3;
  View tg[3], tu[3], ts[3], to[3];
  for (int s = 0; s < sets; ++s) {
    const std::string n = std::to_string(s);
    tg[s] = b.sbuf("g" + n, 128, cols, t);
    tu[s] = b.sbuf("u" + n, 128, cols, t);
    ts[s] = b.sbuf("silu" + n, 128, cols, nanotrn::DType::f32);  // ScalarE's fp32 result
    to[s] = b.sbuf("out" + n, 128, cols, t);
  }
  int64_t i = 0;
  for (int64_t r0 = 0; r0 < g.np; r0 += 128)
    for (int64_t c0 = 0; c0 < g.nf; c0 += cols, ++i) {
      const int64_t rs = std::min<int64_t>(128, g.np - r0), cs = std::min(cols, g.nf - c0);
      const int s = static_cast<int>(i % sets);
      const int load = naive ? 0 : static_cast<int>(i % 4) * 2, store = naive ? 0 : 8 + static_cast<int>(i % 8);
      const View vg = b.slice(tg[s], 0, rs, 0, cs), vu = b.slice(tu[s], 0, rs, 0, cs);
      const View vs = b.slice(ts[s], 0, rs, 0, cs), vo = b.slice(to[s], 0, rs, 0, cs);
      b.dma_copy(vg, b.slice(g, r0, rs, c0, cs), load);
      b.dma_copy(vu, b.slice(u, r0, rs, c0, cs), load + (naive ? 0 : 1));
      b.activation(vs, vg, Act::silu);               // ScalarE: silu(g) in fp32
      b.tensor_tensor(vo, vs, vu, AluOp::multiply);  // VectorE: * u, one rounding to out's dtype
      b.dma_copy(b.slice(out, r0, rs, c0, cs), vo, store);
    }
}

}  // namespace example
