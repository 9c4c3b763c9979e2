// The host attention kernels' modifiers (ops/attention_kernels.h's AttentionMods, pointers into the caller's arrays)
// as the fp64 reference's AttentionSpec (ref/attention_ref.h, values), for the tests that compare the two.
//
//   ref::attention_forward_ref(q, k, v, B, Tq, Tk, H, Hkv, D, ref_spec(mods, H, B, Tk));
#pragma once

#include <cstdint>

#include "ops/attention_kernels.h"
#include "ref/attention_ref.h"

namespace nanotrn::testing_support {

// H query heads (the slopes' length), B x Tk segment ids.
inline ref::AttentionSpec ref_spec(const AttentionMods& m, int64_t H, int64_t B, int64_t Tk) {
  ref::AttentionSpec s;
  s.causal = m.causal;
  s.window = m.window;
  if (m.alibi_slopes) s.alibi_slopes.assign(m.alibi_slopes, m.alibi_slopes + H);
  if (m.segment_ids) s.segment_ids.assign(m.segment_ids, m.segment_ids + B * Tk);
  s.softcap = m.softcap;
  s.scale = m.scale;
  return s;
}

}  // namespace nanotrn::testing_support
