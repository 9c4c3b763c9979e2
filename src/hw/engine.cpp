// Engine names. See engine.h.
#include "hw/engine.h"

namespace nanotrn::hw {

std::string_view engine_name(Engine e) {
  switch (e) {
    case Engine::tensor:
      return "TensorE";
    case Engine::vector:
      return "VectorE";
    case Engine::scalar:
      return "ScalarE";
    case Engine::gpsimd:
      return "GpSimd";
    case Engine::dma:
      return "DMA";
  }
  return "?";
}

std::string_view engine_track_name(Engine e) {
  switch (e) {
    case Engine::tensor:
      return "Tensor";
    case Engine::vector:
      return "Vector";
    case Engine::scalar:
      return "Scalar";
    case Engine::gpsimd:
      return "GpSimd";
    case Engine::dma:
      return "DMA";
  }
  return "?";
}

}  // namespace nanotrn::hw
