// Launch shapes (predict/launch.h), the eager stack and its calibration (step_model.h, calibration.h), ZeRO and
// recompute (step_model.h), and the per-rank HBM table (device_memory.h), each against hand arithmetic or the rule
// its header states.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "base/error.h"
#include "hw/catalog.h"
#include "hw/roofline.h"
#include "neuron/registry/shapes.h"
#include "predict/calibration.h"
#include "predict/device_memory.h"
#include "predict/launch.h"
#include "predict/lowering.h"
#include "predict/predictor.h"
#include "recipe/memory_need.h"
#include "support/error_of.h"
#include "support/source_path.h"

namespace nanotrn::predict {
namespace {

// A shipped recipe under the ideal stack unless `sets` names another: these tests check the composition rules
// themselves, which the other stacks only scale (stack_profile_test.cpp).
recipe::Recipe shipped_recipe(const char* name, const std::vector<std::string>& sets = {}) {
  std::vector<std::string> all = {"launch.stack=ideal"};
  all.insert(all.end(), sets.begin(), sets.end());
  return recipe::load_recipe(testing_support::source_path("recipes/" + std::string(name) + ".json"), all);
}

TEST(Launch, ChallengeShapesOnOneTrn2Chip) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  // The kit baseline: nproc_per_node=1, LNC=1: one physical core works, seven idle.
  const Layout kit = resolve_layout(shipped_recipe("kit-baseline"), trn2);
  EXPECT_EQ(kit.ranks, 1);
  EXPECT_EQ(kit.lnc, 1);
  EXPECT_EQ(kit.idle_cores_per_chip, 7);
  EXPECT_EQ(kit.rows_per_rank, 32);
  EXPECT_EQ(recipe::load_recipe(testing_support::source_path("recipes/kit-baseline.json")).launch.stack.name,
            "torchneuron-eager");
  // Every allowed shape: nproc_per_node in {1, 4, 8} x LNC in {1, 2}; 8 ranks at LNC=2 needs 16 cores.
  for (int64_t n : {1, 4, 8}) {
    for (int64_t lnc : {1, 2}) {
      const recipe::Recipe r = shipped_recipe(
          "frontierforge-k60", {"launch.ranks_per_chip=" + std::to_string(n), "launch.lnc=" + std::to_string(lnc)});
      if (n * lnc > 8) {
        EXPECT_NE(
            testing_support::error_text_of([&] { resolve_layout(r, trn2); }).find("at most 4 ranks per chip at LNC=2"),
            std::string::npos);
        continue;
      }
      const Layout l = resolve_layout(r, trn2);
      EXPECT_EQ(l.ranks, n);
      EXPECT_EQ(l.idle_cores_per_chip, 8 - n * lnc);
      EXPECT_EQ(l.rows_per_rank, 64 / n);
    }
  }
  // Defaults: the device's LNC (2 on Trn2) and one rank per logical core.
  const Layout def = resolve_layout(shipped_recipe("frontierforge-k60"), trn2);
  EXPECT_EQ(def.lnc, 2);
  EXPECT_EQ(def.ranks, 4);
  EXPECT_EQ(def.idle_cores_per_chip, 0);
}

TEST(Launch, ImpossibleShapesSayWhy) {
  const hw::Catalog c = hw::builtin_catalog();
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.lnc=2"}), c.find("trn1"));
            }).find("not available on 'trn1'"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.chips=17"}), c.find("trn2-server"));
            }).find("has 16 chip(s)"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.ranks_per_chip=2"}), c.find("h100"));
            }).find("one rank per chip"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([&] {
              shipped_recipe("frontierforge-k60", {"launch.zero=4"});
            }).find("launch.zero"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([&] {
              shipped_recipe("frontierforge-k60", {"launch.stack=lazy"});
            }).find("unknown stack profile 'lazy'"),
            std::string::npos);
  // Eager execution is fitted to Trainium runs: a GPU has nothing to stand on.
  EXPECT_NE(testing_support::error_text_of([&] {
              predict(shipped_recipe("autoresearch-d8", {"launch.stack=eager"}), c.find("h100"));
            }).find("eager execution is modelled for Trainium devices only"),
            std::string::npos);
}

