// fp64 references. See ops_ref.h. Index arithmetic is spelled out on purpose: this file is the specification.
#include "ref/ops_ref.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"

namespace nanotrn::ref {

namespace {

std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> idx(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    idx[d] = flat % shape[d];
    flat /= shape[d];
  }
  return idx;
}

int64_t ravel(const std::vector<int64_t>& idx, const Shape& shape) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); d++) flat = flat * shape[d] + idx[d];
  return flat;
}

// Elements of a shape (1 for a scalar's []).
int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (const int64_t d : shape) n *= d;
  return n;
}

// numpy's broadcasting: shapes aligned at the right, each dimension equal or 1.
Shape broadcast(const Shape& a, const Shape& b) {
  const size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; i++) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    check(da == db || da == 1 || db == 1, "ref::binary: shapes that do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

int64_t wrap(int64_t d, size_t n) { return d < 0 ? d + static_cast<int64_t>(n) : d; }

}  // namespace

RefTensor binary(const RefTensor& a, const RefTensor& b, BinaryOp op) {
  RefTensor out;
  out.shape = broadcast(a.shape, b.shape);
  const int64_t n = numel_of(out.shape);
  out.v.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; i++) {
    const std::vector<int64_t> idx = unravel(i, out.shape);
    auto read = [&](const RefTensor& t) {
      std::vector<int64_t> ti(t.shape.size());
      const size_t lead = out.shape.size() - t.shape.size();
      for (size_t d = 0; d < t.shape.size(); d++) ti[d] = t.shape[d] == 1 ? 0 : idx[lead + d];
      return t.v[static_cast<size_t>(ravel(ti, t.shape))];
    };
    const double x = read(a), y = read(b);
    out.v[i] = op == BinaryOp::add ? x + y : op == BinaryOp::sub ? x - y : op == BinaryOp::mul ? x * y : x / y;
  }
  return out;
}

RefTensor scale(const RefTensor& x, double s) {
  RefTensor out = x;
  for (double& v : out.v) v *= s;
  return out;
}

RefTensor add_scalar(const RefTensor& x, double s) {
  RefTensor out = x;
  for (double& v : out.v) v += s;
  return out;
}

RefTensor sum(const RefTensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  std::vector<bool> red(x.shape.size(), false);
  for (int64_t d : dims) red[wrap(d, x.shape.size())] = true;
  Shape keep = x.shape;
  for (size_t d = 0; d < keep.size(); d++) {
    if (red[d]) keep[d] = 1;
  }
  RefTensor out;
  out.shape = keep;
  out.v.assign(static_cast<size_t>(numel_of(keep)), 0.0);
  for (int64_t i = 0; i < x.numel(); i++) {
    std::vector<int64_t> idx = unravel(i, x.shape);
    for (size_t d = 0; d < idx.size(); d++) {
      if (red[d]) idx[d] = 0;
    }
    out.v[static_cast<size_t>(ravel(idx, keep))] += x.v[i];
  }
  if (!keepdim) {
    Shape s;
    for (size_t d = 0; d < keep.size(); d++) {
      if (!red[d]) s.push_back(keep[d]);
    }
    out.shape = s;
  }
  return out;
}

RefTensor mean(const RefTensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  RefTensor s = sum(x, dims, keepdim);
  const double count = static_cast<double>(x.numel()) / static_cast<double>(std::max<int64_t>(1, s.numel()));
  return scale(s, 1.0 / count);
}

RefTensor transpose(const RefTensor& x, int64_t d0, int64_t d1) {
  d0 = wrap(d0, x.shape.size());
  d1 = wrap(d1, x.shape.size());
  RefTensor out;
  out.shape = x.shape;
  std::swap(out.shape[d0], out.shape[d1]);
  out.v.resize(x.v.size());
  for (int64_t i = 0; i < x.numel(); i++) {
    std::vector<int64_t> idx = unravel(i, x.shape);
    std::swap(idx[d0], idx[d1]);
    out.v[static_cast<size_t>(ravel(idx, out.shape))] = x.v[i];
  }
  return out;
}

