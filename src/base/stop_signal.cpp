// Stop signals. See stop_signal.h.
#include "base/stop_signal.h"

#include <signal.h>

#include <csignal>

namespace nanotrn {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Written only by the handler (and clear_stop_signal); 0 = no signal yet.
volatile std::sig_atomic_t g_received = 0;

void on_stop_signal(int sig) {
  if (g_received != 0) {
    // The second signal: the default action, at once (async-signal-safe calls only).
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    return;
  }
  g_received = sig;
}

}  // namespace

void install_stop_signals() {
  struct sigaction action = {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : kStopSignals) ::sigaction(sig, &action, nullptr);
}

int stop_signal() { return g_received; }

void clear_stop_signal() { g_received = 0; }

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
