// OthersCpu: how much CPU time other processes took while a measurement ran, from /proc/stat (all CPUs, including
// hypervisor steal) minus /proc/self/stat (this process). The machine is shared, so every benchmark reports it and
// results taken while others used the CPUs can be recognised and dropped (bench/gemm_table.py).
// Deliberately NOT here: which processes they were (other containers are invisible), or any waiting for quiet.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace nanotrn::bench {

class OthersCpu {
 public:
  OthersCpu() : start_(sample()) {}
  // Fraction of all CPUs' time used by others since construction (0 = quiet, 1 = every CPU busy with others).
  double fraction() const {
    const Sample now = sample();
    const double wall = now.wall - start_.wall;
    if (wall <= 0) return 0;
    const double others = (now.all_busy - start_.all_busy) - (now.self - start_.self);
    return std::max(0.0, others / (wall * static_cast<double>(sysconf(_SC_NPROCESSORS_ONLN))));
  }

 private:
  struct Sample {
    double wall = 0, all_busy = 0, self = 0;  // seconds
  };
  static Sample sample() {
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    Sample s;
    s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    std::ifstream stat("/proc/stat");
    std::string cpu;
    double user = 0, nice = 0, sys = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    stat >> cpu >> user >> nice >> sys >> idle >> iowait >> irq >> softirq >> steal;
    s.all_busy = (user + nice + sys + irq + softirq + steal) / tick;
    std::ifstream self("/proc/self/stat");
    std::string field;
    for (int i = 1; i <= 15 && self >> field; ++i) {
      if (i == 14 || i == 15) s.self += std::atof(field.c_str()) / tick;  // utime, stime
    }
    return s;
  }
  Sample start_;
};

}  // namespace nanotrn::bench
