// predict's legend. See legend.h.
#include "predict/legend.h"

namespace nanotrn::predict {

const std::vector<LegendEntry>& prediction_legend() {
  static const std::vector<LegendEntry> legend = {
      {"lines", "model:",
       "parameters (embeddings included), model FLOPs per token (recipe-spec §2.4: forward and "
       "backward, no MTP heads, no recompute), sequence length T, GEMM precision; peak = the "
       "launched chips' dense BF16 FLOP/s from the catalog"},
      {"lines", "launch:",
       "nodes, chips, data-parallel ranks per chip, the logical-core size (LNC) and the software "
       "stack; the indented notes under it say what was assumed and how each part was priced"},
      {"lines", "band:", "the stack's uncertainty on each step time, as multipliers, with its source"},
      {"lines", "compile:",
       "the stack's compile time before the first step, and what of it counts against the budget "
       "(after launch.compile_allowance_s)"},
      {"lines", "tokens", "with --tokens N: the shortest time budget whose walk reaches N tokens"},
      {"lines", "budget",
       "the budget walk under the trainer's own rules (recipe/budget.h): steps taken, their band "
       "(at the band's high and low step times), steps per batch phase, tokens, charged time, "
       "mean tokens/s"},
      {"lines", "data:", "the tokens the walk trains against data.train's tokens: epochs of the data"},
      {"lines", "cost:",
       "chip-hours held (compile and steps; evaluation not included) and their price: the chips' "
       "share of the on-demand instance and the whole instances rented, with the catalog's source "
       "and date (run_cost.h); no price when the catalog has none public"},
      {"lines", "breakdown",
       "one step of the last phase, by op group: kernel times before the stages overlap, with "
       "launch gaps, exposed all-reduce and host dispatch"},
      {"lines", "engine busy", "the same step per engine class of one rank (DMA = its busiest queue)"},
      {"lines", "priced by:", "seconds priced on the software NeuronCore versus by roofline"},
      {"lines", "top kernels", "the step's kernels merged across layers, largest first (--top N rows)"},
      {"lines", "prediction:", "kernels timed, shapes cached and the predictor's own wall time"},
      {"phase table", "phase", "batch phase index (recipe batch.phases)"},
      {"phase table", "from", "progress (0..1 of the budget) at which the phase starts"},
      {"phase table", "accum", "micro-batches per step"},
      {"phase table", "heads", "cross-entropy heads active at the phase's start (MTP)"},
      {"phase table", "tokens/step", "accum x rows x T over all replicas"},
      {"phase table", "step s", "modelled step time (seconds)"},
      {"phase table", "(band)", "the step time, or tokens/s, at the band's low and high ends"},
      {"phase table", "micro-batch", "one micro-batch's forward and backward (seconds)"},
      {"phase table", "optimizer", "the optimiser step (Muon's Newton-Schulz and AdamW)"},
      {"phase table", "all-reduce(exp)",
       "the gradient collectives, and in brackets what of them is exposed (not "
       "overlapped with the backward)"},
      {"phase table", "host s", "host time per step: graph launches (compiled) or op dispatch (eager)"},
      {"phase table", "tok/s", "tokens per second of the whole launch"},
      {"phase table", "MFU", "model FLOPs per token x tok/s / the launched chips' dense BF16 peak"},
      {"top kernels", "kernel", "the op, as the lowering names it"},
      {"top kernels", "pass", "forward, backward or optimiser"},
      {"top kernels", "shape", "the kernel's shape (M x K x N for a matmul)"},
      {"top kernels", "x", "invocations per step"},
      {"top kernels", "time s", "seconds per step over all invocations"},
      {"top kernels", "share", "of the step time"},
      {"top kernels", "bound", "the engine that sets the kernel's time (hw/bound.h)"},
      {"top kernels", "FLOP/B", "arithmetic intensity, against the rank's ridge point"},
      {"top kernels", "verdict", "why that engine binds"},
      {"comparison", "device", "catalog device (--device a,b,c)"},
      {"comparison", "kind", "trainium, gpu or cpu"},
      {"comparison", "ranks", "data-parallel ranks launched"},
      {"comparison", "lnc", "physical cores per logical core"},
      {"comparison", "step s", "the last phase's step time"},
      {"comparison", "tok/s", "the last phase's tokens per second"},
      {"comparison", "MFU", "the last phase's model FLOPs utilisation"},
      {"comparison", "steps in budget", "steps of the budget walk"},
      {"comparison", "held h", "hours the chips are held: compile and steps"},
      {"comparison", "chip-h", "chips x held hours"},
      {"comparison", "$", "the chips' share of the on-demand instance price (- = no public price)"},
      {"comparison", "largest kernel (bound)", "the last phase's largest kernel, its share and binding engine"},
      {"sweep", "params", "parameters of the combination's model"},
      {"sweep", "FLOPs/tok", "model FLOPs per token"},
      {"sweep", "ranks", "data-parallel ranks"},
      {"sweep", "steps", "steps of the budget walk"},
      {"sweep", "per phase",
       "per batch phase: step seconds, tokens/s and MFU; a combination that does not fit is a "
       "row saying why"},
  };
  return legend;
}

std::string legend_text() {
  std::string s = "predict's output, line by line and column by column (modelled, not measured):\n";
  std::string section;
  for (const LegendEntry& e : prediction_legend()) {
    if (e.section != section) {
      section = e.section;
      s += "\n" + section + ":\n";
    }
    s += "  " + e.label + std::string(e.label.size() < 22 ? 22 - e.label.size() : 1, ' ') + e.meaning + "\n";
  }
  return s;
}

}  // namespace nanotrn::predict
