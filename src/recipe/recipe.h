// A recipe: everything that defines a training run (model, optimisers, schedule, batch phases, data, evaluation,
// seed, budget), loaded from JSON with command-line overrides.
//
//   Recipe r = load_recipe("recipes/cpu-tiny.json", {"optim.matrix_lr=0.02", "train.budget=2m"});
//   nlohmann::json j = recipe_to_json(r);    // every field, defaults included (saved in checkpoints and reports)
//
// Strictness: an unknown key anywhere is an Error naming its dotted path ("optim.matrix_lrr"); so is a value of the
// wrong type, and an override whose key does not exist. An override's value is parsed as JSON when it parses
// (numbers, true/false, [lists]) and taken as a string otherwise. Fields left out keep the defaults below, which
// are autoresearch's (recipe-spec §2–§3) at a CPU-friendly size. Durations are strings: "90s", "30m", "1.5h".
// Every key with its meaning: recipe_schema.h (docs/RECIPES.md is generated from it). Finding a recipe by name and
// placing its data paths under the data root: recipe_paths.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/layout.h"
#include "dtype/dtype.h"
#include "model/config.h"
#include "optim/muon_coefficients.h"
#include "optim/optimizer_kind.h"
#include "optim/schedule.h"
#include "recipe/stack_profile.h"

