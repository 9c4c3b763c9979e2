// `nanotrn qa models DIR`: the model zoo's quality table, the way Trainium's own stack is held to one (runs, op
// coverage, numerics per architecture class). Per Hugging Face config.json in DIR:
//   read      the reader (model/hf_config.h) lowers it, or the refusal naming the field;
//   priced    `predict` on each device at the stated launch (a recipe's batch, precision and launch with the config
//             as its model): fits HBM or the refusal, step time, MFU, and the op coverage: the share of the step's
//             op time priced by tile kernels on the software NeuronCore (the rest by roofline);
//   host      a scaled-down instance of the same architecture (the config's activation, norm gains, tied head,
//             LayerNorm, learned positions, biases, QK-norm, GQA group up to 4, window pattern, experts (at most 8, at
//             most half of them per token); depth 2, width 64, heads of 16, vocab 256, its MLP ratio): built,
//             gradient-checked (central differences of the fp32 loss against autograd on the largest gradient elements
//             of its first MLP's input matrices, norm gains and biases; with experts, of the last layer's experts,
//             whose weights move no router's input) and trained `host_steps` Muon + AdamW steps on the synthetic
//             pattern language: it trains when every loss is finite and the last is 0.5 nats below the first. A tied
//             head trains at the head's rate (optim.embedding_lr = 0.02).
// Numerics against PyTorch are the test suite's (tests/train/parity_test.cpp: the baseline, the Llama block with
// SwiGLU, a tied head, windows and q/k/v/o biases, GELU with q/k/v biases, GPT-2's block, and the mixture of
// experts): the table
// names the tests that between them cover each block's features.
//
//   ModelsQaOptions o;  o.launch = open_recipe("kit-baseline", {}, home);  o.launch_name = "kit-baseline";
//   std::vector<ModelsQaRow> rows = run_models_qa(config_files(dir), o, engine, progress);
//   std::cout << models_qa_markdown(rows, o);   write models_qa_csv(rows) ...
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "model/config.h"
#include "recipe/recipe.h"

namespace nanotrn::qa {

struct ModelsQaOptions {
  recipe::Recipe launch;  // batch, precision, launch and optimiser; its model is replaced by each config's
  std::string launch_name;
  std::vector<std::string> devices = {"trn2", "trn3"};
  int host_steps = 20;  // 0: no host build, check or training
  uint64_t seed = 1;
};

struct DevicePrice {
  std::string device;
  bool fits = false;
  std::string refusal;  // why it was not priced (does not fit, ...)
  double step_s = 0, mfu = 0;
  double kernel_share = 0;  // of the step's op time, priced by tile kernels (the rest: roofline)
};

struct ModelsQaRow {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::string file, architecture;  // architecture from the JSON's "architectures" even when refused
  bool read = false;
  std::string refusal;  // the reader's message when not read
  int64_t params = 0;
  std::vector<DevicePrice> prices;
  bool host_built = false;
  std::string host_refusal, host_shape;
  double gradient_error = kNaN;  // max |finite difference - autograd| / max |autograd| over the checked elements
  double first_loss = kNaN, last_loss = kNaN;
  bool trains = false;
  std::string parity_test;  // the PyTorch parity test whose block covers this one, or ""
  bool priced() const;      // priced (fits) on every device
  bool gradient_ok() const;
};

// The *.json files of a folder, sorted; throws naming the folder when there are none.
std::vector<std::string> config_files(const std::string& dir);

// The host instance of `config`'s architecture the table trains (see the header comment), resolved.
model::GptConfig scaled_down(const model::GptConfig& config);

std::vector<ModelsQaRow> run_models_qa(const std::vector<std::string>& files, const ModelsQaOptions& options,
                                       Engine& engine, const std::function<void(const std::string&)>& progress = {});

// One table per architecture class (configs, read %, priced %, op coverage, host runs %, gradient check %), then
// one row per configuration with every refusal's reason.
std::string models_qa_markdown(const std::vector<ModelsQaRow>& rows, const ModelsQaOptions& options);
// The same tables as a self-contained HTML page (report/page.h).
std::string models_qa_html(const std::vector<ModelsQaRow>& rows, const ModelsQaOptions& options);
std::string models_qa_csv(const std::vector<ModelsQaRow>& rows);

}  // namespace nanotrn::qa
