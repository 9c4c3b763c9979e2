// `nanotrn qa matmul`: the MFU of each public model's weight matmuls (matmul_shapes.h) at M = 1, 128 and 2048 tokens
// on one NeuronCore-v3 and -v4 (the library matmul timed on the software NeuronCore: modelled), on the catalog's
// GPUs (roofline at their bf16 peak and HBM bandwidth: an upper bound), and on this host (oneDNN bf16, measured),
// against FLOPs per matmul: the axes of the public Trn3 / GB300 / B200 matmul chart.
//
//   MatmulQaOptions o;                                     // defaults: M 1, 128, 2048; trn2, trn3 and every GPU
//   std::vector<MatmulQaRow> rows = run_matmul_qa(load_matmul_shapes(path), o, &gemm);   // gemm null: no host rows
//   write matmul_qa_csv(rows) and matmul_qa_svg(rows)
//
// MFU = 2 M K N / (seconds x the unit's bf16 peak): a NeuronCore's TensorE peak (neuron/isa/machine.h), a GPU chip's
// catalog peak, the host's measured arithmetic peak for its bf16 GEMM path (hw/cpu_peak.h). Bytes for the rooflines:
// bf16 inputs and an fp32 output once each. The host measures shapes up to host_max_flops (a larger one is listed as
// not measured) as the best of repeated calls over about 0.05 s after a warm-up call.
// Not here: fp8 or MX rates, batched (expert) matmuls as one call, the host's fp32 path.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemm/gemm.h"
#include "qa/matmul_shapes.h"

namespace nanotrn::qa {

struct MatmulQaOptions {
  std::vector<int64_t> ms = {1, 128, 2048};
  std::vector<std::string> devices;  // catalog names; empty: trn2, trn3 and every GPU
  double host_max_flops = 4e10;
  int host_threads = 0;  // 0: omp_get_max_threads()
};

struct MatmulQaRow {
  std::string model, projection, device, method;  // device: "trn2 NeuronCore-v3", "h100", "host"
  int64_t m = 0, k = 0, n = 0;
  double flops = 0, seconds = 0, mfu = 0, peak_flops = 0;
  bool measured = false;  // host rows that ran; false with seconds = 0 for a host shape over the cap
};

std::vector<MatmulQaRow> run_matmul_qa(const std::vector<QaModel>& models, const MatmulQaOptions& options,
                                       Gemm* host_gemm);
// One row per (model, projection, M, device): model,projection,m,k,n,flops,device,method,seconds,tflops,mfu_percent.
std::string matmul_qa_csv(const std::vector<MatmulQaRow>& rows);
// MFU % against log10 FLOPs per matmul, one series per device (report/svg_chart.h).
std::string matmul_qa_svg(const std::vector<MatmulQaRow>& rows);
// Per device: the smallest, median and largest MFU, as text.
std::string matmul_qa_summary(const std::vector<MatmulQaRow>& rows);

}  // namespace nanotrn::qa
