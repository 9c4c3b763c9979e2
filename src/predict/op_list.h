// Internal to the lowering (lowering.cpp, micro_batch_lowering.cpp): the list of kernel invocations a step is
// lowered to, built op by op. Each call appends one KernelOp with its work (a registry tile kernel and its typed
// shape, roofline work, or a collective), its FLOPs and bytes, its op class and its stage (ops of one stage may
// overlap; stage() starts the next).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "neuron/kernels/attention_mask.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/shapes.h"
#include "predict/lowering.h"

namespace nanotrn::predict::detail {

// The shipped tile kernels the lowering hands to the timing side (neuron/registry/builtin_kernels.h).
inline const neuron::KernelEntry& tile_kernel(const char* name) { return neuron::builtin_kernels().at(name); }

inline neuron::AttentionVariant mask_of(int64_t T, int64_t window) {
  return window < T ? neuron::AttentionVariant{neuron::AttentionMask::sliding_window, window}
                    : neuron::AttentionVariant{};
}

class OpList {
 public:
  OpList(Pass pass, double elem_bytes) : pass_(pass), e_(elem_bytes) {}

  void stage() { stage_++; }
  void set_pass(Pass p) { pass_ = p; }

  void matmul(const std::string& name, const std::string& group, int64_t m, int64_t k, int64_t n, int64_t count = 1) {
    const double fm = static_cast<double>(m), fk = static_cast<double>(k), fn = static_cast<double>(n);
    // Inputs in the activation dtype, the output written once in fp32 (the tile kernel's PSUM -> HBM store).
    add(name, group, TileCall{&tile_kernel("matmul"), neuron::MatmulShape{m, k, n}}, count, 2.0 * fm * fk * fn,
        (fm * fk + fk * fn) * e_ + fm * fn * 4);
  }
  // Forward matmul y[m,n] = x[m,k] w[k,n] and, in the backward pass, its two gradient matmuls.
  void matmul_backward(const std::string& name, const std::string& group, int64_t m, int64_t k, int64_t n,
                       int64_t count = 1) {
    matmul(name + " dX", group, m, n, k, count);
    matmul(name + " dW", group, k, m, n, count);
  }
  void softmax(const std::string& name, const std::string& group, int64_t rows, int64_t cols) {
    const double el = static_cast<double>(rows) * static_cast<double>(cols);
    add(name, group, TileCall{&tile_kernel("softmax"), neuron::RowsShape{rows, cols}}, 1, 5 * el, 2 * el * e_);
  }
  void rmsnorm(const std::string& name, const std::string& group, int64_t rows, int64_t cols) {
    const double el = static_cast<double>(rows) * static_cast<double>(cols);
    add(name, group, TileCall{&tile_kernel("rmsnorm"), neuron::RmsnormShape{rows, cols}}, 1, 4 * el, 2 * el * e_);
  }
  // Fused attention of `count` (row, head) pairs, each one head of length T with the layer's mask (causal, or a
  // sliding window shorter than T): q, k, v read, o written (activation dtype), the fp32 log-sum-exp written;
  // FLOPs of the visible query-key pairs, QK^T and PV.
  void attention(const std::string& name, const std::string& group, int64_t count, int64_t T, int64_t hd,
                 int64_t window) {
    const double th = static_cast<double>(T * hd);
    add(name, group, TileCall{&tile_kernel("attention"), attention_shape(T, hd, window)}, count,
        pair_flops(T, hd, window), 4 * th * e_ + 4.0 * static_cast<double>(T));
  }
  // Its flash backward (neuron/kernels/attention_backward.h on Trainium; FlashAttention-2 by roofline elsewhere):
  // reads q, k, v, o, dO and the log-sum-exp, writes dq, dk, dv; recomputes the scores and runs dV, dP, dQ, dK
  // (2.5x the forward FLOPs).
  void attention_backward(const std::string& name, const std::string& group, int64_t count, int64_t T, int64_t hd,
                          int64_t window) {
    const double th = static_cast<double>(T * hd);
    add(name, group, TileCall{&tile_kernel("attention_bwd"), attention_shape(T, hd, window)}, count,
        2.5 * pair_flops(T, hd, window), 8 * th * e_ + 4.0 * static_cast<double>(T));
  }
  static neuron::AttentionShape attention_shape(int64_t T, int64_t hd, int64_t window) {
    return {.seq = T, .head_dim = hd, .heads = 1, .variant = mask_of(T, window)};
  }
  // QK^T and PV of the pairs the mask leaves (neuron/kernels/attention_mask.h: the same rule the kernels use).
  static double pair_flops(int64_t T, int64_t hd, int64_t window) {
    return 4.0 * static_cast<double>(hd) * mask_of(T, window).pairs(T);
  }
  // No tile kernel: roofline from element count, tensors read and written, FLOPs per element.
  void elementwise(const std::string& name, const std::string& group, double elements, double reads, double writes,
                   double flops_per_element, double elem_bytes = 0) {
    const double eb = elem_bytes > 0 ? elem_bytes : e_;
    add(name, group, RooflineWork{}, 1, flops_per_element * elements, (reads + writes) * elements * eb);
  }

  // A collective of `bytes` per rank (tensor parallel, or the experts' all-to-all), in its own stage (on the
  // critical path: assumed).
  void collective(const std::string& name, hw::Collective kind, double bytes,
                  CollectiveGroup on = CollectiveGroup::tensor_parallel) {
    add(name, on == CollectiveGroup::tensor_parallel ? "tp collective" : "ep collective", CollectiveCall{kind, on}, 1,
        0, bytes);
    stage();
  }

  std::vector<KernelOp> take() { return std::move(ops_); }

 private:
  void add(const std::string& name, const std::string& group, OpWork work, int64_t count, double flops, double bytes) {
    KernelOp op{.name = name, .group = group, .pass = pass_, .work = std::move(work)};
    op.op_class = class_of(op);
    op.count = count;
    op.flops = flops;
    op.bytes = bytes;
    op.stage = stage_;
    ops_.push_back(std::move(op));
  }
  // The attention core's ops (the fused kernels, or the unfused chain that stands for them) are attention; other
  // tile matmuls are matmuls; collectives are collectives; the rest is vector work.
  static OpClass class_of(const KernelOp& op) {
    if (op.collective()) return OpClass::collective;
    if (op.group == "attention core") return OpClass::attention;
    if (op.tile() && op.tile()->kernel->name == "matmul") return OpClass::matmul;
    return OpClass::vector;
  }
  Pass pass_;
  double e_;
  int stage_ = 0;
  std::vector<KernelOp> ops_;
};

}  // namespace nanotrn::predict::detail
