// Worker processes. See process_pool.h.
#include "sweep/process_pool.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "base/error.h"
#include "base/parent_death.h"

namespace nanotrn::sweep {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Everything the child needs, built before fork(): after it the child only calls async-signal-safe functions.
struct Prepared {
  std::vector<std::string> argv_text, env_text;
  std::vector<char*> argv, envp;
  std::string log;
};

Prepared prepare(const ProcessJob& job) {
  Prepared p;
  p.argv_text.push_back("nanotrn");
  p.argv_text.insert(p.argv_text.end(), job.args.begin(), job.args.end());
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv(*e);
    if (!job.env.count(kv.substr(0, kv.find('=')))) p.env_text.push_back(kv);
  }
  for (const auto& [k, v] : job.env) p.env_text.push_back(k + "=" + v);
  for (std::string& s : p.argv_text) p.argv.push_back(s.data());
  p.argv.push_back(nullptr);
  for (std::string& s : p.env_text) p.envp.push_back(s.data());
  p.envp.push_back(nullptr);
  p.log = job.log;
  return p;
}

[[noreturn]] void become_child(Prepared& p, pid_t parent) {
  if (!die_with_parent(parent)) _exit(127);  // the pool died before the request took effect
  const int fd = open(p.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) _exit(126);
  dup2(fd, STDOUT_FILENO);
  dup2(fd, STDERR_FILENO);
  execve("/proc/self/exe", p.argv.data(), p.envp.data());
  _exit(127);
}

int exit_status(int raw) { return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw); }

}  // namespace

ProcessPool::ProcessPool(int slots) : slots_(slots) { check(slots >= 1, "--workers must be >= 1"); }

// Starts queued jobs while slots are free.
void ProcessPool::start_jobs(std::deque<ProcessJob>& queue, std::map<pid_t, Running>& running) {
  while (!queue.empty() && static_cast<int>(running.size()) < slots_) {
    Prepared p = prepare(queue.front());
    const pid_t parent = getpid();
    const pid_t pid = fork();
    check(pid >= 0, std::string("sweep: fork failed: ") + std::strerror(errno));
    if (pid == 0) become_child(p, parent);
    running[pid] = {queue.front().id, Clock::now()};
    queue.pop_front();
  }
}

// The first of our children that has ended (waited for by pid: never another pool's or the caller's child).
std::optional<std::pair<pid_t, int>> ProcessPool::reap(const std::map<pid_t, Running>& running) {
  for (const auto& [pid, r] : running) {
    int raw = 0;
    const pid_t got = waitpid(pid, &raw, WNOHANG);
    if (got == pid) return std::make_pair(pid, exit_status(raw));
    // Waited for by someone else (a SIGCHLD handler of a library): its status is lost; report it as killed, so the
    // trial is rerun rather than recorded.
    if (got < 0 && errno == ECHILD) return std::make_pair(pid, 128 + SIGKILL);
  }
  return std::nullopt;
}

void ProcessPool::run(const std::vector<ProcessJob>& jobs, const Done& done, const std::function<bool()>& should_stop) {
  std::deque<ProcessJob> queue(jobs.begin(), jobs.end());
  std::map<pid_t, Running> running;
  const Clock::time_point t0 = Clock::now();
  double busy = 0;
  bool stopping = false;
  while (!queue.empty() || !running.empty()) {
    if (!stopping && should_stop && should_stop()) {
      stopping = true;
      queue.clear();
      for (const auto& [pid, r] : running) kill(pid, SIGTERM);
    }
    start_jobs(queue, running);
    const auto ended = reap(running);
    if (!ended) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    const Running r = running.at(ended->first);
    running.erase(ended->first);
    const double s = since(r.start);
    busy += s;
    std::optional<ProcessJob> next = done(ProcessExit{r.id, ended->second, s});
    if (next && !stopping) queue.push_front(std::move(*next));
  }
  wall_ = since(t0);
  idle_ = std::max(0.0, wall_ * static_cast<double>(slots_) - busy);
}

}  // namespace nanotrn::sweep
