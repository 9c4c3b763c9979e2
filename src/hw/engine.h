// The engines of a NeuronCore, one enum for the whole code base: the tile-kernel builder and simulator
// (src/neuron/), what binds a kernel (bound.h) and the step-time predictor's per-engine times (src/predict/).
//
//   Engine e = Engine::tensor;
//   engine_name(e)        == "TensorE"   (verdicts, tables)
//   engine_track_name(e)  == "Tensor"    (timeline tracks: "Tensor", "DMA q3", "NC1 Vector")
//   EngineUse u;  u[Engine::dma] = 1e-3;  // seconds per engine
//
// DMA counts as an engine: the queues that move data between HBM and the on-chip memories.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace nanotrn::hw {

enum class Engine : uint8_t { tensor, vector, scalar, gpsimd, dma };
inline constexpr int kEngineCount = 5;

// "TensorE", "VectorE", "ScalarE", "GpSimd", "DMA".
std::string_view engine_name(Engine e);
// "Tensor", "Vector", "Scalar", "GpSimd", "DMA": the simulator's track names.
std::string_view engine_track_name(Engine e);

// Seconds (or any quantity) per engine, indexed by Engine.
struct EngineUse {
  std::array<double, kEngineCount> busy_s{};
  double& operator[](Engine e) { return busy_s[static_cast<size_t>(e)]; }
  double operator[](Engine e) const { return busy_s[static_cast<size_t>(e)]; }
};

}  // namespace nanotrn::hw
