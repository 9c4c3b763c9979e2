// ALiBi's bias tile for the attention tile kernels (see attention_alibi.h).
#include "neuron/kernels/attention_alibi.h"

namespace nanotrn::neuron {

void build_alibi_tile(KernelBuilder& b, const View& tile, const View& diag_tmp, int64_t T, AttentionMask mask,
                      float slope_over_scale) {
  if (mask != AttentionMask::none) {
    b.iota(tile, T, 1, -1);  // T + p - c
    b.tensor_scalar(tile, tile, AluOp::multiply, -slope_over_scale);
    return;
  }
  b.iota(b.slice(tile, 0, 128, 0, T), T, 1, -1);  // keys before the query tile: T + p - c >= 0
  b.iota(b.slice(tile, 0, 128, T, T), 0, -1, 1);  // keys from the query tile on: (c - T) - p, >= 0 off the diagonal
  b.tensor_scalar(tile, tile, AluOp::multiply, -slope_over_scale);
  b.iota(diag_tmp, 0, 1, -1);  // the diagonal tile: -slope' |p - f| = the minimum of both ramps
  b.tensor_scalar(diag_tmp, diag_tmp, AluOp::multiply, -slope_over_scale);
  const View diag = b.slice(tile, 0, 128, T, 128);
  b.tensor_tensor(diag, diag, diag_tmp, AluOp::min);
}

}  // namespace nanotrn::neuron
