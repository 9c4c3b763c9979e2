// The training step as kernel invocations. See lowering.h.
#include "predict/lowering.h"

#include <algorithm>
#include <map>

#include "base/error.h"
#include "neuron/kernels/attention_mask.h"
#include "neuron/registry/builtin_kernels.h"
#include "neuron/registry/shapes.h"

namespace nanotrn::predict {
namespace {

// The shipped tile kernels the lowering hands to the timing side (neuron/registry/builtin_kernels.h).
const neuron::KernelEntry& tile_kernel(const char* name) { return neuron::builtin_kernels().at(name); }

neuron::AttentionVariant mask_of(int64_t T, int64_t window) {
  return window < T ? neuron::AttentionVariant{neuron::AttentionMask::sliding_window, window}
                    : neuron::AttentionVariant{};
}

class Lower {
 public:
  Lower(Pass pass, double elem_bytes) : pass_(pass), e_(elem_bytes) {}

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

// Block matrix shapes (rows x cols of the weight, rows = output features) and how many of each, as one tensor-
// parallel rank holds them (column-parallel q/k/v/fc split their rows, row-parallel proj their columns).
// With experts, each rank holds experts / ep of them (expert parallelism) and the whole router.
std::map<std::pair<int64_t, int64_t>, int64_t> block_matrix_shapes(const model::GptConfig& c, int64_t tp = 1,
                                                                   int64_t ep = 1) {
  const TpShard sh = tp_shard(c, tp);
  const int64_t d = c.model_dim, qd = sh.heads * c.head_dim, kvd = sh.kv_heads * c.head_dim, f = sh.mlp;
  const int64_t mlps = c.experts > 0 ? expert_shard(c, ep) : 1;
  std::map<std::pair<int64_t, int64_t>, int64_t> s;
  for (int64_t i = 0; i < c.depth; i++) {
    s[{qd, d}]++;
    s[{kvd, d}] += 2;
    s[{d, qd}]++;
    s[{f, d}] += mlps * (c.activation == model::Activation::swiglu ? 2 : 1);  // fc, or gate and up
    s[{d, f}] += mlps;
    if (c.experts > 0) s[{c.experts, d}]++;  // the router
    if (model::has_value_embed(c, i)) s[{sh.kv_heads, c.ve_gate_channels}]++;
  }
  return s;
}

}  // namespace

int64_t expert_shard(const model::GptConfig& c, int64_t ep) {
  check(ep >= 1, "launch.ep must be >= 1");
  check(ep == 1 || c.experts > 0, "launch.ep " + std::to_string(ep) + " needs a mixture of experts (model.experts)");
  if (c.experts == 0) return 0;
  check(c.experts % ep == 0, "launch.ep " + std::to_string(ep) + " must divide the " + std::to_string(c.experts) +
                                 " experts (each expert-parallel rank holds whole experts)");
  return c.experts / ep;
}

TpShard tp_shard(const model::GptConfig& c, int64_t tp) {
  check(tp >= 1, "launch.tp must be >= 1");
  const int64_t f = c.mlp_hidden;
  check(c.n_head % tp == 0, "launch.tp " + std::to_string(tp) + " must divide the " + std::to_string(c.n_head) +
                                " query heads (each tensor-parallel rank owns whole heads)");
  check(c.n_kv_head % tp == 0 || tp % c.n_kv_head == 0,
        "launch.tp " + std::to_string(tp) + " and the " + std::to_string(c.n_kv_head) +
            " KV heads: one must divide the other (KV heads are split, or replicated when fewer than the ranks)");
  check(f % tp == 0, "launch.tp " + std::to_string(tp) + " must divide the MLP width " + std::to_string(f));
  TpShard s;
  s.heads = c.n_head / tp;
  s.kv_heads = c.n_kv_head >= tp ? c.n_kv_head / tp : 1;
  s.mlp = f / tp;
  s.vocab = (c.vocab_size + tp - 1) / tp;
  return s;
}

int64_t rank_block_parameters(const model::GptConfig& c, int64_t tp, int64_t ep) {
  int64_t blocks = 0;
  for (const auto& [shape, count] : block_matrix_shapes(c, tp, ep)) blocks += shape.first * shape.second * count;
  return blocks;
}

int64_t rank_expert_parameters(const model::GptConfig& c, int64_t tp, int64_t ep) {
  if (c.experts == 0) return 0;
  const int64_t per_mlp = (c.activation == model::Activation::swiglu ? 3 : 2) * tp_shard(c, tp).mlp * c.model_dim;
  return c.depth * expert_shard(c, ep) * per_mlp;
}

int64_t rank_parameters(const model::GptConfig& c, int64_t tp, int64_t ep) {
  const model::ParamCounts p = model::count_params(c);
  const int64_t blocks = rank_block_parameters(c, tp, ep);
  const int64_t vocab = tp_shard(c, tp).vocab;
  const int64_t embeddings = (p.wte + p.lm_head + p.value_embeds) / c.vocab_size * vocab;
  return blocks + embeddings + p.scalars;
}

std::string_view to_string(OpClass c) {
  switch (c) {
    case OpClass::matmul:
      return "matmul";
    case OpClass::attention:
      return "attention";
    case OpClass::vector:
      return "vector";
    case OpClass::collective:
      return "collective";
  }
  return "?";
}

std::string KernelOp::kernel_name() const {
  if (const TileCall* t = tile()) return t->kernel->name;
  if (const CollectiveCall* c = collective()) return std::string(hw::collective_name(c->kind));
  return "";
}

std::string KernelOp::shape_text() const {
  const TileCall* t = tile();
  return t ? t->kernel->describe(t->shape) : std::string();
}

std::string to_string(Pass p) {
  switch (p) {
    case Pass::forward:
      return "forward";
    case Pass::backward:
      return "backward";
    case Pass::optimizer:
      return "optimizer";
  }
  return "?";
}

KernelOp matmul_op(const std::string& name, int64_t m, int64_t k, int64_t n, DType dtype) {
  Lower L(Pass::forward, static_cast<double>(dtype_size(dtype)));
  L.matmul(name, "matmul", m, k, n);
  return L.take().front();
}

std::vector<KernelOp> lower_micro_batch(const model::GptConfig& c, int64_t T, const LoweringOptions& o) {
  check(o.rows >= 1 && T >= 1 && o.mtp_heads >= 1, "lower_micro_batch: rows, seq_len and mtp_heads must be >= 1");
  const TpShard sh = tp_shard(c, o.tp);
  const int64_t B = o.rows, t = B * T, d = c.model_dim, H = sh.heads, K = sh.kv_heads, hd = c.head_dim;
  const int64_t qd = H * hd, kvd = K * hd, f = sh.mlp, V = sh.vocab;
  const double tf = static_cast<double>(t * f);
  // Replicated width-d work (norms, residuals): each rank does all of it, or 1/tp of the tokens under sequence
  // parallelism, which turns every all-reduce into a reduce-scatter and the next layer's input into an all-gather.
  const bool tp = o.tp > 1, sp = tp && o.sequence_parallel;
  const bool swiglu = c.activation == model::Activation::swiglu;
  const bool gelu = c.activation == model::Activation::gelu;
  const int64_t ts = sp ? (t + o.tp - 1) / o.tp : t;
  const double td = static_cast<double>(ts * d), tdfull = static_cast<double>(t * d);
  const double act = static_cast<double>(dtype_size(o.dtype));
  // Keys each query of layer i attends to: its sliding window when it has one (model::layer_keys; the FLOP count of
  // recipe-spec §2.4 does the same). Every layer runs the fused kernel, windowed ones with their window.
  auto keys = [&](int64_t i) { return model::layer_keys(c, i, T); };
  Lower L(Pass::forward, static_cast<double>(dtype_size(o.dtype)));
  // Megatron's two collectives around a split region: the partial sums leave by all-reduce (reduce-scatter with
  // SP); with SP the region's replicated input arrives by all-gather.
  auto reduce = [&](const std::string& name) {
    if (tp)
      L.collective(name + (sp ? " reduce-scatter" : " all-reduce"),
                   sp ? hw::Collective::reduce_scatter : hw::Collective::all_reduce, tdfull * act);
  };
  auto gather = [&](const std::string& name) {
    if (sp) L.collective(name + " all-gather", hw::Collective::all_gather, tdfull * act);
  };
  // A mixture of experts (c.experts > 0): the router scores every token against every expert and keeps the top k;
  // with expert parallelism (o.ep > 1) an all-to-all sends each token's k copies to the ranks holding those experts
  // and another brings the outputs back (their mirror images in the backward); each rank's experts / ep local
  // experts then see t k ep / experts tokens each on average (balanced routing: assumed), batched as one matmul per
  // weight. Expert MLPs are split over the tp ranks like a dense MLP (f = mlp / tp).
  const bool moe = c.experts > 0;
  const int64_t E = c.experts, k = c.experts_per_token, local = moe ? expert_shard(c, o.ep) : 0;
  const int64_t per_expert = moe ? std::max<int64_t>(1, (t * k * o.ep + E - 1) / E) : 0;
  const double routed = static_cast<double>(t * k * d) * act;  // the token copies one rank sends
  const double tfk = static_cast<double>(per_expert * local * f);
  auto all_to_all = [&](const std::string& name) {
    if (o.ep > 1)
      L.collective(name + " all-to-all", hw::Collective::all_to_all, routed, CollectiveGroup::expert_parallel);
  };
  auto moe_forward = [&](const std::string& p) {
    L.matmul(p + "moe router", "moe router", t, d, E);
    L.stage();
    L.elementwise(p + "moe top-k + softmax", "moe router", static_cast<double>(t * E), 1, 1, 6);
    L.stage();
    all_to_all(p + "moe dispatch");
    if (swiglu) {
      L.matmul(p + "expert gate", "mlp matmul", per_expert, d, f, local);
      L.matmul(p + "expert up", "mlp matmul", per_expert, d, f, local);
      L.stage();
      L.elementwise(p + "expert silu(gate) * up", "element-wise", tfk, 2, 1, 5);
    } else {
      L.matmul(p + "expert fc", "mlp matmul", per_expert, d, f, local);
      L.stage();
      L.elementwise(p + "expert activation", "element-wise", tfk, 1, 1, gelu ? 8 : 3);
    }
    L.stage();
    L.matmul(p + "expert proj", "mlp matmul", per_expert, f, d, local);
    L.stage();
    all_to_all(p + "moe combine");
    L.elementwise(p + "moe weighted sum", "element-wise", static_cast<double>(t * k * d), 2, 1, 2);
    L.stage();
  };
  auto moe_backward = [&](const std::string& p) {
    L.elementwise(p + "moe weighted sum bwd", "element-wise", static_cast<double>(t * k * d), 3, 2, 3);
    L.stage();
    all_to_all(p + "moe combine bwd");
    L.matmul_backward(p + "expert proj", "mlp matmul", per_expert, f, d, local);
    L.stage();
    if (swiglu) {
      L.elementwise(p + "expert silu(gate) * up bwd", "element-wise", tfk, 3, 2, 8);
      L.stage();
      L.matmul_backward(p + "expert gate", "mlp matmul", per_expert, d, f, local);
      L.matmul_backward(p + "expert up", "mlp matmul", per_expert, d, f, local);
    } else {
      L.elementwise(p + "expert activation bwd", "element-wise", tfk, 2, 1, gelu ? 12 : 3);
      L.stage();
      L.matmul_backward(p + "expert fc", "mlp matmul", per_expert, d, f, local);
    }
    L.stage();
    all_to_all(p + "moe dispatch bwd");
    L.elementwise(p + "moe router bwd", "moe router", static_cast<double>(t * E), 2, 1, 4);
    L.stage();
    L.matmul_backward(p + "moe router", "moe router", t, d, E);
    L.stage();
  };

  const int64_t first = std::max<int64_t>(o.layer_begin, 0);
  const int64_t last = o.layer_end < 0 ? c.depth : std::min(o.layer_end, c.depth);
  if (o.embedding) {
    L.elementwise("embedding gather", "embedding", tdfull, 1, 1, 0);
    L.stage();
    reduce("embedding (vocab-parallel)");
  }
  for (int64_t i = first; i < last; i++) {
    const std::string p = "L" + std::to_string(i) + " ";
    const int64_t S = keys(i);
    const bool fused = S == T;
    L.elementwise(p + "resid lambdas", "element-wise", td, 2, 1, 3);
    L.stage();
    L.rmsnorm(p + "attn norm", "norms", ts, d);
    L.stage();
    gather(p + "attn input");
    L.matmul(p + "attn q", "attention matmul", t, d, qd);
    L.matmul(p + "attn k", "attention matmul", t, d, kvd);
    L.matmul(p + "attn v", "attention matmul", t, d, kvd);
    if (model::has_value_embed(c, i)) {
      L.matmul(p + "value gate", "attention matmul", t, c.ve_gate_channels, K);
      L.elementwise(p + "value embed mix", "element-wise", static_cast<double>(t * kvd), 3, 1, 4);
    }
    L.stage();
    L.elementwise(p + "rotary q,k", "element-wise", static_cast<double>(t * (qd + kvd)), 1, 1, 6);
    L.stage();
    if (c.qk_norm) {
      L.rmsnorm(p + "q norm", "norms", t * H, hd);
      L.rmsnorm(p + "k norm", "norms", t * K, hd);
      L.stage();
    }
    L.attention(p + (fused ? "attention (fused, causal)" : "attention (fused, window " + std::to_string(S) + ")"),
                "attention core", B * H, T, hd, S);
    L.stage();
    L.matmul(p + "attn proj", "attention matmul", t, qd, d);
    L.stage();
    reduce(p + "attn proj");
    L.elementwise(p + "residual", "element-wise", td, 2, 1, 1);
    L.stage();
    L.rmsnorm(p + "mlp norm", "norms", ts, d);
    L.stage();
    gather(p + "mlp input");
    if (moe) {
      moe_forward(p);
    } else {
      if (swiglu) {
        L.matmul(p + "mlp gate", "mlp matmul", t, d, f);
        L.matmul(p + "mlp up", "mlp matmul", t, d, f);
        L.stage();
        L.elementwise(p + "silu(gate) * up", "element-wise", tf, 2, 1, 5);
      } else {
        L.matmul(p + "mlp fc", "mlp matmul", t, d, f);
        L.stage();
        L.elementwise(p + "activation", "element-wise", tf, 1, 1, gelu ? 8 : 3);  // tanh-form GELU: about 8 FLOPs
      }
      L.stage();
      L.matmul(p + "mlp proj", "mlp matmul", t, f, d);
      L.stage();
    }
    reduce(p + "mlp proj");
    L.elementwise(p + "residual", "element-wise", td, 2, 1, 1);
    L.stage();
  }
  const int heads = o.head ? o.mtp_heads : 0;
  if (o.head) {
    L.rmsnorm("final norm", "norms", ts, d);
    L.stage();
    gather("lm_head input");
  }
  for (int h = 0; h < heads; h++) {
    const std::string p = "head " + std::to_string(h) + " ";
    L.matmul(p + "lm_head", "lm_head + CE", t, d, V);
    L.stage();
    L.softmax(p + "softcap + CE", "lm_head + CE", t, V);
    L.stage();
    // Vocab-parallel cross-entropy: the row max and the sum of exponentials, fp32, all-reduced.
    if (tp) L.collective(p + "CE max + sum all-reduce", hw::Collective::all_reduce, 2.0 * static_cast<double>(t) * 4);
  }

  // Backward, in reverse.
  L.set_pass(Pass::backward);
  for (int h = heads - 1; h >= 0; h--) {
    const std::string p = "head " + std::to_string(h) + " ";
    L.elementwise(p + "CE grad", "lm_head + CE", static_cast<double>(t * V), 1, 1, 4);
    L.stage();
    L.matmul_backward(p + "lm_head", "lm_head + CE", t, d, V);
    L.stage();
  }
  if (o.head) {
    reduce("lm_head dX");
    L.elementwise("final norm bwd", "norms", td, 3, 1, 6);
    L.stage();
  }
  for (int64_t i = last - 1; i >= first; i--) {
    const std::string p = "L" + std::to_string(i) + " ";
    const int64_t S = keys(i);
    const bool fused = S == T;
    const double scores = static_cast<double>(B * H) * static_cast<double>(T) * static_cast<double>(S);
    gather(p + "mlp proj dY");
    if (moe) {
      moe_backward(p);
    } else {
      L.matmul_backward(p + "mlp proj", "mlp matmul", t, f, d);
      L.stage();
      if (swiglu) {
        L.elementwise(p + "silu(gate) * up bwd", "element-wise", tf, 3, 2, 8);
        L.stage();
        L.matmul_backward(p + "mlp gate", "mlp matmul", t, d, f);
        L.matmul_backward(p + "mlp up", "mlp matmul", t, d, f);
      } else {
        L.elementwise(p + "activation bwd", "element-wise", tf, 2, 1, gelu ? 12 : 3);
        L.stage();
        L.matmul_backward(p + "mlp fc", "mlp matmul", t, d, f);
      }
      L.stage();
    }
    reduce(p + "mlp fc dX");
    L.elementwise(p + "mlp norm bwd + residual", "norms", td, 4, 1, 7);
    L.stage();
    gather(p + "attn proj dY");
    L.matmul_backward(p + "attn proj", "attention matmul", t, qd, d);
    L.stage();
    if (o.fused_attention_backward) {
      L.attention_backward(
          p + (fused ? "attention bwd (fused, causal)" : "attention bwd (fused, window " + std::to_string(S) + ")"),
          "attention core", B * H, T, hd, S);
      L.stage();
    } else {
      L.matmul(p + "recompute scores", "attention core", T, hd, S, B * H);
      L.stage();
      L.softmax(p + "recompute softmax", "attention core", B * H * T, S);
      L.stage();
      L.matmul(p + "dV = P^T dO", "attention core", S, T, hd, B * H);
      L.matmul(p + "dP = dO V^T", "attention core", T, hd, S, B * H);
      L.stage();
      L.elementwise(p + "softmax bwd", "attention core", scores, 2, 1, 3);
      L.stage();
      L.matmul(p + "dQ = dS K", "attention core", T, S, hd, B * H);
      L.matmul(p + "dK = dS^T Q", "attention core", S, T, hd, B * H);
      L.stage();
    }
    if (c.qk_norm) {
      L.elementwise(p + "q,k norm bwd", "norms", static_cast<double>(t * (qd + kvd)), 3, 1, 6);
      L.stage();
    }
    L.elementwise(p + "rotary bwd", "element-wise", static_cast<double>(t * (qd + kvd)), 1, 1, 6);
    L.stage();
    L.matmul_backward(p + "attn q", "attention matmul", t, d, qd);
    L.matmul_backward(p + "attn k", "attention matmul", t, d, kvd);
    L.matmul_backward(p + "attn v", "attention matmul", t, d, kvd);
    if (model::has_value_embed(c, i)) L.matmul_backward(p + "value gate", "attention matmul", t, c.ve_gate_channels, K);
    L.stage();
    reduce(p + "attn q,k,v dX");
    L.elementwise(p + "attn norm bwd + residual + lambdas", "norms", td, 5, 2, 9);
    L.stage();
  }
  if (o.embedding) L.elementwise("embedding scatter-add", "embedding", tdfull, 2, 1, 1);
  return L.take();
}

std::vector<KernelOp> lower_optimizer(const recipe::Recipe& r, const model::GptConfig& c, const LoweringOptions& o) {
  Lower L(Pass::optimizer, static_cast<double>(dtype_size(o.dtype)));
  const int64_t ranks = o.shard_optimizer ? std::max<int64_t>(o.ranks, 1) : 1;
  const int ns = r.optim.ns_steps;
  // Muon: Newton-Schulz on every block matrix, X of shape [s, l] with s the short side.
  const int64_t pp = std::max<int64_t>(o.pp, 1);
  for (const auto& [shape, count] : block_matrix_shapes(c, o.tp, o.ep)) {
    const int64_t s = std::min(shape.first, shape.second), l = std::max(shape.first, shape.second);
    const int64_t staged = (count + pp - 1) / pp;  // one pipeline stage's share of the layers
    const int64_t n = (staged + ranks - 1) / ranks;
    const std::string tag = std::to_string(shape.first) + "x" + std::to_string(shape.second);
    for (int it = 0; it < ns; it++) {
      L.matmul("muon NS A=XX^T " + tag, "muon newton-schulz", s, l, s, n);
      L.stage();
      L.matmul("muon NS A^2 " + tag, "muon newton-schulz", s, s, s, n);
      L.stage();
      L.matmul("muon NS BX " + tag, "muon newton-schulz", s, s, l, n);
      L.stage();
    }
  }
  // Muon element-wise (fp32 state): momentum + Nesterov, NorMuon second moment, cautious WD update.
  int64_t muon_rank = 0;
  for (const auto& [shape, count] : block_matrix_shapes(c, o.tp, o.ep)) muon_rank += shape.first * shape.second * count;
  const double muon = static_cast<double>(muon_rank) / static_cast<double>(ranks * pp);
  L.elementwise("muon momentum / normuon / update", "muon element-wise", muon, 4, 3, 12, 4);
  // AdamW on everything else (fp32 param, grad, m, v).
  const int64_t held = rank_parameters(c, o.tp, o.ep);
  const double adam = static_cast<double>(held - muon_rank) / static_cast<double>(ranks * pp);
  L.elementwise("adamw", "adamw", adam, 4, 3, 12, 4);
  if (r.optim.grad_clip > 0)
    L.elementwise("grad norm + clip", "adamw", static_cast<double>(held) / static_cast<double>(pp), 2, 1, 3, 4);
  return L.take();
}

int64_t muon_parameters(const model::GptConfig& c) {
  int64_t n = 0;
  for (const auto& [shape, count] : block_matrix_shapes(c)) n += shape.first * shape.second * count;
  return n;
}

double gradient_bytes(const model::GptConfig& c, DType grad_dtype, int64_t tp, int64_t ep) {
  return static_cast<double>(rank_parameters(c, tp, ep)) * static_cast<double>(dtype_size(grad_dtype));
}

}  // namespace nanotrn::predict
