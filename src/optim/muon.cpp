// Muon. See muon.h.
#include "optim/muon.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <type_traits>
#include <utility>

#include "base/error.h"
#include "base/lane_sum.h"
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

// Muon's element-wise passes over more elements than this run on the threads (below it a fork costs more than it
// saves).
constexpr int64_t kThreadFrom = 65536;

// The block-rows a symmetric product is computed by (see NewtonSchulzGram): an eighth of the side rounded up to a
// multiple of 16, at least 32 rows. b block-rows compute (b + 1) / 2b of the full product's FLOPs (9/16 at 8). Chosen
// by bench/muon_bench.cpp on a 2-core Zen 3 (docs/PERFORMANCE.md): eighths beat quarters by 0-10 % on config b and c,
// twelfths were no faster; the GEMMs stay at 48 rows and more there.
int64_t symmetric_block_rows(int64_t side) { return std::max<int64_t>(32, (side / 8 + 15) / 16 * 16); }

// The block-rows of a symmetric side x side product, from the top: f(first row, rows). The product multiplies each
// from its diagonal on (columns first .. side - 1); its FLOP count walks the same rows.
template <class F>
void for_each_block_row(int64_t side, F f) {
  const int64_t block = symmetric_block_rows(side);
  for (int64_t r0 = 0; r0 < side; r0 += block) f(r0, std::min(block, side - r0));
}

// The lower part of each matrix (rows below their block-row's first column) from its upper part: C[r][c] = C[c][r]
// for c < r0(r). In tiles of 32 x 32 so both sides stay in cache; one matrix's tiles per thread.
void mirror_lower(float* c, int64_t batch, int64_t side, int64_t block) {
  constexpr int64_t kTile = 32;
#pragma omp parallel for collapse(2) schedule(static) if (batch * side * side > kThreadFrom)
  for (int64_t i = 0; i < batch; i++) {
    for (int64_t r0 = block; r0 < side; r0 += block) {
      float* m = c + i * side * side;
      const int64_t r1 = std::min(side, r0 + block);
      for (int64_t rt = r0; rt < r1; rt += kTile)
        for (int64_t ct = 0; ct < r0; ct += kTile)
          for (int64_t r = rt; r < std::min(r1, rt + kTile); r++)
            for (int64_t col = ct; col < std::min(r0, ct + kTile); col++) m[r * side + col] = m[col * side + r];
    }
  }
}

// The products of one iteration over `batch` matrices stored back to back, in f32 or with bf16 operands (each operand
// rounded once per iteration: X, A and B; fp32 accumulation and outputs). Where the GEMM has no native bf16 kernel
// the rounded operands stay f32 and the f32 GEMM multiplies them: the products the emulation computes, without a
// 16-bit copy to widen again.
class BatchedProducts {
 public:
  BatchedProducts(Gemm& g, DType dtype, int64_t batch)
      : g_(g), bf16_(dtype == DType::bf16), native_(g.bf16_support().path == Bf16Path::kNative), batch_(batch) {}

  // Rounds `n` elements per matrix of x to bf16 in place (kept as f32), so that both terms of the update see the same
  // X, as under bf16 autocast; remembers the bf16 copy for a native product.
  void round_x(float* x, size_t n) {
    if (!bf16_) return;
    if (!native_) {
      round_to_bf16(x, x, n * static_cast<size_t>(batch_));
      return;
    }
    xb_.resize(n * static_cast<size_t>(batch_));
    convert(x, DType::f32, xb_.data(), DType::bf16, xb_.size());
    convert(xb_.data(), DType::bf16, x, DType::f32, xb_.size());
  }
  // C_i = alpha op(A_i) op(B_i) + beta C_i for every matrix i; `a_is_x` / `b_is_x` say the operand is X (rounded by
  // round_x), else the operand is rounded here. Strides are the matrices' element counts. With `symmetric` the
  // product is known to be symmetric (m == n, beta == 0: X X^T, X^T X, or A A of a symmetric A): only each block-row's
  // part from the diagonal on is multiplied, and the rest mirrored.
  void mm(const GemmDims& d, float alpha, const float* a, size_t a_size, bool a_is_x, const float* b, size_t b_size,
          bool b_is_x, float beta, float* c, size_t c_size, bool symmetric = false) {
    const Strides s{static_cast<int64_t>(a_size), static_cast<int64_t>(b_size), static_cast<int64_t>(c_size)};
    if (!bf16_) return run(d, s, alpha, a, b, beta, c, symmetric);
    if (!native_) {
      const float* a32 = a_is_x ? a : rounded(a, a_size, a32_);
      const float* b32 = b_is_x ? b : (b == a ? a32 : rounded(b, b_size, b32_));
      return run(d, s, alpha, a32, b32, beta, c, symmetric);
    }
    const uint16_t* ab = a_is_x ? xb_.data() : round(a, a_size, ab_);
    const uint16_t* bb = b_is_x ? xb_.data() : (b == a ? ab : round(b, b_size, bb_));
    run(d, s, alpha, ab, bb, beta, c, symmetric);
  }

