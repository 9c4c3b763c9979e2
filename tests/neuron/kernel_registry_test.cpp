// The kernel registry (neuron/registry/kernel_registry.h): a kernel defined outside the shipped set is one
// definition, which then builds, times and checks through run_kernel like the shipped ones; the registry refuses a
// second kernel of a name, a parameter name of two types and a definition missing its build; parameters parse once
// with errors naming the flag; a shape of another kernel's type is refused by name.
#include "neuron/registry/kernel_registry.h"

#include <gtest/gtest.h>

#include <string>

#include "base/error.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::neuron {
namespace {

struct DoubleShape {
  int64_t rows = 128, cols = 64;
};

// y = x + x on VectorE, one [rows <= 128, cols] tile: exact in any float dtype short of overflow.
KernelDefinition<DoubleShape> double_definition() {
  KernelDefinition<DoubleShape> d;
  d.name = "double";
  d.description = "y = x + x on VectorE";
  d.params = {int_param("rows", 128, "rows of x (<= 128)"), int_param("cols", 64, "columns of x")};
  d.from_params = [](const KernelParams& p) { return DoubleShape{p.integer("rows"), p.integer("cols")}; };
  d.to_params = [](const DoubleShape& s) { return KernelParams{{"rows", s.rows}, {"cols", s.cols}}; };
  d.describe = [](const DoubleShape& s) { return std::to_string(s.rows) + "x" + std::to_string(s.cols); };
  d.build = [](KernelBuilder& b, const DoubleShape& s, const KernelContext& c, KernelIo& io) {
    const View x = io.add_input(b.hbm("x", s.rows, s.cols, c.dtype));
    const View y = b.hbm("y", s.rows, s.cols, c.dtype);
    io.add_output(y, y);
    const View t = b.sbuf("t", s.rows, s.cols, c.dtype), r = b.sbuf("r", s.rows, s.cols, c.dtype);
    b.dma_copy(t, x, 0);
    b.tensor_tensor(r, t, t, AluOp::add);
    b.dma_copy(y, r, 1);
  };
  d.inputs = [](const DoubleShape& s, DType, uint64_t seed) {
    HostTensors in{std::vector<float>(static_cast<size_t>(s.rows * s.cols))};
    for (size_t i = 0; i < in[0].size(); ++i) in[0][i] = static_cast<float>((i * 37 + seed) % 101) / 8.0f - 6.0f;
    return in;
  };
  d.check = [](const DoubleShape&, DType, const HostTensors& in, const HostTensors& out) {
    CheckOutcome c;
    c.rule = "exact: y == 2 x";
    for (size_t i = 0; i < in[0].size(); ++i) c.compare(out[0][i], 2.0 * static_cast<double>(in[0][i]), 0.0);
    return c;
  };
  return d;
}

TEST(KernelRegistry, AKernelOfYourOwnIsOneDefinition) {
  KernelRegistry r = builtin_kernels();
  r.add(double_definition());
  ASSERT_EQ(r.entries().size(), builtin_kernels().entries().size() + 1);
  KernelRunOptions o = kernel_options("double", DoubleShape{96, 200});
  o.dtype = DType::f32;
  o.check = true;
  const KernelRunResult res = run_kernel(r, o);
  EXPECT_TRUE(res.check_passed) << kernel_run_text(res);
  EXPECT_EQ(res.max_abs_error, 0.0);
  EXPECT_GT(res.report.total_ns, 0.0);
  EXPECT_EQ(res.shape_text, "96x200");
  EXPECT_EQ(kernel_run_json(res).at("params").at("cols").get<int64_t>(), 200);
  // A wrong output is caught: the check has teeth.
  const HostTensors in = check_inputs(r, o);
  HostTensors out = run_kernel_outputs(r, o, in);
  EXPECT_EQ(check_outputs(r, o, in, out).failures, 0u);
  out[0][17] += 0.25f;
  EXPECT_EQ(check_outputs(r, o, in, out).failures, 1u);
  // The shipped registry does not know it.
  EXPECT_THROW(run_kernel(o), Error);
}

TEST(KernelRegistry, RefusesDuplicatesConflictsAndIncompleteDefinitions) {
  KernelRegistry r;
  r.add(double_definition());
  EXPECT_THROW(r.add(double_definition()), Error);  // same name
  KernelDefinition<DoubleShape> other = double_definition();
  other.name = "other";
  other.params[0] = real_param("rows", 1.5, "rows as a number");  // "rows" is an integer in "double"
  EXPECT_THROW(r.add(other), Error);
  KernelDefinition<DoubleShape> no_build = double_definition();
  no_build.name = "no_build";
  no_build.build = nullptr;
  EXPECT_THROW(r.add(no_build), Error);
  KernelDefinition<DoubleShape> half = double_definition();
  half.name = "half";
  half.check = nullptr;  // inputs without a check
  EXPECT_THROW(r.add(half), Error);
  try {
    r.at("conv");
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("known: double"), std::string::npos) << e.what();
  }
}

TEST(KernelRegistry, ParametersParseOnceAndShapesAreTyped) {
  const KernelEntry& mm = builtin_kernels().at("matmul");
  EXPECT_EQ(std::get<int64_t>(parse_param(mm.params[0], "4096")), 4096);
  EXPECT_THROW(parse_param(mm.params[0], "40x"), Error);
  const KernelEntry& attn = builtin_kernels().at("attention");
  ParamSpec mask;
  for (const ParamSpec& p : attn.params)
    if (p.name == "mask") mask = p;
  EXPECT_EQ(std::get<std::string>(parse_param(mask, "sliding_window")), "sliding_window");
  try {
    parse_param(mask, "diagonal");
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--mask 'diagonal'"), std::string::npos) << e.what();
  }
  // Defaults make a shape; another kernel's shape type is refused by name.
  const AttentionShape def = std::any_cast<AttentionShape>(attn.default_shape());
  EXPECT_EQ(def.seq, 1024);
  EXPECT_EQ(def.variant.mask, AttentionMask::causal);
  try {
    run_kernel(kernel_options("attention", MatmulShape{}));
    FAIL() << "expected a refusal";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'attention' takes a shape of type"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nanotrn::neuron
