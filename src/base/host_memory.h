// How much memory this process may still allocate, for checks that refuse an impossible size up front (with both
// numbers in the message) instead of ending in std::bad_alloc or the kernel's OOM killer.
//
//   HostMemory m = host_memory();   // m.available_bytes, m.basis ("MemAvailable in /proc/meminfo", or the cgroup)
//
// The figure is the smallest of /proc/meminfo's MemAvailable, the room left under a cgroup memory limit (v2
// memory.max - memory.current, or v1 memory.limit_in_bytes - memory.usage_in_bytes) when one is set, and the room
// left under the address-space limit (ulimit -v: RLIMIT_AS - VmSize of /proc/self/status) when one is set. Where
// none can be read (not Linux), known is false and callers skip their check.
#pragma once

#include <cstdint>
#include <string>

namespace nanotrn {

struct HostMemory {
  bool known = false;
  double available_bytes = 0;
  std::string basis;  // where the figure came from, for messages
};

HostMemory host_memory();

// The same rule over given inputs, so tests can feed it cases. Texts are file contents, empty when absent; a cgroup
// limit of "max" or >= 2^62 means unlimited; address_space_limit < 0 means none.
struct HostMemoryInputs {
  std::string meminfo{};                       // /proc/meminfo
  std::string cgroup_limit{}, cgroup_usage{};  // memory.max + memory.current, or the v1 pair
  double address_space_limit = -1;             // RLIMIT_AS soft limit in bytes
  std::string self_status{};                   // /proc/self/status (VmSize)
};
HostMemory host_memory_from(const HostMemoryInputs& inputs);

}  // namespace nanotrn
