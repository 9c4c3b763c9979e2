// `nanotrn kernel` library side (see kernel_run.h). Not here: flag parsing (src/cli/kernel.cpp), host references
// (kernel_check.cpp).
#include "neuron/kernel_run.h"

#include <cstdio>

#include "base/error.h"
#include "neuron/attention_backward_check.h"
#include "neuron/builder.h"
#include "neuron/executor.h"
#include "neuron/kernel_check.h"
#include "neuron/kernels/attention.h"
#include "neuron/kernels/attention_backward.h"
#include "neuron/kernels/matmul.h"
#include "neuron/kernels/rmsnorm.h"
#include "neuron/kernels/softmax.h"
#include "neuron/kernels/transpose.h"
#include "neuron/kernels/vector_add.h"
#include "neuron/timing.h"
#include "neuron/trace.h"

namespace nanotrn::neuron {
namespace {

// One core's program of an SPMD launch: its HBM inputs (declaration order, whole tensors), its output tensors
// (whole; attention_bwd has three: dq, dk, dv) and, for each, the rows this core writes (matmul: rows of C;
// transpose: rows of y = columns of x; attention: the rows of this core's heads).
struct Built {
  Program program;
  std::vector<View> inputs, outputs, written;
  // One output tensor and the part of it this core writes.
  View add_output(const View& whole, const View& mine) {
    outputs.push_back(whole);
    written.push_back(mine);
    return mine;
  }
};

// Rows [lo, hi) of `total` for core `c` of `cores`.
std::pair<int64_t, int64_t> share(int64_t total, int c, int cores) {
  const int64_t per = ceil_div(total, cores);
  return {std::min(total, c * per), std::min(total, (c + 1) * per)};
}

// The variant of the stacked query heads [lo, hi) one core runs: their ALiBi slopes.
AttentionVariant core_variant(const AttentionVariant& v, int64_t lo, int64_t hi) {
  AttentionVariant w = v;
  if (v.alibi()) w.alibi_slopes.assign(v.alibi_slopes.begin() + lo, v.alibi_slopes.begin() + hi);
  return w;
}

Built build(const KernelRunOptions& o, const NeuronCoreSpec& s, int c, int cores) {
  KernelBuilder b(s);
  Built out;
  if (o.kernel == "matmul") {
    const View at = b.hbm("a_t", o.k, o.m, o.dtype), bm = b.hbm("b", o.k, o.n, o.dtype);
    const View cm = b.hbm("c", o.m, o.n, DType::f32);
    const auto [lo, hi] = share(o.m, c, cores);
    out.inputs = {at, bm};
    const View w = out.add_output(cm, b.slice(cm, lo, hi - lo, 0, o.n));
    matmul_kernel(b, b.slice(at, 0, o.k, lo, hi - lo), bm, w, o.dtype, o.schedule);
  } else if (o.kernel == "transpose") {
    const View x = b.hbm("x", o.rows, o.cols, o.dtype), y = b.hbm("y", o.cols, o.rows, o.dtype);
    const auto [lo, hi] = share(o.cols, c, cores);  // split the columns of x (rows of y)
    out.inputs = {x};
    const View w = out.add_output(y, b.slice(y, lo, hi - lo, 0, o.rows));
    transpose_kernel(b, b.slice(x, 0, o.rows, lo, hi - lo), w, o.schedule);
  } else if (o.kernel == "softmax" || o.kernel == "rmsnorm") {
    const View x = b.hbm("x", o.rows, o.cols, o.dtype);
    const View g = o.kernel == "rmsnorm" ? b.hbm("gamma", 1, o.cols, o.dtype) : View{};
    const View y = b.hbm("y", o.rows, o.cols, o.dtype);
    const auto [lo, hi] = share(o.rows, c, cores);
    out.inputs = {x};
    if (o.kernel == "rmsnorm") out.inputs.push_back(g);
    const View w = out.add_output(y, b.slice(y, lo, hi - lo, 0, o.cols));
    const View xs = b.slice(x, lo, hi - lo, 0, o.cols);
    if (o.kernel == "softmax")
      softmax_kernel(b, xs, w, o.schedule);
    else
      rmsnorm_kernel(b, xs, g, w, o.eps, o.schedule);
  } else if (o.kernel == "vector_add") {
    const View a = b.hbm("a", o.rows, o.cols, o.dtype), x = b.hbm("b", o.rows, o.cols, o.dtype);
    const View y = b.hbm("out", o.rows, o.cols, o.dtype);
    const auto [lo, hi] = share(o.rows, c, cores);
    out.inputs = {a, x};
    const View w = out.add_output(y, b.slice(y, lo, hi - lo, 0, o.cols));
    vector_add_kernel(b, b.slice(a, lo, hi - lo, 0, o.cols), b.slice(x, lo, hi - lo, 0, o.cols), w,
                      {.rows = o.tile_rows, .cols = o.tile_cols}, o.schedule);
  } else if (o.kernel == "attention") {
    const int64_t t = o.seq, d = o.head_dim, g = o.variant.group, rows = o.heads * t, kv_rows = rows / g;
    const View qt = b.hbm("q_t", d, rows, o.dtype);
    const View kt = b.hbm("k_t", d, kv_rows, o.dtype);
    const View v = b.hbm("v", kv_rows, d, o.dtype);
    const View y = b.hbm("o", rows, d, o.dtype);
    const auto [lo, hi] = share(o.heads / g, c, cores);  // whole kv groups per core
    out.inputs = {qt, kt, v};
    const View w = out.add_output(y, b.slice(y, lo * g * t, (hi - lo) * g * t, 0, d));
    attention_kernel(b, b.slice(qt, 0, d, lo * g * t, (hi - lo) * g * t), b.slice(kt, 0, d, lo * t, (hi - lo) * t),
                     b.slice(v, lo * t, (hi - lo) * t, 0, d), w, (hi - lo) * g, core_variant(o.variant, lo * g, hi * g),
                     o.schedule);
  } else if (o.kernel == "attention_bwd") {
    const int64_t t = o.seq, d = o.head_dim, g = o.variant.group, rows = o.heads * t, kv_rows = rows / g;
    auto tensor = [&](const char* name, int64_t r) { return b.hbm(name, r, d, o.dtype); };
    const View q = tensor("q", rows), k = tensor("k", kv_rows), v = tensor("v", kv_rows);
    const View y = tensor("o", rows), dy = tensor("dout", rows);
    const View lse = b.hbm("lse", rows, 1, DType::f32);
    const View dq = tensor("dq", rows), dk = tensor("dk", kv_rows), dv = tensor("dv", kv_rows);
    const auto [lo, hi] = share(o.heads / g, c, cores);  // whole kv groups per core
    auto mine = [&](const View& x) {
      const int64_t per = x.np == rows ? g * t : t;  // query-head or kv-head rows
      return b.slice(x, lo * per, (hi - lo) * per, 0, x.nf);
    };
    out.inputs = {q, k, v, y, dy, lse};
    out.add_output(dq, mine(dq));
    out.add_output(dk, mine(dk));
    out.add_output(dv, mine(dv));
    attention_backward_kernel(b,
                              {.q = mine(q),
                               .k = mine(k),
                               .v = mine(v),
                               .o = mine(y),
                               .dout = mine(dy),
                               .lse = mine(lse),
                               .dq = out.written[0],
                               .dk = out.written[1],
                               .dv = out.written[2]},
                              (hi - lo) * g, core_variant(o.variant, lo * g, hi * g), o.schedule);
  } else {
    throw Error("unknown kernel '" + o.kernel + "' (see `nanotrn kernel list`)");
  }
  out.program = b.take();
  return out;
}

}  // namespace

std::vector<KernelInfo> kernel_list() {
  const std::string common = " --dtype bf16|f32|fp8e4m3|f16 --core v2|v3|v4 --schedule naive|pipelined --lnc 1|2";
  return {
      {"matmul",
       "C[M,N] fp32 = A_T[K,M]^T @ B[K,N]; naive (no overlap, no reuse) and pipelined (blocked, operands resident "
       "in SBUF, double-buffered DMAs over 16 queues; fp8 double-row on v3/v4)",
       "--m --k --n" + common},
      {"transpose",
       "y[C,R] = x[R,C]^T on TensorE (nc_transpose); naive per 128x128 block, pipelined with 512-row groups "
       "filling PSUM banks, double-buffered strips, Vector/Scalar eviction",
       "--rows --cols" + common},
      {"softmax",
       "row softmax: VectorE -max, ScalarE exp with bias and fused row sum, VectorE reciprocal and scale; "
       "pipelined: 4 tile sets, steps skewed across tiles, scale alternating Vector/Scalar",
       "--rows --cols" + common},
      {"rmsnorm",
       "x * rsqrt(mean(x^2) + eps) * gamma (gamma broadcast by a stride-0 DMA): ScalarE square with fused sum, "
       "rsqrt, scale; VectorE gamma; pipelined: 4 tile sets, steps skewed across tiles",
       "--rows --cols --eps" + common},
      {"vector_add",
       "out = a + b over [rows, cols] in SBUF tiles of [tile-rows, tile-cols] (CS149's vector_add_tiled: a vector "
       "as [n, 1] in [chunk, 1] tiles; vector_add_stream: [128, n / 128] in [128, free] tiles); naive as the "
       "assignment wrote it (one tile set, queue 0), pipelined double-buffered over 16 queues",
       "--rows --cols --tile-rows --tile-cols" + common},
      {"attention",
       "fused attention o = softmax(q k^T / sqrt(d)) v of stacked heads (causal, dense or sliding window) (q_t, k_t "
       "[d, heads T], v, o "
       "[heads T, d]; T % 128 == 0, d <= 128 or 256/384/512): online softmax over <= 512-key blocks in PSUM/SBUF, "
       "masked blocks skipped, diagonal mask by affine_select, P^T on TensorE; pipelined: blocks software-pipelined "
       "(scores 3 blocks ahead, accumulator 2 behind)",
       "--t --d --heads --mask causal|none|sliding_window --window" + common},
      {"attention_bwd",
       "flash-attention backward dq, dk, dv of stacked heads from q, k, v, o, dout [heads T, d] and the fp32 "
       "log-sum-exp [heads T, 1] (T % 128 == 0, d <= 128 or 256): P recomputed per 128 x 128 tile, masked tiles "
       "skipped, "
       "dK / dV accumulated in PSUM over each key tile's queries, dQ in SBUF; pipelined: items software-pipelined "
       "over 4 stages (kernels/attention_backward.h)",
       "--t --d --heads --mask causal|none|sliding_window --window" + common}};
}

DType kernel_dtype(const std::string& name) {
  if (name == "bf16") return DType::bf16;
  if (name == "fp8e4m3" || name == "f8e4m3") return DType::f8e4m3;
  if (name == "f32" || name == "fp32") return DType::f32;
  if (name == "f16" || name == "fp16") return DType::f16;
  throw Error("unknown kernel dtype '" + name + "' (bf16, fp8e4m3, f32, f16)");
}

Schedule kernel_schedule(const std::string& name) {
  if (name == "naive") return Schedule::naive;
  if (name == "pipelined") return Schedule::pipelined;
  throw Error("unknown schedule '" + name + "' (naive, pipelined)");
}

KernelRunResult run_kernel(const KernelRunOptions& o) {
  const bool mm = o.kernel == "matmul", attn = o.kernel == "attention" || o.kernel == "attention_bwd";
  check_attention_variant(o.variant, attn ? o.heads : 0);
  check(mm     ? o.m > 0 && o.k > 0 && o.n > 0
        : attn ? o.seq > 0 && o.head_dim > 0 && o.heads > 0
               : o.rows > 0 && o.cols > 0,
        "kernel sizes must be positive");
  const NeuronCoreSpec& s = spec_for(o.core);
  check(o.physical_cores >= 1 && static_cast<double>(o.physical_cores) <= s.max_physical_cores.value,
        "--lnc " + std::to_string(o.physical_cores) + ": NeuronCore-" + s.name + " launches on 1 to " +
            std::to_string(static_cast<int>(s.max_physical_cores.value)) + " physical cores [LNC]");
  if (attn)
    check(o.heads / o.variant.group >= o.physical_cores,
          "attention --lnc " + std::to_string(o.physical_cores) +
              " splits whole kv heads (with their query heads) over the cores: needs --heads / --group >= " +
              std::to_string(o.physical_cores));
  const double macs = attn ? static_cast<double>(o.heads) * static_cast<double>(o.seq) * static_cast<double>(o.seq) *
                                 static_cast<double>(o.head_dim)
                           : static_cast<double>(o.m) * static_cast<double>(o.k) * static_cast<double>(o.n);
  const double elements = static_cast<double>(o.rows) * static_cast<double>(o.cols);
  if (o.check && !o.check_any_size && (mm || attn))
    check(macs <= static_cast<double>(kMaxCheckMacs),
          "--check compares with plain fp64 host loops: refused above 1024^3 = " + std::to_string(kMaxCheckMacs) +
              " multiply-adds (got " +
              (attn ? "heads x T^2 x d = " + std::to_string(static_cast<int64_t>(macs))
                    : std::to_string(o.m) + "x" + std::to_string(o.k) + "x" + std::to_string(o.n)) +
              "); time larger sizes without --check");
  if (o.check && !o.check_any_size && !mm && !attn)
    check(elements <= static_cast<double>(kMaxCheckElements),
          "--check compares with plain fp64 host loops: refused above " + std::to_string(kMaxCheckElements) +
              " elements (got " + std::to_string(o.rows) + "x" + std::to_string(o.cols) + ")");
  std::vector<Built> built;
  for (int c = 0; c < o.physical_cores; ++c) built.push_back(build(o, s, c, o.physical_cores));
  std::vector<const Program*> programs;
  for (const Built& b : built) programs.push_back(&b.program);
  const std::vector<TimingResult> t = simulate_timing_spmd(programs, s);
  KernelRunResult r;
  r.options = o;
  r.report = make_report(programs, t, s, mm ? 2 * macs : o.kernel == "attention_bwd" ? attention_backward_flops(o) : 0);
  if (!o.trace_path.empty()) write_trace_file(o.trace_path, programs, t, s);
  if (o.check) {
    const bool bwd = o.kernel == "attention_bwd";
    const std::vector<std::vector<float>> inputs = bwd ? make_attention_backward_inputs(o) : make_check_inputs(o);
    const Built& b0 = built[0];
    std::vector<std::vector<float>> outs;
    for (const View& w : b0.outputs) outs.emplace_back(static_cast<size_t>(w.np * w.nf));
    for (const Built& b : built) {
      Executor ex(b.program, o.seed);
      for (size_t i = 0; i < b.inputs.size(); ++i) ex.set(b.inputs[i], inputs[i]);
      ex.run();
      for (size_t k = 0; k < b.written.size(); ++k) {
        const std::vector<float> part = ex.get(b.written[k]);
        std::copy(part.begin(), part.end(), outs[k].begin() + b.written[k].p0 * b.outputs[k].nf);
      }
    }
    const CheckOutcome c = bwd ? check_attention_backward(o, inputs, outs) : check_against_host(o, inputs, outs[0]);
    r.checked = true;
    r.max_abs_error = c.max_abs_error;
    r.error_bound = c.max_bound;
    r.failures = c.failures;
    r.check_passed = c.failures == 0;
    r.bound_rule = c.rule;
  }
  return r;
}

std::vector<std::vector<float>> run_kernel_outputs(const KernelRunOptions& o,
                                                   const std::vector<std::vector<float>>& inputs) {
  const Built b = build(o, spec_for(o.core), 0, 1);
  check(inputs.size() == b.inputs.size(), "run_kernel_outputs: " + o.kernel + " takes " +
                                              std::to_string(b.inputs.size()) + " inputs; got " +
                                              std::to_string(inputs.size()));
  Executor ex(b.program, o.seed);
  for (size_t i = 0; i < b.inputs.size(); ++i) ex.set(b.inputs[i], inputs[i]);
  ex.run();
  std::vector<std::vector<float>> outs;
  for (const View& w : b.written) outs.push_back(ex.get(w));
  return outs;
}

std::string kernel_run_text(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  const bool attn = o.kernel == "attention" || o.kernel == "attention_bwd";
  const std::string shape = o.kernel == "matmul"
                                ? std::to_string(o.m) + "x" + std::to_string(o.k) + "x" + std::to_string(o.n)
                            : attn ? std::to_string(o.heads) + " head(s), T " + std::to_string(o.seq) + ", d " +
                                         std::to_string(o.head_dim) + ", " + o.variant.describe()
                                   : std::to_string(o.rows) + "x" + std::to_string(o.cols);
  std::string s = o.kernel + " " + shape + " " + std::string(dtype_name(o.dtype)) + ", " + schedule_name(o.schedule) +
                  " schedule (modelled, not measured)\n";
  s += report_text(r.report);
  s += "bound: " + bound_verdict(r.report).verdict + "\n";
  if (!o.trace_path.empty()) s += "trace written to " + o.trace_path + "\n";
  if (r.checked) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "check: %s, max |error| %.3g, largest bound %.3g (%zu elements past their bound; bound: %s)\n",
                  r.check_passed ? "PASS" : "FAIL", r.max_abs_error, r.error_bound, r.failures, r.bound_rule.c_str());
    s += line;
  }
  return s;
}

