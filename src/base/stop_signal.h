// A polite stop on SIGINT, SIGTERM and SIGHUP: the first signal only records itself, so that a long job can finish
// what it is doing, save, and exit; a second one ends the process at once (the signal's default action).
//
//   install_stop_signals();                                  // once, by the program (the CLI), never by a library
//   options.should_stop = [] { return stop_signal() != 0; };   // a job polls it between units of work
//   if (int sig = stop_signal()) std::exit(128 + sig);        // 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP
//
// install_stop_signals() blocks the three signals in the calling thread and every thread started after it, and
// starts one watcher thread that takes them with sigwait: call it before any worker thread exists (the CLI does, first
// thing in `train`). Send stop signals to the process (kill(getpid(), ...)), not to one thread (raise()). The
// recorded signal is the one piece of process-wide state here; libraries take a should_stop callback instead.
#pragma once

#include <string>

namespace nanotrn {

void install_stop_signals();
// The first stop signal received since install_stop_signals() (or clear_stop_signal()); 0 when none.
int stop_signal();
// Forgets a received signal (for tests that raise one).
void clear_stop_signal();
// "SIGINT", "SIGTERM", "SIGHUP", else "signal N".
std::string signal_name(int sig);

}  // namespace nanotrn
