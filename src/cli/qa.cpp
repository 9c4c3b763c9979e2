// `nanotrn qa matmul`: the matmul MFU sweep over public models' projection shapes (src/qa/matmul_qa.h), written as
// CSV and an SVG chart; `nanotrn qa attention`: the attention-variant grid, forward and backward, on the software
// NeuronCore (src/qa/attention_qa.h); `nanotrn qa models DIR`: the model zoo's table per architecture class
// (src/qa/models_qa.h). This file parses flags and prints; the work is in the library.
#include <iostream>
#include <memory>

#include "base/error.h"
#include "base/file.h"
#include "base/home.h"
#include "cli/commands.h"
#include "engine/engine.h"
#include "qa/attention_qa.h"
#include "qa/matmul_qa.h"
#include "qa/models_qa.h"
#include "recipe/recipe_paths.h"

namespace nanotrn::cli {

namespace {

void add_qa_models(CLI::App* qa_cmd, const Home& home) {
  struct Args {
    std::string dir, recipe = "kit-baseline", out = "out/qa";
    std::vector<std::string> devices = {"trn2", "trn3"};
    std::vector<std::string> sets;
    int host_steps = 20;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = qa_cmd->add_subcommand(
      "models",
      "The model zoo's table per architecture class: every Hugging Face config.json of DIR read or refused (naming "
      "the field), priced on trn2 and trn3 at a stated launch (fits HBM, op coverage by tile kernels), and a "
      "scaled-down instance gradient-checked and trained on the host");
  cmd->add_option("dir", a->dir, "Folder of config.json files (configs/hf in the project)")->required();
  cmd->add_option("--recipe", a->recipe,
                  "The launch, batch, precision and optimiser the configs are priced and trained at")
      ->capture_default_str();
  cmd->add_option("--set", a->sets, "Override a field of that recipe, e.g. --set launch.chips=16 (repeatable)");
  cmd->add_option("--device", a->devices, "Devices to price on (comma-separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--host-steps", a->host_steps, "Training steps of each scaled-down instance (0: no host run)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  a->out = home.path("out/qa");  // the default under the data root; a typed --out is relative to where you stand
  cmd->add_option("--out", a->out, "Folder for models_qa.md, .csv and .html")->capture_default_str();
  cmd->callback([a, home] {
    qa::ModelsQaOptions o;
    o.launch = recipe::open_recipe(a->recipe, a->sets, home);
    o.launch_name = a->recipe;
    for (const std::string& s : a->sets) o.launch_name += " --set " + s;
    o.devices = a->devices;
    o.host_steps = a->host_steps;
    Engine engine;
    const std::vector<qa::ModelsQaRow> rows =
        qa::run_models_qa(qa::config_files(a->dir), o, engine, [](const std::string& line) { std::cerr << line; });
    const std::string& dir = a->out;
    make_directories(dir);
    const std::string md = qa::models_qa_markdown(rows, o), csv = qa::models_qa_csv(rows),
                      page = qa::models_qa_html(rows, o);
    write_file_atomic(dir + "/models_qa.md", md.data(), md.size());
    write_file_atomic(dir + "/models_qa.csv", csv.data(), csv.size());
    write_file_atomic(dir + "/models_qa.html", page.data(), page.size());
    std::cout << md << "\nwrote " << dir << "/models_qa.md, " << dir << "/models_qa.csv and " << dir
              << "/models_qa.html\n";
  });
}

}  // namespace

void add_qa(CLI::App& app, const Home& home) {
  auto* cmd = app.add_subcommand("qa", "Quality-of-results sweeps of the tile kernels against their peers");
  cmd->require_subcommand(1);
  struct Args {
    std::vector<int64_t> ms = {1, 128, 2048};
    std::vector<std::string> devices;
    std::string shapes, out = "out/qa";
    bool no_host = false;
    double host_max_gflop = 40;
  };
  auto a = std::make_shared<Args>();
  auto* mm = cmd->add_subcommand("matmul",
                                 "MFU of public models' weight matmuls on NeuronCore-v3/v4 (modelled), the catalog's "
                                 "GPUs (roofline) and this host (oneDNN, measured), against FLOPs per matmul");
  mm->add_option("--m", a->ms, "Token counts M")->delimiter(',')->capture_default_str();
  mm->add_option("--device", a->devices, "Catalog devices, comma-separated (default: trn2, trn3 and every GPU)")
      ->delimiter(',');
  mm->add_option("--shapes", a->shapes, "Shapes file (default: configs/qa/matmul_shapes.json in the project)");
  a->out = home.path("out/qa");  // the default under the data root; a typed --out is relative to where you stand
  mm->add_option("--out", a->out, "Folder for matmul_qa.csv and matmul_qa.svg")->capture_default_str();
  mm->add_flag("--no-host", a->no_host, "Leave out the host measurement");
  mm->add_option("--host-max-gflop", a->host_max_gflop, "Largest matmul the host measures, in GFLOP")
      ->capture_default_str();
  mm->callback([a, home] {
    check(!a->shapes.empty() || !home.project.empty(), "qa matmul: no project folder found; pass --shapes");
    const std::string shapes = !a->shapes.empty() ? a->shapes : home.project + "/configs/qa/matmul_shapes.json";
    const std::vector<qa::QaModel> models = qa::load_matmul_shapes(shapes);
    qa::MatmulQaOptions o;
    o.ms = a->ms;
    o.devices = a->devices;
    o.host_max_flops = a->host_max_gflop * 1e9;
    std::unique_ptr<Engine> engine;
    if (!a->no_host) engine = std::make_unique<Engine>(EngineOptions{});
    const std::vector<qa::MatmulQaRow> rows = qa::run_matmul_qa(models, o, engine ? &engine->gemm() : nullptr);
    const std::string& dir = a->out;
    make_directories(dir);
    const std::string csv = qa::matmul_qa_csv(rows), svg = qa::matmul_qa_svg(rows);
    write_file_atomic(dir + "/matmul_qa.csv", csv.data(), csv.size());
    write_file_atomic(dir + "/matmul_qa.svg", svg.data(), svg.size());
    std::cout << qa::matmul_qa_summary(rows) << "NeuronCores modelled (software NeuronCore), GPUs by roofline (an "
              << "upper bound), host measured\nwrote " << dir << "/matmul_qa.csv and " << dir << "/matmul_qa.svg ("
              << rows.size() << " rows; shapes from " << shapes << ")\n";
  });

  struct AttentionArgs {
    qa::AttentionQaOptions o;
    bool json = false;
  };
  auto at = std::make_shared<AttentionArgs>();
  auto* attn = cmd->add_subcommand("attention",
                                   "The 96-configuration attention grid (dense, causal, ALiBi, sliding window; MHA "
                                   "and GQA) forward and backward on the software NeuronCore: time, MFU, bandwidth, "
                                   "numerics against fp64");
  attn->add_option("--core", at->o.core, "v3 (Trn2) | v4 (Trn3)")->capture_default_str();
  attn->add_option("--window", at->o.window, "Keys of the sliding window")->capture_default_str();
  attn->add_option("--numerics-max-seq", at->o.numerics_max_seq,
                   "Check slices against fp64 up to this sequence length (longer ones are timed only)")
      ->capture_default_str();
  attn->add_option("--full-timing-max-seq", at->o.full_timing_max_seq,
                   "Simulate the full shape up to this sequence length (longer: from 2 and 3 kv groups)")
      ->capture_default_str();
  attn->add_option("--seq", at->o.seqs, "Only these sequence lengths (default: 512, 2048, 8192)")->delimiter(',');
  attn->add_flag("--json", at->json, "Machine-readable output");
  attn->callback([at] {
    const std::vector<qa::AttentionQaRow> rows =
        qa::run_attention_qa(at->o, [](const std::string& line) { std::cerr << line; });
    if (at->json)
      std::cout << qa::attention_qa_json(rows, at->o).dump(2) << "\n";
    else
      std::cout << qa::attention_qa_table(rows) << "NeuronCore-" << at->o.core
                << " modelled (software NeuronCore timing model), numerics from its functional executor\n";
    for (const qa::AttentionQaRow& r : rows)
      if (!r.passed()) throw CLI::RuntimeError(1);
  });
  add_qa_models(cmd, home);
}

}  // namespace nanotrn::cli
