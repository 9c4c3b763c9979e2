// Internal helpers shared by the op implementations (not part of the ops API).
#pragma once

#include <string>
#include <vector>

#include "autograd/tape.h"
#include "base/error.h"
#include "engine/engine.h"

namespace nanotrn::ops::detail {

// True when the op must record itself: a tape is active and some input requires grad.
inline bool recording(const Ctx& ctx, const std::vector<Tensor>& inputs) {
  return ctx.tape != nullptr && Tape::any_requires_grad(inputs);
}

inline void require_f32(const Tensor& t, const char* op, const char* arg) {
  check(t.defined(), std::string(op) + ": argument '" + arg + "' is undefined");
  check(t.dtype() == DType::f32,
        std::string(op) + ": argument '" + arg + "' must be f32, got " + std::string(dtype_name(t.dtype())));
}

inline int64_t wrap_dim(int64_t d, int64_t ndim, const char* op) {
  if (d < 0) d += ndim;
  check(d >= 0 && d < ndim, std::string(op) + ": dimension out of range for a " + std::to_string(ndim) + "-d tensor");
  return d;
}

}  // namespace nanotrn::ops::detail
