// Bucketed, overlapped gradient all-reduce and the deterministic chain. See grad_reducer.h.
#include "dist/grad_reducer.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "base/error.h"

namespace nanotrn::dist {

namespace {

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Copies a parameter's gradient (zeros when it has none) into `dst`.
void copy_grad(const Tensor& param, float* dst) {
  const int64_t n = param.numel();
  const AutogradMeta* meta = param.autograd().get();
  if (!meta || !meta->grad.defined()) {
    std::fill(dst, dst + n, 0.0f);
    return;
  }
  const Tensor g = meta->grad.contiguous();
  std::memcpy(dst, g.data<float>(), static_cast<size_t>(n) * sizeof(float));
}

}  // namespace

GradReducer::GradReducer(Communicator& comm, std::vector<Tensor*> params, GradReducerOptions options)
    : comm_(comm), params_(std::move(params)), options_(options) {
  check(options_.bucket_bytes >= 4, "GradReducer: bucket_bytes must be >= 4");
  slots_.resize(params_.size());
  packed_.assign(params_.size(), false);
  // Reverse parameter order: the backward finishes the last parameters first.
  int64_t fill = 0;
  for (size_t k = params_.size(); k-- > 0;) {
    const Tensor* p = params_[k];
    check(p && p->defined() && p->dtype() == DType::f32 && p->autograd(),
          "GradReducer: every parameter must be a defined f32 tensor that requires grad");
    index_[p->autograd().get()] = k;
    const int64_t n = p->numel();
    if (buckets_.empty() || (fill > 0 && (fill + n) * 4 > options_.bucket_bytes)) {
      buckets_.emplace_back();
      fill = 0;
    }
    slots_[k] = {buckets_.size() - 1, fill, n};
    buckets_.back().params++;
    fill += n;
    buckets_.back().data.resize(static_cast<size_t>(fill));
    total_ += n;
  }
  reset();
}

void GradReducer::reset() {
  for (Bucket& b : buckets_) {
    b.pending = b.params;
  }
  std::fill(packed_.begin(), packed_.end(), false);
  next_bucket_ = 0;
}

Tape::LeafHook GradReducer::backward_hook(bool last_micro_batch) {
  if (options_.deterministic || !last_micro_batch || comm_.size() == 1) return {};
  return [this](AutogradMeta& meta) { on_ready(meta); };
}

void GradReducer::on_ready(AutogradMeta& meta) {
  const double t0 = now_seconds();
  auto it = index_.find(&meta);
  if (it != index_.end() && !packed_[it->second]) {
    pack(it->second);
    start_ready_buckets();
  }
  for (size_t b = 0; b < next_bucket_; b++) buckets_[b].request.test();
  timing_.hook_seconds += now_seconds() - t0;
}

void GradReducer::pack(size_t param) {
  const Slot& s = slots_[param];
  copy_grad(*params_[param], buckets_[s.bucket].data.data() + s.offset);
  packed_[param] = true;
  buckets_[s.bucket].pending--;
}

void GradReducer::start_ready_buckets() {
  while (next_bucket_ < buckets_.size() && buckets_[next_bucket_].pending == 0) {
    Bucket& b = buckets_[next_bucket_];
    b.request = comm_.start_all_reduce(b.data.data(), static_cast<int64_t>(b.data.size()), Scalar::f32, ReduceOp::sum);
    next_bucket_++;
  }
}

void GradReducer::write_back(size_t param, const float* src) {
  Tensor& p = *params_[param];
  AutogradMeta& meta = *p.autograd();
  if (!meta.grad.defined() || !meta.grad_owned || !meta.grad.is_contiguous()) {
    meta.grad = Tensor::empty(p.shape(), DType::f32);
    meta.grad_owned = true;
  }
  std::memcpy(meta.grad.data<float>(), src, static_cast<size_t>(p.numel()) * sizeof(float));
}

void GradReducer::after_backward(bool last_micro_batch) {
  (void)last_micro_batch;
  if (!options_.deterministic) return;
  // This micro-batch's gradient, computed from zero, is kept; the parameters start the next one from zero again.
  std::vector<float> unit(static_cast<size_t>(total_));
  int64_t at = 0;
  for (Tensor* p : params_) {
    copy_grad(*p, unit.data() + at);
    at += p->numel();
    p->zero_grad();
  }
  units_.push_back(std::move(unit));
}

void GradReducer::finish() {
  const double t0 = now_seconds();
  if (options_.deterministic) {
    check(!units_.empty(), "GradReducer::finish: no micro-batch was kept on rank " + std::to_string(comm_.rank()));
    const int r = comm_.rank(), n = comm_.size();
    std::vector<float> sum(static_cast<size_t>(total_));
    const int64_t bytes = total_ * 4;
    size_t first = 0;
    if (r == 0) {
      sum = units_[0];
      first = 1;
    } else {
      comm_.recv(sum.data(), bytes, r - 1);
    }
    for (size_t u = first; u < units_.size(); u++) {
      const float* g = units_[u].data();
      for (int64_t i = 0; i < total_; i++) sum[static_cast<size_t>(i)] += g[i];
    }
    if (r + 1 < n) comm_.send(sum.data(), bytes, r + 1);
    comm_.broadcast(sum.data(), bytes, n - 1);
    units_.clear();
    int64_t at = 0;
    for (size_t k = 0; k < params_.size(); k++) {
      write_back(k, sum.data() + at);
      at += params_[k]->numel();
    }
  } else if (comm_.size() > 1) {
    for (size_t b = 0; b < buckets_.size(); b++) {
      // Parameters the tape never reached (or a micro-batch run without the hook): pack them now, in bucket order.
      for (size_t k = params_.size(); k-- > 0;) {
        if (slots_[k].bucket == b && !packed_[k]) pack(k);
      }
    }
    start_ready_buckets();
    for (Bucket& b : buckets_) b.request.wait();
    for (size_t k = 0; k < params_.size(); k++)
      write_back(k, buckets_[slots_[k].bucket].data.data() + slots_[k].offset);
    reset();
  }
  timing_.exposed_seconds += now_seconds() - t0;
}

GradReducer::Timing GradReducer::take_timing() {
  const Timing t = timing_;
  timing_ = {};
  return t;
}

}  // namespace nanotrn::dist