RefTensor narrow(const RefTensor& x, int64_t dim, int64_t start, int64_t length) {
  dim = wrap(dim, x.shape.size());
  RefTensor out;
  out.shape = x.shape;
  out.shape[dim] = length;
  for (int64_t i = 0; i < x.numel(); i++) {
    const std::vector<int64_t> idx = unravel(i, x.shape);
    if (idx[dim] >= start && idx[dim] < start + length) out.v.push_back(x.v[i]);
  }
  return out;
}

RefTensor concat(const std::vector<RefTensor>& xs, int64_t dim) {
  dim = wrap(dim, xs[0].shape.size());
  RefTensor out;
  out.shape = xs[0].shape;
  out.shape[dim] = 0;
  for (const auto& x : xs) out.shape[dim] += x.shape[dim];
  out.v.resize(static_cast<size_t>(numel_of(out.shape)));
  int64_t at = 0;
  for (const auto& x : xs) {
    for (int64_t i = 0; i < x.numel(); i++) {
      std::vector<int64_t> idx = unravel(i, x.shape);
      idx[dim] += at;
      out.v[static_cast<size_t>(ravel(idx, out.shape))] = x.v[i];
    }
    at += x.shape[dim];
  }
  return out;
}

RefTensor unary(const RefTensor& x, Unary f, double p) {
  RefTensor out = x;
  const double pi = 3.14159265358979323846;
  for (double& v : out.v) {
    switch (f) {
      case Unary::relu2:
        v = v > 0 ? v * v : 0.0;
        break;
      case Unary::leaky_relu2:
        v = v > 0 ? v * v : (p * v) * (p * v);
        break;
      case Unary::gelu:
        v = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
        break;
      case Unary::gelu_tanh:
        v = 0.5 * v * (1.0 + std::tanh(std::sqrt(2.0 / pi) * (v + 0.044715 * v * v * v)));
        break;
      case Unary::silu:
        v = v / (1.0 + std::exp(-v));
        break;
      case Unary::sigmoid:
        v = 1.0 / (1.0 + std::exp(-v));
        break;
      case Unary::tanh:
        v = std::tanh(v);
        break;
      case Unary::softcap:
        v = p * std::tanh(v / p);
        break;
    }
  }
  return out;
}

RefTensor clamp(const RefTensor& x, double lo, double hi) {
  RefTensor out = x;
  for (double& v : out.v) v = v < lo ? lo : (v > hi ? hi : v);
  return out;
}

RefTensor softmax(const RefTensor& x) {
  RefTensor out = x;
  const int64_t n = x.shape.back(), rows = x.numel() / n;
  for (int64_t r = 0; r < rows; r++) {
    double m = -INFINITY, s = 0.0;
    for (int64_t i = 0; i < n; i++) m = std::max(m, x.v[r * n + i]);
    for (int64_t i = 0; i < n; i++) s += std::exp(x.v[r * n + i] - m);
    for (int64_t i = 0; i < n; i++) out.v[r * n + i] = std::exp(x.v[r * n + i] - m) / s;
  }
  return out;
}

MatmulRef matmul_with_magnitude(const RefTensor& a, const RefTensor& b, bool ta, bool tb) {
  const size_t na = a.shape.size(), nb = b.shape.size();
  const int64_t ar = a.shape[na - 2], ac = a.shape[na - 1], br = b.shape[nb - 2], bc = b.shape[nb - 1];
  const int64_t M = ta ? ac : ar, K = ta ? ar : ac, N = tb ? br : bc;
  check((tb ? bc : br) == K, "ref::matmul: inner dimensions differ");
  const int64_t batch = a.numel() / (ar * ac);
  const bool shared_b = nb == 2;
  MatmulRef out;
  out.product.shape = Shape(a.shape.begin(), a.shape.end() - 2);
  out.product.shape.push_back(M);
  out.product.shape.push_back(N);
  out.product.v.assign(static_cast<size_t>(batch * M * N), 0.0);
  out.magnitude = out.product;
  for (int64_t z = 0; z < batch; z++) {
    const double* A = a.v.data() + z * ar * ac;
    const double* Bm = b.v.data() + (shared_b ? 0 : z * br * bc);
    for (int64_t i = 0; i < M; i++) {
      for (int64_t j = 0; j < N; j++) {
        double s = 0.0, m = 0.0;
        for (int64_t kk = 0; kk < K; kk++) {
          const double x = ta ? A[kk * ac + i] : A[i * ac + kk];
          const double y = tb ? Bm[j * bc + kk] : Bm[kk * bc + j];
          s += x * y;
          m += std::fabs(x * y);
        }
        out.product.v[static_cast<size_t>((z * M + i) * N + j)] = s;
        out.magnitude.v[static_cast<size_t>((z * M + i) * N + j)] = m;
      }
    }
  }
  return out;
}

