// The training step as kernel invocations (see lowering.h): the shards a launch gives each rank, the names, and the
// optimiser step. Not here: the forward and backward of a micro-batch (micro_batch_lowering.cpp).
#include "predict/lowering.h"

#include <algorithm>
#include <map>

#include "base/error.h"
#include "predict/op_list.h"

namespace nanotrn::predict {
namespace {

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
    s[{f, d}] += mlps * (model::gated(c.activation) ? 2 : 1);  // fc, or gate and up
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
  const int64_t per_mlp = (model::gated(c.activation) ? 3 : 2) * tp_shard(c, tp).mlp * c.model_dim;
  return c.depth * expert_shard(c, ep) * per_mlp;
}

int64_t rank_parameters(const model::GptConfig& c, int64_t tp, int64_t ep) {
  const model::ParamCounts p = model::count_params(c);
  const int64_t blocks = rank_block_parameters(c, tp, ep);
  const int64_t vocab = tp_shard(c, tp).vocab;
  const int64_t embeddings = (p.wte + p.lm_head + p.value_embeds) / c.vocab_size * vocab;
  return blocks + embeddings + p.positions + p.scalars;  // learned positions are replicated, as the scalars
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
  detail::OpList L(Pass::forward, static_cast<double>(dtype_size(dtype)));
  L.matmul(name, "matmul", m, k, n);
  return L.take().front();
}

std::vector<KernelOp> lower_optimizer(const recipe::Recipe& r, const model::GptConfig& c, const LoweringOptions& o) {
  detail::OpList L(Pass::optimizer, static_cast<double>(dtype_size(o.dtype)));
  const int64_t ranks = o.shard_optimizer ? std::max<int64_t>(o.ranks, 1) : 1;
  const int ns = r.optim.kind == OptimizerKind::muon ? r.optim.ns_steps : 0;
  // Muon: Newton-Schulz on every block matrix, X of shape [s, l] with s the short side (none under optim.kind adamw).
  const int64_t pp = std::max<int64_t>(o.pp, 1);
  for (const auto& [shape, count] : block_matrix_shapes(c, o.tp, o.ep)) {
    if (ns == 0) break;
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
  if (r.optim.kind == OptimizerKind::muon) {
    for (const auto& [shape, count] : block_matrix_shapes(c, o.tp, o.ep)) {
      muon_rank += shape.first * shape.second * count;
    }
    const double muon = static_cast<double>(muon_rank) / static_cast<double>(ranks * pp);
    L.elementwise("muon momentum / normuon / update", "muon element-wise", muon, 4, 3, 12, 4);
  }
  // AdamW on everything else (fp32 param, grad, m, v): under optim.kind adamw, the block matrices too.
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