TEST(Launch, ServerChipsScaleTheRanks) {
  const hw::Device server = hw::builtin_catalog().find("trn2-server");
  const Layout l = resolve_layout(shipped_recipe("autoresearch-d8", {"launch.chips=4"}), server);
  EXPECT_EQ(l.chips, 4);
  EXPECT_EQ(l.launched_ranks, 16);
  EXPECT_EQ(l.ranks, 16);
  EXPECT_EQ(l.rows_per_rank, 4);
}

// A host-bound eager step: when the dispatch dwarfs every kernel, the device runs each op as soon as it is
// dispatched, so the step ends one dispatch per op after it began, plus the last op itself.
TEST(Eager, HostBoundStepIsOneDispatchPerOp) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  const recipe::Recipe kit = shipped_recipe("kit-baseline", {"launch.stack=ideal-eager"});
  recipe::StackProfile slow = kit.launch.stack;
  slow.param(recipe::StackParam::op_dispatch_s).value = 10.0;
  slow.param(recipe::StackParam::step_overhead_s).value = 0.0;
  StepModel m(kit, trn2);
  const StepTime s = m.step_with(2, 1, slow);
  const double ops = static_cast<double>(2 * s.micro_ops.size() + s.optimizer_ops.size());
  const double last = s.optimizer_ops.back().cost.seconds + trn2.value("kernel_launch_s");
  EXPECT_NEAR(s.step_s, ops * 10.0 + last, 1e-9 * s.step_s);
  // With (almost) no dispatch time the device never waits: the step is its kernels run one after another.
  recipe::StackProfile fast = slow;
  fast.param(recipe::StackParam::op_dispatch_s).value = 1e-15;
  const StepTime f = m.step_with(2, 1, fast);
  double serial = 0;
  for (const TimedOp& op : f.micro_ops) serial += 2 * (op.cost.seconds + trn2.value("kernel_launch_s"));
  for (const TimedOp& op : f.optimizer_ops) serial += op.cost.seconds + trn2.value("kernel_launch_s");
  EXPECT_NEAR(f.step_s, serial, 1e-9 * serial + 1e-12);
  // Compiled overlaps a stage's independent kernels; eager does not, so its device side is never shorter.
  recipe::StackProfile compiled = fast;
  compiled.execution = recipe::Execution::compiled;
  const StepTime c = m.step_with(2, 1, compiled);
  EXPECT_GE(f.micro_batch_s, c.micro_batch_s);
}

TEST(DeviceMemory, ItemsFollowTheStatedRules) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  const recipe::Recipe r = shipped_recipe("kit-baseline");
  const model::GptConfig c = model::resolve(r.model);
  const Layout l = resolve_layout(r, trn2);
  const RankMemory m = rank_memory(r, c, l, DType::bf16, 1, 2, 96.0 * (1 << 30));
  const double params = static_cast<double>(model::count_params(c).total());
  auto item = [&](const RankMemory& t, const std::string& name) {
    for (const MemoryItem& i : t.items) {
      if (i.name == name) return i.bytes;
    }
    ADD_FAILURE() << "no item " << name;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(item(m, "weights"), params * 6);  // fp32 master + bf16 copy
  EXPECT_DOUBLE_EQ(item(m, "gradients"), params * 4);
  EXPECT_DOUBLE_EQ(item(m, "optimizer state"), recipe::optimizer_state_bytes(c, OptimizerKind::muon));
  // d 640, 5 heads of 128 (K = 5), MLP 4d: per token and block 4d + 15 hd... in bf16, plus the fp32 lse.
  const double d = 640, hd = 128, H = 5, K = 5, tokens = 32.0 * 1024;
  const double block = ((4 * d + (H + 2 * K) * hd + (H + K) * hd + H * hd + 2 * 4 * d) * 2 + 4 * H) * tokens;
  const double head = (d * 2 + 4.0 * 8192) * tokens;
  EXPECT_DOUBLE_EQ(item(m, "activations"), 10 * block + head);
  EXPECT_TRUE(m.fits());
  // Recompute keeps the block inputs and one block's set.
  const RankMemory rc =
      rank_memory(shipped_recipe("kit-baseline", {"launch.recompute=true"}), c, l, DType::bf16, 1, 2, m.capacity);
  EXPECT_DOUBLE_EQ(item(rc, "activations (recompute)"), 10 * d * 2 * tokens + block + head);
  // ZeRO over 4 ranks: stage 1 divides the optimiser state, 2 the gradients, 3 the weights.
  const recipe::Recipe k60 = shipped_recipe("frontierforge-k60");
  const model::GptConfig kc = model::resolve(k60.model);
  const Layout four = resolve_layout(k60, trn2);
  ASSERT_EQ(four.ranks, 4);
  const RankMemory z0 = rank_memory(k60, kc, four, DType::bf16, 3, 4, 24.0 * (1 << 30));
  for (int64_t z = 1; z <= 3; z++) {
    const RankMemory zm = rank_memory(shipped_recipe("frontierforge-k60", {"launch.zero=" + std::to_string(z)}), kc,
                                      four, DType::bf16, 3, 4, z0.capacity);
    EXPECT_DOUBLE_EQ(item(zm, "optimizer state"), item(z0, "optimizer state") / 4);
    EXPECT_DOUBLE_EQ(item(zm, "gradients"), z >= 2 ? item(z0, "gradients") / 4 : item(z0, "gradients"));
    EXPECT_DOUBLE_EQ(item(zm, "weights"), z >= 3 ? item(z0, "weights") / 4 : item(z0, "weights"));
    EXPECT_LT(zm.total(), z0.total());
  }
}