RefTensor matmul(const RefTensor& a, const RefTensor& b, bool ta, bool tb) {
  return matmul_with_magnitude(a, b, ta, tb).product;
}

RefTensor embedding(const std::vector<int32_t>& ids, const Shape& ids_shape, const RefTensor& table) {
  const int64_t C = table.shape[1];
  RefTensor out;
  out.shape = ids_shape;
  out.shape.push_back(C);
  for (int32_t id : ids) {
    for (int64_t c = 0; c < C; c++) out.v.push_back(table.v[static_cast<size_t>(id * C + c)]);
  }
  return out;
}

RefTensor rms_norm(const RefTensor& x, double eps) {
  RefTensor out = x;
  const int64_t C = x.shape.back(), rows = x.numel() / C;
  for (int64_t r = 0; r < rows; r++) {
    double ss = 0.0;
    for (int64_t c = 0; c < C; c++) ss += x.v[r * C + c] * x.v[r * C + c];
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(C) + eps);
    for (int64_t c = 0; c < C; c++) out.v[r * C + c] = x.v[r * C + c] * inv;
  }
  return out;
}

RefTensor rotary(const RefTensor& x, double base, double fraction, int64_t offset, const std::vector<double>& inv_freq,
                 double magnitude) {
  const int64_t B = x.shape[0], T = x.shape[1], H = x.shape[2], D = x.shape[3];
  const int64_t R = static_cast<int64_t>(std::llround(fraction * static_cast<double>(D))), half = R / 2;
  RefTensor out = x;
  for (int64_t b = 0; b < B; b++) {
    for (int64_t t = 0; t < T; t++) {
      for (int64_t h = 0; h < H; h++) {
        const int64_t o = ((b * T + t) * H + h) * D;
        for (int64_t j = 0; j < half; j++) {
          const double f = inv_freq.empty() ? std::pow(base, -2.0 * j / static_cast<double>(R)) : inv_freq[j];
          const double angle = static_cast<double>(t + offset) * f;
          const double c = magnitude * std::cos(angle), s = magnitude * std::sin(angle);
          const double x1 = x.v[o + j], x2 = x.v[o + j + half];
          out.v[o + j] = x1 * c + x2 * s;
          out.v[o + j + half] = -x1 * s + x2 * c;
        }
      }
    }
  }
  return out;
}

double linear_cross_entropy(const RefTensor& x, const RefTensor& w, const std::vector<int32_t>& targets, double softcap,
                            int32_t ignore_index, std::vector<double>* per_row) {
  const int64_t C = w.shape[1], V = w.shape[0], N = static_cast<int64_t>(targets.size());
  double total = 0.0;
  int64_t count = 0;
  if (per_row) per_row->assign(static_cast<size_t>(N), 0.0);
  std::vector<double> z(static_cast<size_t>(V));
  for (int64_t i = 0; i < N; i++) {
    if (targets[i] == ignore_index) continue;
    for (int64_t j = 0; j < V; j++) {
      double s = 0.0;
      for (int64_t c = 0; c < C; c++) s += x.v[i * C + c] * w.v[j * C + c];
      z[j] = softcap > 0 ? softcap * std::tanh(s / softcap) : s;
    }
    double m = -INFINITY, s = 0.0;
    for (double v : z) m = std::max(m, v);
    for (double v : z) s += std::exp(v - m);
    const double nll = m + std::log(s) - z[targets[i]];
    if (per_row) (*per_row)[i] = nll;
    total += nll;
    count++;
  }
  return count > 0 ? total / static_cast<double>(count) : 0.0;
}

}  // namespace nanotrn::ref
