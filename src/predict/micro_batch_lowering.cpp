// The forward and backward of one micro-batch as kernel invocations (lower_micro_batch, lowering.h): the embedding,
// each block (attention, then a dense MLP or a mixture of experts), the heads, and the same in reverse, with the
// tensor-, sequence- and expert-parallel collectives a launch adds around them. Not here: the shards a launch gives
// each rank (lowering.cpp), the optimiser step (lowering.cpp).
#include <algorithm>

#include "base/error.h"
#include "predict/lowering.h"
#include "predict/op_list.h"

namespace nanotrn::predict {
namespace {

// One micro-batch on one rank: its shape as the launch shards it, and the ops of each part of the step.
class MicroBatch {
 public:
  MicroBatch(const model::GptConfig& c, int64_t T, const LoweringOptions& o)
      : c_(c), o_(o), sh_(tp_shard(c, o.tp)), L_(Pass::forward, static_cast<double>(dtype_size(o.dtype))) {
    T_ = T;
    B_ = o.rows;
    t_ = B_ * T;
    d_ = c.model_dim;
    hd_ = c.head_dim;
    qd_ = sh_.heads * hd_;
    kvd_ = sh_.kv_heads * hd_;
    f_ = sh_.mlp;
    tf_ = static_cast<double>(t_ * f_);
    // Replicated width-d work (norms, residuals): each rank does all of it, or 1/tp of the tokens under sequence
    // parallelism, which turns every all-reduce into a reduce-scatter and the next layer's input into an all-gather.
    tp_ = o.tp > 1;
    sp_ = tp_ && o.sequence_parallel;
    gated_ = model::gated(c.activation);
    geglu_ = c.activation == model::Activation::geglu;
    gelu_ = c.activation == model::Activation::gelu;
    ts_ = sp_ ? (t_ + o.tp - 1) / o.tp : t_;
    td_ = static_cast<double>(ts_ * d_);
    tdfull_ = static_cast<double>(t_ * d_);
    act_ = static_cast<double>(dtype_size(o.dtype));
    // A mixture of experts (c.experts > 0): the router scores every token against every expert and keeps the top
    // k; with expert parallelism (o.ep > 1) an all-to-all sends each token's k copies to the ranks holding those
    // experts and another brings the outputs back (their mirror images in the backward); each rank's experts / ep
    // local experts then see t k ep / experts tokens each on average (balanced routing: assumed), batched as one
    // matmul per weight. Expert MLPs are split over the tp ranks like a dense MLP (f = mlp / tp).
    moe_ = c.experts > 0;
    local_ = moe_ ? expert_shard(c, o.ep) : 0;
    per_expert_ = moe_ ? std::max<int64_t>(1, (t_ * c.experts_per_token * o.ep + c.experts - 1) / c.experts) : 0;
    routed_ = static_cast<double>(t_ * c.experts_per_token * d_) * act_;  // the token copies one rank sends
    tfk_ = static_cast<double>(per_expert_ * local_ * f_);
    first_ = std::max<int64_t>(o.layer_begin, 0);
    last_ = o.layer_end < 0 ? c.depth : std::min(o.layer_end, c.depth);
    heads_ = o.head ? o.mtp_heads : 0;
  }

  // The forward in order, then the backward in reverse.
  std::vector<KernelOp> lower() {
    if (o_.embedding) embedding_forward();
    for (int64_t i = first_; i < last_; i++) block_forward(i);
    heads_forward();
    L_.set_pass(Pass::backward);
    heads_backward();
    for (int64_t i = last_ - 1; i >= first_; i--) block_backward(i);
    if (o_.embedding) L_.elementwise("embedding scatter-add", "embedding", tdfull_, 2, 1, 1);
    return L_.take();
  }

 private:
  static std::string prefix(int64_t layer) { return "L" + std::to_string(layer) + " "; }
  // Keys each query of layer i attends to: its sliding window when it has one (model::layer_keys; the FLOP count of
  // recipe-spec §2.4 does the same). Every layer runs the fused kernel, windowed ones with their window.
  int64_t keys(int64_t layer) const { return model::layer_keys(c_, layer, T_); }
  std::string attention_name(const std::string& what, int64_t S) const {
    return what + (S == T_ ? " (fused, causal)" : " (fused, window " + std::to_string(S) + ")");
  }