nlohmann::json kernel_run_json(const KernelRunResult& r) {
  const KernelRunOptions& o = r.options;
  nlohmann::json j = {{"kernel", o.kernel},
                      {"dtype", std::string(dtype_name(o.dtype))},
                      {"core", o.core},
                      {"physical_cores", o.physical_cores},
                      {"schedule", schedule_name(o.schedule)},
                      {"report", report_json(r.report)},
                      {"bound", hw::bound_json(bound_verdict(r.report))}};
  if (o.kernel == "matmul") {
    j["m"] = o.m;
    j["k"] = o.k;
    j["n"] = o.n;
  } else if (o.kernel == "attention" || o.kernel == "attention_bwd") {
    j["seq"] = o.seq;
    j["head_dim"] = o.head_dim;
    j["heads"] = o.heads;
    j["mask"] = attention_mask_name(o.variant.mask);
    if (o.variant.mask == AttentionMask::sliding_window) j["window"] = o.variant.window;
    j["alibi"] = o.variant.alibi();
    j["group"] = o.variant.group;
  } else {
    j["rows"] = o.rows;
    j["cols"] = o.cols;
    if (o.kernel == "vector_add") {
      j["tile_rows"] = o.tile_rows;
      j["tile_cols"] = o.tile_cols;
    }
  }
  if (!o.trace_path.empty()) j["trace"] = o.trace_path;
  if (r.checked)
    j["check"] = {{"passed", r.check_passed},
                  {"max_abs_error", r.max_abs_error},
                  {"bound", r.error_bound},
                  {"bound_rule", r.bound_rule},
                  {"failures", r.failures}};
  return j;
}

