// host_memory_from(): the smallest of MemAvailable, the cgroup's room and the address-space room, each read from the
// texts Linux writes; absent or unlimited sources are skipped. host_memory() on this machine reads a positive figure.
#include <gtest/gtest.h>

#include "base/format.h"
#include "base/host_memory.h"

namespace nanotrn {
namespace {

const char* kMeminfo =
    "MemTotal:       24000000 kB\n"
    "MemFree:         1000000 kB\n"
    "MemAvailable:   20000000 kB\n";

TEST(HostMemory, MemAvailableAlone) {
  const HostMemory m = host_memory_from({.meminfo = kMeminfo});
  ASSERT_TRUE(m.known);
  EXPECT_EQ(m.available_bytes, 20000000.0 * 1024);
  EXPECT_NE(m.basis.find("MemAvailable"), std::string::npos);
}

TEST(HostMemory, UnlimitedCgroupsAreSkipped) {
  EXPECT_EQ(host_memory_from({.meminfo = kMeminfo, .cgroup_limit = "max\n", .cgroup_usage = "123\n"}).available_bytes,
            20000000.0 * 1024);
  // cgroup v1 writes "no limit" as a number near 2^63.
  EXPECT_EQ(host_memory_from({.meminfo = kMeminfo, .cgroup_limit = "9223372036854771712\n", .cgroup_usage = "123\n"})
                .available_bytes,
            20000000.0 * 1024);
}

TEST(HostMemory, ATighterCgroupWins) {
  const HostMemory m = host_memory_from({.meminfo = kMeminfo, .cgroup_limit = "4000000000\n", .cgroup_usage = "1000"});
  EXPECT_EQ(m.available_bytes, 4000000000.0 - 1000.0);
  EXPECT_NE(m.basis.find("cgroup"), std::string::npos);
  // Usage over the limit leaves no room, never a negative figure.
  EXPECT_EQ(host_memory_from({.meminfo = kMeminfo, .cgroup_limit = "100", .cgroup_usage = "200"}).available_bytes, 0);
}

TEST(HostMemory, ATighterAddressSpaceLimitWins) {
  const HostMemory m = host_memory_from(
      {.meminfo = kMeminfo, .address_space_limit = 8.0 * 1024 * 1024 * 1024, .self_status = "VmSize:\t 1048576 kB\n"});
  EXPECT_EQ(m.available_bytes, 7.0 * 1024 * 1024 * 1024);
  EXPECT_NE(m.basis.find("ulimit -v"), std::string::npos);
}

TEST(HostMemory, NothingReadableIsUnknown) {
  EXPECT_FALSE(host_memory_from({}).known);
  EXPECT_FALSE(host_memory_from({.meminfo = "MemAvailable: lots\n"}).known);
}

TEST(HostMemory, ThisMachineHasSome) {
  const HostMemory m = host_memory();
  ASSERT_TRUE(m.known) << "no /proc/meminfo on this Linux machine?";
  EXPECT_GT(m.available_bytes, 0);
}

TEST(HostMemory, FormatBytesUsesBinaryUnits) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1.5 * 1024 * 1024 * 1024), "1.50 GiB");
  EXPECT_EQ(format_bytes(3.0 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * 1e7), "3e+07 EiB");
}

}  // namespace
}  // namespace nanotrn
