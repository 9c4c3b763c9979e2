// Stop signals. See stop_signal.h.
#include "base/stop_signal.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <csignal>
#include <mutex>
#include <thread>

namespace nanotrn {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// 0 = no signal yet. Written by the watcher thread (or the fallback handler) and clear_stop_signal.
std::atomic<int> g_received{0};

// Only for a thread that was started before install_stop_signals() and so does not block the signals.
void on_stop_signal(int sig) {
  if (g_received.load() != 0) {
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_received.store(sig);
}

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kStopSignals) sigaddset(&set, sig);
  return set;
}

// Takes the signals synchronously: no computing thread is ever interrupted by a handler. The first one is
// recorded; a second one gets its default action (the process ends as killed by it).
void watch(sigset_t set) {
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (g_received.load() != 0) {
      ::signal(sig, SIG_DFL);
      sigset_t one;
      sigemptyset(&one);
      sigaddset(&one, sig);
      pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
      ::raise(sig);  // to this thread, which now lets it through: the default action ends the process
      return;
    }
    g_received.store(sig);
  }
}

}  // namespace

void install_stop_signals() {
  // Threads started from here on (OpenMP's, oneDNN's) inherit the blocked mask, so a signal never lands in the
  // middle of their work (an asynchronous handler there was seen to corrupt oneDNN's heap under load); the watcher
  // thread takes it with sigwait. The handler covers threads that existed before this call.
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : kStopSignals) ::sigaction(sig, &action, nullptr);
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  static std::once_flag started;  // one watcher per process, however often this is called
  std::call_once(started, [set] { std::thread(watch, set).detach(); });
}

int stop_signal() { return g_received.load(); }

void clear_stop_signal() { g_received.store(0); }

std::string signal_name(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return "signal " + std::to_string(sig);
}

}  // namespace nanotrn
