// Muon: momentum, then an approximate orthogonalisation of the update by an odd quintic Newton-Schulz iteration, for
// 2-D hidden matrices (recipe-spec §3.1). Options cover the baseline's variants: classic Newton-Schulz or
// Polar-Express coefficients, Nesterov momentum, NorMuon variance normalisation, cautious weight decay and the shape
// learning-rate multiplier sqrt(max(1, rows / cols)).
//
//   Muon muon(engine.gemm(), {&c_q, &c_fc, ...}, {.lr = 0.02f, .momentum = 0.95f});
//   ... tape.backward(loss); muon.step(); muon.zero_grad();
//   muon.options().momentum = schedule(step);      // warm-up / schedules are the trainer's business
//
// Per parameter p (rows x cols = out x in) with gradient g, each step:
//   buf = lerp(buf, g, 1 - mu);  u = nesterov ? lerp(g, buf, mu) : buf
//   X = u / (norm_scale * ||u||_F + norm_eps)
//   repeat ns_steps: wide (rows <= cols): A = X X^T, X = a X + (b A + c A^2) X;
//                    tall: A = X^T X, X = a X + X (b A + c A^2)   (computed as NewtonSchulzGram below says)
//   NorMuon: v = mean(X^2) along the longer side (per row if rows >= cols, else per column);
//            s = lerp(s, v, 1 - beta2);  X = X / sqrt(max(s, 1e-10)), rescaled to keep ||X||_F
//   eta = lr * sqrt(max(1, rows / cols));  p -= eta * X + eta * wd * p * [X * p >= 0]   (cautious weight decay)
// State in fp32; the GEMMs on the engine's backend, in fp32 or bf16 (ns_dtype), the matrices of one shape stacked into
// one batched call per product (per block-row for the symmetric products, NewtonSchulzGram). Not here: distributed
// sharding (train/optimizers.h hands each rank its matrices).
#pragma once

#include <array>
#include <vector>

#include "gemm/gemm.h"
#include "optim/muon_coefficients.h"
#include "tensor/tensor.h"

