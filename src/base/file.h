// Whole-file reads and crash-safe writes.
//
//   write_file_atomic("ckpt/step100.safetensors", bytes);   // temp file in the same folder, fsync, rename, fsync dir
//   std::vector<uint8_t> data = read_file("ckpt/step100.safetensors");
//   make_directories("out/run");   // the folder and its parents; an Error naming the folder and the OS's reason
//
// After write_file_atomic returns, the file holds exactly `bytes`; if the process dies or an error is thrown at any
// point before, the previous file at `path` (if any) is untouched and no partial file carries its name. A leftover
// "<path>.nanotrn-tmp.<pid>" can remain only after a crash. Errors name the path and the failing system call. A `path`
// that exists and is not a regular file (a device, a folder) is refused before anything is written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nanotrn {

std::vector<uint8_t> read_file(const std::string& path);
void write_file_atomic(const std::string& path, const void* data, size_t size);
// Whether write_file_atomic(path, ...) could write now: `path` is a regular file or nothing, and its temporary can be
// created in its folder (it is created and removed). An Error naming the path and the OS's reason otherwise. For a
// command that computes for minutes before it writes (eval core): check first, so nothing computed is lost.
void check_can_write(const std::string& path);
// `path` is a regular file or nothing: an Error naming it otherwise (a FIFO or device as a log file would block or
// swallow what is appended to it).
void check_regular_or_absent(const std::string& path);
inline void write_file_atomic(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_file_atomic(path, bytes.data(), bytes.size());
}

// Creates `path` and any missing parents (nothing when it exists as a folder). Throws an Error naming the path and
// the reason when that fails, or when `path` exists and is not a folder.
void make_directories(const std::string& path);

}  // namespace nanotrn