  // Megatron's two collectives around a split region: the partial sums leave by all-reduce (reduce-scatter with
  // SP); with SP the region's replicated input arrives by all-gather.
  void reduce(const std::string& name) {
    if (tp_)
      L_.collective(name + (sp_ ? " reduce-scatter" : " all-reduce"),
                    sp_ ? hw::Collective::reduce_scatter : hw::Collective::all_reduce, tdfull_ * act_);
  }
  void gather(const std::string& name) {
    if (sp_) L_.collective(name + " all-gather", hw::Collective::all_gather, tdfull_ * act_);
  }
  void all_to_all(const std::string& name) {
    if (o_.ep > 1)
      L_.collective(name + " all-to-all", hw::Collective::all_to_all, routed_, CollectiveGroup::expert_parallel);
  }

  void embedding_forward() {
    L_.elementwise("embedding gather", "embedding", tdfull_, 1, 1, 0);
    L_.stage();
    reduce("embedding (vocab-parallel)");
    if (c_.learned_positions > 0) {  // the position table's rows added (GPT-2)
      L_.elementwise("learned positions", "embedding", tdfull_, 2, 1, 1);
      L_.stage();
    }
  }

  void block_forward(int64_t i) {
    const std::string p = prefix(i);
    attention_forward(i);
    L_.elementwise(p + "residual", "element-wise", td_, 2, 1, 1);
    L_.stage();
    L_.rmsnorm(p + "mlp norm", "norms", ts_, d_);
    L_.stage();
    gather(p + "mlp input");
    if (moe_) {
      moe_forward(p);
    } else {
      mlp_forward(dense_mlp(p));
    }
    reduce(p + "mlp proj");
    L_.elementwise(p + "residual", "element-wise", td_, 2, 1, 1);
    L_.stage();
  }

  void attention_forward(int64_t i) {
    const std::string p = prefix(i);
    const int64_t K = sh_.kv_heads;
    L_.elementwise(p + "resid lambdas", "element-wise", td_, 2, 1, 3);
    L_.stage();
    L_.rmsnorm(p + "attn norm", "norms", ts_, d_);
    L_.stage();
    gather(p + "attn input");
    L_.matmul(p + "attn q", "attention matmul", t_, d_, qd_);
    L_.matmul(p + "attn k", "attention matmul", t_, d_, kvd_);
    L_.matmul(p + "attn v", "attention matmul", t_, d_, kvd_);
    if (model::has_value_embed(c_, i)) {
      L_.matmul(p + "value gate", "attention matmul", t_, c_.ve_gate_channels, K);
      L_.elementwise(p + "value embed mix", "element-wise", static_cast<double>(t_ * kvd_), 3, 1, 4);
    }
    L_.stage();
    if (c_.learned_positions == 0) {  // learned positions are one add at the embedding instead
      L_.elementwise(p + "rotary q,k", "element-wise", static_cast<double>(t_ * (qd_ + kvd_)), 1, 1, 6);
      L_.stage();
    }
    if (c_.qk_norm) {
      L_.rmsnorm(p + "q norm", "norms", t_ * sh_.heads, hd_);
      L_.rmsnorm(p + "k norm", "norms", t_ * K, hd_);
      L_.stage();
    }
    const int64_t S = keys(i);
    L_.attention(p + attention_name("attention", S), "attention core", B_ * sh_.heads, T_, hd_, S);
    L_.stage();
    L_.matmul(p + "attn proj", "attention matmul", t_, qd_, d_);
    L_.stage();
    reduce(p + "attn proj");
  }

  // One MLP's ops: a dense block's, or every local expert's as one batched matmul per weight. The names: "mlp gate",
  // "silu(gate) * up" for the dense MLP, "expert gate", "expert silu(gate) * up" for the experts.
  struct Mlp {
    std::string weights, pointwise;  // name prefixes of its matmuls and of its element-wise op
    int64_t rows = 0, count = 1;     // tokens through each copy, and the copies
    double elements = 0;             // of the hidden activation, over every copy
  };
  Mlp dense_mlp(const std::string& p) const { return {p + "mlp ", p, t_, 1, tf_}; }
  Mlp expert_mlp(const std::string& p) const { return {p + "expert ", p + "expert ", per_expert_, local_, tfk_}; }