TEST(DeviceMemory, ALayoutThatDoesNotFitNamesTheLargestItemAndAFix) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  // 512 rows of 1024 tokens on one rank: ~130 GiB of activations against 96 GiB.
  const std::string e =
      testing_support::error_text_of([&] { predict(shipped_recipe("kit-baseline", {"batch.rows=512"}), trn2); });
  EXPECT_NE(e.find("does not fit one rank's HBM on trn2"), std::string::npos) << e;
  EXPECT_NE(e.find("the largest item is activations"), std::string::npos) << e;
  EXPECT_NE(e.find("Smallest change that fits: launch.recompute=true"), std::string::npos) << e;
  // Where recompute is not enough, fewer rows per micro-batch.
  const std::string rows =
      testing_support::error_text_of([&] { predict(shipped_recipe("kit-baseline", {"batch.rows=8192"}), trn2); });
  EXPECT_NE(rows.find("rows per rank per micro-batch"), std::string::npos) << rows;
  // The table is in the prediction.
  const Prediction p = predict(shipped_recipe("kit-baseline"), trn2);
  EXPECT_GT(p.memory.total(), 0);
  EXPECT_TRUE(prediction_json(p).at("memory").at("fits").get<bool>());
}

TEST(Zero, CollectivesFollowTheStage) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  auto step = [&](int64_t zero) {
    StepModel m(shipped_recipe("frontierforge-k60", {"launch.zero=" + std::to_string(zero)}), trn2);
    return m.step(4, 1);
  };
  const StepTime z0 = step(0), z1 = step(1), z2 = step(2), z3 = step(3);
  // Stage 1 moves what an all-reduce moves, but the all-gather after the optimiser cannot hide under the backward.
  EXPECT_DOUBLE_EQ(z1.allreduce_s, z0.allreduce_s);
  EXPECT_NEAR(z1.allreduce_exposed_s, z0.allreduce_s / 2, 1e-15 + 1e-12 * z0.allreduce_s);  // RS hidden here
  // Stage 2 reduce-scatters every micro-batch; stage 3 also gathers the weights twice per micro-batch.
  EXPECT_NEAR(z2.allreduce_s, 4 * z0.allreduce_s / 2 + z0.allreduce_s / 2, 1e-12);
  EXPECT_NEAR(z3.allreduce_s, 4 * 3 * z0.allreduce_s / 2, 1e-12);
  // ZeRO shards the optimiser.
  EXPECT_LT(z1.optimizer_s, z0.optimizer_s);
}

