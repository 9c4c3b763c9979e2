// AdamW (Loshchilov & Hutter): bias-corrected Adam with decoupled weight decay, over a list of parameters.
//
//   AdamW opt({&w1, &w2}, {.lr = 1e-3f, .beta1 = 0.9f, .beta2 = 0.95f, .eps = 1e-8f, .weight_decay = 0.0f});
//   ... tape.backward(loss); opt.step(); opt.zero_grad();
//
// Per element, at step t (1-based): p -= lr * wd * p;  m = lerp(m, g, 1 - beta1);  v = lerp(v, g^2, 1 - beta2);
// p -= lr / (1 - beta1^t) * m / (sqrt(v / (1 - beta2^t)) + eps). A parameter whose gradient is undefined this step
// is treated as having a zero gradient (its moments still decay). State is fp32 and owned by the optimiser.
// Not here: Muon, parameter groups and schedules (train/optimizers.h builds one AdamW per group).
#pragma once

#include <vector>

#include "tensor/tensor.h"

namespace nanotrn {

struct AdamWOptions {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
};

class AdamW {
 public:
  AdamW(std::vector<Tensor*> params, AdamWOptions options);
  void step();
  void zero_grad();
  int64_t steps_taken() const { return t_; }
  // The optimiser state, for checkpoints: first and second moments, one per parameter (restore by copying into
  // them), and the step count that the bias correction uses.
  const std::vector<Tensor>& first_moments() const { return m_; }
  const std::vector<Tensor>& second_moments() const { return v_; }
  void set_steps_taken(int64_t t) { t_ = t; }
  AdamWOptions& options() { return options_; }

 private:
  std::vector<Tensor*> params_;
  std::vector<Tensor> m_, v_;
  AdamWOptions options_;
  int64_t t_ = 0;
};

}  // namespace nanotrn
