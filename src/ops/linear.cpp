// Matmul and linear: operand layout handling, batching, bf16 mode, and the backward GEMMs. See linear.h.
#include "ops/linear.h"

#include "dtype/convert.h"
#include "ops/op_util.h"
#include "ops/shape_ops.h"

namespace nanotrn::ops {

using detail::recording;

namespace {

// A GEMM operand: a (batch of) stored matrices and whether the product reads it transposed.
struct Operand {
  Tensor t;                    // keeps the memory alive; f32 or bf16
  int64_t rows = 0, cols = 0;  // stored matrix dims
  int64_t ld = 0;
  int64_t batch = 1, batch_stride = 0;
  bool trans = false;
  int64_t op_rows() const { return trans ? cols : rows; }
  int64_t op_cols() const { return trans ? rows : cols; }
};

// True if the batch dimensions (all but the last two) can be walked with one stride.
bool batch_collapsible(const Tensor& t, int64_t* stride) {
  const int64_t nb = t.dim() - 2;
  *stride = 0;
  int64_t expected = -1;
  for (int64_t d = nb - 1; d >= 0; d--) {
    if (t.shape()[d] == 1) continue;
    if (expected >= 0 && t.strides()[d] != expected) return false;
    if (expected < 0) *stride = t.strides()[d];
    expected = t.strides()[d] * t.shape()[d];
  }
  return true;
}

// The tensor a product in `dtype` reads: f32 as it is; for bf16, the bf16 bits when the GEMM has a native bf16 kernel,
// else f32 values rounded to bf16 (one pass: the emulation multiplies in f32 anyway, so the 16-bit copy and its
// widening inside the GEMM are skipped; the same operands and the same f32 GEMM as before, bit for bit).
Tensor gemm_input(const Tensor& x, DType dtype, const Gemm& g) {
  if (dtype == DType::f32) return x;
  if (g.bf16_support().path == Bf16Path::kNative) return x.to(dtype);  // a contiguous copy
  const Tensor src = x.contiguous();
  Tensor out = Tensor::empty(x.shape(), DType::f32, x.allocator());
  round_to_bf16(src.data<float>(), out.data<float>(), static_cast<size_t>(out.numel()));
  return out;
}

Operand make_operand(const Tensor& in, bool trans, DType dtype, const Gemm& g) {
  Tensor t = gemm_input(in, dtype, g);
  const int64_t r = t.size(-2), c = t.size(-1);
  const int64_t s0 = t.strides()[t.dim() - 2], s1 = t.strides()[t.dim() - 1];
  Operand op;
  op.rows = r;
  op.cols = c;
  op.trans = trans;
  int64_t bstride = 0;
  const bool batch_ok = batch_collapsible(t, &bstride);
  if (batch_ok && (s1 == 1 || c == 1) && s0 >= std::max<int64_t>(1, c)) {
    op.ld = s0;
  } else if (batch_ok && (s0 == 1 || r == 1) && s1 >= std::max<int64_t>(1, r) && r > 1 && c > 1) {
    // Column-major storage: read it as the transposed row-major matrix.
    op.rows = c;
    op.cols = r;
    op.ld = s1;
    op.trans = !trans;
  } else {
    t = t.contiguous();
    op.ld = std::max<int64_t>(1, c);
    batch_collapsible(t, &bstride);
  }
  op.t = t;
  op.batch = shape_numel(Shape(t.shape().begin(), t.shape().end() - 2));
  op.batch_stride = op.batch > 1 ? bstride : 0;
  return op;
}

const void* ptr(const Operand& o) { return o.t.raw_data(); }

// C_i (+)= op(A_i) op(B_i) for i < batch; a.batch or b.batch may be 1 (broadcast). C is contiguous [batch, m, n].
void run_gemm(Ctx& ctx, const Operand& a, const Operand& b, float* c, int64_t batch, float beta) {
  const int64_t n = b.op_cols();
  const GemmDims d{a.trans, b.trans, a.op_rows(), n, a.op_cols(), a.ld, b.ld, std::max<int64_t>(1, n)};
  const int64_t sa = a.batch > 1 ? a.batch_stride : 0, sb = b.batch > 1 ? b.batch_stride : 0;
  Gemm& g = ctx.engine.gemm();
  const bool bf16 = a.t.dtype() == DType::bf16;
  // A shared B and a row-major A whose batch entries are stacked rows: one tall GEMM.
  if (batch > 1 && sb == 0 && !a.trans && a.batch_stride == a.rows * a.ld) {
    GemmDims tall = d;
    tall.m = d.m * batch;
    if (bf16) {
      g.bf16(tall, 1.0f, static_cast<const uint16_t*>(ptr(a)), static_cast<const uint16_t*>(ptr(b)), beta, c);
    } else {
      g.f32(tall, 1.0f, static_cast<const float*>(ptr(a)), static_cast<const float*>(ptr(b)), beta, c);
    }
    return;
  }
  if (bf16) {
    g.bf16_batched(d, batch, sa, sb, d.m * d.n, 1.0f, static_cast<const uint16_t*>(ptr(a)),
                   static_cast<const uint16_t*>(ptr(b)), beta, c);
  } else {
    g.f32_batched(d, batch, sa, sb, d.m * d.n, 1.0f, static_cast<const float*>(ptr(a)),
                  static_cast<const float*>(ptr(b)), beta, c);
  }
}

// Sum over the batch of op(A_i) op(B_i) into one matrix C (the gradient of a shared operand).
void run_gemm_reduce_batch(Ctx& ctx, const Operand& a, const Operand& b, float* c, int64_t batch) {
  // Stacked rows on the contraction side: one GEMM with k * batch.
  if (a.trans && !b.trans && a.batch_stride == a.rows * a.ld && b.batch_stride == b.rows * b.ld) {
    Operand a2 = a, b2 = b;
    a2.rows *= batch;
    b2.rows *= batch;
    a2.batch = b2.batch = 1;
    run_gemm(ctx, a2, b2, c, 1, 0.0f);
    return;
  }
  for (int64_t i = 0; i < batch; i++) {
    Operand ai = a, bi = b;
    ai.t = Tensor(a.t.storage(), a.t.allocator(), a.t.offset() + (a.batch > 1 ? i * a.batch_stride : 0),
                  {ai.rows, ai.cols}, {ai.ld, 1}, a.t.dtype());
    bi.t = Tensor(b.t.storage(), b.t.allocator(), b.t.offset() + (b.batch > 1 ? i * b.batch_stride : 0),
                  {bi.rows, bi.cols}, {bi.ld, 1}, b.t.dtype());
    ai.batch = bi.batch = 1;
    run_gemm(ctx, ai, bi, c, 1, i == 0 ? 0.0f : 1.0f);
  }
}

Shape batch_shape(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

}  // namespace

Tensor matmul(Ctx& ctx, const Tensor& a, const Tensor& b, bool trans_a, bool trans_b) {
  detail::require_f32(a, "matmul", "a");
  detail::require_f32(b, "matmul", "b");
  check(a.dim() >= 2 && b.dim() >= 2,
        "matmul: operands need at least 2 dimensions, got " + shape_str(a.shape()) + " and " + shape_str(b.shape()));
  const Shape ba = batch_shape(a), bb = batch_shape(b);
  check(bb.empty() || ba == bb, "matmul: batch dimensions " + shape_str(ba) + " and " + shape_str(bb) +
                                    " differ (b must have a's batch dimensions or none)");
  const DType dt = ctx.matmul_dtype;
  check(dt == DType::f32 || dt == DType::bf16, "matmul: ctx.matmul_dtype must be f32 or bf16");
  Operand oa = make_operand(a, trans_a, dt, ctx.engine.gemm()), ob = make_operand(b, trans_b, dt, ctx.engine.gemm());
  const int64_t m = oa.op_rows(), k = oa.op_cols(), n = ob.op_cols();
  check(ob.op_rows() == k, "matmul: inner dimensions differ: " + shape_str(a.shape()) + (trans_a ? "^T" : "") + " x " +
                               shape_str(b.shape()) + (trans_b ? "^T" : ""));
  Shape out_shape = ba;
  out_shape.push_back(m);
  out_shape.push_back(n);
  Tensor out = ctx.empty(out_shape);
  const int64_t batch = shape_numel(ba);
  run_gemm(ctx, oa, ob, out.data<float>(), batch, 0.0f);

  if (!recording(ctx, {a, b})) return out;
  const bool ga = a.requires_grad(), gb = b.requires_grad();
  const Shape shape_a = a.shape(), shape_b = b.shape();
  Engine* engine = &ctx.engine;
  ctx.tape->record("matmul", {a, b}, {&out}, [=](const std::vector<Tensor>& go, std::vector<Tensor>& gi) {
    Ctx bc{*engine};
    bc.matmul_dtype = dt;
    Tensor g = go[0].contiguous();
    Operand dc = make_operand(g, false, dt, engine->gemm());
    // Logical: C = op(A) op(B). Stored gradients follow the stored layouts of A and B.
    if (ga) {
      // op(A) = A:  dA = dC op(B)^T.   op(A) = A^T: dA = op(B) dC^T.
      Tensor da = Tensor::empty(shape_a, DType::f32, engine->allocator());
      Operand bt = ob;
      if (!trans_a) {
        bt.trans = !ob.trans;
        run_gemm(bc, dc, bt, da.data<float>(), batch, 0.0f);
      } else {
        Operand dct = dc;
        dct.trans = true;
        run_gemm(bc, bt, dct, da.data<float>(), batch, 0.0f);
      }
      gi[0] = da;
    }
    if (gb) {
      // op(B) = B: dB = op(A)^T dC.   op(B) = B^T: dB = dC^T op(A).
      Tensor db = Tensor::empty(shape_b, DType::f32, engine->allocator());
      Operand at = oa, dct = dc;
      const bool shared_b = bb.empty() && batch > 1;
      if (!trans_b) {
        at.trans = !oa.trans;
        if (shared_b) {
          run_gemm_reduce_batch(bc, at, dc, db.data<float>(), batch);
        } else {
          run_gemm(bc, at, dc, db.data<float>(), batch, 0.0f);
        }
      } else {
        dct.trans = true;
        if (shared_b) {
          run_gemm_reduce_batch(bc, dct, oa, db.data<float>(), batch);
        } else {
          run_gemm(bc, dct, oa, db.data<float>(), batch, 0.0f);
        }
      }
      gi[1] = db;
    }
  });
  return out;
}

Tensor linear(Ctx& ctx, const Tensor& x, const Tensor& w) {
  detail::require_f32(x, "linear", "x");
  detail::require_f32(w, "linear", "w");
  check(w.dim() == 2, "linear: weight must be [out, in], got " + shape_str(w.shape()));
  check(x.dim() >= 1 && x.size(-1) == w.size(1), "linear: input " + shape_str(x.shape()) + " does not match weight " +
                                                     shape_str(w.shape()) + " (last dimension must be in)");
  if (x.dim() == 1) return reshape(ctx, matmul(ctx, reshape(ctx, x, {1, x.size(0)}), w, false, true), {w.size(0)});
  // x [..., in] against a shared w: the GEMM layer folds the leading dimensions into one tall product.
  return matmul(ctx, x, w, false, true);
}

}  // namespace nanotrn::ops
