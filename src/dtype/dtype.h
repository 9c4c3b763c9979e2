// Element types of nanotrn tensors and of the software NeuronCore: fp32, bf16, fp16, fp8 (OCP e4m3 and e5m2), int32.
//
//   DType t = DType::bf16;  dtype_size(t) == 2;  dtype_name(t) == "bf16";
//
// Conversions between them live in dtype/convert.h. Not here: arithmetic (the host computes in fp32).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>

namespace nanotrn {

enum class DType : uint8_t { f32, bf16, f16, f8e4m3, f8e5m2, i32 };

constexpr size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::bf16:
      return 2;
    case DType::f16:
      return 2;
    case DType::f8e4m3:
      return 1;
    case DType::f8e5m2:
      return 1;
    case DType::i32:
      return 4;
  }
  return 0;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::bf16:
      return "bf16";
    case DType::f16:
      return "f16";
    case DType::f8e4m3:
      return "f8e4m3";
    case DType::f8e5m2:
      return "f8e5m2";
    case DType::i32:
      return "i32";
  }
  return "?";
}

constexpr bool dtype_is_float(DType t) { return t != DType::i32; }

// Parses "f32", "fp32", "bf16", "f16", "fp16", "f8e4m3", "fp8e4m3", "fp8_e4m3", "f8e5m2", "fp8_e5m2", "i32", "int32":
// the one table of dtype names (recipes, kernel options and calibration files all parse through it).
// Throws nanotrn::Error naming the text when it is none of these.
DType dtype_from_name(std::string_view name);

// The same, for a field that takes only some dtypes: `what` names the field in the error, which lists `allowed`
// ("recipe: train.precision must be one of f32, bf16, got 'fp8'").
DType dtype_from_name(std::string_view name, std::span<const DType> allowed, std::string_view what);
inline DType dtype_from_name(std::string_view name, std::initializer_list<DType> allowed, std::string_view what) {
  return dtype_from_name(name, std::span<const DType>(allowed.begin(), allowed.size()), what);
}

}  // namespace nanotrn