TEST(Recompute, BlocksRunTheirForwardAgainInTheBackward) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  StepModel plain(shipped_recipe("kit-baseline", {"launch.stack=ideal"}), trn2);
  StepModel rc(shipped_recipe("kit-baseline", {"launch.stack=ideal", "launch.recompute=true"}), trn2);
  const StepTime &a = plain.step(2, 1), &b = rc.step(2, 1);
  size_t forward_block_ops = 0, recomputed = 0;
  for (const TimedOp& op : a.micro_ops) forward_block_ops += op.op.pass == Pass::forward && op.op.name[0] == 'L';
  for (const TimedOp& op : b.micro_ops) recomputed += op.op.name.rfind("recompute ", 0) == 0;
  EXPECT_EQ(recomputed, forward_block_ops);
  EXPECT_EQ(b.micro_ops.size(), a.micro_ops.size() + recomputed);
  EXPECT_GT(b.micro_batch_s, a.micro_batch_s);
  EXPECT_GT(b.backward_s, a.backward_s);
}

// The compiled graph's instruction count is the sum of its timed kernels' tile programs, and a graph past
// neuronx-cc's 5M limit is flagged (recipe-spec §12 saw an unfused T = 2048 variant fail at 6.56M).
TEST(CompilerLimit, GraphInstructionsSumTheTileProgramsAndWarnPastTheLimit) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  StepModel m(shipped_recipe("kit-baseline", {"launch.stack=ideal"}), trn2);
  const StepTime& s = m.step(2, 1);
  double sum = 0;
  size_t untimed = 0;
  for (const TimedOp& op : s.micro_ops) {
    sum += op.cost.instructions;
    untimed += op.cost.instructions > 0 ? 0 : 1;
    if (!op.op.tile()) {
      EXPECT_EQ(op.cost.instructions, 0) << op.op.name;  // roofline: no program
    }                                                    // roofline: no program
  }
  EXPECT_DOUBLE_EQ(s.graph_instructions, sum);
  EXPECT_EQ(s.untimed_ops, untimed);
  EXPECT_GT(sum, 0);
  auto warned = [](const Prediction& p) {
    for (const std::string& n : p.notes) {
      if (n.rfind("WARNING: compiled micro-batch graph", 0) == 0) return true;
    }
    return false;
  };
  const Prediction small = predict(shipped_recipe("kit-baseline", {"launch.stack=ideal"}), trn2);
  EXPECT_LT(small.graph_instructions, kCompilerInstructionLimit);
  EXPECT_FALSE(warned(small));
  // Four times the tokens per micro-batch: more tiles in every kernel, past the limit.
  const Prediction big =
      predict(shipped_recipe("kit-baseline", {"launch.stack=ideal", "batch.rows=64", "batch.seq_len=2048"}), trn2);
  EXPECT_GT(big.graph_instructions, 2.5 * small.graph_instructions);
  EXPECT_GT(big.graph_instructions, kCompilerInstructionLimit);
  EXPECT_TRUE(warned(big));
}

size_t count_ops(const std::vector<KernelOp>& ops, const std::string& kernel, Pass pass) {
  size_t n = 0;
  for (const KernelOp& op : ops) n += op.kernel_name() == kernel && op.pass == pass ? 1 : 0;
  return n;
}

double matmul_flops(const std::vector<KernelOp>& ops) {
  double f = 0;
  for (const KernelOp& op : ops) f += op.op_class == OpClass::matmul ? op.flops * static_cast<double>(op.count) : 0.0;
  return f;
}

