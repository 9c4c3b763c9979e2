// The software stack a launch runs on, as data: how a real launch departs from the modelled device's library tile
// kernels (the `ideal` profile, which is what predict/step_model.h composes when every parameter is neutral). One
// small JSON file per profile (configs/stacks/*.json, embedded in the binary); a recipe names one with
// `launch.stack` (a shipped name, a file, or the profile itself inline), `predict --stack` is that override.
//
//   const StackProfile& p = builtin_stack("nki-tuned");          // Error naming the shipped profiles
//   StackProfile q = read_stack_profile("my-stack.json");         // a calibration's output (predict/calibration.h)
//   p.value(StackParam::step_overhead_s);  p.param(StackParam::matmul_efficiency).source;
//
// The parameters (each a value with its source: base/sourced.h):
//   matmul_efficiency, attention_efficiency, vector_efficiency, collective_efficiency
//       the speed of the stack's kernels relative to the library tile kernels the model times, per op class
//       (predict/lowering.h: OpClass): a kernel takes its modelled time / efficiency. 1 = the library kernel.
//   dma_contention     the fraction of a collective's time that slows the compute it overlaps (the gradient
//                      all-reduce under the last backward shares the DMA rings with the GEMMs' operands)
//   graph_launch_s     host cost of launching one compiled graph (compiled execution: one per micro-batch and one
//                      for the optimiser)
//   op_dispatch_s      host cost of dispatching one op (eager execution: every op is its own graph; the device
//                      waits whenever the host is behind)
//   step_overhead_s    a fixed cost per step that does not grow with the batch: host synchronisation, the loss
//                      read, the optimiser's launch, the data feed
//   compile_s_per_instruction
//                      compile time per tile-program instruction of the run's compiled graphs, charged before the
//                      first step (recipe-spec §12: compile time counts); 0 for eager execution
//   band               [low, high]: multipliers of a predicted step time between which the measurement fell on every
//                      leave-one-out prediction of the profile's fit (or the spread of the model's errors on the
//                      public points, for profiles that fit nothing)
// A parameter may be {"from": "<shipped profile>", "why": "..."}: its value and source are that profile's (no number
// written twice). `execution` is compiled (one graph per micro-batch: independent kernels overlap) or eager (one op
// per graph, run one after another). `fit` keeps the fit's inputs and results beside the values (calibration.h).
// Strictness: an unknown key, a missing parameter, a value out of its range or a source left empty is an Error
// naming the profile and the field.
// Not here: how the parameters enter a step's time (predict/step_model.h), fitting them (predict/calibration.h).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sourced.h"

namespace nanotrn::recipe {

enum class Execution { compiled, eager };
std::string_view to_string(Execution e);

enum class StackParam {
  matmul_efficiency,
  attention_efficiency,
  vector_efficiency,
  collective_efficiency,
  dma_contention,
  graph_launch_s,
  op_dispatch_s,
  step_overhead_s,
  compile_s_per_instruction
};
inline constexpr int kStackParamCount = 9;
std::string_view to_string(StackParam p);
// The parameter of that name, or nullopt.
std::optional<StackParam> stack_param_named(std::string_view name);
// Every parameter, in declaration order.
std::array<StackParam, kStackParamCount> all_stack_params();

struct StackProfile {
  std::string name = "ideal";
  std::string description;
  std::string origin = "builtin";  // "builtin", or the file it was read from
  Execution execution = Execution::compiled;
  std::array<Sourced, kStackParamCount> params{};
  Sourced band_low{1.0, ""}, band_high{1.0, ""};
  nlohmann::json fit;  // the fit's stored inputs and results (predict/calibration.h); null when nothing was fitted

  const Sourced& param(StackParam p) const { return params[static_cast<size_t>(p)]; }
  Sourced& param(StackParam p) { return params[static_cast<size_t>(p)]; }
  double value(StackParam p) const { return param(p).value; }
  bool builtin() const { return origin == "builtin"; }
};

// Strict reading. `where` names the profile in errors (a file, "builtin profile 'x'", "recipe launch.stack").
// "from" references resolve against the shipped profiles.
StackProfile stack_profile_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json stack_profile_to_json(const StackProfile& p);
StackProfile read_stack_profile(const std::string& path);

// The shipped profiles (configs/stacks/*.json), parsed once: an immutable function-local value.
const std::vector<StackProfile>& builtin_stacks();
// A shipped profile by name; "compiled" and "eager" name the TorchNeuron profiles (torchneuron-compiled,
// torchneuron-eager). Error naming the shipped ones.
const StackProfile& builtin_stack(std::string_view name);
// A shipped name (aliases included), else a file path. Error naming the shipped profiles when it is neither.
StackProfile resolve_stack(const std::string& name_or_path);
// True when `text` names a shipped profile or an alias.
bool is_builtin_stack_name(std::string_view text);

}  // namespace nanotrn::recipe
