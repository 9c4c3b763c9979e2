// `nanotrn kernel list` / `nanotrn kernel run <kernel> ...`: the registered tile kernels (neuron/registry/) on the
// software NeuronCore (modelled time, TFLOP/s, % of TensorE peak, engine use; optional trace and functional check).
// The flags of the kernels' parameters come from their definitions (one flag per parameter name, --tile-rows for
// tile_rows); a flag the chosen kernel has no parameter for is refused. The work is in neuron/registry/kernel_run.h;
// this file only parses flags and prints.
#include <iostream>
#include <map>
#include <memory>

#include "base/error.h"
#include "cli/commands.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::cli {
namespace {

std::string flag_name(const std::string& param) {
  std::string f = param;
  for (char& c : f)
    if (c == '_') c = '-';
  return "--" + f;
}

std::string params_line(const neuron::KernelEntry& e) {
  std::string s;
  for (const neuron::ParamSpec& p : e.params) {
    s += (s.empty() ? "" : " ") + flag_name(p.name);
    if (p.type == neuron::ParamType::choice) {
      std::string c;
      for (const std::string& x : p.choices) c += (c.empty() ? " " : "|") + x;
      s += c;
    }
  }
  return s + " --dtype bf16|f32|fp8e4m3|f16 --core v2|v3|v4 --schedule naive|pipelined --lnc 1|2";
}

}  // namespace

void add_kernel(CLI::App& app) {
  const neuron::KernelRegistry& registry = neuron::builtin_kernels();
  auto* cmd = app.add_subcommand("kernel", "Tile kernels on the software NeuronCore (timing model)");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List the tile kernels");
  list->callback([&registry] {
    for (const neuron::KernelEntry& e : registry.entries())
      std::cout << e.name << "\n  " << e.description << "\n  " << params_line(e) << "\n";
  });
  struct Args {
    std::string kernel = "matmul", dtype = "bf16", core = "v3", schedule = "pipelined", trace;
    std::map<std::string, std::string> values;  // parameter name -> the flag's text, when given
    std::map<std::string, CLI::Option*> options;
    int lnc = 1;
    bool json = false, check = false;
  };
  auto args = std::make_shared<Args>();
  auto* run = cmd->add_subcommand("run", "Build, time and summarise a kernel");
  run->add_option("kernel", args->kernel, "Kernel name (see `kernel list`)")->required();
  for (const neuron::KernelRegistry::SharedParam& p : registry.all_params()) {
    const std::string help = p.spec.help + " [default " + neuron::param_text(p.spec.default_value) + "]";
    std::string& slot = args->values[p.spec.name];
    args->options[p.spec.name] = p.spec.type == neuron::ParamType::flag
                                     ? run->add_flag_callback(
                                           flag_name(p.spec.name), [&slot] { slot = "true"; }, help)
                                     : run->add_option(flag_name(p.spec.name), slot, help);
  }
  run->add_option("--lnc", args->lnc, "physical cores: 1, or 2 (SPMD on a v3/v4 core pair)")->capture_default_str();
  run->add_option("--dtype", args->dtype, "bf16 | fp8e4m3 | f32 | f16")->capture_default_str();
  run->add_option("--core", args->core, "v2 | v3 | v4")->capture_default_str();
  run->add_option("--schedule", args->schedule, "naive | pipelined")->capture_default_str();
  run->add_option("--trace", args->trace, "Write a Chrome trace (Perfetto) JSON to this file");
  run->add_flag("--json", args->json, "Machine-readable output");
  run->add_flag("--check", args->check,
                "Also run the functional executor and compare with host math; exit 1 past the bound");
  run->callback([args, &registry] {
    const neuron::KernelEntry& e = registry.at(args->kernel);
    neuron::KernelParams params;
    for (const neuron::ParamSpec& p : e.params)
      params.set(p.name, args->options.at(p.name)->count() > 0 ? neuron::parse_param(p, args->values.at(p.name))
                                                               : p.default_value);
    for (const auto& [name, opt] : args->options)
      if (opt->count() > 0 && params.values().count(name) == 0)
        throw Error(flag_name(name) + " is not a parameter of kernel '" + e.name +
                    "' (its parameters: " + params_line(e) + ")");
    neuron::KernelRunOptions o;
    o.kernel = e.name;
    o.shape = e.from_params(params);
    o.physical_cores = args->lnc;
    o.dtype = neuron::kernel_dtype(args->dtype);
    o.core = args->core;
    o.schedule = neuron::kernel_schedule(args->schedule);
    o.trace_path = args->trace;
    o.check = args->check;
    const neuron::KernelRunResult r = neuron::run_kernel(registry, o);
    if (args->json)
      std::cout << neuron::kernel_run_json(r).dump(2) << "\n";
    else
      std::cout << neuron::kernel_run_text(r);
    if (r.checked && !r.check_passed) throw CLI::RuntimeError(1);
  });
}

}  // namespace nanotrn::cli
