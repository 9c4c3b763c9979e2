// ALiBi's bias tile, shared by the attention tile kernels (attention.h forward, attention_backward.h backward): one
// fp32 tile per query head whose column c holds, for query row p of any 128-query tile,
//   -slope / scale |T + p - c|
// so the scores of query tile q0 against keys [k0, k0 + w) (raw S = q . k, before the kernels' scale) get
//   S += tile[:, T - q0 + k0 .. + w)        i.e. scale S - slope |query - key| after the exp's scale.
// Dense (mask none) needs 2 T columns; under a causal or windowed mask only keys <= query are read, so T + 128.
// Built per head: GpSimd iota writes the integer ramp (exact in fp32 below 2^24), VectorE multiplies by
// -slope / scale (one fp32 rounding); dense takes |.| as the minimum of the two ramps on the diagonal tile.
//
//   View t = b.sbuf("alibi", 128, alibi_columns(T, mask), DType::f32), tmp = b.sbuf("tmp", 128, 128, DType::f32);
//   build_alibi_tile(b, t, tmp, T, mask, slope / scale);
//   b.tensor_tensor(s, s, b.slice(t, 0, 128, alibi_column(T, q0, k0), w), AluOp::add);
// Not here: which heads get which slope (attention_mask.h standard_alibi_slopes) or the host reference.
#pragma once

#include <cstdint>

#include "neuron/isa/builder.h"
#include "neuron/kernels/attention_mask.h"

namespace nanotrn::neuron {

inline int64_t alibi_columns(int64_t T, AttentionMask mask) { return mask == AttentionMask::none ? 2 * T : T + 128; }
inline int64_t alibi_column(int64_t T, int64_t q0, int64_t k0) { return T - q0 + k0; }

// tile [128, alibi_columns(T, mask)] fp32; diag_tmp [128, 128] fp32 scratch (dense only).
void build_alibi_tile(KernelBuilder& b, const View& tile, const View& diag_tmp, int64_t T, AttentionMask mask,
                      float slope_over_scale);

}  // namespace nanotrn::neuron
