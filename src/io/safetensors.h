// The safetensors format (Hugging Face): an 8-byte little-endian header length N, N bytes of JSON
// {"<name>": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ..., "__metadata__": {"k": "v"}}, then
// the tensors' bytes, row-major, little-endian; offsets are relative to the start of that byte buffer, which the
// tensors must cover exactly (no holes, no overlaps).
//
//   save_safetensors("w.safetensors", {{"wte", wte}, {"lm_head", head}}, {{"step", "100"}});   // atomic
//   SafetensorsFile f = load_safetensors("w.safetensors");   f.find("wte") ...
//
// dtypes: F32, BF16, F16, F8_E4M3, F8_E5M2, I32 (the dtypes of dtype.h). The reader trusts nothing: every
// violation is an Error naming the file and the byte offset (or header key) at fault. Not here: memory-mapping,
// other dtypes (F64, I64, ... are refused with their name).
//
// Checksums: the writer stores a CRC-32C (io/crc32c.h) of each tensor's data bytes as the metadata entry
// "crc32c:<name>" and one of the other metadata entries as "crc32c:__metadata__" (8 lowercase hex digits each). A
// file with any "crc32c:" entry must have all of them and each must match, else an Error names the file and the
// tensor (a flipped bit in the data or in the metadata). Files without them (other writers) load unchecked. The
// "crc32c:" entries are the format's, not the caller's: decode leaves them out of SafetensorsFile::metadata and
// encode refuses caller metadata keys with that prefix.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tensor/tensor.h"

namespace nanotrn {

struct SafetensorsFile {
  std::vector<std::pair<std::string, Tensor>> tensors;  // in file order of their data
  std::map<std::string, std::string> metadata;
  // Whether the file carried "crc32c:" entries (all verified). False for files of other tools; nanotrn's own writer
  // always stores them, so a nanotrn file without them has been altered (train/checkpoint.h refuses it).
  bool checksummed = false;
  const Tensor* find(const std::string& name) const;
};

// `none` writes a file as other tools do, without checksums (tests of the reader).
enum class SafetensorsChecksums { crc32c, none };

std::vector<uint8_t> encode_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                                        const std::map<std::string, std::string>& metadata = {},
                                        SafetensorsChecksums checksums = SafetensorsChecksums::crc32c);
// `source` names the bytes in error messages (a path).
SafetensorsFile decode_safetensors(const uint8_t* data, size_t size, const std::string& source);

void save_safetensors(const std::string& path, const std::vector<std::pair<std::string, Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});
SafetensorsFile load_safetensors(const std::string& path);

}  // namespace nanotrn