namespace nanotrn {

struct MuonOptions {
  float lr = 0.02f;
  float momentum = 0.95f;
  bool nesterov = true;
  int ns_steps = 5;
  MuonCoefficients coefficients = MuonCoefficients::polar_express;
  float norm_scale = 1.02f;  // denominator factor on ||u||_F (classic Muon used 1 and eps 1e-7)
  float norm_eps = 1e-6f;    // muon_norm_eps(coefficients) is the spec's value for each form
  bool normuon = true;
  float normuon_beta2 = 0.95f;
  float weight_decay = 0.0f;  // cautious: only where update and weight agree in sign
  // Precision of the Newton-Schulz products: f32, or bf16 inputs with fp32 accumulation (autoresearch runs the
  // orthogonalisation in bf16; twice the GEMM throughput on bf16-capable CPUs).
  DType ns_dtype = DType::f32;
  // Orthogonalise the matrices of one shape together, one batched GEMM per product. Each matrix's result can differ
  // from the one-at-a-time call in the last bits (the library splits a batch over threads differently), so a run that
  // must be bit-identical across rank counts (train.deterministic: a ZeRO-1 rank stacks only the matrices it owns)
  // turns it off.
  bool stack_same_shapes = true;
};

// The epsilon of the normalisation X = u / (norm_scale ||u||_F + eps) (recipe-spec §3.1): 1e-7 for classic
// Newton-Schulz (nanochat before 2026-01, modded-nanogpt), 1e-6 for the Polar-Express form. With small gradients the
// two give visibly different updates (||u|| ~ 1e-7 changes X by ~40%), so the trainer takes it from here.
constexpr float muon_norm_eps(MuonCoefficients kind) { return kind == MuonCoefficients::classic ? 1e-7f : 1e-6f; }

// (a, b, c) of iteration `step` (0-based). Classic: (3.4445, -4.7750, 2.0315) every step. Polar Express: the 5-step
// table of recipe-spec §9.4 (safety 2e-2, cushion 2); steps past 5 reuse the last row.
std::array<double, 3> muon_coefficients(MuonCoefficients kind, int step);
// The scalar map the iteration applies to each singular value: sigma -> a sigma + b sigma^3 + c sigma^5, `steps` times.
double muon_singular_value_map(double sigma, MuonCoefficients kind, int steps);
// How the iteration computes its products. All four compute the same function in exact arithmetic.
//   kAuto       kPolynomial where it counts fewer FLOPs than kSymmetric (fp32, and a Gram side well below the other:
//               the MLP matrices, 4:1), else kSymmetric. The default.
//   kPolynomial fp32 only: X_k = Q_k X_0 with Q_k a polynomial in A_0 = X_0 X_0^T (X_0 Q_k and X_0^T X_0 when tall),
//               so every product of an iteration is a symmetric side x side one (P = a I + b A + c A^2, Q <- P Q,
//               A <- P^2 A) and X_0 is multiplied once per segment of 3 steps, after which it restarts from the new X.
//               On a 512 x 2048 matrix 5 steps cost 0.60 of kSymmetric's FLOPs. Within a segment Q's eigenvalues grow
//               to the product of its steps' a (up to 128) for a singular value near 0, and its rounding with them:
//               against fp64, its fp32 error is the plain iteration's on rectangular full-rank inputs and up to 12x it
//               where the spectrum reaches 0 (rank 1), a thousandth of the bf16 iteration's
//               (MuonPolynomial tests). In bf16 that growth would swamp the result, hence fp32 only.
//   kSymmetric  the plain iteration (A = X X^T, B = b A + c A^2, X <- a X + B X), its two symmetric products by
//               block-rows of about an eighth of the side (at least 32 rows): each block-row multiplied from the
//               diagonal on (a GEMM over the batch per block-row), the rest mirrored; eight block-rows cost 9/16 of the
//               full product, so an iteration on a square matrix costs 0.71 of kFull's FLOPs (a 384 x 1536 one 0.76).
//               Equal to kFull to fp32 rounding (the GEMMs sum the same products in their own order).
//   kFull       every product one full GEMM: the plain algorithm, the peer of bench/muon_bench.cpp.
enum class NewtonSchulzGram { kAuto, kPolynomial, kSymmetric, kFull };

// The iteration's scratch (A, B and the next X of every matrix in the batch; Q and a product for kPolynomial), for a
// caller that orthogonalises every step: kept between calls, its buffers are allocated once instead of faulting in
// fresh pages each step.
struct NewtonSchulzScratch {
  std::vector<float> a, b, y, q, t;
};

// Runs the quintic iteration in place on X (rows x cols, row-major, contiguous): fp32 GEMMs, or with `dtype` bf16
// every product's operands rounded to bf16 (fp32 accumulation, X kept in fp32 between iterations).
void muon_orthogonalize(Gemm& gemm, float* x, int64_t rows, int64_t cols, MuonCoefficients kind, int steps,
                        DType dtype = DType::f32, NewtonSchulzGram gram_products = NewtonSchulzGram::kAuto);
// The same on `batch` matrices of rows x cols stored back to back in x: one batched GEMM per product for all of them
// (modded-nanogpt stacks same-shape matrices the same way). muon_orthogonalize is this with batch 1.
// `scratch`: the caller's (kept between calls), or none (allocated for this call).
void muon_orthogonalize_batched(Gemm& gemm, float* x, int64_t batch, int64_t rows, int64_t cols, MuonCoefficients kind,
                                int steps, DType dtype = DType::f32,
                                NewtonSchulzGram gram_products = NewtonSchulzGram::kAuto,
                                NewtonSchulzScratch* scratch = nullptr);

class Muon {
 public:
  Muon(Gemm& gemm, std::vector<Tensor*> params, MuonOptions options);
  void step();
  void zero_grad();
  MuonOptions& options() { return options_; }
  // The optimiser state (for checkpoints): momentum buffers and NorMuon second moments, one per parameter.
  const std::vector<Tensor>& momentum_buffers() const { return momentum_; }
  const std::vector<Tensor>& second_moments() const { return second_moment_; }

 private:
  // The parameter indices orthogonalised together: one stack per shape (by_shape), else one per parameter.
  std::vector<std::vector<size_t>> stacks(bool by_shape) const;
  Gemm& gemm_;
  std::vector<std::vector<size_t>> by_shape_, one_each_;  // stacks(true), stacks(false): fixed by the parameters
  std::vector<Tensor*> params_;
  std::vector<Tensor> momentum_, second_moment_;
  MuonOptions options_;
  // Scratch kept between steps (a step's buffers are the same sizes every step): the update directions of one stack,
  // and the Newton-Schulz iteration's.
  std::vector<float> directions_;
  NewtonSchulzScratch ns_scratch_;
};

}  // namespace nanotrn