Report time_kernel(const std::string& kernel, const std::vector<int64_t>& shape, DType dtype, const std::string& core,
                   Schedule schedule, int physical_cores) {
  KernelRunOptions o;
  o.kernel = kernel;
  o.dtype = dtype;
  o.core = core;
  o.schedule = schedule;
  o.physical_cores = physical_cores;
  if (kernel == "matmul") {
    check(shape.size() == 3, "time_kernel: matmul takes the shape {m, k, n}");
    o.m = shape[0];
    o.k = shape[1];
    o.n = shape[2];
  } else if (kernel == "attention" || kernel == "attention_bwd") {
    check(shape.size() == 3 || shape.size() == 4,
          "time_kernel: " + kernel +
              " takes the shape {heads, seq, head_dim} (causal) or {heads, seq, head_dim, window}");
    o.heads = shape[0];
    o.seq = shape[1];
    o.head_dim = shape[2];
    if (shape.size() == 4) o.variant = {AttentionMask::sliding_window, shape[3]};
  } else if (kernel == "vector_add") {
    check(shape.size() == 4, "time_kernel: vector_add takes the shape {rows, cols, tile_rows, tile_cols}");
    o.rows = shape[0];
    o.cols = shape[1];
    o.tile_rows = shape[2];
    o.tile_cols = shape[3];
  } else {
    check(shape.size() == 2, "time_kernel: " + kernel + " takes the shape {rows, cols}");
    o.rows = shape[0];
    o.cols = shape[1];
  }
  return run_kernel(o).report;
}

}  // namespace nanotrn::neuron
