// Rotary position embedding (RoPE), forward and backward.
//
//   RotaryOptions ro{.base = 100000.0, .fraction = 1.0};
//   Tensor q2 = ops::rotary(ctx, q, ro);        // q [B, T, H, D]
//
// The first R = fraction * D channels of each head rotate (R even), in pairs (j, j + R/2) for j < R/2, by the angle
// pos * base^(-2j/R) with pos = t + position_offset; channels >= R pass through. The rotation is written as the
// baseline codes it (recipe-spec §2.2): y1 = x1 cos + x2 sin, y2 = -x1 sin + x2 cos. The cos/sin table is computed in
// double and rounded to fp32. The backward rotates the gradient by the opposite angle.
#pragma once

#include <vector>

#include "engine/engine.h"

namespace nanotrn::ops {

struct RotaryOptions {
  double base = 10000.0;
  double fraction = 1.0;        // of the head dimension that rotates; R = round(fraction * D) must be even
  int64_t position_offset = 0;  // position of row t is t + offset (a KV-cache decode continues a sequence)
  // Empty, or R / 2 frequencies in place of base^(-2j/R) (scaled rotary: model/rope.h).
  std::vector<double> inv_freq = {};
  double magnitude = 1.0;  // cos and sin are multiplied by it (YaRN's attention factor)
};

Tensor rotary(Ctx& ctx, const Tensor& x, const RotaryOptions& options = {});

}  // namespace nanotrn::ops