 private:
  struct Strides {
    int64_t a, b, c;
  };
  template <class T>
  void call(const GemmDims& d, const Strides& s, float alpha, const T* a, const T* b, float beta, float* c) {
    if constexpr (std::is_same_v<T, float>) {
      g_.f32_batched(d, batch_, s.a, s.b, s.c, alpha, a, b, beta, c);
    } else {
      g_.bf16_batched(d, batch_, s.a, s.b, s.c, alpha, a, b, beta, c);
    }
  }
  // The full product, or a symmetric one by block-rows: block-row [r0, r1) of C from column r0 on is rows [r0, r1)
  // of op(A) times columns [r0, m) of op(B), each a GEMM over the whole batch; then the rest is mirrored.
  template <class T>
  void run(const GemmDims& d, const Strides& s, float alpha, const T* a, const T* b, float beta, float* c,
           bool symmetric) {
    if (!symmetric) return call(d, s, alpha, a, b, beta, c);
    check(d.m == d.n && beta == 0.0f && d.ldc == d.m && s.c == d.m * d.m,
          "muon: a symmetric product needs a square, contiguous C and beta 0");
    for_each_block_row(d.m, [&](int64_t r0, int64_t rows) {
      GemmDims bd = d;
      bd.m = rows;
      bd.n = d.m - r0;
      const T* ar = d.trans_a ? a + r0 : a + r0 * d.lda;  // rows r0.. of op(A)
      const T* bc = d.trans_b ? b + r0 * d.ldb : b + r0;  // columns r0.. of op(B)
      call(bd, s, alpha, ar, bc, beta, c + r0 * d.ldc + r0);
    });
    mirror_lower(c, batch_, d.m, symmetric_block_rows(d.m));
  }
  const uint16_t* round(const float* v, size_t n, std::vector<uint16_t>& out) const {
    out.resize(n * static_cast<size_t>(batch_));
    convert(v, DType::f32, out.data(), DType::bf16, out.size());
    return out.data();
  }
  const float* rounded(const float* v, size_t n, std::vector<float>& out) const {
    out.resize(n * static_cast<size_t>(batch_));
    round_to_bf16(v, out.data(), out.size());
    return out.data();
  }
  Gemm& g_;
  bool bf16_, native_;
  int64_t batch_;
  std::vector<uint16_t> xb_, ab_, bb_;
  std::vector<float> a32_, b32_;
};

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

void muon_orthogonalize(Gemm& g, float* x, int64_t rows, int64_t cols, MuonCoefficients kind, int steps, DType dtype,
                        NewtonSchulzGram gram_products) {
  muon_orthogonalize_batched(g, x, 1, rows, cols, kind, steps, dtype, gram_products);
}

