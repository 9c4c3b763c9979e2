// The kernels of one predicted training step, largest time first, each with what binds it (hw/bound.h): the
// `--top N` table of `nanotrn predict`, the speedrun's report and the HTML report.
//
//   std::vector<KernelLine> k = step_kernels(p.phases.back().time, p.rank_peak_flops, p.rank_bytes_per_s);
//   k[0].label, k[0].seconds, k[0].share, k[0].bound.bound (hw::Engine, empty when stall-bound), k[0].bound.verdict
//
// A line is one kernel signature of the step: ops with the same pass, kernel, shape and name once the layer prefix
// ("L3 ") is dropped are one line (the same projection in every layer), its time summed over the layers and, for
// micro-batch ops, over the step's `accum` micro-batches. share = seconds / the step's time (kernel times before
// overlap, so shares may sum past 100 % where kernels run side by side). The verdict uses the rank's peak FLOP/s and
// HBM bandwidth for the ridge (kernel_cost.h).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hw/bound.h"
#include "predict/step_model.h"

namespace nanotrn::predict {

struct KernelLine {
  std::string label;  // "attn q" (layer prefix dropped)
  Pass pass = Pass::forward;
  std::string kernel;       // the tile kernel or collective (KernelOp::kernel_name); "" = roofline
  std::string shape;        // the tile kernel's shape in words (KernelOp::shape_text); "-" for none
  int64_t instances = 0;    // ops merged into this line (layers)
  int64_t invocations = 0;  // kernel invocations in the step
  double seconds = 0, share = 0;
  double flops = 0, bytes = 0;  // the whole line
  std::string method;
  hw::BoundVerdict bound;
};

std::vector<KernelLine> step_kernels(const StepTime& step, double rank_peak_flops, double rank_bytes_per_s);

// The first n lines as a text table (n = 0: every line).
std::string kernels_text(const std::vector<KernelLine>& lines, size_t n);
nlohmann::json kernels_json(const std::vector<KernelLine>& lines, size_t n);

}  // namespace nanotrn::predict
