// The time of one lowered kernel invocation on a device: on the software NeuronCore where a library tile kernel
// exists (Trainium devices), else by roofline (GPUs, the host, and kernels without a tile kernel), marked as such.
//
//   KernelCoster coster(device, lnc);                      // keeps a per-shape cache; one per predictor
//   OpCost c = coster.cost(op, DType::bf16);               // c.seconds for op.count invocations, c.method
//
// NeuronCore timing: neuron::time_kernel(entry, typed shape, dtype, device.neuron_core, pipelined, lnc) on one logical
// core (lnc physical cores as an SPMD pair), with the registry entry and typed shape the lowering hands over
// (lowering.h: TileCall). Cached per (kernel, shape parameters, dtype). To keep a whole-step prediction fast:
//  * batched invocations (count > 1) are timed as a group of up to kGroup stacked along the first dimension (the
//    definition's `batched`) and scaled (one fused kernel over several heads, amortising pipeline fill; attention:
//    kGroup heads, split over the SPMD pair's cores);
//  * a matmul whose pipelined schedule does not fit SBUF (deep K) is split along K, the partial sums' fp32
//    accumulation priced by roofline;
//  * a matmul with more than kMaxTimedTiles 128x512x128 tiles is timed on a block of M rows and scaled by M.
// Roofline: max(flops / peak, bytes / bandwidth) with the logical core's TensorE peak (machine.h) and its share of
// chip HBM bandwidth (Trainium), or the device's peak and HBM bandwidth (others).
// Engine busy times (busiest): from the timed report's tracks (max over the tracks of one engine, physical cores and
// DMA queues folded); roofline ops count as TensorE when compute-bound and DMA when memory-bound.
// Collectives are not priced here (step_model.h prices them on the topology).
// Not here: launch overheads and overlap (step_model.h).
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "dtype/dtype.h"
#include "hw/bound.h"
#include "hw/catalog.h"
#include "predict/lowering.h"

namespace nanotrn::predict {

struct OpCost {
  double seconds = 0;       // all `count` invocations
  std::string method;       // "neuron v3x2" or "roofline"
  double instructions = 0;  // tile-program instructions, all invocations (0 for roofline ops)
  // Busy seconds per engine, all invocations: the busiest track of each engine (DMA: the busiest queue); what a
  // stage of independent kernels sums to find its busiest engine (step_model.h).
  hw::EngineUse busiest;
  // What binds the op (hw/bound.h), all invocations: timed kernels from their report (neuron::engine_use); roofline
  // ops Tensor = flops / peak and DMA = bytes / bandwidth.
  hw::EngineUse use;
};

// `c` for f times the invocations: every time (seconds, busy times) and its instructions times f.
OpCost scaled(OpCost c, double f);

class KernelCoster {
 public:
  static constexpr int64_t kGroup = 8;
  static constexpr double kMaxTimedTiles = 65536;

  // lnc: physical cores per logical core (Trainium; 1 otherwise).
  KernelCoster(const hw::Device& device, int64_t lnc);
  OpCost cost(const KernelOp& op, DType dtype);
  // Roofline of flops / bytes on one rank of this device.
  OpCost roofline(double flops, double bytes) const;
  // One rank's share of its chip: the catalog's peak (fp32 at TensorE's fp32 rate on Trainium) and HBM bandwidth.
  double rank_peak_flops(DType dtype) const;
  double rank_bytes_per_s() const;
  // Trainium: physical cores / lnc; other devices: the catalog's logical cores (1 for a GPU).
  int64_t ranks_per_chip() const;
  bool uses_neuron() const { return device_.kind == hw::DeviceKind::trainium; }
  size_t cache_size() const { return cache_.size(); }
  size_t kernels_timed() const { return timed_; }

 private:
  OpCost time_on_core(const neuron::KernelEntry& kernel, const std::any& shape, DType dtype);
  OpCost time_cached(const neuron::KernelEntry& kernel, const std::any& shape, DType dtype);

  hw::Device device_;
  int64_t lnc_;
  // (kernel, its parameters, dtype): the parameters (KernelEntry::to_params) identify a typed shape.
  std::map<std::tuple<std::string, std::map<std::string, neuron::ParamValue>, DType>, OpCost> cache_;
  size_t timed_ = 0;
};

}  // namespace nanotrn::predict
