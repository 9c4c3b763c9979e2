// What binds a kernel: the engine whose work sets its time, its arithmetic intensity against the device's ridge
// point, and a one-line verdict. One rule for `nanotrn kernel run` (one timed kernel) and `nanotrn predict --top`
// (every kernel of a step).
//
//   EngineUse u;  u.busy_s[Engine::tensor] = 0.9e-3;  u.busy_s[Engine::dma] = 0.2e-3;   // per engine, seconds
//   BoundVerdict v = classify_bound(u, 1.0e-3, flops, bytes, peak_flops, bytes_per_s);
//   v.bound == Engine::tensor;  v.utilisation == 0.9;  v.verdict == "TensorE-bound: ...";
//
// Rules:
//  * utilisation of an engine = its busy seconds / the kernel's seconds. For TensorE, VectorE, ScalarE and GpSimd
//    busy is the time the engine executed instructions (the busiest physical core of an SPMD launch). For DMA it is
//    the bytes moved divided by the core's peak DMA bandwidth: sixteen queues each 35 % busy can still saturate the
//    bandwidth, so the busiest queue would understate it.
//  * the binding engine is the one with the highest utilisation; when no engine reaches kBoundThreshold the kernel
//    is stall-bound (Engine::stalls): dependency waits and fixed latencies, not any engine's throughput, set its time.
//  * arithmetic intensity = flops / HBM bytes; ridge = peak_flops / bytes_per_s (the roofline's knee). Above the ridge
//    a kernel is compute-side of the roofline, below it memory-side.
// Not here: the timing itself (neuron/sim/timing.h, predict/kernel_cost.h).
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace nanotrn::hw {

enum class Engine { tensor, vector, scalar, gpsimd, dma, stalls };
inline constexpr int kEngineCount = 5;  // the real engines; stalls is a verdict, not an engine

// "TensorE", "VectorE", "ScalarE", "GpSimd", "DMA", "stalls".
std::string_view engine_name(Engine e);

inline constexpr double kBoundThreshold = 0.5;

struct EngineUse {
  std::array<double, kEngineCount> busy_s{};  // indexed by Engine
  double& operator[](Engine e) { return busy_s[static_cast<size_t>(e)]; }
  double operator[](Engine e) const { return busy_s[static_cast<size_t>(e)]; }
};

struct BoundVerdict {
  Engine bound = Engine::stalls;
  Engine busiest = Engine::tensor;  // the busiest engine even when stall-bound
  double utilisation = 0;           // of the busiest engine
  double intensity = 0, ridge = 0;  // FLOP per HBM byte
  std::string verdict;              // one line
};

BoundVerdict classify_bound(const EngineUse& use, double seconds, double flops, double bytes, double peak_flops,
                            double bytes_per_s);
// {"bound", "busiest", "utilisation", "intensity", "ridge", "verdict"}; an infinite intensity (no bytes) is null.
nlohmann::json bound_json(const BoundVerdict& v);

}  // namespace nanotrn::hw
