// The host check of the attention backward tile kernel (`kernel run attention_bwd --check`, kernels/
// attention_backward.h): seeded inputs, the fp64 reference gradients of ref/attention_ref.h, and an error bound per
// element derived from the kernel's roundings. With e = 2^-24 (fp32), b = 2^-8 (bf16), u = the output dtype's unit
// roundoff, per visible (query t, key s), from the bf16-rounded inputs:
//   sigma_ts = (d + 2) e sum |q_t k_s|, tau_ts = (d + 2) e sum |dO_t v_s|     fp32 dot products of exact products
//   eps_ts   = b + 3 e + scale sigma_ts + e (2 |scale S| + 2 |lse_t|)         P's relative error: the exp argument
//                                                                            (scores, the fp32 lse), exp, bf16 P
//   delta_t  = (b + (d + 3) e) sum |dO_t o_t|                                D from o rounded to bf16
//   E_ts     = eps |P (dP - D)| + P (1 + eps) (tau + delta + e |dP - D|) + (b + e) |dS| (1 + eps)    dS's error
// and per output element (n = T + 2 terms summed in fp32, then the output rounding):
//   dV_s   <= sum_t eps P |dO_t| + n e sum_t P |dO_t|                   + u |dV|
//   dK_s   <= scale (sum_t E |q_t| + n e sum_t |dS q_t|) (1 + e)        + u |dK|
//   dQ_t   <= scale (sum_s E |k_s| + n e sum_s |dS k_s|) (1 + e)        + u |dQ|
// each first-order bound times 1.25 for the second-order terms it drops. ALiBi adds 4 e bias to eps; softcap c adds
// 4 e c to eps and scales dS by w = 1 - th^2 (th = tanh(scale S / c)), whose error 2 |th| ((1 - th^2) scale sigma / c
// + 2 e) + 3 e (and e for the product) joins E. The reference values come from
// ref::attention_backward_ref (the textbook chain rule in fp64) on the same rounded q, k, v, dO.
// Inputs: q, k uniform [-2, 2), v, dO [-1, 1) from std::mt19937(seed), rounded to the dtype; o and lse the fp64
// forward (ref::attention_forward_ref) on them, o rounded to the dtype, lse to fp32.
// Not here: running the kernel (kernel_run.cpp), its definition (attention_backward_entry.cpp).
#pragma once

#include <vector>

#include "neuron/registry/kernel_definition.h"
#include "neuron/registry/shapes.h"

namespace nanotrn::neuron {

// q, k, v, o, dout [heads T, d] and lse [heads T, 1], row-major, in that order.
HostTensors make_attention_backward_inputs(const AttentionShape& shape, DType dtype, uint64_t seed);
// outputs: dq, dk, dv [heads T, d].
CheckOutcome check_attention_backward(const AttentionShape& shape, DType dtype, const HostTensors& inputs,
                                      const HostTensors& outputs);
// attention-gym's FLOP convention: 2.5 x the forward's 4 d + 2 per visible (query, key) pair, all heads.
double attention_backward_flops(const AttentionShape& shape);

}  // namespace nanotrn::neuron
