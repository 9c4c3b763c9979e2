// The vector-add tile kernel (see vector_add.h). Not here: execution or timing.
#include "neuron/kernels/vector_add.h"

#include <algorithm>
#include <string>

#include "base/error.h"

namespace nanotrn::neuron {

void vector_add_kernel(KernelBuilder& b, const View& a, const View& x, const View& out, AddTile tile, Schedule schedule,
                       std::source_location loc) {
  check_hbm_operands(b, "vector_add_kernel", {a, x, out}, loc);
  const DType t = dtype_of(b, a);
  check(x.np == a.np && x.nf == a.nf && out.np == a.np && out.nf == a.nf && dtype_of(b, x) == t &&
            dtype_of(b, out) == t && t != DType::i32,
        "[shape] vector_add_kernel needs a, b and out of one shape and one float dtype", loc);
  check(tile.rows >= 1 && tile.rows <= 128 && tile.cols >= 1 && tile.cols <= a.nf,
        "[shape] vector_add_kernel: a tile of " + std::to_string(tile.rows) + " x " + std::to_string(tile.cols) +
            " (rows 1..128 partitions, columns 1.." + std::to_string(a.nf) + ")",
        loc);
  const bool naive = schedule == Schedule::naive;
  const int sets = naive ? 1 : 2;
  View ta[2], tb[2], tr[2];
  for (int s = 0; s < sets; ++s) {
    ta[s] = b.sbuf("a_tile" + std::to_string(s), tile.rows, tile.cols, t);
    tb[s] = b.sbuf("b_tile" + std::to_string(s), tile.rows, tile.cols, t);
    tr[s] = b.sbuf("res_tile" + std::to_string(s), tile.rows, tile.cols, t);
  }
  int64_t i = 0;
  for (int64_t r0 = 0; r0 < a.np; r0 += tile.rows) {
    const int64_t rs = std::min(tile.rows, a.np - r0);
    for (int64_t c0 = 0; c0 < a.nf; c0 += tile.cols, ++i) {
      const int64_t cs = std::min(tile.cols, a.nf - c0);
      const int s = static_cast<int>(i % sets);
      const View va = b.slice(ta[s], 0, rs, 0, cs), vb = b.slice(tb[s], 0, rs, 0, cs),
                 vr = b.slice(tr[s], 0, rs, 0, cs);
      const int load = naive ? 0 : static_cast<int>((2 * i) % 8), store = naive ? 0 : 8 + static_cast<int>(i % 8);
      b.dma_copy(va, b.slice(a, r0, rs, c0, cs), load);
      b.dma_copy(vb, b.slice(x, r0, rs, c0, cs), naive ? 0 : load + 1);
      if (cs == 1)
        b.tensor_scalar(vr, va, AluOp::add, vb);
      else
        b.tensor_tensor(vr, va, vb, AluOp::add);
      b.dma_copy(b.slice(out, r0, rs, c0, cs), vr, store);
    }
  }
}

}  // namespace nanotrn::neuron
