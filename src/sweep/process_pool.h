// Worker processes: jobs run as children of this process (this same nanotrn executable, /proc/self/exe, with the
// job's arguments), at most `slots` at a time, each with its own environment additions and log file.
//
//   ProcessPool pool(2);
//   pool.run({{.id = "v01-s0", .args = {"train", "--recipe", ...}, .env = {{"OMP_NUM_THREADS", "1"}},
//              .log = "dir/trials/v01-s0/train.log"}},
//            [&](const ProcessExit& e) -> std::optional<ProcessJob> { ... },   // in this process, as each job
//                                                      // ends; a job it returns runs next (a trial's CORE after it)
//            [] { return stop_signal() != 0; });       // polled: when true, no new job starts and running ones get
//                                                      // SIGTERM (they checkpoint and stop), then run() returns
//   pool.idle_seconds();                               // slot-seconds without a job while run() was running
//
// A child dies with this process (PR_SET_PDEATHSIG: SIGKILL), so a killed sweep leaves no orphan writing into its
// folder; a job's exit status is its exit code, or 128 + the signal that ended it. Children are waited for by pid,
// so a pool never reaps a process it did not start. Linux only (prctl).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nanotrn::sweep {

struct ProcessJob {
  std::string id;
  std::vector<std::string> args;  // after the program name
  std::map<std::string, std::string> env;
  std::string log;  // stdout and stderr, appended
};

struct ProcessExit {
  std::string id;
  int status = 0;  // exit code, or 128 + signal
  double seconds = 0;
};

class ProcessPool {
 public:
  using Done = std::function<std::optional<ProcessJob>(const ProcessExit&)>;
  explicit ProcessPool(int slots);
  void run(const std::vector<ProcessJob>& jobs, const Done& done, const std::function<bool()>& should_stop);
  double idle_seconds() const { return idle_; }
  double wall_seconds() const { return wall_; }

 private:
  using Clock = std::chrono::steady_clock;
  struct Running {
    std::string id;
    Clock::time_point start;
  };
  void start_jobs(std::deque<ProcessJob>& queue, std::map<pid_t, Running>& running);
  static std::optional<std::pair<pid_t, int>> reap(const std::map<pid_t, Running>& running);

  int slots_;
  double idle_ = 0, wall_ = 0;
};

}  // namespace nanotrn::sweep
