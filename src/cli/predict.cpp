// `nanotrn predict`: a recipe's training step priced on a catalog device (src/predict/predictor.h): step time per
// batch phase, tokens/s, MFU, steps in the budget, breakdown by op group and engine; --json, --trace, --sweep.
// This file parses flags and prints; the work is in the library.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>

#include "base/error.h"
#include "base/file.h"
#include "cli/commands.h"
#include "cli/recipe_args.h"
#include "engine/engine.h"
#include "gemm/probe.h"
#include "hw/catalog.h"
#include "model/hf_config.h"
#include "predict/calibration.h"
#include "predict/legend.h"
#include "predict/predictor.h"
#include "recipe/recipe.h"

namespace nanotrn::cli {
namespace {

// The device by name; `usd_per_chip_hour` > 0 replaces its catalog price (one chip per "instance").
hw::Device pick_device(const std::string& name, const recipe::Recipe& r, double usd_per_chip_hour) {
  const hw::Catalog c = hw::builtin_catalog();
  hw::Device d;
  if (name != "host") {
    d = c.find(name);
  } else {
    Engine engine(EngineOptions{.num_threads = r.train.threads});
    d = hw::host_device(c, measure_gemm_gflops(engine.gemm(), r.train.precision, 0.3));  // the recipe's precision
  }
  if (usd_per_chip_hour > 0) {
    d.price = hw::InstancePrice{
        .instance = "one chip", .instance_chips = 1, .usd_per_hour = {usd_per_chip_hour, "given: --usd-per-chip-hour"}};
  }
  return d;
}

std::vector<std::string> split_values(const std::string& sweep, std::string* key) {
  const size_t eq = sweep.find('=');
  check(eq != std::string::npos && eq > 0, "--sweep expects key=v1,v2,... (got '" + sweep + "')");
  *key = sweep.substr(0, eq);
  std::vector<std::string> v;
  std::string rest = sweep.substr(eq + 1);
  size_t at = 0;
  while (at <= rest.size()) {
    const size_t comma = rest.find(',', at);
    const std::string item = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    check(!item.empty(), "empty value in '" + sweep + "'");
    v.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

using RecipeLoader = std::function<recipe::Recipe(const std::vector<std::string>& extra_sets)>;

// One --sweep: its key (a layout flag's name stands for its launch key: tp=1,2,4 is launch.tp=1,2,4) and values.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

SweepAxis sweep_axis(const std::string& sweep) {
  SweepAxis axis;
  axis.values = split_values(sweep, &axis.key);
  for (const char* k : {"tp", "pp", "ep", "zero", "lnc", "ranks_per_chip", "chips", "nodes", "stack", "recompute",
                        "sequence_parallel"}) {
    if (axis.key == k) axis.key = std::string("launch.") + k;
  }
  return axis;
}

// Every combination of the axes' values, the first axis slowest: the grid's rows as "key=value" overrides.
std::vector<std::vector<std::string>> sweep_grid(const std::vector<SweepAxis>& axes) {
  std::vector<std::vector<std::string>> rows = {{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::string>> next;
    for (const std::vector<std::string>& row : rows) {
      for (const std::string& v : axis.values) {
        next.push_back(row);
        next.back().push_back(axis.key + "=" + v);
      }
    }
    rows = std::move(next);
  }
  return rows;
}

// `predict --sweep k1=a,b --sweep k2=c,d`: one prediction per combination; a combination the predictor refuses (it
// does not fit the device's memory, an impossible layout) is a row saying why, not the end of the table.
void print_sweep(const RecipeLoader& load, const std::vector<std::string>& sweeps, const hw::Device& device,
                 const predict::PredictOptions& o, bool json) {
  std::vector<SweepAxis> axes;
  for (const std::string& s : sweeps) axes.push_back(sweep_axis(s));
  nlohmann::json rows = nlohmann::json::array();
  std::string keys;
  for (const SweepAxis& axis : axes) keys += (keys.empty() ? "" : " x ") + axis.key;
  if (!json) {
    std::printf("sweep %s on %s (modelled, not measured)\n", keys.c_str(), device.name.c_str());
    for (const SweepAxis& axis : axes) std::printf("%12s ", axis.key.c_str());
    std::printf("%12s %12s %6s %8s %s\n", "params", "FLOPs/tok", "ranks", "steps", "per phase: step s / tok/s / MFU");
  }
  for (const std::vector<std::string>& sets : sweep_grid(axes)) {
    nlohmann::json row;
    for (const std::string& set : sets) {
      const std::string value = set.substr(set.find('=') + 1);
      row["values"].push_back(value);
      if (!json) std::printf("%12s ", value.c_str());
    }
    try {
      const predict::Prediction p = predict::predict(load(sets), device, o);
      row["prediction"] = predict::prediction_json(p);
      if (!json) {
        std::printf("%12lld %12.4g %6lld %8lld ", static_cast<long long>(p.params), p.flops_per_token,
                    static_cast<long long>(p.ranks), static_cast<long long>(p.walk.steps));
        for (const predict::PhasePrediction& ph : p.phases)
          std::printf(" | %.4f s %.0f tok/s %.1f%%", ph.time.step_s, ph.tokens_per_s, 100.0 * ph.mfu);
        std::printf("\n");
      }
    } catch (const Error& e) {
      row["refused"] = e.message();
      if (!json) std::printf("refused: %s\n", e.message().c_str());
    }
    rows.push_back(std::move(row));
  }
  if (json) {
    nlohmann::json ks = nlohmann::json::array();
    for (const SweepAxis& axis : axes) ks.push_back(axis.key);
    std::cout << nlohmann::json{{"sweep", ks}, {"rows", rows}}.dump(2) << "\n";
  }
}

// `predict --calibrate runs.json --out profile.json`: the fit, printed, and the profile written (never over a file).
void run_calibration(const std::string& runs, const std::string& out, bool json, const Home& home) {
  check(!out.empty(), "--calibrate writes a stack profile: give --out FILE");
  check(!std::filesystem::exists(out), "--out " + out + " exists; nanotrn does not overwrite it (choose a new name)");
  const predict::Calibration c = predict::calibrate(predict::read_calibration_spec(runs, home));
  const std::string text = recipe::stack_profile_to_json(c.profile).dump(2) + "\n";
  write_file_atomic(out, text.data(), text.size());
  if (json) {
    std::cout << nlohmann::json{{"profile", out}, {"free", c.free}, {"fit", c.profile.fit}}.dump(2) << "\n";
    return;
  }
  std::cout << predict::calibration_text(c) << "wrote " << out << " (use it: --stack " << out << ")\n";
}

}  // namespace

void add_predict(CLI::App& app, const Home& home) {
  struct Args {
    RecipeArgs recipe;
    std::string device = "trn2", trace, model_config;
    std::vector<std::string> sweep;  // one axis each: key=v1,v2,...
    int64_t trace_phase = -1, top = 10;
    std::string lnc, ranks_per_chip, chips, nodes, stack, tp, pp, ep, zero;  // launch overrides ("" = the recipe's)
    bool recompute = false, sequence_parallel = false;
    bool json = false, shard_optimizer = false, no_overlap = false, explain = false;
    std::string calibrate, out, budget;
    int64_t tokens = 0;
    double usd_per_chip_hour = 0;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("predict", "Predict a recipe's step time, tokens/s, MFU and steps on a device");
  add_recipe_flags(cmd, a->recipe, home);
  cmd->add_option("--device", a->device,
                  "Catalog device (nanotrn devices), or host (measured); several, comma-separated (trn2,trn3,h100), "
                  "print one comparison table")
      ->capture_default_str();
  cmd->add_option("--top", a->top, "Rows of the top-kernels table (0 = every kernel)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option(
      "--lnc", a->lnc,
      "Physical NeuronCores per rank, NEURON_LOGICAL_NC_CONFIG (= --set launch.lnc=N; 0 = the device default)");
  cmd->add_option("--ranks-per-chip", a->ranks_per_chip,
                  "Data-parallel ranks per chip, nproc_per_node (= --set launch.ranks_per_chip=N; 0 = one per logical "
                  "core; the cores no rank owns are idle)");
  cmd->add_option("--chips", a->chips, "Chips used of a server device (= --set launch.chips=N; 0 = all)");
  cmd->add_option("--nodes", a->nodes,
                  "Copies of a server device joined over EFA, e.g. 32 for 32 x trn1-server (= --set launch.nodes=N)");
  add_stack_flag(cmd, a->stack);
  cmd->add_option("--tp", a->tp, "Tensor-parallel ranks per replica (= --set launch.tp=N)");
  cmd->add_option("--pp", a->pp, "Pipeline stages per replica, 1F1B (= --set launch.pp=N)");
  cmd->add_option("--ep", a->ep,
                  "Expert-parallel replicas for a mixture of experts: the experts split over them, tokens sent by "
                  "all-to-all (= --set launch.ep=N)");
  cmd->add_option("--zero", a->zero, "ZeRO stage 0-3 over the data-parallel replicas (= --set launch.zero=N)");
  cmd->add_flag("--recompute", a->recompute, "Recompute each block in the backward (= --set launch.recompute=true)");
  cmd->add_flag("--sequence-parallel", a->sequence_parallel,
                "With --tp: reduce-scatter/all-gather, norms split (= --set launch.sequence_parallel=true)");
  cmd->add_flag("--shard-optimizer", a->shard_optimizer, "Split Muon's Newton-Schulz over the data-parallel ranks");
  cmd->add_flag("--no-overlap", a->no_overlap, "Do not overlap the gradient all-reduce with the last backward");
  cmd->add_option("--model-config", a->model_config,
                  "A Hugging Face config.json (Llama, Mistral, Qwen2, Qwen3; configs/hf/ has examples): its model "
                  "replaces the recipe's, the batch, budget and launch stay the recipe's");
  cmd->add_option("--calibrate", a->calibrate,
                  "Fit a stack profile to measured runs (a runs.json: {\"base\": profile, \"runs\": [{\"recipe\", "
                  "\"set\", \"device\", \"step_s\"}, ...]}, predict/calibration.h), print the values, residuals and "
                  "leave-one-out errors, and write the profile to --out");
  cmd->add_option("--out", a->out, "With --calibrate: the profile file to write (refused when it exists)");
  cmd->add_option("--budget", a->budget,
                  "Charged-time budget, e.g. 30m or 4h (= --set train.budget=D --set train.steps=0)");
  cmd->add_option("--tokens", a->tokens,
                  "Price the run to this many tokens: the budget becomes the shortest one whose walk reaches them")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--usd-per-chip-hour", a->usd_per_chip_hour,
                  "Price per chip-hour for the cost line, in place of the catalog's on-demand price (e.g. a Capacity "
                  "Block or reserved rate)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--explain", a->explain, "Print what every line and column of the output means, and stop");
  cmd->add_flag("--json", a->json, "Machine-readable output");
  cmd->add_option("--trace", a->trace, "Write a Perfetto (Chrome trace) JSON of one step to this file");
  cmd->add_option("--trace-phase", a->trace_phase, "Batch phase of the traced step (default: the last)");
  cmd->add_option("--sweep", a->sweep,
                  "Predict once per value: key=v1,v2,... (e.g. model.depth=8,10,12; a layout flag's name stands for "
                  "its launch key: tp=1,2,4); repeat it for a grid over several keys. A combination that does not "
                  "fit is a row saying why")
      ->take_all();
  cmd->callback([a, home] {
    if (!a->calibrate.empty()) {
      run_calibration(a->calibrate, a->out, a->json, home);
      return;
    }
    if (a->explain) {
      std::cout << predict::legend_text();
      return;
    }
    check(a->out.empty(), "--out names the profile --calibrate writes; give --calibrate too");
    check(a->tokens == 0 || a->budget.empty(), "give --tokens or --budget, not both (--tokens sets the budget)");
    if (!a->budget.empty()) a->recipe.sets.insert(a->recipe.sets.end(), {"train.budget=" + a->budget, "train.steps=0"});
    // The launch flags are recipe overrides, applied after --set (so they win) and to every --sweep value.
    for (const auto& [key, value] :
         {std::pair{"lnc", a->lnc}, std::pair{"ranks_per_chip", a->ranks_per_chip}, std::pair{"chips", a->chips},
          std::pair{"nodes", a->nodes}, std::pair{"stack", a->stack}, std::pair{"tp", a->tp}, std::pair{"pp", a->pp},
          std::pair{"ep", a->ep}, std::pair{"zero", a->zero},
          std::pair{"recompute", std::string(a->recompute ? "true" : "")},
          std::pair{"sequence_parallel", std::string(a->sequence_parallel ? "true" : "")}}) {
      if (!value.empty()) a->recipe.sets.push_back(std::string("launch.") + key + "=" + value);
    }
    const predict::PredictOptions o{
        .shard_optimizer = a->shard_optimizer, .overlap_allreduce = !a->no_overlap, .tokens = a->tokens};
    std::optional<model::HfModel> hf;
    if (!a->model_config.empty()) hf = model::read_hf_config(a->model_config);
    const RecipeLoader load = [a, home, hf](const std::vector<std::string>& extra) {
      recipe::Recipe r = open_recipe(a->recipe, home, extra);
      if (hf) {
        r.model = hf->config;
        r.model_notes.clear();  // the recipe's own model_config, replaced; the flag's notes are added below
        r.name = std::filesystem::path(a->model_config).stem().string() + " (" + hf->architecture + ") with " + r.name +
                 "'s batch and launch";
      }
      return r;
    };
    const recipe::Recipe recipe = load({});
    auto with_notes = [&hf](predict::Prediction p) {
      if (hf) {
        for (const std::string& n : hf->notes) p.notes.push_back("Hugging Face config: " + n);
      }
      return p;
    };
    const size_t top = static_cast<size_t>(a->top);
    if (a->device.find(',') != std::string::npos) {
      check(a->sweep.empty() && a->trace.empty(),
            "--device with several devices compares them; it takes no "
            "--sweep or --trace (give one device for those)");
      std::string key;
      std::vector<predict::Prediction> ps;
      for (const std::string& d : split_values("device=" + a->device, &key)) {
        ps.push_back(with_notes(predict::predict(recipe, pick_device(d, recipe, a->usd_per_chip_hour), o)));
      }
      if (a->json) {
        nlohmann::json j = nlohmann::json::array();
        for (const predict::Prediction& p : ps) j.push_back(predict::prediction_json(p, top));
        std::cout << nlohmann::json{{"devices", j}}.dump(2) << "\n";
      } else {
        std::cout << predict::comparison_text(ps);
      }
      return;
    }
    const hw::Device device = pick_device(a->device, recipe, a->usd_per_chip_hour);
    if (!a->sweep.empty()) {
      print_sweep(load, a->sweep, device, o, a->json);
      return;
    }
    const predict::Prediction p = with_notes(predict::predict(recipe, device, o));
    if (!a->trace.empty()) {
      const size_t phase = a->trace_phase < 0 ? p.phases.size() - 1 : static_cast<size_t>(a->trace_phase);
      check(phase < p.phases.size(), "--trace-phase " + std::to_string(a->trace_phase) + ": the recipe has " +
                                         std::to_string(p.phases.size()) + " phase(s)");
      const std::string text = predict::prediction_trace(p, phase).dump();
      write_file_atomic(a->trace, text.data(), text.size());
    }
    if (a->json) {
      std::cout << predict::prediction_json(p, top).dump(2) << "\n";
    } else {
      std::cout << predict::prediction_text(p, top);
      if (!a->trace.empty()) std::cout << "trace: " << a->trace << " (open in ui.perfetto.dev)\n";
    }
  });
}

}  // namespace nanotrn::cli