TEST(TensorParallel, ShardsSplitTheModelAndTheirCollectivesFollowMegatron) {
  // The kit model: 5 heads of 128 with 5 KV heads, MLP 2560, V 8192, 10 layers; tp = 5 splits everything evenly.
  const recipe::Recipe r = shipped_recipe("kit-baseline");
  const model::GptConfig c = model::resolve(r.model);
  const TpShard sh = tp_shard(c, 5);
  EXPECT_EQ(sh.heads, 1);
  EXPECT_EQ(sh.kv_heads, 1);
  EXPECT_EQ(sh.mlp, 512);
  EXPECT_EQ(sh.vocab, (8192 + 4) / 5);
  EXPECT_NE(testing_support::error_text_of([&] { tp_shard(c, 2); }).find("must divide the 5 query heads"),
            std::string::npos);
  const model::ParamCounts p = model::count_params(c);
  EXPECT_EQ(rank_parameters(c, 1), p.total());
  // Block matrices split by 5; embedding and head by ceil(V / 5) rows each; scalars replicated.
  EXPECT_EQ(rank_parameters(c, 5), p.block_matrices / 5 + (p.wte + p.lm_head) / 8192 * sh.vocab + p.scalars);
  LoweringOptions one{.rows = 4, .mtp_heads = 1, .dtype = DType::bf16};
  LoweringOptions five = one;
  five.tp = 5;
  const std::vector<KernelOp> a = lower_micro_batch(c, 1024, one), b = lower_micro_batch(c, 1024, five);
  // The block matmuls split exactly; the vocab-parallel head by ceil(V / 5) / V.
  const double head = 3 * 2.0 * 4 * 1024 * 640 * 8192.0;  // forward + dX + dW of the lm_head
  EXPECT_NEAR(matmul_flops(b) * 5, (matmul_flops(a) - head) + head * sh.vocab * 5 / 8192.0, 1e-9 * matmul_flops(a));
  // Per layer two all-reduces forward (attn proj, mlp proj) and two backward (q/k/v and fc input gradients), plus
  // the embedding output and the CE statistics forward, the lm_head input gradient backward.
  EXPECT_EQ(count_ops(a, "all-reduce", Pass::forward), 0u);
  EXPECT_EQ(count_ops(b, "all-reduce", Pass::forward), 2u * 10 + 2);
  EXPECT_EQ(count_ops(b, "all-reduce", Pass::backward), 2u * 10 + 1);
  // Sequence parallel: each activation all-reduce becomes a reduce-scatter, with an all-gather before each split
  // region (forward: attention, MLP, lm_head; backward: the row-parallel proj's output gradient).
  five.sequence_parallel = true;
  const std::vector<KernelOp> s = lower_micro_batch(c, 1024, five);
  EXPECT_EQ(count_ops(s, "all-reduce", Pass::forward), 1u);  // the CE statistics stay an all-reduce
  EXPECT_EQ(count_ops(s, "reduce-scatter", Pass::forward), 2u * 10 + 1);
  EXPECT_EQ(count_ops(s, "all-gather", Pass::forward), 2u * 10 + 1);
  EXPECT_EQ(count_ops(s, "reduce-scatter", Pass::backward), 2u * 10 + 1);
  EXPECT_EQ(count_ops(s, "all-gather", Pass::backward), 2u * 10);
}

TEST(TensorParallel, CollectivesArePricedAsRingsOverTheGroup) {
  const hw::Catalog cat = hw::builtin_catalog();
  const hw::Device server = cat.find("trn2-server");
  // 4 ranks per chip at LNC=2: tp = 4 stays on a chip; one rank on each of 5 chips with tp = 5 spans them and runs
  // at the chip links.
  StepModel on_chip(shipped_recipe("frontierforge-k60", {"launch.tp=4", "launch.chips=2"}), server);
  StepModel spans(shipped_recipe("kit-baseline", {"launch.tp=5", "launch.chips=5", "launch.stack=ideal"}), server);
  EXPECT_EQ(on_chip.layout().ranks, 2);
  EXPECT_EQ(spans.layout().ranks, 1);
  EXPECT_EQ(on_chip.tp_group().chips, 1);
  EXPECT_EQ(on_chip.tp_group().per_chip, 4);
  EXPECT_EQ(spans.tp_group().chips, 5);
  EXPECT_EQ(spans.tp_group().per_chip, 1);
  const StepTime& t = on_chip.step(1, 1);
  double sum = 0;
  for (const TimedOp& op : t.micro_ops) {
    if (op.op.group != "tp collective") continue;
    // On one chip: a ring over the 4 ranks at each rank's DMA bandwidth.
    const double ring =
        hw::ring_allreduce_seconds(op.op.bytes, 4, on_chip.rank_bytes_per_s(), server.value("link_hop_latency_s"));
    EXPECT_DOUBLE_EQ(op.cost.seconds, op.op.collective()->kind == hw::Collective::all_reduce ? ring : ring / 2)
        << op.op.name;
    sum += op.cost.seconds;
  }
  EXPECT_DOUBLE_EQ(t.tp_collective_s, sum);
  EXPECT_GT(sum, 0);
  // tp must divide the launched ranks; the weights one rank holds are its shard.
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.tp=3"}), server);
            }).find("must divide the 64 launched ranks"),
            std::string::npos);
  const model::GptConfig kc = model::resolve(shipped_recipe("frontierforge-k60").model);
  EXPECT_DOUBLE_EQ(on_chip.memory().items.at(0).bytes, static_cast<double>(rank_parameters(kc, 4)) * 6);
}

