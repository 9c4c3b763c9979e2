// The lowering against independent counts: the forward matmuls' FLOPs per token (the fused attention counted as the
// full T x T square QK^T + PV that recipe-spec §2.4 counts) equal a third of its 6N + 12 H hd T per layer, the
// backward's gradient matmuls are twice the forward, and the Muon parameters equal count_params' block matrices +
// value gates. Attention: fused (one kernel per row and head, FLOPs of the causal pairs), never moving T x T scores
// through HBM in the forward or the backward (the flash backward kernel), timed by the tile kernels on trn2; a sliding
// window keeps the matmul + softmax chain.
#include <gtest/gtest.h>

#include "hw/catalog.h"
#include "model/config.h"
#include "model/hf_config.h"
#include "neuron/registry/shapes.h"
#include "predict/kernel_cost.h"
#include "predict/lowering.h"
#include "recipe/recipe.h"
#include "support/source_path.h"

namespace nanotrn::predict {
namespace {

// The typed shapes the lowering hands over (lowering.h: TileCall), or null for another kernel or no kernel.
template <class Shape>
const Shape* shape_as(const KernelOp& op) {
  return op.tile() ? std::any_cast<Shape>(&op.tile()->shape) : nullptr;
}
// T (and the window, when shorter than T) of an attention op's one-head shape.
std::vector<int64_t> attention_dims(const KernelOp& op) {
  const auto* a = shape_as<neuron::AttentionShape>(op);
  if (!a) return {};
  std::vector<int64_t> d{a->heads, a->seq, a->head_dim};
  if (a->variant.mask == neuron::AttentionMask::sliding_window) d.push_back(a->variant.window);
  return d;
}

recipe::Recipe shipped(const std::string& name) {
  return recipe::load_recipe(testing_support::source_path("recipes/" + name + ".json"));
}

void expect_flops_match_the_count(const recipe::Recipe& r, const std::string& label) {
  const model::GptConfig c = model::resolve(r.model);
  const int64_t rows = 2, T = r.batch.seq_len;
  double fwd = 0, bwd = 0;
  for (const KernelOp& op : lower_micro_batch(c, T, {.rows = rows})) {
    // The fused kernel runs the full causal layers: QK^T and PV of the full square, as the FLOP count has them
    // (windowed layers lower to matmuls, counted below).
    // A windowed layer's kernel {1, T, hd, window}: T x window as the count has it.
    const std::vector<int64_t> a = attention_dims(op);
    const int64_t S = a.size() == 4 ? std::min(a[3], T) : T;
    if (op.kernel_name() == "attention") {
      ASSERT_EQ(op.pass, Pass::forward);
      EXPECT_EQ(op.count, rows * c.n_head);
      fwd += 2 * 2.0 * static_cast<double>(T * S * c.head_dim) * static_cast<double>(op.count);
      continue;
    }
    // Its backward: dV, dP, dQ and dK, each the full square (or T x window) as the count has them.
    if (op.kernel_name() == "attention_bwd") {
      ASSERT_EQ(op.pass, Pass::backward);
      bwd += 4 * 2.0 * static_cast<double>(T * S * c.head_dim) * static_cast<double>(op.count);
      continue;
    }
    const auto* mm = shape_as<neuron::MatmulShape>(op);
    if (!mm) continue;
    const double f = op.flops * static_cast<double>(op.count);
    EXPECT_DOUBLE_EQ(op.flops, 2.0 * static_cast<double>(mm->m * mm->k * mm->n));
    if (op.pass == Pass::forward) fwd += f;
    if (op.pass == Pass::backward && op.name.find("recompute") == std::string::npos) bwd += f;
  }
  const double tokens = static_cast<double>(rows * T);
  EXPECT_NEAR(fwd / tokens, model::flops_per_token(c, T) / 3.0, 1e-6 * fwd / tokens) << label;
  EXPECT_NEAR(bwd, 2.0 * fwd, 1e-9 * fwd) << label;
}

TEST(Lowering, ForwardAndBackwardMatmulFlopsMatchTheFlopCount) {
  for (const char* name : {"frontierforge-k60", "autoresearch-d8", "cpu-tiny"}) {
    expect_flops_match_the_count(shipped(name), name);
  }
  recipe::Recipe windowed = shipped("cpu-tiny");
  windowed.model.window = 64;  // a sliding window shorter than T = 256
  expect_flops_match_the_count(windowed, "cpu-tiny, window 64");
}

// Hugging Face shapes (SwiGLU's three matrices, GQA, a tied head, experts, windows by layer) lower to the FLOPs their
// count gives.
TEST(Lowering, HuggingFaceConfigsMatchTheFlopCount) {
  // GPT-3 (GELU, tied head); the mixtures of experts (the router and the k experts a token uses, as batched
  // matmuls over the experts); gpt-oss's alternating windowed and full layers.
  for (const char* name : {"llama-3.1-8b", "qwen2.5-0.5b", "mistral-7b-v0.1", "qwen3-8b", "gpt3-175b",
                           "mixtral-8x7b-v0.1", "qwen3-30b-a3b", "gpt-oss-20b"}) {
    recipe::Recipe r = shipped("cpu-tiny");
    r.model = model::read_hf_config(testing_support::source_path("configs/hf/" + std::string(name) + ".json")).config;
    r.batch.seq_len = 256;
    expect_flops_match_the_count(r, name);
  }
}

// HBM bytes of the attention core in one pass, all invocations.
double attention_core_bytes(const model::GptConfig& c, int64_t T, Pass pass) {
  double bytes = 0;
  for (const KernelOp& op : lower_micro_batch(c, T, {.rows = 2}))
    if (op.group == "attention core" && op.pass == pass) bytes += op.bytes * static_cast<double>(op.count);
  return bytes;
}

TEST(Lowering, FusedAttentionKeepsScoresOutOfHbm) {
  const model::GptConfig c = model::resolve(shipped("frontierforge-k60").model);
  const int64_t T = 1024, rows = 2;
  // Traffic linear in T: no T x T scores, probabilities or their gradients in HBM, forward or backward.
  auto growth = [&](Pass pass) { return attention_core_bytes(c, 2 * T, pass) / attention_core_bytes(c, T, pass); };
  EXPECT_DOUBLE_EQ(growth(Pass::forward), 2.0);
  EXPECT_DOUBLE_EQ(growth(Pass::backward), 2.0);
  size_t backward = 0;
  for (const KernelOp& op : lower_micro_batch(c, T, {.rows = rows}))
    if (op.group == "attention core" && op.pass == Pass::backward) {
      EXPECT_EQ(op.kernel_name(), "attention_bwd") << op.name;  // the flash backward tile kernel, nothing in HBM
      EXPECT_EQ(attention_dims(op), (std::vector<int64_t>{1, T, c.head_dim}));
      // q, k, v, o, dO read and dq, dk, dv written in bf16, and the fp32 log-sum-exp; 2.5x the forward's FLOPs.
      EXPECT_DOUBLE_EQ(op.bytes, 8.0 * static_cast<double>(T * c.head_dim) * 2 + 4.0 * static_cast<double>(T));
      EXPECT_DOUBLE_EQ(op.flops, 2.5 * 4.0 * static_cast<double>(c.head_dim) * static_cast<double>(T * (T + 1) / 2));
      backward++;
    }
  EXPECT_EQ(backward, static_cast<size_t>(c.depth));
  size_t kernels = 0;
  for (const KernelOp& op : lower_micro_batch(c, T, {.rows = rows})) {
    if (op.group != "attention core" || op.pass != Pass::forward) continue;
    EXPECT_EQ(op.kernel_name(), "attention") << op.name;  // no softmax or matmul through HBM
    kernels++;
    EXPECT_EQ(attention_dims(op), (std::vector<int64_t>{1, T, c.head_dim}));
    EXPECT_EQ(op.count, rows * c.n_head);
    // q, k, v, o in bf16 and the fp32 log-sum-exp; the causal pairs' QK^T and PV.
    EXPECT_DOUBLE_EQ(op.bytes, 4.0 * static_cast<double>(T * c.head_dim) * 2 + 4.0 * static_cast<double>(T));
    EXPECT_DOUBLE_EQ(op.flops, 2 * 2.0 * static_cast<double>(c.head_dim) * static_cast<double>(T * (T + 1) / 2));
  }
  EXPECT_EQ(kernels, static_cast<size_t>(c.depth));
  // A sliding window shorter than T: the same kernels with the window, FLOPs of the visible pairs only; unfused
  // (launch.attention_backward) the backward is the chain, with [T, window] scores in HBM.
  model::GptConfig windowed = c;
  windowed.window = 256;
  size_t softmaxes = 0, windowed_kernels = 0;
  for (const KernelOp& op : lower_micro_batch(windowed, T, {.rows = rows})) {
    if (op.group != "attention core") continue;
    EXPECT_NE(op.kernel_name(), "softmax") << op.name;
    EXPECT_EQ(attention_dims(op), (std::vector<int64_t>{1, T, c.head_dim, 256}));
    const double pairs = 256.0 * static_cast<double>(T) - 256.0 * 255 / 2;
    EXPECT_DOUBLE_EQ(op.flops, (op.pass == Pass::forward ? 1.0 : 2.5) * 4 * static_cast<double>(c.head_dim) * pairs);
    windowed_kernels++;
  }
  EXPECT_EQ(windowed_kernels, 2u * static_cast<size_t>(c.depth));
  for (const KernelOp& op : lower_micro_batch(windowed, T, {.rows = rows, .fused_attention_backward = false}))
    if (op.group == "attention core" && op.kernel_name() == "softmax") softmaxes++;
  EXPECT_EQ(softmaxes, static_cast<size_t>(c.depth));  // the backward's recompute only
}

TEST(Lowering, FusedAttentionIsTimedOnTheNeuronCore) {
  const model::GptConfig c = model::resolve(shipped("frontierforge-k60").model);
  KernelCoster coster(hw::builtin_catalog().find("trn2"), 2);
  for (const KernelOp& op : lower_micro_batch(c, 1024, {.rows = 16})) {
    if (op.kernel_name() != "attention") continue;
    EXPECT_EQ(op.op_class, OpClass::attention);
    const OpCost cost = coster.cost(op, DType::bf16);
    EXPECT_EQ(cost.method, "neuron v3x2");
    EXPECT_GT(cost.busiest[hw::Engine::tensor], 0.0);
    // Never faster than its causal FLOPs at the logical core's TensorE peak.
    EXPECT_GE(cost.seconds, op.flops * static_cast<double>(op.count) / coster.rank_peak_flops(DType::bf16));
    break;
  }
}

TEST(Lowering, MuonCoversExactlyTheBlockMatrices) {
  for (const char* name : {"frontierforge-k60", "autoresearch-d8"}) {
    const model::GptConfig c = model::resolve(shipped(name).model);
    const model::ParamCounts p = model::count_params(c);
    EXPECT_EQ(muon_parameters(c), p.block_matrices + p.ve_gates) << name;
  }
}

TEST(Lowering, MtpHeadsAddLmHeadWork) {
  const model::GptConfig c = model::resolve(shipped("frontierforge-k60").model);
  auto lm_flops = [&](int heads) {
    double f = 0;
    for (const KernelOp& op : lower_micro_batch(c, 1024, {.rows = 1, .mtp_heads = heads})) {
      if (op.group == "lm_head + CE" && op.op_class == OpClass::matmul) f += op.flops * static_cast<double>(op.count);
    }
    return f;
  };
  // Each head: [T, d] x [d, V] forward and two gradient matmuls: 3 x 2 T d V.
  EXPECT_DOUBLE_EQ(lm_flops(3) - lm_flops(1), 2 * 3 * 2.0 * 1024 * 1024 * 8192);
}

}  // namespace
}  // namespace nanotrn::predict
