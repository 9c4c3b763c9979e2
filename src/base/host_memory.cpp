#include "base/host_memory.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include <sys/resource.h>

namespace nanotrn {

namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The value of a "Key:   123456 kB" line (/proc/meminfo, /proc/self/status) in bytes; negative when absent.
double kib_field(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  std::istringstream line(text.substr(at + key.size()));
  double kib = -1;
  std::string unit;
  if (!(line >> kib >> unit) || unit != "kB" || kib < 0) return -1;
  return kib * 1024.0;
}

// A cgroup byte count; negative when absent or unlimited ("max", or the v1 "no limit" value near 2^63).
double cgroup_bytes(const std::string& text) {
  std::istringstream in(text);
  std::string word;
  if (!(in >> word) || word == "max") return -1;
  char* end = nullptr;
  const double v = std::strtod(word.c_str(), &end);
  if (end == word.c_str() || *end != '\0' || !(v >= 0) || v >= std::ldexp(1.0, 62)) return -1;
  return v;
}

}  // namespace

HostMemory host_memory_from(const HostMemoryInputs& in) {
  HostMemory m;
  const double avail = kib_field(in.meminfo, "MemAvailable:");
  if (avail >= 0) {
    m.known = true;
    m.available_bytes = avail;
    m.basis = "MemAvailable in /proc/meminfo";
  }
  const double limit = cgroup_bytes(in.cgroup_limit), usage = cgroup_bytes(in.cgroup_usage);
  if (limit >= 0 && usage >= 0) {
    const double room = limit > usage ? limit - usage : 0.0;
    if (!m.known || room < m.available_bytes) {
      m.known = true;
      m.available_bytes = room;
      m.basis = "the cgroup memory limit less its usage";
    }
  }
  const double mapped = kib_field(in.self_status, "VmSize:");
  if (in.address_space_limit >= 0 && mapped >= 0) {
    const double room = in.address_space_limit > mapped ? in.address_space_limit - mapped : 0.0;
    if (!m.known || room < m.available_bytes) {
      m.known = true;
      m.available_bytes = room;
      m.basis = "the address-space limit (ulimit -v) less what this process maps";
    }
  }
  return m;
}

HostMemory host_memory() {
  std::string limit = slurp("/sys/fs/cgroup/memory.max"), usage = slurp("/sys/fs/cgroup/memory.current");
  if (limit.empty()) {
    limit = slurp("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    usage = slurp("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  }
  rlimit as{};
  const bool as_limited = getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
  return host_memory_from({.meminfo = slurp("/proc/meminfo"),
                           .cgroup_limit = limit,
                           .cgroup_usage = usage,
                           .address_space_limit = as_limited ? static_cast<double>(as.rlim_cur) : -1.0,
                           .self_status = slurp("/proc/self/status")});
}

}  // namespace nanotrn