TEST(PipelineParallel, OneFOneBPaysTheBubbleAndStagesHoldTheirLayers) {
  const hw::Device trn2 = hw::builtin_catalog().find("trn2");
  // K60 (9 layers) on 4 ranks at LNC=2 as 2 stages x 2 replicas: stage 0 holds layers 0-3 and the embedding, stage
  // 1 layers 4-8 and the head.
  StepModel m(shipped_recipe("frontierforge-k60", {"launch.pp=2"}), trn2);
  EXPECT_EQ(m.layout().pp, 2);
  EXPECT_EQ(m.layout().ranks, 2);
  const StepTime& s = m.step(4, 1);
  bool embedding = false, head = false;
  std::set<std::string> layers;
  for (const TimedOp& op : s.micro_ops) {
    embedding |= op.op.group == "embedding";
    head |= op.op.name.rfind("head ", 0) == 0;
    if (op.op.name[0] == 'L') layers.insert(op.op.name.substr(0, op.op.name.find(' ')));
  }
  EXPECT_EQ(s.pipeline_stage, head ? 1 : 0);
  EXPECT_NE(embedding, head);  // one stage's ops: the first's or the last's
  EXPECT_EQ(layers.size(), head ? 5u : 4u);
  // (accum + pp - 1) slots of one stage's micro-batch and its two transfers; the bubble is pp - 1 of them.
  EXPECT_GT(s.p2p_s, 0);
  EXPECT_NEAR(s.step_s, 5 * (s.micro_batch_s + s.p2p_s) + s.optimizer_s + s.allreduce_exposed_s + s.host_s,
              1e-12 * s.step_s);
  EXPECT_NEAR(s.pipeline_bubble_s, s.micro_batch_s + s.p2p_s, 1e-15);
  // Weights are split over the stages; the first stage keeps min(pp, accum) micro-batches in flight.
  const model::GptConfig c = model::resolve(shipped_recipe("frontierforge-k60").model);
  EXPECT_DOUBLE_EQ(m.memory().items.at(0).bytes, static_cast<double>(model::count_params(c).total()) * 6 / 2);
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.pp=16"}), trn2);
            }).find("a pipeline stage needs at least one of the 9 layers"),
            std::string::npos);
}

}  // namespace
}  // namespace nanotrn::predict

