// What a tile kernel is to the rest of nanotrn: one definition per kernel, which `nanotrn kernel list|run`, `--check`,
// the QA grids and the step-time predictor all read (kernel_registry.h holds them). A definition is written against
// the kernel's own typed shape (shapes.h for the shipped kernels, any copyable struct for yours):
//
//   struct ScaleShape { int64_t rows = 256, cols = 512; float factor = 2; };
//   KernelDefinition<ScaleShape> d;
//   d.name = "scale";  d.description = "y = factor x on ScalarE";
//   d.params = {int_param("rows", 256, "rows of x"), int_param("cols", 512, "columns of x"),
//               real_param("factor", 2, "the multiplier")};
//   d.from_params = [](const KernelParams& p) { return ScaleShape{p.integer("rows"), p.integer("cols"),
//                                                                 static_cast<float>(p.real("factor"))}; };
//   d.to_params = [](const ScaleShape& s) { return KernelParams{{"rows", s.rows}, {"cols", s.cols},
//                                                               {"factor", double{s.factor}}}; };
//   d.build = [](KernelBuilder& b, const ScaleShape& s, const KernelContext& c, KernelIo& io) { ... };
//   d.inputs = ...;  d.check = ...;   // optional: without them the kernel is timed only
//   registry.add(d);                  // kernel_registry.h
//
// The parts:
//   params       the kernel's parameters with their types, defaults and help: the CLI makes a flag of each
//                (`--tile-rows` for tile_rows), refuses a flag no parameter of the chosen kernel has, and parses
//                every value once, here, before from_params sees it
//   from_params  parameters -> the typed shape, where the kernel's own rules are checked (Error names the value);
//                to_params the reverse, for the JSON report
//   describe     the shape in words for the text report ("512x512x512", "8 head(s), T 1024, d 128, causal")
//   build        one core's program: declares the HBM tensors (KernelIo: inputs in the order inputs() fills them,
//                each output whole with the part this core writes) and emits the kernel for core c.core of
//                c.cores (an SPMD launch splits the work: each core writes its own rows)
//   inputs       seeded host inputs for --check, one per KernelIo input, rounded to the dtype
//   check        compares the executor's outputs (whole tensors, KernelIo output order) with an fp64 reference,
//                element by element, against a bound derived from the kernel's roundings (CheckOutcome)
//   check_size   the host reference's cost, refused above its limit unless the caller budgets its own time
//   flops        FLOPs for the report's TFLOP/s and MFU (0 or unset: the report counts the matmuls' FLOPs)
//   hbm_bytes    the bytes a fused kernel must move (its inputs and outputs once), for bandwidth use (0: unknown)
//   batched      g invocations of the shape as one call, stacked along its first dimension (matmul rows, heads):
//                how the step-time predictor times a batched op in one launch (optional: unset, it times one)
// Not here: running, timing or checking a kernel (kernel_run.h), the registry (kernel_registry.h).
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <typeinfo>
#include <variant>
#include <vector>

#include "dtype/dtype.h"
#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

// ---- parameters ----

enum class ParamType { integer, real, flag, choice };
using ParamValue = std::variant<int64_t, double, bool, std::string>;

struct ParamSpec {
  std::string name;  // snake_case; the CLI flag is --name with '_' as '-'
  ParamType type = ParamType::integer;
  ParamValue default_value = int64_t{0};
  std::string help;
  std::vector<std::string> choices{};  // choice only: the accepted values
};
ParamSpec int_param(std::string name, int64_t default_value, std::string help);
ParamSpec real_param(std::string name, double default_value, std::string help);
ParamSpec flag_param(std::string name, std::string help);  // default false
ParamSpec choice_param(std::string name, std::string default_value, std::vector<std::string> choices, std::string help);

// Named parameter values. The getters throw nanotrn::Error naming the parameter when it is absent or of another
// type, so a definition reads its parameters without checks of its own.
class KernelParams {
 public:
  KernelParams() = default;
  KernelParams(std::initializer_list<std::pair<const std::string, ParamValue>> values) : values_(values) {}
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::string& text(const std::string& name) const;
  void set(const std::string& name, ParamValue v) { values_[name] = std::move(v); }
  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  const ParamValue& at(const std::string& name) const;
  std::map<std::string, ParamValue> values_;
};

// `text` as a value of `spec` ("4096", "1e-6", "true", "causal"); throws nanotrn::Error naming the flag.
ParamValue parse_param(const ParamSpec& spec, const std::string& text);
std::string param_text(const ParamValue& v);

// ---- one core's program ----

struct KernelContext {
  DType dtype = DType::bf16;  // HBM tensors and on-chip compute dtype
  Schedule schedule = Schedule::pipelined;
  int core = 0, cores = 1;  // this program's core of an SPMD launch
};

// The HBM tensors of one core's program: the inputs (whole tensors, in inputs() order) and, per output, the whole
// tensor and the part of it this core writes.
struct KernelIo {
  std::vector<View> inputs, outputs, written;
  View add_input(const View& whole) {
    inputs.push_back(whole);
    return whole;
  }
  View add_output(const View& whole, const View& mine) {
    outputs.push_back(whole);
    written.push_back(mine);
    return mine;
  }
};

