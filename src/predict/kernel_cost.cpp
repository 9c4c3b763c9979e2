// Kernel timing on the software NeuronCore or by roofline. See kernel_cost.h.
#include "predict/kernel_cost.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "hw/roofline.h"
#include "neuron/isa/machine.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::predict {
namespace {

// The lowering's shape vector (lowering.h: matmul {m, k, n}; softmax, rmsnorm {rows, cols}; attention,
// attention_bwd {heads, T, hd} causal or {heads, T, hd, window}) as the kernel's typed shape (neuron/registry/
// shapes.h).
std::any typed_shape(const std::string& kernel, const std::vector<int64_t>& s) {
  auto need = [&](bool ok, const char* form) {
    check(ok, "KernelCoster: " + kernel + " is lowered with the shape " + form + "; got " + std::to_string(s.size()) +
                  " values");
  };
  if (kernel == "matmul") {
    need(s.size() == 3, "{m, k, n}");
    return neuron::MatmulShape{s[0], s[1], s[2]};
  }
  if (kernel == "softmax") {
    need(s.size() == 2, "{rows, cols}");
    return neuron::RowsShape{s[0], s[1]};
  }
  if (kernel == "rmsnorm") {
    need(s.size() == 2, "{rows, cols}");
    return neuron::RmsnormShape{s[0], s[1]};
  }
  if (kernel == "attention" || kernel == "attention_bwd") {
    need(s.size() == 3 || s.size() == 4, "{heads, T, hd} or {heads, T, hd, window}");
    neuron::AttentionShape a{.seq = s[1], .head_dim = s[2], .heads = s[0]};
    if (s.size() == 4) a.variant = {neuron::AttentionMask::sliding_window, s[3]};
    return a;
  }
  throw Error("KernelCoster: no tile kernel is lowered as '" + kernel + "'");
}

OpCost scaled(OpCost c, double f) {
  c.seconds *= f;
  c.instructions *= f;
  for (auto& [k, v] : c.engines) v *= f;
  for (double& v : c.use.busy_s) v *= f;
  return c;
}

}  // namespace

KernelCoster::KernelCoster(const hw::Device& device, int64_t lnc) : device_(device), lnc_(lnc) {
  check(lnc >= 1, "KernelCoster: lnc must be >= 1");
}

double KernelCoster::rank_peak_flops(DType dtype) const {
  if (uses_neuron()) {
    const neuron::NeuronCoreSpec& s = neuron::spec_for(device_.neuron_core);
    double peak = 2.0 * s.pe_rows.value * s.pe_cols.value * s.tensor_clock_ghz.value * 1e9 * static_cast<double>(lnc_);
    if (dtype == DType::f32) peak /= s.matmul_fp32_factor.value;
    return peak;
  }
  const double per = device_.value(dtype == DType::f8e4m3 || dtype == DType::f8e5m2 ? "peak_fp8_flops_per_chip"
                                                                                    : "peak_bf16_flops_per_chip");
  return per / static_cast<double>(device_.logical_cores_per_chip());
}

double KernelCoster::rank_bytes_per_s() const {
  const int64_t ranks_per_chip = uses_neuron() ? device_.physical_cores_per_chip() / lnc_ : 1;
  return device_.hbm_bytes_per_s_per_chip() / static_cast<double>(ranks_per_chip);
}

OpCost KernelCoster::roofline(double flops, double bytes) const {
  OpCost c;
  c.method = "roofline";
  const double peak = rank_peak_flops(DType::bf16), bw = rank_bytes_per_s();
  c.seconds = hw::roofline_seconds(flops, bytes, peak, bw);
  const bool compute_bound = flops / peak >= bytes / bw;
  c.engines[compute_bound ? "Tensor" : "DMA"] = c.seconds;
  c.use[hw::Engine::tensor] = flops / peak;
  c.use[hw::Engine::dma] = bytes / bw;
  return c;
}

OpCost KernelCoster::time_on_core(const std::string& kernel, std::vector<int64_t> shape, DType dtype) {
  const neuron::Report r = neuron::time_kernel(kernel, typed_shape(kernel, shape), dtype, device_.neuron_core,
                                               neuron::Schedule::pipelined, static_cast<int>(lnc_));
  timed_++;
  OpCost c;
  c.seconds = r.total_ns * 1e-9;
  c.instructions = static_cast<double>(r.instructions);
  c.method = "neuron " + device_.neuron_core + (lnc_ > 1 ? "x" + std::to_string(lnc_) : "");
  for (const neuron::TrackUse& t : r.tracks) {
    double& e = c.engines[neuron::engine_name(t.engine)];  // "Tensor", ..., "DMA"
    e = std::max(e, t.busy_ns * 1e-9);
  }
  c.use = neuron::engine_use(r);
  return c;
}

OpCost KernelCoster::time_cached(const std::string& kernel, const std::vector<int64_t>& shape, DType dtype) {
  const auto key = std::make_tuple(kernel, shape, dtype);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  OpCost c;
  if (kernel != "matmul") {
    c = time_on_core(kernel, shape, dtype);
  } else {
    const int64_t m = shape[0], k = shape[1], n = shape[2];
    const double tiles = std::ceil(m / 128.0) * std::ceil(n / 512.0) * std::ceil(k / 128.0);
    if (tiles > kMaxTimedTiles) {
      // Time a block of M rows (a multiple of 128 x lnc) and scale by M.
      const double per_row_tiles = std::ceil(n / 512.0) * std::ceil(k / 128.0) / 128.0;
      int64_t mb = static_cast<int64_t>(kMaxTimedTiles / per_row_tiles);
      const int64_t unit = 128 * lnc_;
      mb = std::max(unit, mb / unit * unit);
      if (mb < m) {
        c = scaled(time_cached("matmul", {mb, k, n}, dtype), static_cast<double>(m) / static_cast<double>(mb));
        c.method += " (M-block scaled)";
        cache_[key] = c;
        return c;
      }
    }
    c = time_on_core("matmul", shape, dtype);  // deep K: the kernel plans a K-blocked schedule itself
  }
  cache_[key] = c;
  return c;
}

OpCost KernelCoster::cost(const KernelOp& op, DType dtype) {
  check(op.count >= 1, "KernelCoster: op '" + op.name + "' has count < 1");
  const double count = static_cast<double>(op.count);
  if (!uses_neuron() || op.kernel.empty()) return scaled(roofline(op.flops, op.bytes), count);
  const int64_t g = std::min<int64_t>(op.count, kGroup);
  std::vector<int64_t> shape = op.shape;
  shape[0] *= g;  // a group of g invocations stacked along the first dimension
  try {
    return scaled(time_cached(op.kernel, shape, dtype), count / static_cast<double>(g));
  } catch (const Error& e) {
    // A shape the tile kernel refuses (e.g. fewer rows than the SPMD cores): priced by roofline, marked.
    OpCost c = scaled(roofline(op.flops, op.bytes), count);
    c.method = "roofline (tile kernel refused the shape)";
    return c;
  }
}

}  // namespace nanotrn::predict
