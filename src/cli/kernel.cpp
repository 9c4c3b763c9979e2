// `nanotrn kernel list` / `nanotrn kernel run <kernel> ...`: the registered tile kernels (neuron/registry/) on the
// software NeuronCore (modelled time, TFLOP/s, % of TensorE peak, engine use; optional trace and functional check).
// Each kernel is a subcommand of `run` with exactly its parameters as typed flags, from its definition (one flag per
// parameter name, --tile-rows for tile_rows: INT, FLOAT, a choice checked against its values, or a flag), so `kernel
// run attention --help` lists attention's and a flag the kernel has no parameter for is refused by the parser. The
// options every kernel takes (--dtype, --core, --schedule, --lnc, --trace, --json, --check) belong to `run`. The work
// is in neuron/registry/kernel_run.h; this file only parses flags and prints.
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

std::string choices_text(const std::vector<std::string>& choices) {
  std::string c;
  for (const std::string& x : choices) c += (c.empty() ? "" : "|") + x;
  return c;
}

// The shared options' values in words, from the rules that read them (neuron/registry/kernel_run.h).
std::string dtypes_text() {
  std::string t;
  for (DType d : neuron::kernel_dtypes()) t += (t.empty() ? "" : "|") + std::string(dtype_name(d));
  return t;
}

std::string params_line(const neuron::KernelEntry& e) {
  std::string s;
  for (const neuron::ParamSpec& p : e.params) {
    s += (s.empty() ? "" : " ") + flag_name(p.name);
    if (p.type == neuron::ParamType::choice) s += " " + choices_text(p.choices);
  }
  return s + " --dtype " + dtypes_text() + " --core v2|v3|v4 --schedule " +
         choices_text(neuron::kernel_schedule_names()) + " --lnc 1|2";
}

// What `kernel run` takes for every kernel.
struct RunArgs {
  std::string dtype = "bf16", core = "v3", schedule = "pipelined", trace;
  int lnc = 1;
  bool json = false, check = false;
};

// One kernel's typed flags: each parameter's text, parsed by the definition's own rule when given.
struct KernelFlags {
  std::map<std::string, std::string> values;
  std::map<std::string, CLI::Option*> options;
};

void add_param_flag(CLI::App* sub, const neuron::ParamSpec& p, KernelFlags& flags) {
  const std::string help = p.help + " [default " + neuron::param_text(p.default_value) + "]";
  std::string& slot = flags.values[p.name];
  if (p.type == neuron::ParamType::flag) {
    flags.options[p.name] = sub->add_flag_callback(
        flag_name(p.name), [&slot] { slot = "true"; }, help);
    return;
  }
  // The type the help shows; the definition's parse_param is the one rule that reads (and refuses) the text.
  CLI::Option* o = sub->add_option(flag_name(p.name), slot, help);
  o->type_name(p.type == neuron::ParamType::integer ? "INT"
               : p.type == neuron::ParamType::real  ? "FLOAT"
                                                    : choices_text(p.choices));
  flags.options[p.name] = o;
}

void run_one(const neuron::KernelRegistry& registry, const neuron::KernelEntry& e, const KernelFlags& flags,
             const RunArgs& a) {
  neuron::KernelParams params;
  for (const neuron::ParamSpec& p : e.params) {
    params.set(p.name, flags.options.at(p.name)->count() > 0 ? neuron::parse_param(p, flags.values.at(p.name))
                                                             : p.default_value);
  }
  neuron::KernelRunOptions o;
  o.kernel = e.name;
  o.shape = e.from_params(params);
  o.physical_cores = a.lnc;
  o.dtype = neuron::kernel_dtype(a.dtype);
  o.core = a.core;
  o.schedule = neuron::kernel_schedule(a.schedule);
  o.trace_path = a.trace;
  o.check = a.check;
  const neuron::KernelRunResult r = neuron::run_kernel(registry, o);
  if (a.json)
    std::cout << neuron::kernel_run_json(r).dump(2) << "\n";
  else
    std::cout << neuron::kernel_run_text(r);
  if (r.checked && !r.check_passed) throw CLI::RuntimeError(1);
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
  auto args = std::make_shared<RunArgs>();
  auto* run = cmd->add_subcommand("run", "Build, time and summarise a kernel: kernel run <kernel> [its flags]");
  run->require_subcommand(1);
  // Read by run_kernel's own rules (kernel_dtype, kernel_schedule, the core's spec and its LNC limit), which
  // name what they accept when they refuse.
  run->add_option("--lnc", args->lnc, "physical cores: 1, or 2 (SPMD on a v3/v4 core pair)")->capture_default_str();
  run->add_option("--dtype", args->dtype, dtypes_text())->capture_default_str();
  run->add_option("--core", args->core, "NeuronCore v2 | v3 | v4 (or a Trainium device: trn1, trn2, trn3)")
      ->capture_default_str();
  run->add_option("--schedule", args->schedule, choices_text(neuron::kernel_schedule_names()))->capture_default_str();
  run->add_option("--trace", args->trace, "Write a Chrome trace (Perfetto) JSON to this file");
  run->add_flag("--json", args->json, "Machine-readable output");
  run->add_flag("--check", args->check,
                "Also run the functional executor and compare with host math; exit 1 past the bound");
  for (const neuron::KernelEntry& e : registry.entries()) {
    auto flags = std::make_shared<KernelFlags>();
    CLI::App* sub = run->add_subcommand(e.name, e.description);
    sub->fallthrough();  // --dtype, --core, ... after the kernel's name go to `run`
    for (const neuron::ParamSpec& p : e.params) add_param_flag(sub, p, *flags);
    sub->callback([&registry, &e, flags, args] { run_one(registry, e, *flags, *args); });
  }
}

}  // namespace nanotrn::cli