  void mlp_forward(const Mlp& m) {
    if (gated_) {
      L_.matmul(m.weights + "gate", "mlp matmul", m.rows, d_, f_, m.count);
      L_.matmul(m.weights + "up", "mlp matmul", m.rows, d_, f_, m.count);
      L_.stage();
      if (geglu_) {  // tanh-form GELU (about 8 FLOPs) and the product
        L_.elementwise(m.pointwise + "gelu(gate) * up", "element-wise", m.elements, 2, 1, 9);
      } else {
        L_.elementwise(m.pointwise + "silu(gate) * up", "element-wise", m.elements, 2, 1, 5);
      }
    } else {
      L_.matmul(m.weights + "fc", "mlp matmul", m.rows, d_, f_, m.count);
      L_.stage();
      // tanh-form GELU: about 8 FLOPs
      L_.elementwise(m.pointwise + "activation", "element-wise", m.elements, 1, 1, gelu_ ? 8 : 3);
    }
    L_.stage();
    L_.matmul(m.weights + "proj", "mlp matmul", m.rows, f_, d_, m.count);
    L_.stage();
  }

  void moe_forward(const std::string& p) {
    const int64_t E = c_.experts;
    L_.matmul(p + "moe router", "moe router", t_, d_, E);
    L_.stage();
    L_.elementwise(p + "moe top-k + softmax", "moe router", static_cast<double>(t_ * E), 1, 1, 6);
    L_.stage();
    all_to_all(p + "moe dispatch");
    mlp_forward(expert_mlp(p));
    all_to_all(p + "moe combine");
    L_.elementwise(p + "moe weighted sum", "element-wise", static_cast<double>(t_ * c_.experts_per_token * d_), 2, 1,
                   2);
    L_.stage();
  }

  // The final norm, then each active cross-entropy head (MTP): the lm_head and the softcapped cross-entropy, whose
  // vocab-parallel form all-reduces the row max and the sum of exponentials (fp32).
  void heads_forward() {
    if (o_.head) {
      L_.rmsnorm("final norm", "norms", ts_, d_);
      L_.stage();
      gather("lm_head input");
    }
    for (int h = 0; h < heads_; h++) {
      const std::string p = "head " + std::to_string(h) + " ";
      L_.matmul(p + "lm_head", "lm_head + CE", t_, d_, sh_.vocab);
      L_.stage();
      L_.softmax(p + "softcap + CE", "lm_head + CE", t_, sh_.vocab);
      L_.stage();
      if (tp_)
        L_.collective(p + "CE max + sum all-reduce", hw::Collective::all_reduce, 2.0 * static_cast<double>(t_) * 4);
    }
  }

  void heads_backward() {
    for (int h = heads_ - 1; h >= 0; h--) {
      const std::string p = "head " + std::to_string(h) + " ";
      L_.elementwise(p + "CE grad", "lm_head + CE", static_cast<double>(t_ * sh_.vocab), 1, 1, 4);
      L_.stage();
      L_.matmul_backward(p + "lm_head", "lm_head + CE", t_, d_, sh_.vocab);
      L_.stage();
    }
    if (o_.head) {
      reduce("lm_head dX");
      L_.elementwise("final norm bwd", "norms", td_, 3, 1, 6);
      L_.stage();
    }
  }

  void block_backward(int64_t i) {
    const std::string p = prefix(i);
    gather(p + "mlp proj dY");
    if (moe_) {
      moe_backward(p);
    } else {
      mlp_backward(dense_mlp(p));
    }
    reduce(p + "mlp fc dX");
    L_.elementwise(p + "mlp norm bwd + residual", "norms", td_, 4, 1, 7);
    L_.stage();
    attention_backward(i);
  }

  void mlp_backward(const Mlp& m) {
    L_.matmul_backward(m.weights + "proj", "mlp matmul", m.rows, f_, d_, m.count);
    L_.stage();
    if (gated_) {
      L_.elementwise(m.pointwise + (geglu_ ? "gelu(gate) * up bwd" : "silu(gate) * up bwd"), "element-wise", m.elements,
                     3, 2, geglu_ ? 14 : 8);
      L_.stage();
      L_.matmul_backward(m.weights + "gate", "mlp matmul", m.rows, d_, f_, m.count);
      L_.matmul_backward(m.weights + "up", "mlp matmul", m.rows, d_, f_, m.count);
    } else {
      L_.elementwise(m.pointwise + "activation bwd", "element-wise", m.elements, 2, 1, gelu_ ? 12 : 3);
      L_.stage();
      L_.matmul_backward(m.weights + "fc", "mlp matmul", m.rows, d_, f_, m.count);
    }
    L_.stage();
  }