namespace {

// dst = src over n elements, on the threads (the iteration's copies are memory-bound passes over every matrix).
void parallel_copy(const float* src, float* dst, size_t n) {
  const auto len = static_cast<int64_t>(n);
#pragma omp parallel for schedule(static) if (len > kThreadFrom)
  for (int64_t i = 0; i < len; i++) dst[i] = src[i];
}

// y += alpha x over n elements, on the threads.
void add_scaled(float* y, float alpha, const float* x, size_t n) {
  const auto len = static_cast<int64_t>(n);
#pragma omp parallel for schedule(static) if (len > kThreadFrom)
  for (int64_t i = 0; i < len; i++) y[i] += alpha * x[i];
}

// B[i][i] += a on the diagonal of every side x side matrix of the batch.
void add_to_diagonal(float* m, int64_t batch, int64_t side, float a) {
  for (int64_t i = 0; i < batch; i++)
    for (int64_t r = 0; r < side; r++) m[(i * side + r) * side + r] += a;
}

// FLOPs of one side x side symmetric product over an inner dimension k, by kSymmetric's block-rows.
double symmetric_flops(int64_t side, int64_t k) {
  double flops = 0;
  for_each_block_row(side, [&](int64_t r0, int64_t rows) {
    flops += 2.0 * static_cast<double>(rows * (side - r0)) * static_cast<double>(k);
  });
  return flops;
}

// The polynomial iteration restarts from X every this many steps (X = Q X_0, then a fresh Gram matrix): within a
// segment Q's eigenvalues grow to the product of its steps' a for a singular value near 0 (at most 8.2 x 4.0 x 3.9 =
// 128 with Polar Express, 41 classic), and Q's rounding error with them, on every direction of X_0 including its
// largest. Measured in Python (fp32 against fp64, 5 Polar Express steps, a rank-1 384 x 1536 input plus noise): the
// plain iteration 2.5e-4 of the largest element, segments of 3 + 2 steps 7.3e-4, one segment of 5 steps 2.6e-3.
constexpr int kPolynomialSegment = 3;

// kAuto's choice for a batch of matrices whose Gram side is s and other side l: the polynomial iteration where it
// counts fewer FLOPs (fp32 only), else the plain iteration with symmetric products. Per matrix, the plain iteration
// costs per step a symmetric s x s x l Gram, a symmetric s x s x s square and an s x s x l update; each segment of
// the polynomial one costs a Gram, 4 steps - 3 symmetric s x s x s products and one s x s x l product at its end.
NewtonSchulzGram resolve_products(NewtonSchulzGram mode, DType dtype, int64_t s, int64_t l, int steps) {
  if (mode != NewtonSchulzGram::kAuto) return mode;
  if (dtype != DType::f32 || steps < 1) return NewtonSchulzGram::kSymmetric;
  const double update = 2.0 * static_cast<double>(s * s) * static_cast<double>(l);
  const double plain = steps * (symmetric_flops(s, l) + symmetric_flops(s, s) + update);
  double polynomial = 0;
  for (int first = 0; first < steps; first += kPolynomialSegment) {
    const int len = std::min(kPolynomialSegment, steps - first);
    polynomial += symmetric_flops(s, l) + (4.0 * len - 3.0) * symmetric_flops(s, s) + update;
  }
  return polynomial < plain ? NewtonSchulzGram::kPolynomial : NewtonSchulzGram::kSymmetric;
}

// One batch's shapes: X is rows x cols; the Gram matrix is s x s (s = the smaller side).
struct IterationShape {
  int64_t batch, rows, cols, s;
  bool wide;
  size_t nx, ns, nb;
  bool symmetric;
  GemmDims gram, square, update;
};

IterationShape iteration_shape(int64_t batch, int64_t rows, int64_t cols, bool symmetric) {
  IterationShape sh;
  sh.batch = batch, sh.rows = rows, sh.cols = cols;
  // Work on the wide orientation: for a tall X, X^T X is the small Gram matrix and the update multiplies on the right.
  sh.wide = rows <= cols;
  sh.s = sh.wide ? rows : cols;
  sh.nx = static_cast<size_t>(rows * cols), sh.ns = static_cast<size_t>(sh.s * sh.s);
  sh.nb = static_cast<size_t>(batch);
  sh.symmetric = symmetric;
  const int64_t s = sh.s;
  sh.gram = sh.wide ? GemmDims{false, true, s, s, cols, cols, cols, s}   // A = X X^T
                    : GemmDims{true, false, s, s, rows, cols, cols, s};  // A = X^T X
  sh.square = GemmDims{false, false, s, s, s, s, s, s};
  sh.update = sh.wide ? GemmDims{false, false, rows, cols, rows, s, cols, cols}   // B X
                      : GemmDims{false, false, rows, cols, cols, cols, s, cols};  // X B
  return sh;
}

// The plain iteration (kSymmetric, kFull): X <- a X + (b A + c A^2) X with A = X X^T, or X (b A + c A^2) when tall.
void plain_iteration(BatchedProducts& p, float* x, const IterationShape& sh, MuonCoefficients kind, int steps,
                     NewtonSchulzScratch& w) {
  const size_t nx = sh.nx, ns = sh.ns;
  float* const A = w.a.data();
  float* const B = w.b.data();
  // X and the next X alternate between the caller's buffer and Y; the result ends in the caller's.
  float* cur = x;
  float* next = w.y.data();
  for (int it = 0; it < steps; it++) {
    const auto [a, b, c] = muon_coefficients(kind, it);
    // X enters every product of the iteration, and the a X term, rounded to bf16 once (as under bf16 autocast).
    p.round_x(cur, nx);
    p.mm(sh.gram, 1.0f, cur, nx, true, cur, nx, true, 0.0f, A, ns, sh.symmetric);
    // B = b A + c A^2 (A is symmetric, so is A^2)
    p.mm(sh.square, static_cast<float>(c), A, ns, false, A, ns, false, 0.0f, B, ns, sh.symmetric);
    add_scaled(B, static_cast<float>(b), A, ns * sh.nb);
    // next = a X + B X (wide) or a X + X B (tall)
    parallel_copy(cur, next, nx * sh.nb);
    if (sh.wide) {
      p.mm(sh.update, 1.0f, B, ns, false, cur, nx, true, static_cast<float>(a), next, nx);
    } else {
      p.mm(sh.update, 1.0f, cur, nx, true, B, ns, false, static_cast<float>(a), next, nx);
    }
    std::swap(cur, next);
  }
  if (cur != x) parallel_copy(cur, x, nx * sh.nb);
}

// One segment of kPolynomial (fp32), steps first .. first + len - 1, in place on X: X_k = Q_k X_0 (X_0 Q_k when
// tall) with Q_k a polynomial in A_0, the Gram matrix of X_0, so that A_k = Q_k A_0 Q_k. Polynomials in one symmetric
// matrix are symmetric and commute, so every product below is s x s and symmetric: P = a I + b A + c A^2, Q <- P Q,
// A <- P^2 A; then X = Q X_0 once.
void polynomial_segment(BatchedProducts& p, float* x, const IterationShape& sh, MuonCoefficients kind, int first,
                        int len, NewtonSchulzScratch& w) {
  const size_t nx = sh.nx, ns = sh.ns;
  float* A = w.a.data();
  float* B = w.b.data();
  float* Q = w.q.data();
  float* T = w.t.data();
  p.mm(sh.gram, 1.0f, x, nx, true, x, nx, true, 0.0f, A, ns, true);
  for (int j = 0; j < len; j++) {
    const auto [a, b, c] = muon_coefficients(kind, first + j);
    p.mm(sh.square, static_cast<float>(c), A, ns, false, A, ns, false, 0.0f, B, ns, true);
    add_scaled(B, static_cast<float>(b), A, ns * sh.nb);
    add_to_diagonal(B, sh.batch, sh.s, static_cast<float>(a));  // B = P
    if (j == 0) {
      parallel_copy(B, Q, ns * sh.nb);
    } else {
      p.mm(sh.square, 1.0f, B, ns, false, Q, ns, false, 0.0f, T, ns, true);
      std::swap(Q, T);
    }
    if (j + 1 < len) {
      p.mm(sh.square, 1.0f, B, ns, false, B, ns, false, 0.0f, T, ns, true);  // P^2
      p.mm(sh.square, 1.0f, T, ns, false, A, ns, false, 0.0f, B, ns, true);  // the next A
      std::swap(A, B);
    }
  }
  float* const y = w.y.data();
  if (sh.wide) {
    p.mm(sh.update, 1.0f, Q, ns, false, x, nx, true, 0.0f, y, nx);
  } else {
    p.mm(sh.update, 1.0f, x, nx, true, Q, ns, false, 0.0f, y, nx);
  }
  parallel_copy(y, x, nx * sh.nb);
}

// kPolynomial: its segments of kPolynomialSegment steps, each restarting from the X the last one left.
void polynomial_iteration(BatchedProducts& p, float* x, const IterationShape& sh, MuonCoefficients kind, int steps,
                          NewtonSchulzScratch& w) {
  w.q.resize(sh.ns * sh.nb);
  w.t.resize(sh.ns * sh.nb);
  for (int first = 0; first < steps; first += kPolynomialSegment)
    polynomial_segment(p, x, sh, kind, first, std::min(kPolynomialSegment, steps - first), w);
}

}  // namespace

