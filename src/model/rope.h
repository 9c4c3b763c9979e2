// The rotary embedding's frequencies of a GPT config: the plain base^(-2j/R), or scaled as model.rope_scaling says
// (Hugging Face's rope_scaling: llama3, yarn), with the factor cos and sin are multiplied by.
//
//   const RotaryFrequencies f = rotary_frequencies(config, R);   // R rotating channels of a head
//   ops::RotaryOptions ro{.inv_freq = f.inv_freq, .magnitude = f.magnitude};
//
// llama3 (Llama 3.1): with wavelength w = 2 pi / f and L = original_max_positions, f is kept where w < L /
// high_freq_factor, divided by factor where w > L / low_freq_factor, and between the two blended as
// (1 - s) f / factor + s f with s = (L / w - low_freq_factor) / (high_freq_factor - low_freq_factor); magnitude 1.
// yarn (gpt-oss): channel pair j's f is blended between f / factor (interpolation) and f (extrapolation) by a ramp
// over j from d(beta_fast) to d(beta_slow), d(r) = R ln(L / (2 pi r)) / (2 ln base) (rounded outwards when truncate,
// and kept in [0, R - 1]); extrapolation weight 1 - clamp((j - low) / (high - low), 0, 1); magnitude attention_factor,
// or 0.1 ln(factor) + 1. Both as Hugging Face's modeling_rope_utils defines them (tests/python/gpt_parity.py
// computes them again from those definitions).
#pragma once

#include <vector>

#include "model/config.h"

namespace nanotrn::model {

struct RotaryFrequencies {
  std::vector<double> inv_freq;  // R / 2
  double magnitude = 1.0;
};

RotaryFrequencies rotary_frequencies(const GptConfig& resolved, int64_t rotary_channels);

}  // namespace nanotrn::model
