// AdamW. See adamw.h.
#include "optim/adamw.h"

#include <cmath>

#include "base/error.h"

namespace nanotrn {

AdamW::AdamW(std::vector<Tensor*> params, AdamWOptions options) : params_(std::move(params)), options_(options) {
  for (Tensor* p : params_) {
    check(p && p->defined() && p->dtype() == DType::f32 && p->is_contiguous(),
          "AdamW: parameters must be defined, contiguous f32 tensors");
    m_.push_back(Tensor::zeros(p->shape(), DType::f32, p->allocator()));
    v_.push_back(Tensor::zeros(p->shape(), DType::f32, p->allocator()));
  }
}

void AdamW::step() {
  t_++;
  const AdamWOptions o = options_;
  const float bc1 = 1.0f - static_cast<float>(std::pow(static_cast<double>(o.beta1), static_cast<double>(t_)));
  const float bc2 = 1.0f - static_cast<float>(std::pow(static_cast<double>(o.beta2), static_cast<double>(t_)));
  const float step_size = o.lr / bc1;
  const float inv_sqrt_bc2 = 1.0f / std::sqrt(bc2);
  for (size_t i = 0; i < params_.size(); i++) {
    float* p = params_[i]->data<float>();
    const Tensor& grad = params_[i]->grad();
    const float* g = grad.defined() ? grad.data<float>() : nullptr;
    float* m = m_[i].data<float>();
    float* v = v_[i].data<float>();
    const int64_t n = params_[i]->numel();
#pragma omp parallel for if (n > 65536) schedule(static)
    for (int64_t j = 0; j < n; j++) {
      const float gj = g ? g[j] : 0.0f;
      p[j] -= o.lr * o.weight_decay * p[j];
      m[j] += (1.0f - o.beta1) * (gj - m[j]);
      v[j] += (1.0f - o.beta2) * (gj * gj - v[j]);
      p[j] -= step_size * m[j] / (std::sqrt(v[j]) * inv_sqrt_bc2 + o.eps);
    }
  }
}

void AdamW::zero_grad() {
  for (Tensor* p : params_) p->zero_grad();
}

}  // namespace nanotrn
