// The matmul MFU sweep (see matmul_qa.h).
#include "qa/matmul_qa.h"

#include <omp.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "base/error.h"
#include "dtype/convert.h"
#include "gemm/probe.h"
#include "hw/catalog.h"
#include "io/csv.h"
#include "predict/kernel_cost.h"
#include "report/svg_chart.h"

namespace nanotrn::qa {
namespace {

std::vector<std::string> default_devices(const hw::Catalog& c) {
  std::vector<std::string> d = {"trn2", "trn3"};
  for (const hw::Device& x : c.devices())
    if (x.kind == hw::DeviceKind::gpu) d.push_back(x.name);
  return d;
}

// Best of repeated bf16 calls over about 0.05 s, after one warm-up call.
double host_seconds(Gemm& gemm, int64_t m, int64_t k, int64_t n) {
  std::mt19937 g(1);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<uint16_t> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n));
  for (uint16_t& x : a) x = static_cast<uint16_t>(std::bit_cast<uint32_t>(round_to(DType::bf16, u(g))) >> 16);
  for (uint16_t& x : b) x = static_cast<uint16_t>(std::bit_cast<uint32_t>(round_to(DType::bf16, u(g))) >> 16);
  std::vector<float> c(static_cast<size_t>(m * n));
  GemmDims d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.lda = k;
  d.ldb = n;
  d.ldc = n;
  gemm.bf16(d, 1.0f, a.data(), b.data(), 0.0f, c.data());
  double best = INFINITY, total = 0;
  while (total < 0.05) {
    const auto t0 = std::chrono::steady_clock::now();
    gemm.bf16(d, 1.0f, a.data(), b.data(), 0.0f, c.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    total += s;
  }
  return best;
}

}  // namespace

std::vector<MatmulQaRow> run_matmul_qa(const std::vector<QaModel>& models, const MatmulQaOptions& o, Gemm* host_gemm) {
  check(!o.ms.empty(), "qa matmul: no M given");
  for (int64_t m : o.ms) check(m > 0, "qa matmul: M must be positive, got " + std::to_string(m));
  const hw::Catalog catalog = hw::builtin_catalog();
  const std::vector<std::string> names = o.devices.empty() ? default_devices(catalog) : o.devices;
  struct Unit {
    std::string label;
    predict::KernelCoster coster;
  };
  std::vector<Unit> units;
  for (const std::string& name : names) {
    const hw::Device& d = catalog.find(name);
    check(d.kind != hw::DeviceKind::cpu, "qa matmul: '" + name + "' is the host; it is measured, not listed");
    units.push_back({d.kind == hw::DeviceKind::trainium ? name + " NeuronCore-" + d.neuron_core : name,
                     predict::KernelCoster(d, 1)});
  }
  std::vector<MatmulQaRow> rows;
  double host_peak = 0;
  if (host_gemm) {
    const int threads = o.host_threads > 0 ? o.host_threads : omp_get_max_threads();
    host_peak = measure_matmul_peak(*host_gemm, DType::bf16, threads, 0.2).gflops * 1e9;
  }
  for (const QaModel& model : models)
    for (const Projection& p : model.projections)
      for (int64_t m : o.ms) {
        const predict::KernelOp op = predict::matmul_op("matmul", m, p.k, p.n, DType::bf16);
        for (Unit& u : units) {
          const predict::OpCost c = u.coster.cost(op, DType::bf16);
          const double peak = u.coster.rank_peak_flops(DType::bf16);
          rows.push_back({model.name, p.name, u.label, c.method, m, p.k, p.n, op.flops, c.seconds,
                          op.flops / (c.seconds * peak), peak, false});
        }
        if (!host_gemm) continue;
        MatmulQaRow h{model.name, p.name,    "host", "oneDNN bf16 (measured)", m, p.k, p.n, op.flops, 0,
                      0,          host_peak, false};
        if (op.flops <= o.host_max_flops) {
          h.seconds = host_seconds(*host_gemm, m, p.k, p.n);
          h.mfu = op.flops / (h.seconds * host_peak);
          h.measured = true;
        } else {
          h.method = "not measured (over the host's FLOP cap)";
        }
        rows.push_back(h);
      }
  return rows;
}

std::string matmul_qa_csv(const std::vector<MatmulQaRow>& rows) {
  std::string s = "model,projection,m,k,n,flops,device,method,seconds,tflops,mfu_percent\n";
  char numbers[128];
  char tail[96];
  for (const MatmulQaRow& r : rows) {
    std::snprintf(tail, sizeof tail, ",,");
    if (r.seconds > 0)
      std::snprintf(tail, sizeof tail, "%.6g,%.6g,%.4f", r.seconds, r.flops / r.seconds / 1e12, 100 * r.mfu);
    std::snprintf(numbers, sizeof numbers, ",%lld,%lld,%lld,%.6g,", static_cast<long long>(r.m),
                  static_cast<long long>(r.k), static_cast<long long>(r.n), r.flops);
    // Names come from the user's shapes file: quoted as RFC 4180 asks when they hold a comma, quote or line break.
    s += io::csv_field(r.model) + "," + io::csv_field(r.projection) + numbers + io::csv_field(r.device) + "," +
         io::csv_field(r.method) + "," + tail + "\n";
  }
  return s;
}

std::string matmul_qa_svg(const std::vector<MatmulQaRow>& rows) {
  report::LineChart c{.id = "matmul_mfu",
                      .title = "matmul MFU by FLOPs (NeuronCores modelled, GPUs roofline, host measured)",
                      .x_label = "log10 FLOPs per matmul",
                      .y_label = "MFU %"};
  c.y_from_zero = true;
  c.scatter = true;  // each point is one model's matmul shape: nothing lies between two of them
  std::map<std::string, std::vector<std::pair<double, double>>> by_device;
  std::vector<std::string> order;
  for (const MatmulQaRow& r : rows) {
    if (r.seconds <= 0) continue;
    if (!by_device.count(r.device)) order.push_back(r.device);
    by_device[r.device].push_back({std::log10(r.flops), 100 * r.mfu});
  }
  for (const std::string& d : order) {
    std::vector<std::pair<double, double>> pts = by_device[d];
    std::sort(pts.begin(), pts.end());
    c.series.push_back({d, pts});
  }
  return report::line_chart_svg(c, 720, 400);
}

std::string matmul_qa_summary(const std::vector<MatmulQaRow>& rows) {
  std::map<std::string, std::vector<double>> by;
  std::vector<std::string> order;
  for (const MatmulQaRow& r : rows) {
    if (r.seconds <= 0) continue;
    if (!by.count(r.device)) order.push_back(r.device);
    by[r.device].push_back(100 * r.mfu);
  }
  std::string s;
  char line[256];
  for (const std::string& d : order) {
    std::vector<double>& v = by[d];
    std::sort(v.begin(), v.end());
    std::snprintf(line, sizeof line, "%-24s %3zu matmuls  MFU min %5.1f %%  median %5.1f %%  max %5.1f %%\n", d.c_str(),
                  v.size(), v.front(), v[v.size() / 2], v.back());
    s += line;
  }
  return s;
}

}  // namespace nanotrn::qa
