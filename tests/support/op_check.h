// The op-test registry's harness (shared/style.md principle 9): an OpCase names an op's host implementation and its
// fp64 reference; check_op() runs
//   1. forward: host output vs the fp64 reference, |host - ref| <= fwd_atol + fwd_rtol * |ref| per element;
//   2. gradient: the host backward (through the tape, with a random output cotangent r) vs central finite
//      differences of L(x) = sum(r * ref(x)) computed entirely in fp64 - every element of inputs up to
//      `fd_full_limit` elements, a random sample of `fd_samples` elements beyond that.
// The finite differences differentiate the reference, not the host op, so a wrong backward cannot agree with itself.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "ref/ops_ref.h"

namespace nanotrn::testing {

// A host tensor as the fp64 reference's RefTensor: any f32 (or i32) tensor, values in row-major order.
ref::RefTensor ref_tensor_of(const Tensor& t);

struct InputSpec {
  Shape shape;
  enum class Kind { normal, positive, ints } kind = Kind::normal;
  bool requires_grad = true;  // ignored for ints
  int32_t int_bound = 0;      // ints are uniform in [0, int_bound)
  double scale = 1.0;         // normal: N(0, scale^2); positive: U(0.5, 1.5) * scale
};

struct OpCase {
  std::string name;
  std::vector<InputSpec> inputs;
  std::function<Tensor(Ctx&, const std::vector<Tensor>&)> host;
  std::function<ref::RefTensor(const std::vector<ref::RefTensor>&)> reference;
  double fwd_rtol = 2e-5, fwd_atol = 2e-6;
  double grad_rtol = 2e-4, grad_atol = 2e-5;  // atol is relative to max(1, max |fd gradient| of that input)
  double fd_eps = 1e-6;
  int64_t fd_full_limit = 400;
  int64_t fd_samples = 60;
  uint64_t seed = 1;
  // Optional: fix input values (same order as `inputs`); empty vectors are generated.
  std::vector<std::vector<float>> values;
};

void check_op(const OpCase& c);

}  // namespace nanotrn::testing
