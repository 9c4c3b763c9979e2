// `nanotrn kernel list` / `nanotrn kernel run matmul|transpose|softmax|rmsnorm|vector_add|attention|
// attention_bwd ...`: tile kernels
// on the software NeuronCore (modelled time, TFLOP/s, % of TensorE peak, engine use; optional trace and functional
// check). The work is in neuron/kernel_run.h; this file only parses flags and prints.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "neuron/kernel_run.h"

namespace nanotrn::cli {

void add_kernel(CLI::App& app) {
  auto* cmd = app.add_subcommand("kernel", "Tile kernels on the software NeuronCore (timing model)");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List the tile kernels");
  list->callback([] {
    for (const neuron::KernelInfo& k : neuron::kernel_list())
      std::cout << k.name << "\n  " << k.description << "\n  " << k.parameters << "\n";
  });
  struct Args {
    std::string kernel = "matmul", dtype = "bf16", core = "v3", schedule = "pipelined", trace, mask = "causal";
    int64_t window = 0, group = 1;
    bool alibi = false;
    int64_t m = 4096, k = 4096, n = 4096, rows = 4096, cols = 4096, t = 1024, d = 128, heads = 1;
    int64_t tile_rows = 128, tile_cols = 512;
    float eps = 1e-6f;
    int lnc = 1;
    bool json = false, check = false;
  };
  auto args = std::make_shared<Args>();
  auto* run = cmd->add_subcommand("run", "Build, time and summarise a kernel");
  run->add_option("kernel", args->kernel, "Kernel name (see `kernel list`)")->required();
  run->add_option("--m", args->m, "M (rows of C)")->capture_default_str();
  run->add_option("--k", args->k, "K (contraction)")->capture_default_str();
  run->add_option("--n", args->n, "N (columns of C)")->capture_default_str();
  run->add_option("--rows", args->rows, "rows of x (transpose, softmax, rmsnorm, vector_add)")->capture_default_str();
  run->add_option("--cols", args->cols, "columns of x (transpose, softmax, rmsnorm, vector_add)")
      ->capture_default_str();
  run->add_option("--tile-rows", args->tile_rows, "vector_add: partitions per SBUF tile (1..128)")
      ->capture_default_str();
  run->add_option("--tile-cols", args->tile_cols, "vector_add: columns per SBUF tile")->capture_default_str();
  run->add_option("--eps", args->eps, "rmsnorm epsilon")->capture_default_str();
  run->add_option("--t", args->t, "attention: sequence length T (a multiple of 128)")->capture_default_str();
  run->add_option("--d", args->d, "attention: head dim d (<= 128, or 256/384/512)")->capture_default_str();
  run->add_option("--heads", args->heads, "attention: stacked (batch, query head) pairs")->capture_default_str();
  run->add_option("--mask", args->mask, "attention, attention_bwd: causal | none | sliding_window")
      ->capture_default_str();
  run->add_option("--window", args->window,
                  "attention, attention_bwd: the sliding window W (keys query - W < key <= query)")
      ->capture_default_str();
  run->add_flag("--alibi", args->alibi,
                "attention, attention_bwd: ALiBi, the standard slopes 2^(-8 (h + 1) / heads) over the stacked heads");
  run->add_option("--group", args->group,
                  "attention, attention_bwd: query heads per kv head (GQA; --heads for MQA); k and v have heads / "
                  "group heads")
      ->capture_default_str();
  run->add_option("--lnc", args->lnc, "physical cores: 1, or 2 (SPMD on a v3/v4 core pair)")->capture_default_str();
  run->add_option("--dtype", args->dtype, "bf16 | fp8e4m3 | f32 | f16")->capture_default_str();
  run->add_option("--core", args->core, "v2 | v3 | v4")->capture_default_str();
  run->add_option("--schedule", args->schedule, "naive | pipelined")->capture_default_str();
  run->add_option("--trace", args->trace, "Write a Chrome trace (Perfetto) JSON to this file");
  run->add_flag("--json", args->json, "Machine-readable output");
  run->add_flag("--check", args->check,
                "Also run the functional executor and compare with host math; exit 1 past the bound");
  run->callback([args] {
    neuron::KernelRunOptions o;
    o.kernel = args->kernel;
    o.m = args->m;
    o.k = args->k;
    o.n = args->n;
    o.rows = args->rows;
    o.cols = args->cols;
    o.tile_rows = args->tile_rows;
    o.tile_cols = std::min(args->tile_cols, args->cols);
    o.eps = args->eps;
    o.seq = args->t;
    o.head_dim = args->d;
    o.heads = args->heads;
    o.variant = {neuron::parse_attention_mask(args->mask), args->window};
    o.variant.group = args->group;
    if (args->alibi) o.variant.alibi_slopes = neuron::standard_alibi_slopes(args->heads);
    o.physical_cores = args->lnc;
    o.dtype = neuron::kernel_dtype(args->dtype);
    o.core = args->core;
    o.schedule = neuron::kernel_schedule(args->schedule);
    o.trace_path = args->trace;
    o.check = args->check;
    const neuron::KernelRunResult r = neuron::run_kernel(o);
    if (args->json)
      std::cout << neuron::kernel_run_json(r).dump(2) << "\n";
    else
      std::cout << neuron::kernel_run_text(r);
    if (r.checked && !r.check_passed) throw CLI::RuntimeError(1);
  });
}

}  // namespace nanotrn::cli
