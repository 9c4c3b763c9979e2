// Whole-file reads and crash-safe writes.
//
//   write_file_atomic("ckpt/step100.safetensors", bytes);   // temp file in the same folder, fsync, rename, fsync dir
//   std::vector<uint8_t> data = read_file("ckpt/step100.safetensors");
//
// After write_file_atomic returns, the file holds exactly `bytes`; if the process dies or an error is thrown at any
// point before, the previous file at `path` (if any) is untouched and no partial file carries its name. A leftover
// "<path>.tmp.<pid>" can remain only after a crash. Errors name the path and the failing system call.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanotrn {

std::vector<uint8_t> read_file(const std::string& path);
void write_file_atomic(const std::string& path, const void* data, size_t size);
inline void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}

}  // namespace nanotrn
