// The op-check harness. See op_check.h.
#include "support/op_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "autograd/tape.h"

namespace nanotrn::testing {

namespace {

Tensor make_input(const InputSpec& s, std::mt19937_64& rng, const std::vector<float>& given) {
  const int64_t n = shape_numel(s.shape);
  if (s.kind == InputSpec::Kind::ints) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    std::uniform_int_distribution<int32_t> u(0, std::max(0, s.int_bound - 1));
    for (auto& x : v) x = u(rng);
    if (!given.empty()) {
      for (int64_t i = 0; i < n; i++) v[i] = static_cast<int32_t>(given[i]);
    }
    return Tensor::from_ints(s.shape, v);
  }
  std::vector<float> v(static_cast<size_t>(n));
  if (!given.empty()) {
    v = given;
  } else if (s.kind == InputSpec::Kind::normal) {
    std::normal_distribution<float> d(0.0f, static_cast<float>(s.scale));
    for (auto& x : v) x = d(rng);
  } else {
    std::uniform_real_distribution<float> d(0.5f, 1.5f);
    for (auto& x : v) x = d(rng) * static_cast<float>(s.scale);
  }
  Tensor t = Tensor::from_vector(s.shape, v);
  if (s.requires_grad) t.set_requires_grad();
  return t;
}

double dot(const ref::RefTensor& a, const std::vector<double>& r) {
  double s = 0.0;
  for (size_t i = 0; i < a.v.size(); i++) s += a.v[i] * r[i];
  return s;
}

}  // namespace

ref::RefTensor ref_tensor_of(const Tensor& t) {
  ref::RefTensor r;
  r.shape = t.shape();
  if (t.dtype() == DType::i32) {
    Tensor c = t.contiguous();
    const int32_t* p = c.data<int32_t>();
    r.v.assign(p, p + c.numel());
  } else {
    const std::vector<float> f = t.to_vector();
    r.v.assign(f.begin(), f.end());
  }
  return r;
}

void check_op(const OpCase& c) {
  SCOPED_TRACE("op case: " + c.name);
  std::mt19937_64 rng(c.seed);
  std::vector<Tensor> inputs;
  std::vector<ref::RefTensor> refs;
  for (size_t i = 0; i < c.inputs.size(); i++) {
    const std::vector<float> given = i < c.values.size() ? c.values[i] : std::vector<float>{};
    inputs.push_back(make_input(c.inputs[i], rng, given));
    refs.push_back(ref_tensor_of(inputs.back()));
  }

  Engine engine;
  Tape tape;
  Ctx ctx{engine, &tape};
  Tensor out = c.host(ctx, inputs);
  const ref::RefTensor expect = c.reference(refs);

  // 1. Forward.
  ASSERT_EQ(out.shape(), expect.shape) << "host output shape differs from the reference";
  const std::vector<float> got = out.to_vector();
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; i++) {
    const double tol = c.fwd_atol + c.fwd_rtol * std::fabs(expect.v[i]);
    if (!(std::fabs(got[i] - expect.v[i]) <= tol)) {
      ADD_FAILURE() << "forward element " << i << ": host " << got[i] << " vs fp64 " << expect.v[i];
      bad++;
    }
  }
  if (bad) return;

  // 2. Backward vs finite differences of the fp64 reference.
  bool any_grad = false;
  for (const Tensor& t : inputs) any_grad = any_grad || t.requires_grad();
  if (!any_grad) return;
  std::vector<double> r(static_cast<size_t>(out.numel()));
  std::normal_distribution<double> nd(0.0, 1.0);
  for (auto& x : r) x = nd(rng);
  std::vector<float> rf(r.begin(), r.end());
  ASSERT_TRUE(out.requires_grad()) << "output does not require grad although an input does";
  tape.backward(out, Tensor::from_vector(out.shape(), rf));

  for (size_t i = 0; i < inputs.size(); i++) {
    if (!inputs[i].requires_grad()) continue;
    SCOPED_TRACE("gradient of input " + std::to_string(i));
    const int64_t n = inputs[i].numel();
    const Tensor& g = inputs[i].grad();
    std::vector<float> analytic = g.defined() ? g.to_vector() : std::vector<float>(static_cast<size_t>(n), 0.0f);
    ASSERT_EQ(static_cast<int64_t>(analytic.size()), n);
    std::vector<int64_t> idx;
    if (n <= c.fd_full_limit) {
      for (int64_t j = 0; j < n; j++) idx.push_back(j);
    } else {
      std::uniform_int_distribution<int64_t> u(0, n - 1);
      for (int64_t s = 0; s < c.fd_samples; s++) idx.push_back(u(rng));
    }
    std::vector<double> fd(idx.size());
    double max_fd = 0.0;
    for (size_t s = 0; s < idx.size(); s++) {
      std::vector<ref::RefTensor> plus = refs, minus = refs;
      plus[i].v[idx[s]] += c.fd_eps;
      minus[i].v[idx[s]] -= c.fd_eps;
      fd[s] = (dot(c.reference(plus), r) - dot(c.reference(minus), r)) / (2.0 * c.fd_eps);
      max_fd = std::max(max_fd, std::fabs(fd[s]));
    }
    int gbad = 0;
    for (size_t s = 0; s < idx.size() && gbad < 5; s++) {
      const double a = analytic[idx[s]];
      const double tol = c.grad_atol * std::max(1.0, max_fd) + c.grad_rtol * std::fabs(fd[s]);
      if (!(std::fabs(a - fd[s]) <= tol)) {
        ADD_FAILURE() << "element " << idx[s] << ": host backward " << a << " vs finite difference " << fd[s];
        gbad++;
      }
    }
  }
}

}  // namespace nanotrn::testing