  void moe_backward(const std::string& p) {
    const int64_t E = c_.experts;
    L_.elementwise(p + "moe weighted sum bwd", "element-wise", static_cast<double>(t_ * c_.experts_per_token * d_), 3,
                   2, 3);
    L_.stage();
    all_to_all(p + "moe combine bwd");
    mlp_backward(expert_mlp(p));
    all_to_all(p + "moe dispatch bwd");
    L_.elementwise(p + "moe router bwd", "moe router", static_cast<double>(t_ * E), 2, 1, 4);
    L_.stage();
    L_.matmul_backward(p + "moe router", "moe router", t_, d_, E);
    L_.stage();
  }

  void attention_backward(int64_t i) {
    const std::string p = prefix(i);
    const int64_t S = keys(i);
    gather(p + "attn proj dY");
    L_.matmul_backward(p + "attn proj", "attention matmul", t_, qd_, d_);
    L_.stage();
    if (o_.fused_attention_backward) {
      L_.attention_backward(p + attention_name("attention bwd", S), "attention core", B_ * sh_.heads, T_, hd_, S);
      L_.stage();
    } else {
      unfused_attention_backward(p, S);
    }
    if (c_.qk_norm) {
      L_.elementwise(p + "q,k norm bwd", "norms", static_cast<double>(t_ * (qd_ + kvd_)), 3, 1, 6);
      L_.stage();
    }
    if (c_.learned_positions == 0) {
      L_.elementwise(p + "rotary bwd", "element-wise", static_cast<double>(t_ * (qd_ + kvd_)), 1, 1, 6);
      L_.stage();
    }
    L_.matmul_backward(p + "attn q", "attention matmul", t_, d_, qd_);
    L_.matmul_backward(p + "attn k", "attention matmul", t_, d_, kvd_);
    L_.matmul_backward(p + "attn v", "attention matmul", t_, d_, kvd_);
    if (model::has_value_embed(c_, i))
      L_.matmul_backward(p + "value gate", "attention matmul", t_, c_.ve_gate_channels, sh_.kv_heads);
    L_.stage();
    reduce(p + "attn q,k,v dX");
    L_.elementwise(p + "attn norm bwd + residual + lambdas", "norms", td_, 5, 2, 9);
    L_.stage();
  }

  // The attention backward as a compiler without a flash kernel lowers it: the scores and softmax recomputed, dV,
  // dP, dQ, dK as four batched matmuls through HBM.
  void unfused_attention_backward(const std::string& p, int64_t S) {
    const int64_t BH = B_ * sh_.heads;
    const double scores = static_cast<double>(BH) * static_cast<double>(T_) * static_cast<double>(S);
    L_.matmul(p + "recompute scores", "attention core", T_, hd_, S, BH);
    L_.stage();
    L_.softmax(p + "recompute softmax", "attention core", BH * T_, S);
    L_.stage();
    L_.matmul(p + "dV = P^T dO", "attention core", S, T_, hd_, BH);
    L_.matmul(p + "dP = dO V^T", "attention core", T_, hd_, S, BH);
    L_.stage();
    L_.elementwise(p + "softmax bwd", "attention core", scores, 2, 1, 3);
    L_.stage();
    L_.matmul(p + "dQ = dS K", "attention core", T_, S, hd_, BH);
    L_.matmul(p + "dK = dS^T Q", "attention core", S, T_, hd_, BH);
    L_.stage();
  }

  const model::GptConfig& c_;
  const LoweringOptions& o_;
  const TpShard sh_;
  detail::OpList L_;
  int64_t T_ = 0, B_ = 0, t_ = 0, d_ = 0, hd_ = 0, qd_ = 0, kvd_ = 0, f_ = 0, ts_ = 0;
  double tf_ = 0, td_ = 0, tdfull_ = 0, act_ = 0;
  bool tp_ = false, sp_ = false, gated_ = false, geglu_ = false, gelu_ = false, moe_ = false;
  int64_t local_ = 0, per_expert_ = 0;
  double routed_ = 0, tfk_ = 0;
  int64_t first_ = 0, last_ = 0;
  int heads_ = 0;
};

}  // namespace

std::vector<KernelOp> lower_micro_batch(const model::GptConfig& c, int64_t T, const LoweringOptions& o) {
  check(o.rows >= 1 && T >= 1 && o.mtp_heads >= 1, "lower_micro_batch: rows, seq_len and mtp_heads must be >= 1");
  return MicroBatch(c, T, o).lower();
}

}  // namespace nanotrn::predict
