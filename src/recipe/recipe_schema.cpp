// The recipe schema table and what is generated from it. See recipe_schema.h.
#include "recipe/recipe_schema.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/error.h"
#include "base/home.h"
#include "recipe/recipe.h"

namespace nanotrn::recipe {

using nlohmann::json;

namespace {

// Every key, in document order. A key missing here, or one the loader does not accept, fails
// tests/recipe/recipe_schema_test.cpp. Meanings must not contain '|' (they become markdown table cells).
constexpr RecipeKey kSchema[] = {
    {"name", "Name of the run, shown in logs, checkpoints and reports (the shipped recipes use their file name)"},
    {"description", "Free text: where the recipe comes from and what it leaves out"},
    {"seed", "Seed of the weight initialisation and of the training data order"},

    {"model.vocab_size",
     "Tokens in the vocabulary, specials included; must equal the tokenizer's (`nanotrn data setup` trains one of "
     "this size at data.tokenizer)"},
    {"model.depth", "Transformer blocks"},
    {"model.aspect_ratio",
     "The depth dial: when model_dim is 0, model_dim = ceil(depth * aspect_ratio / head_dim) * head_dim"},
    {"model.head_dim", "Width of one attention head"},
    {"model.model_dim", "Width of the residual stream; 0 = from the depth dial (aspect_ratio)"},
    {"model.n_head", "Query heads; 0 = model_dim / head_dim"},
    {"model.n_kv_head",
     "Key/value heads; 0 = n_head (multi-head attention), fewer for grouped- or multi-query attention (n_head must "
     "be a multiple)"},
    {"model.mlp_mult", "MLP hidden width = mlp_mult * model_dim (unless mlp_hidden is set)"},
    {"model.mlp_hidden", "MLP hidden width; 0 = mlp_mult * model_dim (a Hugging Face config's intermediate_size)"},
    {"model.experts",
     "Mixture of experts: MLPs per layer (0 = dense), each of mlp_hidden, with a router (top-k, dropless: each "
     "expert runs on the tokens routed to it)"},
    {"model.experts_per_token", "Mixture of experts: the experts each token is routed to (top-k)"},
    {"model.moe_aux_loss",
     "Mixture of experts: weight of the load-balancing loss E * sum_e f_e P_e (Switch Transformer; Mixtral's 0.01)"},
    {"model.tie_embeddings",
     "The lm_head shares the embedding matrix (Hugging Face); with it, the head trains at optim.embedding_lr, which "
     "wants the head's rate (e.g. 0.02)"},
    {"model.norm_weights",
     "The Llama block: learned RMSNorm gains (optim.norm_gain_lr) instead of the per-layer residual and x0 scalars, "
     "no norm on the embedding, QK-norm gains before rotary (Qwen3)"},
    {"model.attention_bias",
     "Biases of the attention's linear layers, zeros at init (optim.bias_lr): none, qkv (on q, k and v: Qwen2) or "
     "qkvo (the output projection too: Llama's and Mistral's attention_bias, gpt-oss)"},
    {"model.norm",
     "The block's norms: rms (RMSNorm) or layer (LayerNorm: the mean subtracted first, and with norm_weights a bias "
     "beside each gain at optim.bias_lr: GPT-2's)"},
    {"model.mlp_bias", "Biases on the MLP's linear layers (every expert's), zeros at init (optim.bias_lr): GPT-2's"},
    {"model.learned_positions",
     "A learned table of this many positions added to the token embedding (GPT-2's), in place of the rotary "
     "embedding; 0 = rotary. batch.seq_len must not exceed it"},
    {"model.attention_sinks",
     "gpt-oss's attention sinks: a learned logit per query head (zeros at init, optim.bias_lr) in every softmax's "
     "denominator, with no value"},
    {"model.swiglu_limit",
     "gpt-oss's clamped SwiGLU (with activation swiglu): (clamp(up, -L, L) + 1) g sigmoid(1.702 g), g = min(gate, L); "
     "0 = Llama's SwiGLU"},
    {"model.activation",
     "MLP activation: relu2 (ReLU squared), leaky_relu2 (LeakyReLU squared, slope leaky_slope), swiglu (the Llama "
     "MLP with three matrices), gelu (GPT-2 / GPT-3; the tanh form) or geglu (gated GELU, tanh form: T5 v1.1, Gemma)"},
    {"model.leaky_slope", "Negative slope of leaky_relu2"},
    {"model.rotary_base", "Base of the rotary position embedding's frequencies"},
    {"model.qk_norm",
     "RMSNorm on queries and keys after the rotary embedding (before it, with gains, under norm_weights)"},
    {"model.qk_gain", "Multiplies the attention scores (nanochat HEAD uses 1.44)"},
    {"model.window", "Sliding attention window in tokens; 0 = full causal attention"},
    {"model.window_pattern",
     "Which layers the window applies to, S (windowed) or L (full) per layer, repeated (SL alternates, as gpt-oss); "
     "empty = every layer"},
    {"model.softcap", "Logit soft cap: logits = softcap * tanh(logits / softcap); 0 = off"},
    {"model.value_embeds",
     "Value embeddings: none, or alternating (added to the values of layers i with i % 2 == (depth - 1) % 2)"},
    {"model.ve_gate_channels", "The value-embedding gate is ve_gate_max * sigmoid(W x[..., :ve_gate_channels])"},
    {"model.ve_gate_max", "Upper bound of the value-embedding gate"},
    {"model.resid_lambda_init",
     "Initial residual scalars: before block i, x = resid_lambda[i] * x + x0_lambda[i] * x0"},
    {"model.x0_lambda_init",
     "Initial x0 scalars: how much of the embedding output x0 is mixed back in before each block"},

    {"model.rope_scaling.kind",
     "Rotary frequency scaling (model/rope.h): none, llama3 (Llama 3.1's) or yarn (gpt-oss's), as a Hugging Face "
     "config's rope_scaling"},
    {"model.rope_scaling.factor", "The context extension factor: the lowest frequencies are divided by it"},
    {"model.rope_scaling.original_max_positions", "The context the rotary frequencies were trained for"},
    {"model.rope_scaling.low_freq_factor", "llama3: wavelengths above original_max_positions / this are divided"},
    {"model.rope_scaling.high_freq_factor", "llama3: wavelengths below original_max_positions / this are kept"},
    {"model.rope_scaling.beta_fast", "yarn: the rotations at which the ramp from extrapolation starts"},
    {"model.rope_scaling.beta_slow", "yarn: the rotations at which the ramp to interpolation ends"},
    {"model.rope_scaling.truncate", "yarn: the ramp's ends rounded outwards to whole channels"},
    {"model.rope_scaling.attention_factor", "yarn: cos and sin are multiplied by it; 0 = 0.1 ln(factor) + 1"},
    {"model.init.wte_std", "Token embedding initialised N(0, wte_std^2)"},
    {"model.init.lm_head_std", "Output head (lm_head) initialised N(0, lm_head_std^2)"},
    {"model.init.qkv", "q, k, v projections initialised uniform with std qkv / sqrt(model_dim)"},
    {"model.init.attn_proj", "Attention output projection: uniform with std attn_proj / sqrt(model_dim); 0 = zeros"},
    {"model.init.fc", "MLP input projection: uniform with std fc / sqrt(model_dim) (nanochat HEAD: 0.4)"},
    {"model.init.mlp_proj", "MLP output projection: uniform with std mlp_proj / sqrt(model_dim); 0 = zeros"},
    {"model.init.value_embed", "Value embedding tables: uniform with std value_embed / sqrt(model_dim)"},
    {"model.init.ve_gate",
     "Value-embedding gate weights: U(0, ve_gate); 0 = zeros (the gate starts at ve_gate_max / 2)"},

    {"optim.kind",
     "The block matrices' optimiser: muon (the baseline) or adamw (as the Megatron / NeuronX "
     "Distributed runs); every other group is AdamW either way"},
    {"optim.adamw_matrix_lr",
     "AdamW learning rate of the block matrices when optim.kind is adamw (assumed default: "
     "GPT-3 Small's 6e-4)"},
    {"optim.adamw_matrix_weight_decay",
     "AdamW decoupled weight decay of the block matrices when optim.kind is adamw "
     "(assumed default: GPT-3's 0.1)"},
    {"optim.matrix_lr", "Muon learning rate, for every 2-D matrix inside the blocks"},
    {"optim.muon_coefficients", "Muon's Newton-Schulz coefficients: polar_express or classic"},
    {"optim.ns_steps", "Newton-Schulz iterations per Muon step"},
    {"optim.muon_dtype", "Precision of Muon's Newton-Schulz GEMMs: f32, bf16, or auto (= train.precision)"},
    {"optim.momentum", "Muon momentum after the warm-up"},
    {"optim.momentum_start", "Muon momentum at step 0, ramped linearly to momentum over momentum_warmup_steps"},
    {"optim.momentum_warmup_steps", "Steps of the Muon momentum warm-up"},
    {"optim.nesterov", "Nesterov momentum in Muon"},
    {"optim.normuon", "NorMuon: normalise the orthogonalised update by a running second moment per row"},
    {"optim.normuon_beta2", "Decay of NorMuon's second moment"},
    {"optim.norm_scale", "Muon's Newton-Schulz input is u / (norm_scale * norm(u)): the factor on the Frobenius norm"},
    {"optim.muon_weight_decay", "Muon's cautious weight decay; times (1 - progress) when muon_wd_decay_to_zero"},
    {"optim.muon_wd_decay_to_zero", "Fade Muon's weight decay linearly to 0 over the run"},
    {"optim.embedding_lr",
     "AdamW learning rate of the token embedding; times (model_dim / 768)^-0.5 when scale_lr_by_width"},
    {"optim.unembedding_lr", "AdamW learning rate of the output head; scaled like embedding_lr"},
    {"optim.value_embed_lr", "AdamW learning rate of the value embeddings; scaled like embedding_lr"},
    {"optim.scalar_lr", "AdamW learning rate of the x0 scalars (the residual scalars use scalar_lr * resid_lr_scale)"},
    {"optim.resid_lr_scale", "Multiplies scalar_lr for the residual scalars"},
    {"optim.bias_lr", "AdamW learning rate of the attention biases (model.attention_bias); assumed, the gains' rate"},
    {"optim.norm_gain_lr", "AdamW learning rate of the norm gains (model.norm_weights, the Llama block); assumed"},
    {"optim.adam_beta1", "AdamW beta1 (every AdamW group but the x0 scalars)"},
    {"optim.adam_beta2", "AdamW beta2 (every AdamW group but the x0 scalars)"},
    {"optim.x0_beta1", "AdamW beta1 of the x0 scalars"},
    {"optim.x0_beta2", "AdamW beta2 of the x0 scalars"},
    {"optim.adam_eps", "AdamW epsilon"},
    {"optim.adam_weight_decay", "AdamW weight decay"},
    {"optim.scale_lr_by_width",
     "Scale the embedding, output-head and value-embedding learning rates by (model_dim / 768)^-0.5"},
    {"optim.grad_clip", "Clip the global gradient norm to this; 0 = off"},

    {"schedule.warmup_steps", "Learning-rate warm-up: the multiplier is (step + 1) / warmup_steps for these steps"},
    {"schedule.cooldown_fraction",
     "Final fraction of the run (by progress) over which the learning rates fall linearly to final_lr_fraction"},
    {"schedule.final_lr_fraction", "Learning-rate multiplier at the end of the cool-down"},
    {"schedule.cooldown_levels",
     "0 = a linear cool-down; L > 0 = stepped: rounded up to a multiple of 1 / (L + 1), never below "
     "final_lr_fraction"},

    {"batch.seq_len", "Tokens per row: the context length T"},
    {"batch.rows", "Rows per micro-batch"},
    {"batch.phases",
     "Batch phases, a list of {from, accum, lr_scale}: phase i applies from progress `from` on; the first starts at 0"},
    {"batch.phases[].from", "Progress (fraction of the budget, in [0, 1)) at which the phase starts; increasing"},
    {"batch.phases[].accum", "Micro-batches accumulated into one optimiser step during the phase"},
    {"batch.phases[].lr_scale", "Multiplies every learning rate during the phase"},

    {"data.corpus",
     "Prepared corpus folder (train.jsonl, val.jsonl) the tokenizer and shards are built from: `nanotrn data setup` "
     "prepares the Brown corpus there unless it already holds one (`nanotrn data prepare --out DIR FILES` for your "
     "own text)"},
    {"data.train",
     "Training data: a glob of .bin token shards (`nanotrn data setup` writes DIR/train_*.bin), or synthetic:random "
     "or synthetic:pattern (no files; every token counts as one byte)"},
    {"data.val", "Validation shards (a glob, DIR/val_*.bin) scored for val_bpb, always in the same order"},
    {"data.tokenizer",
     "Tokenizer: a BPE folder (tokenizer.tiktoken), a .tiktoken file or a SentencePiece .model file; its token byte "
     "lengths define val_bpb"},
    {"data.layout",
     "Rows from documents: best_fit (every row starts at a document's BOS; documents packed best-fit, the rest of a "
     "cropped one dropped) or stream (documents joined into streams cut into rows)"},
    {"data.mask_bos_targets", "BOS targets contribute no training loss"},

    {"eval.tokens", "Validation tokens scored for val_bpb (rounded down to whole batches of rows x seq_len)"},
    {"eval.rows", "Rows per evaluation batch"},
    {"eval.every_seconds", "Also evaluate every this much charged time; 0 = only at the end"},

    {"ema.decay", "Exponential moving average of the weights, decay per step; 0 = off"},
    {"ema.every", "Update the average every this many steps (with decay^every)"},
    {"ema.evaluate_ema", "Score the averaged weights instead of the live ones for the final val_bpb"},

    {"train.budget", "Charged-time budget: \"90s\", \"30m\", \"1.5h\"; \"0\" with steps > 0 for a step budget"},
    {"train.steps", "Stop after this many steps; 0 = no step limit"},
    {"train.precision", "f32, or bf16 (bf16 GEMM inputs with fp32 accumulation and fp32 master weights)"},
    {"train.mtp_weights",
     "Multi-token prediction: loss weights of predicting tokens t+1, t+2, ...; [1] = the next token only"},
    {"train.mtp_until", "Progress by which the extra MTP weights have faded linearly to 0; 0 = they never fade"},
    {"train.checkpoint_every", "Write a checkpoint every this many steps; 0 = only at the end"},
    {"train.log_every", "A progress line (and a metrics.jsonl row) every this many steps"},
    {"train.threads", "Host threads; 0 = all cores"},
    {"train.deterministic",
     "Data-parallel runs: gradients summed in micro-batch order, so N ranks give the same bits as 1 (slower)"},

    {"launch.chips", "Modelled device only (predict, train --clock): chips used; 0 = all of the device's"},
    {"launch.ranks_per_chip",
     "Modelled device only: data-parallel ranks per chip, each on launch.lnc physical cores (the rest idle); 0 = "
     "one rank per logical core"},
    {"launch.lnc",
     "Modelled device only: physical NeuronCores per rank (NEURON_LOGICAL_NC_CONFIG 1 or 2); 0 = the "
     "device's default"},
    {"launch.stack",
     "Modelled device only: the software stack's profile (configs/stacks/: ideal, torchneuron-compiled, "
     "torchneuron-eager, nki-tuned, neuronx-distributed; compiled and eager name the TorchNeuron ones), a profile "
     "file (predict --calibrate writes one; relative to the recipe's folder), or the profile inline"},
    {"launch.compile_allowance_s",
     "Modelled device only: seconds of the stack's compile time not charged against the budget (the Phase-1 kit "
     "excused up to 900 s of startup, recipe-spec §6.1; 0 = compile time counts in full, recipe-spec §12)"},
    {"launch.zero",
     "Modelled device only: ZeRO stage over the data-parallel ranks; 1 shards the optimiser state, 2 also the "
     "gradients, 3 also the weights (gathered per micro-batch)"},
    {"launch.recompute",
     "Modelled device only: activation checkpointing; keep each block's input, recompute the block in the backward"},
    {"launch.tp",
     "Modelled device only: tensor-parallel ranks per model replica (Megatron column/row splits); the data-parallel "
     "ranks are chips x ranks_per_chip / tp"},
    {"launch.sequence_parallel",
     "Modelled device only: with tp > 1, reduce-scatter + all-gather instead of all-reduce, norms and residuals split "
     "over the tp ranks"},
    {"launch.pp",
     "Modelled device only: pipeline stages per model replica, 1F1B over the step's micro-batches (bubble (pp - 1) / "
     "(accum + pp - 1)); the data-parallel replicas are ranks / (tp x pp)"},
    {"launch.nodes",
     "Modelled device only: copies of a server device joined over EFA (32 trn1-server nodes); the launched ranks "
     "are nodes x chips x ranks_per_chip"},
    {"launch.ep",
     "Modelled device only: expert parallelism for a mixture of experts; the experts are split over ep "
     "data-parallel replicas (ep divides the replicas and the experts), tokens reach them by all-to-all"},
    {"launch.attention_backward",
     "Modelled Trainium only: the attention backward of full causal layers; flash (nanotrn's tile kernel, no T x T "
     "bytes in HBM) or unfused (as a compiler lowers it without a flash kernel: scores recomputed, softmax and 4 "
     "matmuls through HBM; what the published runs in docs/VALIDATION.md ran)"},
};

std::vector<std::string> split_key(const std::string& key) {
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
  return parts;
}

json lookup(const json& j, const std::vector<std::string>& parts, size_t i, const std::string& key) {
  if (i == parts.size()) return j;
  std::string part = parts[i];
  const bool each = part.size() > 2 && part.ends_with("[]");
  if (each) part.resize(part.size() - 2);
  check(j.is_object() && j.contains(part), "recipe schema: no key '" + key + "' in the recipe");
  const json& v = j.at(part);
  if (!each) return lookup(v, parts, i + 1, key);
  check(v.is_array(), "recipe schema: '" + key + "': " + part + " is not a list");
  json out = json::array();
  for (const json& e : v) out.push_back(lookup(e, parts, i + 1, key));
  return out;
}

std::string shortest(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[40];
  for (int p = 1; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// The markdown section of a key: "" for top-level keys, else its parent ("model.init"; "batch" for batch.phases[].x).
std::string section_of(const std::string& key) {
  std::string s = key.substr(0, key.find_last_of('.') == std::string::npos ? 0 : key.find_last_of('.'));
  if (s.ends_with("[]")) s = s.substr(0, s.find_last_of('.') == std::string::npos ? 0 : s.find_last_of('.'));
  return s;
}

}  // namespace

std::span<const RecipeKey> recipe_schema() { return kSchema; }

json value_at(const json& recipe_json, const std::string& key) { return lookup(recipe_json, split_key(key), 0, key); }

std::string type_name(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_object()) return "object";
  if (v.is_array()) {
    if (v.empty()) return "list";
    std::string t = type_name(v[0]);
    for (const json& e : v) {
      if (type_name(e) != t) t = (e.is_number() && v[0].is_number()) ? "number" : "value";
    }
    return "list of " + (t == "boolean" ? std::string("booleans") : t + "s");
  }
  return "null";
}

std::string format_value(const json& v) {
  if (v.is_number_float()) return shortest(v.get<double>());
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + format_value(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      s += (first ? "" : ", ") + json(it.key()).dump() + ": " + format_value(it.value());
      first = false;
    }
    return s + "}";
  }
  return v.dump();
}

std::vector<KeyRow> describe_recipe(const json& recipe_json) {
  const json defaults = recipe_to_json(Recipe{});
  std::vector<KeyRow> rows;
  for (const RecipeKey& k : kSchema) {
    KeyRow r;
    r.key = k.key;
    r.meaning = k.meaning;
    r.value = value_at(recipe_json, r.key);
    r.default_value = value_at(defaults, r.key);
    // A per-element key's type is its elements' type.
    r.type = r.key.find("[]") != std::string::npos && !r.default_value.empty() ? type_name(r.default_value[0])
                                                                               : type_name(r.default_value);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::string recipe_markdown() {
  std::ostringstream md;
  md << "# Recipes\n\n"
     << "<!-- Generated from src/recipe/recipe_schema.cpp by `nanotrn recipe doc > docs/RECIPES.md`; "
        "tests/recipe/recipe_schema_test.cpp fails when this file differs from what that prints. Edit the table in "
        "the code. -->\n\n"
     << "A recipe is a JSON file that defines a training run: model, optimisers, schedule, batch, data, evaluation, "
        "seed and budget. The shipped recipes are in `recipes/`.\n\n"
     << "- **Strict**: an unknown key anywhere is an error naming its dotted path (`optim.matrix_lrr`), and so is a "
        "value of the wrong type. Keys left out keep the defaults below.\n"
     << "- **Overrides**: `--set key=value` (repeatable) sets any key below, e.g. `--set optim.matrix_lr=0.02`; "
        "the value is parsed as JSON when it parses (numbers, true/false, lists) and taken as a string otherwise.\n"
     << "- **Durations** are strings: `\"90s\"`, `\"30m\"`, `\"1.5h\"`; a bare number is seconds.\n"
     << "- **Paths**: " << data_root_rule() << "\n"
     << "- **Looking at one**: `nanotrn recipe show cpu-tiny` prints every key with the recipe's value (overrides "
        "applied, paths resolved), its default when different, and its meaning; `--defaults` prints the built-in "
        "defaults and `--json` the same for programs.\n"
     << "- **Its data**: `nanotrn data setup --recipe R` builds the corpus, tokenizer and shards that R's `data.*` "
        "name, skipping what is already valid.\n";
  std::string section = "-";
  for (const KeyRow& r : describe_recipe(recipe_to_json(Recipe{}))) {
    const std::string s = section_of(r.key);
    if (s != section) {
      section = s;
      md << "\n## " << (s.empty() ? std::string("Top level") : "`" + s + "`") << "\n\n"
         << "| key | type | default | meaning |\n|---|---|---|---|\n";
    }
    const bool per_phase = r.key.find("[]") != std::string::npos;
    const json shown = per_phase && !r.default_value.empty() ? r.default_value[0] : r.default_value;
    md << "| `" << r.key << "` | " << r.type << (per_phase ? " (per element)" : "") << " | `" << format_value(shown)
       << "` | " << r.meaning << " |\n";
  }
  return md.str();
}

}  // namespace nanotrn::recipe