namespace nanotrn::recipe {

struct OptimConfig {
  // The block matrices' optimiser (optim/optimizer_kind.h): Muon by default, or AdamW with its own lr and decay.
  OptimizerKind kind = OptimizerKind::muon;
  // AdamW on the block matrices (kind adamw) with adam_beta1/2 and adam_eps. Assumed: GPT-3 Small's peak lr 6e-4 and
  // GPT-3's weight decay 0.1 (Brown et al. 2020, Table 2.1 and appendix B).
  float adamw_matrix_lr = 6e-4f;
  float adamw_matrix_weight_decay = 0.1f;
  // Muon, for every 2-D matrix inside the blocks (recipe-spec §3.1).
  float matrix_lr = 0.04f;
  MuonCoefficients muon_coefficients = MuonCoefficients::polar_express;
  int ns_steps = 5;
  std::optional<DType> muon_dtype;  // Newton-Schulz GEMM precision: f32 or bf16; empty = "auto" (train.precision)
  float momentum = 0.95f;
  float momentum_start = 0.85f;  // linear warm-up to `momentum` over momentum_warmup_steps
  int64_t momentum_warmup_steps = 300;
  bool nesterov = true;
  bool normuon = true;
  float normuon_beta2 = 0.95f;
  float norm_scale = 1.02f;
  float muon_weight_decay = 0.2f;  // cautious; times (1 - progress) when muon_wd_decay_to_zero
  bool muon_wd_decay_to_zero = true;
  // AdamW groups (recipe-spec §3.2); embedding / unembedding / value-embedding lrs are times (d/768)^-1/2 when
  // scale_lr_by_width.
  float embedding_lr = 0.6f;
  float unembedding_lr = 0.004f;
  float value_embed_lr = 0.6f;
  float scalar_lr = 0.5f;  // x0 lambdas; resid lambdas use scalar_lr * resid_lr_scale
  float resid_lr_scale = 0.01f;
  // The norm gains of the Llama block (model.norm_weights), not width-scaled. Assumed: the head's rate (nanochat and
  // the baseline have no gains to take one from).
  float norm_gain_lr = 0.004f;
  float bias_lr = 0.004f;  // AdamW lr of the attention biases (model.attention_bias); assumed, the gains' rate
  float adam_beta1 = 0.8f, adam_beta2 = 0.95f;
  float x0_beta1 = 0.96f, x0_beta2 = 0.95f;
  float adam_eps = 1e-10f;
  float adam_weight_decay = 0.0f;
  bool scale_lr_by_width = true;
  float grad_clip = 0.0f;  // max global gradient norm, 0 = off
};

// Tokens per step change at fractions of the budget: phase i applies from progress `from` on, with `accum`
// micro-batches per step and the learning rates times `lr_scale` (FrontierForge's batch warm-up, recipe-spec §6.4).
struct BatchPhase {
  double from = 0.0;
  int64_t accum = 1;
  double lr_scale = 1.0;
};

struct BatchConfig {
  int64_t seq_len = 256;
  int64_t rows = 8;  // rows per micro-batch
  std::vector<BatchPhase> phases = {BatchPhase{}};
};

// Relative paths are under the data root (base/home.h, applied by recipe_paths.h); `nanotrn data setup` builds them.
struct DataConfig {
  std::string corpus = "out/data/corpus";             // prepared corpus folder the tokenizer and shards come from
  std::string train = "out/data/tokens/train_*.bin";  // shard glob
  std::string val = "out/data/tokens/val_*.bin";
  std::string tokenizer = "out/tokenizer";
  data::Layout layout = data::Layout::best_fit;  // or stream (data/layout.h)
  bool mask_bos_targets = false;                 // BOS targets contribute no training loss
};

struct EvalConfig {
  int64_t tokens = 65536;  // validation tokens scored for val_bpb (rounded down to whole batches)
  int64_t rows = 8;
  double every_seconds = 0.0;  // also evaluate every this much charged time (0 = only at the end)
};

struct EmaConfig {
  float decay = 0.0f;  // 0 = off
  int64_t every = 1;   // update every this many steps with decay^every
  bool evaluate_ema = false;
};

// A duration as the user wrote it ("30m") and in seconds, parsed once where it is read (Duration::parse).
struct Duration {
  std::string text = "0";
  double seconds = 0.0;
  Duration() = default;
  Duration(std::string text_, double seconds_) : text(std::move(text_)), seconds(seconds_) {}
  static Duration parse(const std::string& text);  // "90s", "30m", "1.5h", "45"; throws naming the text otherwise
  static Duration of_seconds(double seconds);      // text "<seconds>s" (%.9g)
  bool operator==(const Duration& o) const { return seconds == o.seconds; }
};

struct TrainConfig {
  Duration budget{"60s", 60.0};  // charged-time budget; "0" with steps > 0 gives a step budget
  int64_t steps = 0;             // stop after this many steps (0 = no step limit)
  DType precision = DType::f32;  // or bf16: bf16 GEMM inputs, fp32 accumulation and master weights
  std::vector<float> mtp_weights = {1.0f};
  double mtp_until = 0.0;        // progress at which the extra MTP weights have faded linearly to 0 (0 = never fade)
  int64_t checkpoint_every = 0;  // steps, 0 = only at the end
  int64_t log_every = 10;
  int threads = 0;  // 0 = all cores
  // Data-parallel runs: gradients summed in micro-batch order, the same bits at every world size (dist/grad_reducer.h)
  bool deterministic = false;
};

// How the run is launched on a modelled device: what `nanotrn predict` and `train --clock <device>` price. The host
// trainer ignores it (its ranks are mpirun's). 0 = the device's default.
// The attention backward of full causal layers on Trainium: nanotrn's flash tile kernel
// (neuron/kernels/attention_backward.h), or unfused as a compiler lowers it without one (scores and softmax
// recomputed, dV, dP, dQ, dK as 4 matmuls, the T x T probabilities and their gradients through HBM). Devices priced
// by roofline always use a fused (FlashAttention-2) backward.
enum class AttentionBackward { flash, unfused };
struct LaunchConfig {
  int64_t chips = 0;  // chips used (<= the device's); 0 = all of them
  int64_t ranks_per_chip =
      0;            // data-parallel ranks per chip, each owning `lnc` physical cores; 0 = one per logical core
  int64_t lnc = 0;  // physical NeuronCores per rank (NEURON_LOGICAL_NC_CONFIG); 0 = the device's default
  // The software stack (stack_profile.h): a shipped profile's name ("compiled" and "eager" are the TorchNeuron
  // ones), a profile file, or the profile inline; parsed once, here.
  StackProfile stack = builtin_stack("compiled");
  double compile_allowance_s = 0;  // compile time not charged against the budget (the Phase-1 kit's startup allowance)
  int64_t zero = 0;        // ZeRO stage 0-3 over the data-parallel ranks: 1 shards the optimiser state, 2 also the
                           // gradients, 3 also the weights (predict/device_memory.h)
  bool recompute = false;  // activation checkpointing per block: keep each block's input, recompute the rest
  int64_t tp = 1;          // tensor-parallel ranks per model replica (Megatron; the ranks are chips x ranks_per_chip)
  bool sequence_parallel = false;  // with tp > 1: reduce-scatter / all-gather instead of all-reduce, norms split
  int64_t pp = 1;                  // pipeline stages per model replica (1F1B over the step's micro-batches)
  int64_t nodes = 1;               // copies of the device joined over EFA (server devices; launch.h)
  int64_t ep = 1;                  // expert-parallel ranks: the experts split over ep data-parallel replicas
  AttentionBackward attention_backward = AttentionBackward::flash;
};
std::string_view to_string(AttentionBackward a);

struct Recipe {
  std::string name = "unnamed";
  std::string description;  // free text: where the recipe comes from, what it leaves out
  uint64_t seed = 42;
  model::GptConfig model;
  OptimConfig optim;
  LrSchedule schedule;
  BatchConfig batch;
  DataConfig data;
  EvalConfig eval;
  EmaConfig ema;
  TrainConfig train;
  LaunchConfig launch;
  // What a model read from a Hugging Face config approximates (load_recipe with "model_config"; not saved: the model
  // itself is, in full).
  std::vector<std::string> model_notes;
};

Recipe recipe_from_json(const nlohmann::json& j);
nlohmann::json recipe_to_json(const Recipe& r);
// The model section recipe_to_json writes (every GptConfig field, floats as their shortest decimals): also what a
// model_config becomes and what `nanotrn export` writes as the model's config.
nlohmann::json model_to_json(const model::GptConfig& m);
// The key of an override: "a.b.c" of "a.b.c=value" (the whole text when it has no '=': apply_override refuses it).
std::string override_key(const std::string& assignment);
// Applies "a.b.c=value" to a recipe JSON; throws naming the key when the path does not exist in `defaults_json`.
void apply_override(nlohmann::json& j, const std::string& assignment, const nlohmann::json& defaults_json);
// Reads the file (errors name it), applies the overrides in order, parses strictly. A top-level "model_config" (a
// path relative to the recipe's folder) names a Hugging Face config.json read as the model (model/hf_config.h), in
// place of a "model" section; model.* overrides apply to it (a scaled-down instance: --set model.depth=2 ...).
// A non-empty `model_config` (a path from the working folder) is read as the model in place of the recipe's model
// section or model_config (`nanotrn train --model-config`).
Recipe load_recipe(const std::string& path, const std::vector<std::string>& overrides = {},
                   const std::string& model_config = "");
Recipe default_recipe_with(const std::vector<std::string>& overrides);

// "90s", "30m", "1.5h", "45" (seconds) -> seconds; throws naming the text otherwise.
double parse_duration(const std::string& text);

// The budget in seconds (0 when the run is step-limited only). Throws when neither a budget nor steps is set.
double budget_seconds(const Recipe& r);

}  // namespace nanotrn::recipe
