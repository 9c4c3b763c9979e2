// Kernel timing on the software NeuronCore or by roofline. See kernel_cost.h.
#include "predict/kernel_cost.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "hw/roofline.h"
#include "neuron/isa/machine.h"
#include "neuron/registry/kernel_run.h"

namespace nanotrn::predict {
OpCost scaled(OpCost c, double f) {
  c.seconds *= f;
  c.instructions *= f;
  for (double& v : c.busiest.busy_s) v *= f;
  for (double& v : c.use.busy_s) v *= f;
  return c;
}

KernelCoster::KernelCoster(const hw::Device& device, int64_t lnc) : device_(device), lnc_(lnc) {
  check(lnc >= 1, "KernelCoster: lnc must be >= 1");
}

double KernelCoster::rank_peak_flops(DType dtype) const {
  // The catalog's chip peak is the one figure (on Trainium derived from the cores' TensorE: hw/devices.json.inc),
  // shared by the ranks on a chip as rank_bytes_per_s shares its HBM.
  const bool fp8 = dtype == DType::f8e4m3 || dtype == DType::f8e5m2;
  const double per_chip = device_.value(fp8 ? "peak_fp8_flops_per_chip" : "peak_bf16_flops_per_chip");
  const double peak = per_chip / static_cast<double>(ranks_per_chip());
  // TensorE takes fp32 operands at a fraction of its bf16 rate (neuron/isa/machine.h).
  if (uses_neuron() && dtype == DType::f32)
    return peak / neuron::spec_for(device_.neuron_core).matmul_fp32_factor.value;
  return peak;
}

int64_t KernelCoster::ranks_per_chip() const {
  return uses_neuron() ? device_.physical_cores_per_chip() / lnc_ : device_.logical_cores_per_chip();
}

double KernelCoster::rank_bytes_per_s() const {
  return device_.hbm_bytes_per_s_per_chip() / static_cast<double>(ranks_per_chip());
}

OpCost KernelCoster::roofline(double flops, double bytes) const {
  OpCost c;
  c.method = "roofline";
  const double peak = rank_peak_flops(DType::bf16), bw = rank_bytes_per_s();
  c.seconds = hw::roofline_seconds(flops, bytes, peak, bw);
  const bool compute_bound = flops / peak >= bytes / bw;
  c.busiest[compute_bound ? hw::Engine::tensor : hw::Engine::dma] = c.seconds;
  c.use[hw::Engine::tensor] = flops / peak;
  c.use[hw::Engine::dma] = bytes / bw;
  return c;
}

OpCost KernelCoster::time_on_core(const neuron::KernelEntry& kernel, const std::any& shape, DType dtype) {
  const neuron::Report r = neuron::time_kernel(kernel, shape, dtype, device_.neuron_core, neuron::Schedule::pipelined,
                                               static_cast<int>(lnc_));
  timed_++;
  OpCost c;
  c.seconds = r.total_ns * 1e-9;
  c.instructions = static_cast<double>(r.instructions);
  c.method = "neuron " + device_.neuron_core + (lnc_ > 1 ? "x" + std::to_string(lnc_) : "");
  for (const neuron::TrackUse& t : r.tracks) c.busiest[t.engine] = std::max(c.busiest[t.engine], t.busy_ns * 1e-9);
  c.use = neuron::engine_use(r);
  return c;
}

OpCost KernelCoster::time_cached(const neuron::KernelEntry& kernel, const std::any& shape, DType dtype) {
  const auto key = std::make_tuple(kernel.name, kernel.to_params(shape).values(), dtype);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  OpCost c;
  const auto* mm = std::any_cast<neuron::MatmulShape>(&shape);
  if (mm) {
    const int64_t m = mm->m, k = mm->k, n = mm->n;
    const double tiles = std::ceil(m / 128.0) * std::ceil(n / 512.0) * std::ceil(k / 128.0);
    if (tiles > kMaxTimedTiles) {
      // Time a block of M rows (a multiple of 128 x lnc) and scale by M.
      const double per_row_tiles = std::ceil(n / 512.0) * std::ceil(k / 128.0) / 128.0;
      int64_t mb = static_cast<int64_t>(kMaxTimedTiles / per_row_tiles);
      const int64_t unit = 128 * lnc_;
      mb = std::max(unit, mb / unit * unit);
      if (mb < m) {
        c = scaled(time_cached(kernel, neuron::MatmulShape{mb, k, n}, dtype),
                   static_cast<double>(m) / static_cast<double>(mb));
        c.method += " (M-block scaled)";
        cache_[key] = c;
        return c;
      }
    }
  }
  c = time_on_core(kernel, shape, dtype);  // deep K: the matmul plans a K-blocked schedule itself
  cache_[key] = c;
  return c;
}

OpCost KernelCoster::cost(const KernelOp& op, DType dtype) {
  check(op.count >= 1, "KernelCoster: op '" + op.name + "' has count < 1");
  check(!op.collective(), "KernelCoster: op '" + op.name + "' is a collective (priced on the topology)");
  const double count = static_cast<double>(op.count);
  const TileCall* tile = op.tile();
  if (!uses_neuron() || !tile) return scaled(roofline(op.flops, op.bytes), count);
  const int64_t g = tile->kernel->batched ? std::min<int64_t>(op.count, kGroup) : 1;
  const std::any shape = g > 1 ? tile->kernel->batched(tile->shape, g) : tile->shape;
  try {
    return scaled(time_cached(*tile->kernel, shape, dtype), count / static_cast<double>(g));
  } catch (const Error& e) {
    // A shape the tile kernel refuses (e.g. fewer rows than the SPMD cores): priced by roofline, marked.
    OpCost c = scaled(roofline(op.flops, op.bytes), count);
    c.method = "roofline (tile kernel refused the shape)";
    return c;
  }
}

}  // namespace nanotrn::predict
