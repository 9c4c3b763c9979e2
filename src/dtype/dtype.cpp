// dtype_from_name: the non-constexpr pieces of dtype/dtype.h.
// Not here: conversions between element types (dtype/convert.cpp).
#include "dtype/dtype.h"

#include <string>

#include "base/error.h"

namespace nanotrn {

DType dtype_from_name(std::string_view name) {
  struct Alias {
    std::string_view text;
    DType type;
  };
  static constexpr Alias kAliases[] = {
      {"f32", DType::f32},       {"fp32", DType::f32},        {"bf16", DType::bf16},      {"f16", DType::f16},
      {"fp16", DType::f16},      {"f8e4m3", DType::f8e4m3},   {"fp8e4m3", DType::f8e4m3}, {"fp8_e4m3", DType::f8e4m3},
      {"f8e5m2", DType::f8e5m2}, {"fp8_e5m2", DType::f8e5m2}, {"i32", DType::i32},        {"int32", DType::i32},
  };
  for (const Alias& a : kAliases) {
    if (a.text == name) return a.type;
  }
  throw Error(
      "unknown dtype '" + std::string(name) +
      "' (expected one of f32, fp32, bf16, f16, fp16, f8e4m3, fp8e4m3, fp8_e4m3, f8e5m2, fp8_e5m2, i32, int32)");
}

DType dtype_from_name(std::string_view name, std::span<const DType> allowed, std::string_view what) {
  std::string list;
  for (DType t : allowed) list += (list.empty() ? "" : ", ") + std::string(dtype_name(t));
  const std::string refusal = std::string(what) + " must be one of " + list + ", got '" + std::string(name) + "'";
  DType t{};
  try {
    t = dtype_from_name(name);
  } catch (const Error&) {
    throw Error(refusal);
  }
  for (DType a : allowed) {
    if (a == t) return t;
  }
  throw Error(refusal);
}

}  // namespace nanotrn