void muon_orthogonalize_batched(Gemm& g, float* x, int64_t batch, int64_t rows, int64_t cols, MuonCoefficients kind,
                                int steps, DType dtype, NewtonSchulzGram gram_products, NewtonSchulzScratch* scratch) {
  check(dtype == DType::f32 || dtype == DType::bf16, "muon_orthogonalize: dtype must be f32 or bf16");
  check(batch >= 1 && rows >= 1 && cols >= 1, "muon_orthogonalize: empty batch or matrix");
  const NewtonSchulzGram mode =
      resolve_products(gram_products, dtype, std::min(rows, cols), std::max(rows, cols), steps);
  check(mode != NewtonSchulzGram::kPolynomial || (dtype == DType::f32 && steps >= 1),
        "muon_orthogonalize: the polynomial iteration is fp32 only, of at least one step (its Q grows to hundreds and "
        "bf16 rounding of it "
        "would swamp the result)");
  const IterationShape sh = iteration_shape(batch, rows, cols, mode != NewtonSchulzGram::kFull);
  NewtonSchulzScratch own;
  NewtonSchulzScratch& w = scratch != nullptr ? *scratch : own;
  w.a.resize(sh.ns * sh.nb);
  w.b.resize(sh.ns * sh.nb);
  w.y.resize(sh.nx * sh.nb);
  BatchedProducts p(g, dtype, batch);
  if (mode == NewtonSchulzGram::kPolynomial) {
    polynomial_iteration(p, x, sh, kind, steps, w);
  } else {
    plain_iteration(p, x, sh, kind, steps, w);
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
  by_shape_ = stacks(true);
  one_each_ = stacks(false);
}

namespace {

// 1-2. Momentum (Nesterov) into buf, the update direction u into x, normalised: x = u / (norm_scale ||u|| + eps).
// Each pass is a loop the compiler vectorises; the norm's sum is lane_dot's fixed order, in fp64.
void momentum_and_normalize(const MuonOptions& o, const float* g, float* buf, float* x, int64_t n) {
  const float keep = 1.0f - o.momentum;
  for (int64_t j = 0; j < n; j++) {
    const float gj = g ? g[j] : 0.0f;
    buf[j] += keep * (gj - buf[j]);
    x[j] = o.nesterov ? gj + o.momentum * (buf[j] - gj) : buf[j];
  }
  const double sumsq = lane_dot<double>(x, x, n);
  const float inv = 1.0f / (o.norm_scale * static_cast<float>(std::sqrt(sumsq)) + o.norm_eps);
  for (int64_t j = 0; j < n; j++) x[j] *= inv;
}

// The mean square of each row of x (rows >= cols) or of each column, in fp64.
std::vector<double> mean_squares(const float* x, int64_t rows, int64_t cols, bool per_row) {
  std::vector<double> mean(static_cast<size_t>(per_row ? rows : cols), 0.0);
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * cols;
    if (per_row) {
      mean[static_cast<size_t>(r)] = lane_dot<double>(xr, xr, cols) / static_cast<double>(cols);
    } else {
      for (int64_t c = 0; c < cols; c++) mean[static_cast<size_t>(c)] += static_cast<double>(xr[c]) * xr[c];
    }
  }
  if (!per_row)
    for (double& m : mean) m /= static_cast<double>(rows);
  return mean;
}

// 4. NorMuon: x divided by the running RMS of its rows (rows >= cols) or columns, rescaled to keep ||x||_F.
void normuon(const MuonOptions& o, float* x, float* s, int64_t rows, int64_t cols) {
  const bool per_row = rows >= cols;
  const int64_t n = rows * cols;
  const double before = lane_dot<double>(x, x, n);
  const std::vector<double> mean = mean_squares(x, rows, cols, per_row);
  std::vector<float> rms(mean.size());
  for (size_t k = 0; k < mean.size(); k++) {
    s[k] += (1.0f - o.normuon_beta2) * (static_cast<float>(mean[k]) - s[k]);
    rms[k] = std::sqrt(std::max(s[k], 1e-10f));
  }
  for (int64_t r = 0; r < rows; r++) {
    float* xr = x + r * cols;
    if (per_row) {
      for (int64_t c = 0; c < cols; c++) xr[c] /= rms[static_cast<size_t>(r)];
    } else {
      for (int64_t c = 0; c < cols; c++) xr[c] /= rms[static_cast<size_t>(c)];
    }
  }
  const double after = lane_dot<double>(x, x, n);
  const float keep = after > 0.0 ? static_cast<float>(std::sqrt(before / after)) : 0.0f;
  for (int64_t j = 0; j < n; j++) x[j] *= keep;
}

// 5. Cautious weight decay and the update: p -= eta x + eta wd p [x p >= 0]. The condition picks a factor, not a
// branch of arithmetic, so the loop vectorises.
void apply_update(const MuonOptions& o, const float* x, float* p, int64_t rows, int64_t cols) {
  const float eta = o.lr * std::sqrt(std::max(1.0f, static_cast<float>(rows) / static_cast<float>(cols)));
  const float eta_wd = eta * o.weight_decay;
  const int64_t n = rows * cols;
#pragma omp parallel for if (n > kThreadFrom) schedule(static)
  for (int64_t j = 0; j < n; j++) {
    const float wd = x[j] * p[j] >= 0.0f ? eta_wd : 0.0f;
    p[j] -= eta * x[j] + wd * p[j];
  }
}

}  // namespace

