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

#include <memory>
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

// The cos/sin table rotary() applies: positions t + position_offset for t < positions, R / 2 channel pairs, each value
// computed in double and rounded to fp32. One table rotates every tensor of its length and head dimension (a layer's
// q and k, every layer of one forward), so a caller that rotates many builds it once. Errors name the bad option.
struct RotaryTable {
  int64_t positions = 0, head_dim = 0, rotary_dims = 0;  // T, D, R
  std::vector<float> cos, sin;                           // [T, R / 2]
};
RotaryTable rotary_table(int64_t positions, int64_t head_dim, const RotaryOptions& options);

Tensor rotary(Ctx& ctx, const Tensor& x, const RotaryOptions& options = {});  // builds the table for x's T and D
// x [B, T, H, D] with the table's T and D (an error names both otherwise).
Tensor rotary(Ctx& ctx, const Tensor& x, std::shared_ptr<const RotaryTable> table);

}  // namespace nanotrn::ops
