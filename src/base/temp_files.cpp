// Temporaries of crash-safe writes. See temp_files.h.
#include "base/temp_files.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace nanotrn {

namespace {

constexpr const char* kInfix = ".nanotrn-tmp.";

// The pid in a temporary's file name "<name>.nanotrn-tmp.<pid>"; 0 when the name is not one.
pid_t pid_of(const std::string& name) {
  const size_t at = name.rfind(kInfix);
  if (at == std::string::npos || at == 0) return 0;
  const char* first = name.data() + at + std::strlen(kInfix);
  const char* last = name.data() + name.size();
  pid_t pid = 0;
  const auto [end, ec] = std::from_chars(first, last, pid);
  return ec == std::errc() && end == last && pid > 0 ? pid : 0;
}

}  // namespace

std::string temporary_path(const std::string& path) { return path + kInfix + std::to_string(::getpid()); }

std::vector<std::string> remove_stale_temporaries(const std::string& dir) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const pid_t pid = pid_of(entry.path().filename().string());
    if (pid == 0 || !entry.is_regular_file(ec)) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to signal: keep it
    if (std::filesystem::remove(entry.path(), ec)) removed.push_back(entry.path().string());
  }
  return removed;
}

}  // namespace nanotrn
