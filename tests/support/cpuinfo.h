// The CPU flags the kernel reports in /proc/cpuinfo: the independent reference the ISA-dispatch tests check against
// (nanotrn itself asks cpuid through the compiler's builtins).
//
//   const CpuinfoFlags f = read_cpuinfo_flags();   // empty() where there is no /proc/cpuinfo (not Linux)
//   if (f.has("avx512f")) ...
#pragma once

#include <fstream>
#include <string>

namespace nanotrn::testing_support {

struct CpuinfoFlags {
  std::string line;  // the first "flags" line, with a trailing space
  bool empty() const { return line.empty(); }
  bool has(const char* flag) const { return line.find(std::string(" ") + flag + " ") != std::string::npos; }
};

inline CpuinfoFlags read_cpuinfo_flags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string l; std::getline(in, l);)
    if (l.rfind("flags", 0) == 0) return {l + " "};
  return {};
}

}  // namespace nanotrn::testing_support
