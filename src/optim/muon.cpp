// Muon. See muon.h.
#include "optim/muon.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "dtype/convert.h"

namespace nanotrn {

namespace {

constexpr std::array<std::array<double, 3>, 5> kPolarExpress = {{
    {8.156554524902461, -22.48329292557795, 15.878769915207462},
    {4.042929935166739, -2.808917465908714, 0.5000178451051316},
    {3.8916678022926607, -2.772484153217685, 0.5060648178503393},
    {3.285753657755655, -2.3681294933425376, 0.46449024233003106},
    {2.3465413258596377, -1.7097828382687081, 0.42323551169305323},
}};

void gemm(Gemm& g, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c) {
  g.f32(GemmDims{ta, tb, m, n, k, lda, ldb, n}, alpha, a, b, beta, c);
}

// The same product with both operands rounded to bf16 (nearest even) first; fp32 accumulation and output.
void gemm_bf16(Gemm& g, bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
               const float* b, int64_t ldb, float beta, float* c, std::vector<uint16_t>& ab, std::vector<uint16_t>& bb,
               size_t a_size, size_t b_size) {
  ab.resize(a_size);
  convert(a, DType::f32, ab.data(), DType::bf16, a_size);
  const uint16_t* bp = ab.data();
  if (b != a) {
    bb.resize(b_size);
    convert(b, DType::f32, bb.data(), DType::bf16, b_size);
    bp = bb.data();
  }
  g.bf16(GemmDims{ta, tb, m, n, k, lda, ldb, n}, alpha, ab.data(), bp, beta, c);
}

}  // namespace

std::array<double, 3> muon_coefficients(MuonCoefficients kind, int step) {
  check(step >= 0, "muon_coefficients: negative step");
  if (kind == MuonCoefficients::classic) return {3.4445, -4.7750, 2.0315};
  return kPolarExpress[static_cast<size_t>(std::min(step, 4))];
}

double muon_singular_value_map(double sigma, MuonCoefficients kind, int steps) {
  for (int s = 0; s < steps; s++) {
    const auto [a, b, c] = muon_coefficients(kind, s);
    const double s2 = sigma * sigma;
    sigma = a * sigma + b * s2 * sigma + c * s2 * s2 * sigma;
  }
  return sigma;
}

void muon_orthogonalize(Gemm& g, float* x, int64_t rows, int64_t cols, MuonCoefficients kind, int steps, DType dtype) {
  check(dtype == DType::f32 || dtype == DType::bf16, "muon_orthogonalize: dtype must be f32 or bf16");
  // Work on the wide orientation: for a tall X, X^T X is the small Gram matrix and the update multiplies on the right.
  const bool wide = rows <= cols;
  const int64_t s = wide ? rows : cols;  // side of the Gram matrix
  const size_t nx = static_cast<size_t>(rows * cols), ns = static_cast<size_t>(s * s);
  std::vector<float> A(ns), B(ns), Y(nx);
  std::vector<uint16_t> h1, h2;  // bf16 operand copies
  auto mm = [&](bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* pa, int64_t lda,
                size_t a_size, const float* pb, int64_t ldb, size_t b_size, float beta, float* pc) {
    if (dtype == DType::bf16) {
      gemm_bf16(g, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc, h1, h2, a_size, b_size);
    } else {
      gemm(g, ta, tb, m, n, k, alpha, pa, lda, pb, ldb, beta, pc);
    }
  };
  for (int it = 0; it < steps; it++) {
    const auto [a, b, c] = muon_coefficients(kind, it);
    if (wide) {
      mm(false, true, s, s, cols, 1.0f, x, cols, nx, x, cols, nx, 0.0f, A.data());  // A = X X^T
    } else {
      mm(true, false, s, s, rows, 1.0f, x, cols, nx, x, cols, nx, 0.0f, A.data());  // A = X^T X
    }
    // B = b A + c A^2
    mm(false, false, s, s, s, static_cast<float>(c), A.data(), s, ns, A.data(), s, ns, 0.0f, B.data());
    for (size_t i = 0; i < B.size(); i++) B[i] += static_cast<float>(b) * A[i];
    // Y = a X + B X (wide) or a X + X B (tall)
    if (dtype == DType::bf16) {  // X enters both terms as bf16, as under bf16 autocast (vectorised round trip)
      h1.resize(nx);
      convert(x, DType::f32, h1.data(), DType::bf16, nx);
      convert(h1.data(), DType::bf16, x, DType::f32, nx);
    }
    std::copy(x, x + nx, Y.data());
    if (wide) {
      mm(false, false, rows, cols, rows, 1.0f, B.data(), s, ns, x, cols, nx, static_cast<float>(a), Y.data());
    } else {
      mm(false, false, rows, cols, cols, 1.0f, x, cols, nx, B.data(), s, ns, static_cast<float>(a), Y.data());
    }
    std::copy(Y.begin(), Y.end(), x);
  }
}

Muon::Muon(Gemm& gemm, std::vector<Tensor*> params, MuonOptions options)
    : gemm_(gemm), params_(std::move(params)), options_(options) {
  for (Tensor* p : params_) {
    check(p && p->defined() && p->dtype() == DType::f32 && p->dim() == 2 && p->is_contiguous(),
          "Muon: parameters must be contiguous 2-D f32 matrices" +
              (p && p->defined() ? std::string(", got shape ") + shape_str(p->shape()) : std::string()));
    momentum_.push_back(Tensor::zeros(p->shape(), DType::f32, p->allocator()));
    const int64_t rows = p->size(0), cols = p->size(1);
    second_moment_.push_back(Tensor::zeros({rows >= cols ? rows : cols}, DType::f32, p->allocator()));
  }
}

void Muon::step() {
  const MuonOptions o = options_;
  check(o.ns_steps >= 0, "Muon: ns_steps must be >= 0");
  for (size_t i = 0; i < params_.size(); i++) {
    Tensor& p = *params_[i];
    const int64_t rows = p.size(0), cols = p.size(1), n = rows * cols;
    const Tensor& grad = p.grad();
    const float* g = grad.defined() ? grad.data<float>() : nullptr;
    float* buf = momentum_[i].data<float>();
    std::vector<float> x(static_cast<size_t>(n));
    // 1. momentum (Nesterov)
    double sumsq = 0.0;
    for (int64_t j = 0; j < n; j++) {
      const float gj = g ? g[j] : 0.0f;
      buf[j] += (1.0f - o.momentum) * (gj - buf[j]);
      x[j] = o.nesterov ? gj + o.momentum * (buf[j] - gj) : buf[j];
      sumsq += static_cast<double>(x[j]) * x[j];
    }
    // 2. normalise, 3. orthogonalise
    const float inv = 1.0f / (o.norm_scale * static_cast<float>(std::sqrt(sumsq)) + o.norm_eps);
    for (float& v : x) v *= inv;
    muon_orthogonalize(gemm_, x.data(), rows, cols, o.coefficients, o.ns_steps, o.ns_dtype);
    // 4. NorMuon
    if (o.normuon) {
      const bool per_row = rows >= cols;
      float* s = second_moment_[i].data<float>();
      const int64_t len = per_row ? rows : cols, other = per_row ? cols : rows;
      std::vector<double> mean(static_cast<size_t>(len), 0.0);
      double before = 0.0;
      for (int64_t r = 0; r < rows; r++) {
        for (int64_t c = 0; c < cols; c++) {
          const double v = static_cast<double>(x[r * cols + c]) * x[r * cols + c];
          mean[per_row ? r : c] += v;
          before += v;
        }
      }
      for (int64_t k = 0; k < len; k++) {
        s[k] += (1.0f - o.normuon_beta2) * (static_cast<float>(mean[k] / static_cast<double>(other)) - s[k]);
      }
      double after = 0.0;
      for (int64_t r = 0; r < rows; r++) {
        for (int64_t c = 0; c < cols; c++) {
          float& v = x[r * cols + c];
          v /= std::sqrt(std::max(s[per_row ? r : c], 1e-10f));
          after += static_cast<double>(v) * v;
        }
      }
      const float keep = after > 0.0 ? static_cast<float>(std::sqrt(before / after)) : 0.0f;
      for (float& v : x) v *= keep;
    }
    // 5. cautious weight decay and the update
    const float eta = o.lr * std::sqrt(std::max(1.0f, static_cast<float>(rows) / static_cast<float>(cols)));
    float* pp = p.data<float>();
    for (int64_t j = 0; j < n; j++) {
      const float decay = x[j] * pp[j] >= 0.0f ? eta * o.weight_decay * pp[j] : 0.0f;
      pp[j] -= eta * x[j] + decay;
    }
  }
}

void Muon::zero_grad() {
  for (Tensor* p : params_) p->zero_grad();
}

}  // namespace nanotrn