void Muon::step() {
  const MuonOptions o = options_;
  check(o.ns_steps >= 0, "Muon: ns_steps must be >= 0");
  for (const std::vector<size_t>& members : o.stack_same_shapes ? by_shape_ : one_each_) {
    const int64_t rows = params_[members[0]]->size(0), cols = params_[members[0]]->size(1);
    const int64_t n = rows * cols;
    std::vector<float>& x = directions_;
    x.resize(static_cast<size_t>(n) * members.size());
    const auto count = static_cast<int64_t>(members.size());
    // The element-wise passes: one matrix per thread (each matrix's arithmetic is the same on any thread count).
#pragma omp parallel for if (count > 1) schedule(static)
    for (int64_t k = 0; k < count; k++) {
      Tensor& p = *params_[members[static_cast<size_t>(k)]];
      const Tensor& grad = p.grad();
      momentum_and_normalize(o, grad.defined() ? grad.data<float>() : nullptr,
                             momentum_[members[static_cast<size_t>(k)]].data<float>(), x.data() + k * n, n);
    }
    muon_orthogonalize_batched(gemm_, x.data(), count, rows, cols, o.coefficients, o.ns_steps, o.ns_dtype,
                               NewtonSchulzGram::kAuto, &ns_scratch_);
#pragma omp parallel for if (count > 1) schedule(static)
    for (int64_t k = 0; k < count; k++) {
      float* xk = x.data() + k * n;
      if (o.normuon) normuon(o, xk, second_moment_[members[static_cast<size_t>(k)]].data<float>(), rows, cols);
      apply_update(o, xk, params_[members[static_cast<size_t>(k)]]->data<float>(), rows, cols);
    }
  }
}

std::vector<std::vector<size_t>> Muon::stacks(bool by_shape) const {
  std::vector<std::vector<size_t>> out;
  std::map<std::pair<int64_t, int64_t>, size_t> slot;  // shape -> index into out
  for (size_t i = 0; i < params_.size(); i++) {
    const std::pair<int64_t, int64_t> shape{params_[i]->size(0), params_[i]->size(1)};
    if (!by_shape || !slot.count(shape)) {
      slot[shape] = out.size();
      out.emplace_back();
    }
    out[slot[shape]].push_back(i);
  }
  return out;
}

void Muon::zero_grad() {
  for (Tensor* p : params_) p->zero_grad();
}

}  // namespace nanotrn