namespace nanotrn::predict {
namespace {

// Ranks numbered node by node, chip by chip (launch.h): the groups of the two published Trn1 layouts.
TEST(Nodes, GroupsOfTheTrn1LayoutsSitWhereTheRanksAre) {
  const hw::Device trn1 = hw::builtin_catalog().find("trn1-server");
  // Llama2-7B: 16 nodes x 16 chips x 2 cores, TP 8 (4 chips), DP 64.
  const Layout llama = resolve_layout(shipped_recipe("trn1-llama2-7b"), trn1);
  EXPECT_EQ(llama.nodes, 16);
  EXPECT_EQ(llama.launched_ranks, 512);
  EXPECT_EQ(llama.ranks, 64);
  EXPECT_EQ(llama.rows_per_rank, 1);
  const hw::Group tp = place_group(llama, 8, 1);
  EXPECT_EQ(tp.per_chip, 2);
  EXPECT_EQ(tp.chips, 4);
  EXPECT_EQ(tp.nodes, 1);
  // A data-parallel group: one rank of each replica, 4 replicas per node on 4 chips, over 16 nodes; the two
  // cores of a chip belong to two groups and the node's 32 ranks to 8.
  const hw::Group dp = place_group(llama, 64, 8);
  EXPECT_EQ(dp.per_chip, 1);
  EXPECT_EQ(dp.chips, 4);
  EXPECT_EQ(dp.nodes, 16);
  EXPECT_EQ(dp.chip_share, 2);
  EXPECT_EQ(dp.node_share, 8);
  // GPT3-175B: TP 32 is one node; 8 pipeline stages on 8 nodes; DP 4 over 4 nodes, one rank on each.
  const Layout gpt = resolve_layout(shipped_recipe("trn1-gpt3-175b"), trn1);
  EXPECT_EQ(gpt.launched_ranks, 1024);
  EXPECT_EQ(gpt.ranks, 4);
  const hw::Group g_tp = place_group(gpt, 32, 1);
  EXPECT_EQ(g_tp.chips, 16);
  EXPECT_EQ(g_tp.nodes, 1);
  const hw::Group g_dp = place_group(gpt, 4, 256);
  EXPECT_EQ(g_dp.nodes, 4);
  EXPECT_EQ(g_dp.chips, 1);
  EXPECT_EQ(g_dp.node_share, 32);
  const hw::Group stages = place_group(gpt, 2, 32, 0);  // stage 0 -> stage 1 crosses to the next node
  EXPECT_EQ(stages.nodes, 2);
  EXPECT_EQ(stages.node_share, 32);
  // One chip, 4 ranks, data parallel: the group is the chip (the single-chip layouts are unchanged).
  const Layout k60 = resolve_layout(shipped_recipe("frontierforge-k60"), hw::builtin_catalog().find("trn2"));
  const hw::Group chip = place_group(k60, 4, 1);
  EXPECT_EQ(chip.per_chip, 4);
  EXPECT_EQ(chip.chips, 1);
  EXPECT_EQ(chip.nodes, 1);
  EXPECT_THROW(place_group(k60, 5, 1), Error);
}

TEST(Nodes, SpanningNodesNeedsEfaAndScalesTheLaunch) {
  const hw::Catalog c = hw::builtin_catalog();
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("frontierforge-k60", {"launch.nodes=2"}), c.find("trn2"));
            }).find("'trn2' joins no other node over EFA"),
            std::string::npos);
  EXPECT_NE(testing_support::error_text_of([&] {
              shipped_recipe("frontierforge-k60", {"launch.nodes=0"});
            }).find("launch.nodes"),
            std::string::npos);
  const Layout two =
      resolve_layout(shipped_recipe("autoresearch-d8", {"launch.nodes=2", "batch.rows=128"}), c.find("trn2-server"));
  EXPECT_EQ(two.launched_ranks, 2 * 16 * 4);
  EXPECT_NE(layout_text(two, c.find("trn2-server"), 2048).find("2 nodes (EFA) x 16 chip(s) x 4 rank(s)"),
            std::string::npos);
  // MFU counts the launched chips' peak: two nodes of 16 trn2 chips.
  const Prediction p = predict(shipped_recipe("autoresearch-d8", {"launch.nodes=2"}), c.find("trn2-server"));
  EXPECT_DOUBLE_EQ(p.peak_flops, 2 * 16 * c.find("trn2-server").value("peak_bf16_flops_per_chip"));
  // The gradient all-reduce of the same recipe across two nodes costs more than within one (EFA < NeuronLink).
  StepModel one(shipped_recipe("autoresearch-d8", {"batch.rows=128"}), c.find("trn2-server"));
  StepModel both(shipped_recipe("autoresearch-d8", {"launch.nodes=2", "batch.rows=128"}), c.find("trn2-server"));
  EXPECT_EQ(both.dp_group().nodes, 2);
  EXPECT_GT(both.dp_collective(hw::Collective::all_reduce), one.dp_collective(hw::Collective::all_reduce));
}

