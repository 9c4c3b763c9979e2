// The parameters both attention kernels take (attention, attention_bwd): one spelling of the flags and one
// reading of them into an AttentionShape, with its rules (T, d, heads > 0, the variant's rules of
// check_attention_variant, whole kv groups per SPMD core).
//   t, d, heads     sequence length, head dim, stacked (batch, query head) pairs
//   mask, window    causal | none | sliding_window (keys query - window < key <= query)
//   alibi           the standard slopes 2^(-8 (h + 1) / heads) over the stacked heads (to_params reports whether
//                   slopes are set, not their values)
//   group           query heads per kv head (GQA; = heads for MQA)
//   softcap         the logit softcap c (0: off)
//   documents       n >= 1: document bounds of n documents packed into T (spread_document_starts: edges inside
//                   128-key tiles); 0: none
// Not here: the definitions (attention_entry.cpp, attention_backward_entry.cpp).
#pragma once

#include <string>
#include <vector>

#include "neuron/registry/kernel_definition.h"
#include "neuron/registry/shapes.h"

namespace nanotrn::neuron {

std::vector<ParamSpec> attention_params();
// An attention kernel's parameters, from_params, to_params, describe, check_size and batched (both kernels).
void set_attention_parts(KernelDefinition<AttentionShape>& d);
AttentionShape attention_shape_of(const KernelParams& p);
KernelParams attention_params_of(const AttentionShape& s);
std::string attention_text(const AttentionShape& s);  // "8 head(s), T 1024, d 128, causal"
// Throws nanotrn::Error for non-positive sizes, a bad variant, or fewer kv groups than `cores`.
void check_attention_shape(const AttentionShape& s, int cores = 1);
// The variant of the stacked query heads [lo, hi) one SPMD core runs: their ALiBi slopes.
AttentionVariant heads_variant(const AttentionVariant& v, int64_t lo, int64_t hi);
// The kernels' HBM bounds tensor [T, 2] (bound_min, bound_max per row, as floats) of a bounded variant.
std::vector<float> bounds_tensor(const AttentionVariant& v);
// heads T^2 d multiply-adds against kMaxCheckMacs.
CheckSize attention_check_size(const AttentionShape& s);

}  // namespace nanotrn::neuron
