// libFuzzer target: the safetensors reader (src/io/safetensors.h). Either the bytes decode into tensors that encode
// and decode again to the same names, dtypes, shapes and bytes, or decoding throws nanotrn::Error. Nothing is
// assumed about the __metadata__ table (the writer may add entries of its own), and it is not written back. Built and
// run by scripts/fuzz.sh.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/error.h"
#include "io/safetensors.h"

namespace {

bool same_tensor(const nanotrn::Tensor& a, const nanotrn::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const size_t bytes = static_cast<size_t>(a.numel()) * nanotrn::dtype_size(a.dtype());
  return bytes == 0 || std::memcmp(a.raw_data(), b.raw_data(), bytes) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nanotrn::SafetensorsFile file;
  try {
    file = nanotrn::decode_safetensors(data, size, "fuzz.safetensors");
  } catch (const nanotrn::Error&) {
    return 0;
  }
  // What was read must be writable and read back unchanged (the tensors; the metadata stays out of it).
  const std::vector<uint8_t> bytes = nanotrn::encode_safetensors(file.tensors);
  const nanotrn::SafetensorsFile again = nanotrn::decode_safetensors(bytes.data(), bytes.size(), "again");
  if (again.tensors.size() != file.tensors.size()) __builtin_trap();
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    if (again.tensors[i].first != file.tensors[i].first) __builtin_trap();
    if (!same_tensor(again.tensors[i].second, file.tensors[i].second)) __builtin_trap();
  }
  return 0;
}
