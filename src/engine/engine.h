// The host compute engine and the context every op receives.
//
//   Engine engine;                      // owns the caching allocator and the GEMM backend
//   Tape tape;
//   Ctx ctx{engine, &tape};             // ops record onto `tape` for autograd
//   Tensor y = ops::linear(ctx, x, w);
//   { NoGradGuard no_grad(ctx); ... }   // evaluation: nothing is recorded
//
// There is no global engine: whoever runs ops owns one and passes the Ctx down. OpenMP decides the thread count of
// the element-wise kernels and of oneDNN (both use the same OpenMP runtime, so they never oversubscribe the cores).
// Not here: the ops themselves (ops/), the tape (autograd/tape.h).
#pragma once

#include <memory>

#include "dtype/dtype.h"
#include "gemm/gemm.h"
#include "tensor/tensor.h"

namespace nanotrn {

class Tape;

struct EngineOptions {
  int num_threads = 0;  // 0: keep the OpenMP default (OMP_NUM_THREADS or all cores), refused above max_host_threads()
  Bf16Mode bf16 = Bf16Mode::kAuto;  // the GEMM's bf16 path (gemm/gemm.h); kEmulated tests the AVX2 path on any CPU
};

class Engine {
 public:
  explicit Engine(EngineOptions options = {});
  const std::shared_ptr<CachingAllocator>& allocator() const { return allocator_; }
  Gemm& gemm() { return *gemm_; }
  const Gemm& gemm() const { return *gemm_; }
  int num_threads() const;

 private:
  std::shared_ptr<CachingAllocator> allocator_;
  std::unique_ptr<Gemm> gemm_;
};

// What an op needs from its caller: where to allocate and which GEMM to call (the engine), where to record for
// autograd (the tape, null in no-grad mode), and the precision of matrix products.
struct Ctx {
  Engine& engine;
  Tape* tape = nullptr;
  // f32, or bf16: matmul inputs are rounded to bf16 (nearest even) and multiplied with fp32 accumulation and fp32
  // output; everything else stays fp32 (mixed precision with fp32 master weights).
  DType matmul_dtype = DType::f32;

  Tensor empty(const Shape& shape, DType dtype = DType::f32) const {
    return Tensor::empty(shape, dtype, engine.allocator());
  }
  Tensor zeros(const Shape& shape, DType dtype = DType::f32) const {
    return Tensor::zeros(shape, dtype, engine.allocator());
  }
};

// Turns recording off for its lifetime (evaluation, sampling, optimiser updates).
class NoGradGuard {
 public:
  explicit NoGradGuard(Ctx& ctx) : ctx_(ctx), saved_(ctx.tape) { ctx.tape = nullptr; }
  ~NoGradGuard() { ctx_.tape = saved_; }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  Ctx& ctx_;
  Tape* saved_;
};

}  // namespace nanotrn