// Rows [lo, hi) of `total` for core `c` of `cores` (even split, the last core takes the remainder).
std::pair<int64_t, int64_t> core_share(int64_t total, int c, int cores);

// ---- checks ----

struct CheckOutcome {
  double max_abs_error = 0, max_bound = 0;
  size_t failures = 0;  // elements past their bound
  std::string rule;     // the bound in words
  void compare(double got, double ref, double bound);
};
using HostTensors = std::vector<std::vector<float>>;

struct CheckSize {
  double work = 0, limit = 0;  // the host reference's operations and the most it may take
  std::string what;            // "multiply-adds (M x K x N)"
};

// ---- the definition ----

template <class Shape>
struct KernelDefinition {
  std::string name, description;
  std::vector<ParamSpec> params;
  std::function<Shape(const KernelParams&)> from_params;
  std::function<KernelParams(const Shape&)> to_params;
  std::function<std::string(const Shape&)> describe;
  std::function<void(KernelBuilder&, const Shape&, const KernelContext&, KernelIo&)> build;
  std::function<HostTensors(const Shape&, DType, uint64_t seed)> inputs;                           // optional
  std::function<CheckOutcome(const Shape&, DType, const HostTensors&, const HostTensors&)> check;  // optional
  std::function<CheckSize(const Shape&)> check_size;                                               // optional
  std::function<double(const Shape&)> flops;                                                       // optional
  std::function<double(const Shape&, DType)> hbm_bytes;                                            // optional
  std::function<Shape(const Shape&, int64_t)> batched;                                             // optional
};

// A definition with its shape type erased, as the registry stores it: every function takes the shape as std::any
// and throws nanotrn::Error naming the kernel and both types when it holds another type.
struct KernelEntry {
  std::string name, description;
  std::vector<ParamSpec> params;
  const std::type_info* shape_type = nullptr;
  std::function<std::any(const KernelParams&)> from_params;
  std::function<KernelParams(const std::any&)> to_params;
  std::function<std::string(const std::any&)> describe;
  std::function<void(KernelBuilder&, const std::any&, const KernelContext&, KernelIo&)> build;
  std::function<HostTensors(const std::any&, DType, uint64_t)> inputs;
  std::function<CheckOutcome(const std::any&, DType, const HostTensors&, const HostTensors&)> check;
  std::function<CheckSize(const std::any&)> check_size;
  std::function<double(const std::any&)> flops;
  std::function<double(const std::any&, DType)> hbm_bytes;
  std::function<std::any(const std::any&, int64_t)> batched;
  bool checkable() const { return inputs && check; }
  // The definition's defaults as a shape (from_params of every parameter's default).
  std::any default_shape() const;
};

// The shape inside `shape`, or nanotrn::Error "kernel '<kernel>' takes a shape of type <type>; got <type>".
[[noreturn]] void throw_shape_mismatch(const std::string& kernel, const std::type_info& want, const std::any& shape);
template <class Shape>
const Shape& shape_of(const std::string& kernel, const std::any& shape) {
  if (const Shape* s = std::any_cast<Shape>(&shape)) return *s;
  throw_shape_mismatch(kernel, typeid(Shape), shape);
}

// Throws nanotrn::Error naming what is missing (name, params, from_params, to_params, describe, build) or a
// parameter whose default is not of its type.
void check_entry(const KernelEntry& e);

template <class Shape>
KernelEntry erase(KernelDefinition<Shape> d) {
  KernelEntry e;
  e.name = d.name;
  e.description = d.description;
  e.params = d.params;
  e.shape_type = &typeid(Shape);
  const std::string n = d.name;
  auto S = [n](const std::any& a) -> const Shape& { return shape_of<Shape>(n, a); };
  if (d.from_params) e.from_params = [f = d.from_params](const KernelParams& p) { return std::any(f(p)); };
  if (d.to_params) e.to_params = [f = d.to_params, S](const std::any& a) { return f(S(a)); };
  if (d.describe) e.describe = [f = d.describe, S](const std::any& a) { return f(S(a)); };
  if (d.build)
    e.build = [f = d.build, S](KernelBuilder& b, const std::any& a, const KernelContext& c, KernelIo& io) {
      f(b, S(a), c, io);
    };
  if (d.inputs) e.inputs = [f = d.inputs, S](const std::any& a, DType t, uint64_t seed) { return f(S(a), t, seed); };
  if (d.check)
    e.check = [f = d.check, S](const std::any& a, DType t, const HostTensors& in, const HostTensors& out) {
      return f(S(a), t, in, out);
    };
  if (d.check_size) e.check_size = [f = d.check_size, S](const std::any& a) { return f(S(a)); };
  if (d.flops) e.flops = [f = d.flops, S](const std::any& a) { return f(S(a)); };
  if (d.hbm_bytes) e.hbm_bytes = [f = d.hbm_bytes, S](const std::any& a, DType t) { return f(S(a), t); };
  if (d.batched) e.batched = [f = d.batched, S](const std::any& a, int64_t g) { return std::any(f(S(a), g)); };
  check_entry(e);
  return e;
}

}  // namespace nanotrn::neuron
