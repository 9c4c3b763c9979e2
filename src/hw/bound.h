// What binds a kernel: the engine whose work sets its time, its arithmetic intensity against the device's ridge
// point, and a one-line verdict. One rule for `nanotrn kernel run` (one timed kernel) and `nanotrn predict --top`
// (every kernel of a step).
//
//   EngineUse u;  u.busy_s[Engine::tensor] = 0.9e-3;  u.busy_s[Engine::dma] = 0.2e-3;   // per engine, seconds
//   BoundVerdict v = classify_bound(u, 1.0e-3, flops, bytes, peak_flops, bytes_per_s);
//   v.bound == Engine::tensor;  v.utilisation == 0.9;  v.verdict == "TensorE-bound: ...";
//   bound_name(v) == "TensorE"  ("stalls" when no engine binds: v.bound is empty)
//
// Rules:
//  * utilisation of an engine = its busy seconds / the kernel's seconds. For TensorE, VectorE, ScalarE and GpSimd
//    busy is the time the engine executed instructions (the busiest physical core of an SPMD launch). For DMA it is
//    the bytes moved divided by the core's peak DMA bandwidth: sixteen queues each 35 % busy can still saturate the
//    bandwidth, so the busiest queue would understate it.
//  * the binding engine is the one with the highest utilisation; when no engine reaches kBoundThreshold the kernel
//    is stall-bound (v.bound empty): dependency waits and fixed latencies, not any engine's throughput, set its time.
//  * arithmetic intensity = flops / HBM bytes; ridge = peak_flops / bytes_per_s (the roofline's knee). Above the ridge
//    a kernel is compute-side of the roofline, below it memory-side.
// Not here: the timing itself (neuron/sim/timing.h, predict/kernel_cost.h).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "hw/engine.h"

namespace nanotrn::hw {

inline constexpr double kBoundThreshold = 0.5;

struct BoundVerdict {
  std::optional<Engine> bound;      // the binding engine; empty: stall-bound
  Engine busiest = Engine::tensor;  // the busiest engine even when stall-bound
  double utilisation = 0;           // of the busiest engine
  double intensity = 0, ridge = 0;  // FLOP per HBM byte
  std::string verdict;              // one line
};

// The binding engine's name, or "stalls".
std::string_view bound_name(const BoundVerdict& v);

BoundVerdict classify_bound(const EngineUse& use, double seconds, double flops, double bytes, double peak_flops,
                            double bytes_per_s);
// {"bound", "busiest", "utilisation", "intensity", "ridge", "verdict"}; an infinite intensity (no bytes) is null.
nlohmann::json bound_json(const BoundVerdict& v);

}  // namespace nanotrn::hw
