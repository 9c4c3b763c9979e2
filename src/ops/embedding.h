// Token embedding lookup, forward and backward.
//
//   Tensor x = ops::embedding(ctx, ids, wte);   // ids i32 [B, T], wte [V, C] -> [B, T, C]
//
// The gradient of the table is dense [V, C] (rows of unused tokens are zero). An id outside [0, V) is an error that
// names the id and its position.
#pragma once

#include "engine/engine.h"

namespace nanotrn::ops {

Tensor embedding(Ctx& ctx, const Tensor& ids, const Tensor& table);

}  // namespace nanotrn::ops