// A mixture of experts: the lowering's router and batched expert matmuls, the all-to-alls under expert parallelism,
// the experts split over the ep replicas in the rank's parameters and memory, and the layout's rules.
TEST(Experts, ExpertParallelismSplitsTheExpertsAndRoutesTokensByAllToAll) {
  const hw::Device server = hw::builtin_catalog().find("trn2-server");
  // A small Mixtral-like model on one trn2 server: 8 experts, top 2; 64 ranks, 16 replicas of tp 4, ep 8.
  const std::vector<std::string> moe = {"model.activation=swiglu",
                                        "model.experts=8",
                                        "model.experts_per_token=2",
                                        "model.mlp_hidden=1536",
                                        "batch.rows=16",
                                        "launch.tp=4",
                                        "launch.ep=8",
                                        "launch.stack=ideal"};
  StepModel m(shipped_recipe("autoresearch-d8", moe), server);
  const model::GptConfig& c = m.config();
  EXPECT_EQ(m.layout().ep, 8);
  EXPECT_EQ(m.layout().ranks, 16);
  EXPECT_EQ(expert_shard(c, 8), 1);
  // Parameters: one expert of eight per rank, the router and attention as with a dense tp = 4.
  std::vector<std::string> dense_sets(moe.begin(), moe.end() - 2);
  dense_sets.push_back("launch.ep=1");
  const int64_t all = rank_parameters(c, 4, 1), one = rank_parameters(c, 4, 8);
  EXPECT_EQ(all - one, 7 * c.depth * 3 * (1536 / 4) * c.model_dim);
  EXPECT_EQ(rank_expert_parameters(c, 4, 8), c.depth * 3 * (1536 / 4) * c.model_dim);
  const StepTime& s = m.step(1, 1);
  int all_to_alls = 0, expert_ops = 0;
  for (const TimedOp& op : s.micro_ops) {
    if (op.op.group == "ep collective") {
      ++all_to_alls;
      EXPECT_EQ(op.op.collective()->kind, hw::Collective::all_to_all);
      // Each rank's t x k token copies of width d, in bf16.
      EXPECT_DOUBLE_EQ(op.op.bytes, 1.0 * 1024 * 2 * static_cast<double>(c.model_dim) * 2);
      EXPECT_DOUBLE_EQ(op.cost.seconds, hw::collective_seconds(server, hw::Collective::all_to_all, op.op.bytes,
                                                               m.ep_group(), m.rank_bytes_per_s()));
    }
    if (op.op.name.find("expert gate") != std::string::npos && op.op.pass == Pass::forward) {
      ++expert_ops;
      // t k ep / experts = 1024 x 2 x 8 / 8 tokens per local expert, one local expert.
      const auto* mm = std::any_cast<neuron::MatmulShape>(&op.op.tile()->shape);
      ASSERT_NE(mm, nullptr);
      EXPECT_EQ(mm->m, 2048);
      EXPECT_EQ(mm->k, c.model_dim);
      EXPECT_EQ(mm->n, 1536 / 4);
      EXPECT_EQ(op.op.count, 1);
    }
  }
  EXPECT_EQ(all_to_alls, 4 * c.depth);  // dispatch and combine, forward and backward
  EXPECT_EQ(expert_ops, c.depth);
  // The EP group: one rank of each of 8 consecutive replicas (tp 4 = one chip of 4 ranks): 8 chips, 4 groups a chip.
  EXPECT_EQ(m.ep_group().chips, 8);
  EXPECT_EQ(m.ep_group().chip_share, 4);
  // Without ep every rank holds every expert and nothing is all-to-all'ed.
  StepModel local(shipped_recipe("autoresearch-d8", dense_sets), server);
  for (const TimedOp& op : local.step(1, 1).micro_ops) EXPECT_NE(op.op.group, "ep collective") << op.op.name;
  EXPECT_GT(local.memory().items.at(0).bytes, m.memory().items.at(0).bytes);
  // Layout rules.
  EXPECT_NE(testing_support::error_text_of([&] {
              resolve_layout(shipped_recipe("autoresearch-d8", {"launch.ep=2"}), server);
            }).find("launch.ep 2 needs a mixture of experts"),
            std::string::npos);
  std::vector<std::string> three = moe;
  three.push_back("launch.ep=3");  // the later override wins
  EXPECT_NE(testing_support::error_text_of([&] {
              StepModel bad(shipped_recipe("autoresearch-d8", three), server);
            }).find("launch.ep 3 must divide the 16 data-parallel replicas"),
            std::string::npos);
}

}  // namespace
}  // namespace nanotrn::predict
